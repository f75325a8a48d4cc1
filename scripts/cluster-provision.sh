#!/usr/bin/env bash
# Installs the production-shaped stack's servers (Temporal server in cluster mode and its SQL schema tool),
# built from the Go module proxy into the per-user cache shared by every clone (like FerretDB in
# provision.sh), and links them into .tools/bin. Idempotent: a second run is a few existence checks.
# PostgreSQL is the machine's (Debian's postgresql-15, installed by provision.sh when missing and we are root);
# FerretDB comes from provision.sh.
set -euo pipefail

TEMPORAL_SERVER_VERSION=v1.32.0

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cache="${PAYORCH_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/payorch}"
bin="$root/.tools/bin"
mkdir -p "$cache" "$bin"
log() { printf '[cluster-provision] %s\n' "$*" >&2; }

PROVISION_POSTGRES=1 "$root/scripts/provision.sh"

dest="$cache/temporal-server-$TEMPORAL_SERVER_VERSION"
if [ ! -x "$dest/bin/temporal-server" ] || [ ! -x "$dest/bin/temporal-sql-tool" ] || [ ! -d "$dest/schema/postgresql" ]; then
  log "building Temporal server $TEMPORAL_SERVER_VERSION from the Go module proxy (about 7 minutes the first time on 2 cores)"
  started=$(date +%s)
  rm -rf "$dest.tmp" && mkdir -p "$dest.tmp/bin"
  # Built one after the other: each link step of the server alone takes most of the memory of a small machine.
  GOBIN="$dest.tmp/bin" GOFLAGS=-mod=mod nice -n 10 go install "go.temporal.io/server/cmd/server@$TEMPORAL_SERVER_VERSION"
  GOBIN="$dest.tmp/bin" GOFLAGS=-mod=mod nice -n 10 go install "go.temporal.io/server/cmd/tools/sql@$TEMPORAL_SERVER_VERSION"
  mv "$dest.tmp/bin/server" "$dest.tmp/bin/temporal-server"
  mv "$dest.tmp/bin/sql" "$dest.tmp/bin/temporal-sql-tool"
  # The SQL schemas and the reference configs live in the module's source, not in the binaries: keep a copy
  # next to them so a cleaned Go module cache does not break the stack.
  src="$(cd "$(mktemp -d)" && go mod init scratch >/dev/null 2>&1 && go mod download -json "go.temporal.io/server@$TEMPORAL_SERVER_VERSION" | python3 -c 'import json,sys; print(json.load(sys.stdin)["Dir"])')"
  cp -r "$src/schema" "$dest.tmp/schema"
  cp -r "$src/config" "$dest.tmp/config"
  chmod -R u+w "$dest.tmp"
  rm -rf "$dest" && mv "$dest.tmp" "$dest"
  log "built in $(( $(date +%s) - started )) s"
fi
ln -sf "$dest/bin/temporal-server" "$bin/temporal-server"
ln -sf "$dest/bin/temporal-sql-tool" "$bin/temporal-sql-tool"
ln -sfn "$dest/schema" "$root/.tools/temporal-schema"
ln -sfn "$dest/config" "$root/.tools/temporal-config"
log "ready: temporal-server temporal-sql-tool $("$bin/temporal-server" --version 2>/dev/null | head -1 || true)"
