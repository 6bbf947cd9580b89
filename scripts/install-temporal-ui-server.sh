#!/usr/bin/env bash
# Installs Temporal's Web UI server (github.com/temporalio/ui-server/v2: `server`, with the UI's
# assets embedded by go:embed) from its Go module at a pinned version into a cache outside the
# checkout, for `npm run cluster`. Does nothing when that version is there.
#   bash scripts/install-temporal-ui-server.sh               # install if needed
#   bash scripts/install-temporal-ui-server.sh --print-path  # install if needed, print the binary path on stdout
# Environment:
#   TEMPORAL_UI_SERVER_VERSION  default v2.56.4: the newest that builds here. Its go.mod asks for
#                               go >= 1.26.10, so it builds under Go 1.27 (go_use_newer_toolchain); v2.58.x
#                               needs echo v4.16.1 and go.temporal.io/api v1.64.0, which this
#                               machine's module proxy refuses (403 "This module version is not available").
#   AGENT_TEAMS_CACHE           default ${XDG_CACHE_HOME:-$HOME/.cache}/agent-teams-temporal
set -euo pipefail
source "$(dirname "$0")/lib/go-install.sh"
go_use_newer_toolchain

VERSION="${TEMPORAL_UI_SERVER_VERSION:-v2.56.4}"
CACHE_ROOT="${AGENT_TEAMS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/agent-teams-temporal}"
DEST="$CACHE_ROOT/temporal-ui-server-$VERSION"

go_install_cached temporal-ui-server "$VERSION" "$DEST" github.com/temporalio/ui-server/v2/cmd/server
if [[ "${1:-}" == "--print-path" ]]; then echo "$DEST/server"; fi
