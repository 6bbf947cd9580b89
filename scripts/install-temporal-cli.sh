#!/usr/bin/env bash
# Installs the Temporal CLI (which embeds the dev server and Web UI) from its Go module at a
# pinned version into a cache outside the checkout. Does nothing when that version is there.
#   bash scripts/install-temporal-cli.sh               # install if needed
#   bash scripts/install-temporal-cli.sh --print-path  # install if needed, print the binary path on stdout
# All progress goes to stderr. Environment:
#   TEMPORAL_CLI_VERSION  default v1.5.1 (releases from v1.6.0 carry a go.mod replace directive
#                         that `go install` refuses)
#   AGENT_TEAMS_CACHE     default ${XDG_CACHE_HOME:-$HOME/.cache}/agent-teams-temporal
set -euo pipefail
source "$(dirname "$0")/lib/go-install.sh"

VERSION="${TEMPORAL_CLI_VERSION:-v1.5.1}"
CACHE_ROOT="${AGENT_TEAMS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/agent-teams-temporal}"
DEST="$CACHE_ROOT/temporal-cli-$VERSION"

go_install_cached temporal-cli "$VERSION" "$DEST" github.com/temporalio/cli/cmd/temporal
if [[ "${1:-}" == "--print-path" ]]; then echo "$DEST/temporal"; fi
