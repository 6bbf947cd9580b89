# Worker image for durable Agent Teams (Temporal TypeScript SDK 1.24.0, Node 20).
# Built by the `worker` service in docker-compose.yml; usable on its own as well:
#   docker build -t agent-teams-worker .
#   docker run --rm -e TEMPORAL_ADDRESS=my-temporal:7233 agent-teams-worker
FROM node:20-bookworm-slim

# bubblewrap: the sandbox the bash work tool runs in (see README, "The bash sandbox").
RUN apt-get update \
    && apt-get install -y --no-install-recommends bubblewrap \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /app
RUN chown node:node /app
USER node

# Dependencies first, so this layer is reused while only the source changes.
# All dependencies are installed (not --omit=dev): the worker runs through ts-node and typescript,
# which are devDependencies. @temporalio/core-bridge ships its prebuilt native library for
# linux x64/arm64 (glibc) inside the npm package, which this Debian-based image satisfies.
COPY --chown=node:node package.json package-lock.json ./
RUN npm ci --no-audit --no-fund

COPY --chown=node:node . .

ENV TEMPORAL_ADDRESS=temporal:7233 \
    TEMPORAL_NAMESPACE=default \
    TEMPORAL_TASK_QUEUE=agent-teams

CMD ["npx", "ts-node", "worker/main.ts"]
