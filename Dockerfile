# One image for the three processes; the command picks which one runs:
#   node dist/api/main.js       merchant API, hosted page, admin API (PORT, default 3000)
#   node dist/worker/main.js    Temporal worker (metrics on WORKER_METRICS_PORT, default 9464)
#   node dist/sandbox/main.js   gateway sandbox (SANDBOX_PORT, default 4010)
# Configuration is environment only (platform/config.ts); nothing is baked in but NODE_ENV=production (what an
# unset NODE_ENV means anyway: secrets are required, no dev default applies) and the path of the prebuilt
# workflow bundle. Plain Dockerfile syntax (no BuildKit mounts), so the classic builder that
# docker-compose v1 drives builds it too.

ARG NODE_IMAGE=node:20-bookworm-slim

# Debian (glibc) rather than Alpine: @temporalio/core-bridge ships prebuilt glibc binaries.
FROM ${NODE_IMAGE} AS base
WORKDIR /app
ENV NPM_CONFIG_UPDATE_NOTIFIER=false \
    NPM_CONFIG_FUND=false \
    NPM_CONFIG_AUDIT=false

# All dependencies, exactly as the committed lockfile says. Only the manifests are copied, so this layer is
# rebuilt when dependencies change, not on every source edit.
FROM base AS deps
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --loglevel=error

# Compile to dist/ and prebuild the workflow bundle (dist/workflow-bundle.js), so workers start without
# running webpack.
FROM deps AS build
COPY . .
# `npm run build` also copies the files tsc does not emit (hosted-page assets) next to the compiled output.
RUN npm run build \
 && test -f dist/api/hosted/assets/checkout.js \
 && test -f dist/api/main.js \
 && test -f dist/worker/main.js \
 && test -f dist/sandbox/main.js \
 && test -f dist/workflow-bundle.js

# Production dependencies only, from the same lockfile.
FROM base AS prod-deps
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund --loglevel=error \
 && npm cache clean --force

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    WORKFLOW_BUNDLE_PATH=/app/dist/workflow-bundle.js
WORKDIR /app
# Owned by root and not writable by the process user: the app never writes its own code or dependencies.
COPY package.json ./
COPY --from=prod-deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# The node image's unprivileged user (uid 1000).
USER node
EXPOSE 3000 4010 9464
# Node does not reap children or forward signals as PID 1 by itself: run with `docker run --init`
# (docker-compose.yml sets `init: true`).
CMD ["node", "dist/api/main.js"]
