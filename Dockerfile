# syntax=docker/dockerfile:1
#
# edgesync: the reconciler daemon (`edgesync run`), also usable for every other command
# (`docker run --rm IMAGE plan`, `… emulator --host 0.0.0.0`).
#
# Runtime: node:24-slim. Node 24 is an LTS line (maintenance until April 2028) that every
# dependency supports; slim (Debian) rather than alpine because tini and git come from Debian
# packages and glibc avoids musl surprises in native code. Pin the digest in your own builds.
ARG NODE_IMAGE=node:24-slim

# 1. Dependencies from the manifests alone: this layer is cached until they change.
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund

# 2. Build src/ with tsc (rootDir is the repository root, so the entry point is dist/src/main.js)
#    and the status page (ui/) into dist/ui/.
FROM deps AS build
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
# The status page (ui/) is built into dist/ui/ by the same npm run build.
COPY ui ./ui
RUN npm run build

# 3. Runtime: production dependencies and dist/ only, a non-root user, tini as PID 1.
FROM ${NODE_IMAGE} AS runtime
# tini forwards SIGTERM to node and reaps children (git); git gives revisions as commit SHAs
# and runs --git-pull; ca-certificates for HTTPS remotes.
RUN apt-get update \
  && apt-get install -y --no-install-recommends tini git ca-certificates \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
# The state directory must be writable by the runtime user; the config is mounted read-only.
RUN mkdir -p /config /var/lib/edgesync && chown 1000:1000 /var/lib/edgesync
# Desired state read-only at /config, state at /var/lib/edgesync. git-sync checkouts belong
# to another user: trust them, or `git rev-parse` refuses ("dubious ownership") and the
# revision falls back to the config digest.
# The heap follows the pod's memory limit: Node reads the container's limit (cgroups), and
# --max-old-space-size-percentage=70 gives V8's old generation 70 % of it; the rest is for
# what lives outside it (Node itself, about 30 MiB; the young generation; buffers). Without
# it Node sizes the heap from the limit but never below about 256 MiB, so under a smaller
# limit V8 does not collect before the kernel's OOM killer ends the process. A share of the
# limit, never a fixed size: a fixed cap turns a bigger repository into a crash loop. The
# limit to set per number of resources: docs/performance.md, "Memory limit per number of
# resources". A small young generation (4 MB semi-spaces) keeps what a run allocates briefly
# from growing the resident set. Settings of this image, never something a user must pass.
ENV EDGESYNC_CONFIG=/config \
  EDGESYNC_STATE_DIR=/var/lib/edgesync \
  NODE_OPTIONS="--enable-source-maps --max-semi-space-size=4 --max-old-space-size-percentage=70" \
  GIT_CONFIG_COUNT=1 \
  GIT_CONFIG_KEY_0=safe.directory \
  GIT_CONFIG_VALUE_0=*
# Numeric, so Kubernetes' runAsNonRoot can verify it (the node image's "node" user).
USER 1000:1000
EXPOSE 8080
# No curl in the image: Node's own fetch. Adjust the port if you change --listen.
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:8080/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["tini", "--", "node", "dist/src/main.js"]
CMD ["run"]
