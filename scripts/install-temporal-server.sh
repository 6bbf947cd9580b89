#!/usr/bin/env bash
# Installs the Temporal server (go.temporal.io/server: `server`, run once per service by
# `npm run cluster`) and its SQL schema tool (`sql`) from their Go module at a pinned version into a
# cache outside the checkout. Does nothing when that version is there.
#   bash scripts/install-temporal-server.sh               # install if needed
#   bash scripts/install-temporal-server.sh --print-dir   # install if needed, print the directory on stdout
# Environment:
#   TEMPORAL_SERVER_VERSION  default v1.29.1, the dev server's (it has no go.mod replace directive, so
#                            `go install` works); versions from 1.30 on need Go 1.27 here:
#                            GOTOOLCHAIN=go1.27.3 (scripts/test-cluster-image-server.sh sets both)
#   AGENT_TEAMS_CACHE        default ${XDG_CACHE_HOME:-$HOME/.cache}/agent-teams-temporal
set -euo pipefail
source "$(dirname "$0")/lib/go-install.sh"

VERSION="${TEMPORAL_SERVER_VERSION:-v1.29.1}"
CACHE_ROOT="${AGENT_TEAMS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/agent-teams-temporal}"
DEST="$CACHE_ROOT/temporal-server-$VERSION"

go_install_cached temporal-server "$VERSION" "$DEST" go.temporal.io/server/cmd/server go.temporal.io/server/cmd/tools/sql
if [[ "${1:-}" == "--print-dir" ]]; then echo "$DEST"; fi
