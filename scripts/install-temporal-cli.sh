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

VERSION="${TEMPORAL_CLI_VERSION:-v1.5.1}"
CACHE_ROOT="${AGENT_TEAMS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/agent-teams-temporal}"
DEST="$CACHE_ROOT/temporal-cli-$VERSION"
BIN="$DEST/temporal"
MARKER="$DEST/.installed-version"

log() { echo "[temporal-cli] $*" >&2; }
done_path() { if [[ "${1:-}" == "--print-path" ]]; then echo "$BIN"; fi; }

if [[ -x "$BIN" && -f "$MARKER" && "$(cat "$MARKER")" == "$VERSION" ]]; then
  log "Temporal CLI $VERSION already installed at $BIN"
  done_path "${1:-}"
  exit 0
fi

# CI shells may not have Go on PATH; this machine kind keeps it in /usr/local/go/bin.
export PATH="$PATH:/usr/local/go/bin"
if ! command -v go >/dev/null 2>&1; then
  log "Go is not installed. Install Go >= 1.23 (this project expects /usr/local/go/bin/go), then run: npm run server:install"
  exit 1
fi

log "Building Temporal CLI $VERSION with $(go version | cut -d' ' -f3) into $DEST"
log "The first build downloads ~150 modules and compiles ~1,500 packages: expect 5-10 minutes on 2 cores."
mkdir -p "$DEST"
STAGE="$(mktemp -d "$CACHE_ROOT/.build-XXXXXX")"
trap 'rm -rf "$STAGE"' EXIT
start=$(date +%s)
# -v prints each package as it is compiled: show a progress line every 100 packages.
set +e
GOBIN="$STAGE" go install -v "github.com/temporalio/cli/cmd/temporal@$VERSION" 2>&1 |
  awk -v start="$start" '
    /^go: downloading/ { d++; if (d % 25 == 1) { printf "[temporal-cli] downloading modules (%d so far)\n", d > "/dev/stderr" } next }
    /^[a-z0-9.\-\/_]+$/ { n++; if (n % 100 == 0) { printf "[temporal-cli] compiled %d packages (%ds)\n", n, systime() - start > "/dev/stderr" } next }
    { print "[temporal-cli] " $0 > "/dev/stderr" }'
status=${PIPESTATUS[0]}
set -e
if [[ $status -ne 0 || ! -x "$STAGE/temporal" ]]; then
  log "go install failed (exit $status). Check network access to the Go module proxy and disk space, then re-run: npm run server:install"
  exit 1
fi
mv -f "$STAGE/temporal" "$BIN"
echo "$VERSION" > "$MARKER"
log "Installed $("$BIN" --version) at $BIN in $(( $(date +%s) - start ))s"
done_path "${1:-}"
