#!/usr/bin/env bash
# The attacker suites of issue 20 as an unprivileged user: CI runs as root, and bubblewrap as root
# is not what a deployed worker (the image's `node` user) runs. As root, this creates the user
# agent-teams-test (once) and runs the suites as it; as any other user, it runs them as that user.
set -euo pipefail
cd "$(dirname "$0")/.."
suites='host/(checkoutEscape|gitProtection|bashSandbox|sandboxContainment|attack[A-Za-z]*)\.test'
if [[ $(id -u) -ne 0 ]]; then
  echo "unprivileged suites as $(id -un) (uid $(id -u))"
  exec bash scripts/jest.sh --selectProjects host --testPathPatterns "$suites"
fi
user=agent-teams-test
id "$user" >/dev/null 2>&1 || useradd --create-home --shell /bin/bash "$user"
home="$(getent passwd "$user" | cut -d: -f6)"
run_as_user() {
  echo "unprivileged suites as $user (uid $(id -u "$user")) in $(pwd)"
  exec runuser -u "$user" -- env HOME="$home" PATH="$PATH" \
    bash scripts/jest.sh --selectProjects host --testPathPatterns "$suites" --cacheDirectory "/tmp/jest-$user"
}
if runuser -u "$user" -- test -r "$(pwd)/package.json"; then run_as_user; fi
# The checkout lies where the user cannot reach it (a fresh clone under a mode-700 mktemp -d): show
# it at a reachable path in a mount namespace of this script's own, changing no permission.
view="$(mktemp -d /var/tmp/agent-teams-unprivileged-XXXXXX)"
chmod 755 "$view"
trap 'rmdir "$view" 2>/dev/null || true' EXIT
AGENT_TEAMS_UNPRIVILEGED_VIEW="$view" unshare --mount --propagation private bash -c '
  set -euo pipefail
  mount --bind "$1" "$AGENT_TEAMS_UNPRIVILEGED_VIEW"
  cd "$AGENT_TEAMS_UNPRIVILEGED_VIEW"
  echo "unprivileged suites as $2 (uid $(id -u "$2")) in $1, shown at $AGENT_TEAMS_UNPRIVILEGED_VIEW"
  runuser -u "$2" -- env HOME="$3" PATH="$PATH" bash scripts/jest.sh --selectProjects host --testPathPatterns "$4" --cacheDirectory "/tmp/jest-$2"
' bash "$(pwd)" "$user" "$home" "$suites"
