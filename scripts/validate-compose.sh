#!/usr/bin/env bash
# Validates the self-hosted deployment description without a Docker engine:
#   1. `docker-compose config -q` (Debian's docker-compose 1.29.2) must accept the file;
#   2. the services postgresql, temporal, temporal-ui and worker, and the one-shot jobs
#      temporal-schema (schema setup) and temporal-namespace (namespace and search attributes),
#      must be defined.
# Nothing is pulled, built or started.
#
# Usage: scripts/validate-compose.sh [compose-file]    (default: docker-compose.yml at the repo root)
# If docker-compose is not on PATH and we are root, installs Debian's docker-compose package.
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo_root"

compose_file="${1:-docker-compose.yml}"
required_services=(postgresql temporal-schema temporal temporal-namespace temporal-ui worker)

fail() {
  echo "validate-compose: FAIL: $*" >&2
  exit 1
}

[ -f "$compose_file" ] || fail "compose file '$compose_file' not found (from $repo_root)"

if ! command -v docker-compose >/dev/null 2>&1; then
  if [ "$(id -u)" -ne 0 ]; then
    fail "docker-compose is not on PATH and this is not root; install it (Debian: apt-get install docker-compose) and re-run"
  fi
  command -v apt-get >/dev/null 2>&1 || fail "docker-compose is not on PATH and apt-get is not available to install it"
  echo "validate-compose: docker-compose not found; installing Debian's docker-compose package" >&2
  export DEBIAN_FRONTEND=noninteractive
  # --no-install-recommends: the package recommends docker.io (the engine), which is not needed
  # to validate a file.
  if ! apt-get install -y --no-install-recommends docker-compose; then
    echo "validate-compose: install failed; running apt-get update and retrying" >&2
    apt-get update || fail "apt-get update failed"
    apt-get install -y --no-install-recommends docker-compose || fail "apt-get install docker-compose failed"
  fi
  command -v docker-compose >/dev/null 2>&1 || fail "docker-compose still not on PATH after installing it"
fi

echo "validate-compose: using $(docker-compose version --short 2>/dev/null || echo 'docker-compose (unknown version)') on $compose_file"

if ! docker-compose -f "$compose_file" config -q; then
  fail "docker-compose -f $compose_file config -q rejected the file (see the error above)"
fi

services="$(docker-compose -f "$compose_file" config --services)" \
  || fail "docker-compose -f $compose_file config --services failed"

missing=()
for service in "${required_services[@]}"; do
  if ! grep -qxF -- "$service" <<<"$services"; then
    missing+=("$service")
  fi
done
if [ "${#missing[@]}" -ne 0 ]; then
  fail "missing service(s) in $compose_file: ${missing[*]} (defined: $(echo "$services" | tr '\n' ' '))"
fi

echo "validate-compose: OK: $compose_file is valid and defines: ${required_services[*]}"
