#!/usr/bin/env bash
# Jest as the project runs it (npm test and the other test scripts): with Node's VM modules on, so
# that Jest loads the ESM-only AI SDK packages through its native require(esm), as Node itself does
# in the worker (Jest needs that flag for it, on Node >= 24.9; docs/decisions/0008). Run it from an
# npm script (npm test, npm run test:unit, ...), which puts the pinned Node and jest on PATH.
set -euo pipefail
export NODE_OPTIONS="--experimental-vm-modules${NODE_OPTIONS:+ $NODE_OPTIONS}"
exec jest "$@"
