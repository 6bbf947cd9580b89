#!/usr/bin/env bash
# The attacker suites of issue 20 as an unprivileged user: CI runs as root, and bubblewrap as root
# is not what a deployed worker (the image's `node` user) runs. As root, this creates the user
# agent-teams-test (once) and runs the suites as it; as any other user, it runs them as that user.
set -euo pipefail
cd "$(dirname "$0")/.."
suites='host/(checkoutEscape|gitProtection|bashSandbox)\.test'
if [[ $(id -u) -ne 0 ]]; then
  echo "unprivileged suites as $(id -un) (uid $(id -u))"
  exec npx jest --selectProjects host --testPathPatterns "$suites"
fi
user=agent-teams-test
id "$user" >/dev/null 2>&1 || useradd --create-home --shell /bin/bash "$user"
home="$(getent passwd "$user" | cut -d: -f6)"
# The checkout must be readable by the user (a fresh clone under /work is; a mode-700 home is not).
if ! runuser -u "$user" -- test -r package.json; then
  echo "test:unprivileged: $user cannot read $(pwd); clone the repository where other users can read it" >&2
  exit 1
fi
echo "unprivileged suites as $user (uid $(id -u "$user"))"
exec runuser -u "$user" -- env HOME="$home" PATH="$PATH" \
  npx jest --selectProjects host --testPathPatterns "$suites" --cacheDirectory "/tmp/jest-$user"
