#!/usr/bin/env bash
# Jest as the project runs it (npm test and the other test scripts): on the Node that package.json
# pins, with Node's VM modules on, so that Jest loads the ESM-only AI SDK packages through its
# native require(esm), as Node itself does in the worker (Jest needs that flag for it, on Node >=
# 24.9; docs/decisions/0008). This checkout's node_modules/.bin goes first on PATH (the pinned node
# and jest), so it also works where npm's PATH points at a path this user cannot reach (the
# unprivileged suites run the checkout through another path: scripts/test-unprivileged.sh).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export PATH="$root/node_modules/.bin:$PATH"
export NODE_OPTIONS="--experimental-vm-modules${NODE_OPTIONS:+ $NODE_OPTIONS}"
exec jest "$@"
