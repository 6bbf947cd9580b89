#!/usr/bin/env bash
# `npm run test:cluster:image-server`: the cluster suite (`npm run test:cluster`: the board, long
# life and teammate tests on two worker processes, an agent Team end to end, the three drills, the
# Web UI), then the adversarial and documented-maxima suites, on `npm run cluster` built at the
# Temporal server version that docker-compose.yml's `temporalio/server` image names, rather than the
# dev server's version that `npm run test:cluster` uses. So the server release the compose file
# deploys runs the Team here too, not only in Docker, and its payload and Update limits meet
# hostile input with 0 failed workflow tasks and 0 terminations.
# That release needs a newer Go than this machine's to build (go_use_newer_toolchain); the first
# build is cached like the other Temporal builds. The cluster lives in a directory of its own,
# stopped and deleted at the end. Exits with the tests' status.
set -euo pipefail
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$repo_root/scripts/lib/go-install.sh"
source "$repo_root/scripts/lib/compose-versions.sh"
go_use_newer_toolchain
TEMPORAL_SERVER_VERSION="$(compose_image_version temporalio/server)"
AGENT_TEAMS_CLUSTER_DIR="$(mktemp -d /var/tmp/agent-teams-image-server-cluster-XXXXXX)"
export TEMPORAL_SERVER_VERSION AGENT_TEAMS_CLUSTER_DIR
chmod 755 "$AGENT_TEAMS_CLUSTER_DIR" # the postgres user reaches its data folder through it
echo "test:cluster:image-server: Temporal server $TEMPORAL_SERVER_VERSION (docker-compose.yml's temporalio/server), cluster in $AGENT_TEAMS_CLUSTER_DIR"
cd "$repo_root"
# Stopped and deleted however this ends (a failed build, a failed test, Ctrl-C).
trap 'npm run --silent cluster -- --down --wipe' EXIT
set +e
npm run test:cluster
status=$?
cat test-artifacts/cluster/drills.txt 2>/dev/null || echo "drills: no results written"
AGENT_TEAMS_TEST_TARGET=cluster bash scripts/jest.sh --selectProjects integration --runInBand --testPathPatterns 'integration/(adversarial|maxima)\.test'
hostile_status=$?
set -e
echo "adversarial and maxima suites on Temporal server $TEMPORAL_SERVER_VERSION: exit $hostile_status"
if [[ $status -eq 0 ]]; then status=$hostile_status; fi
echo "cluster tests on Temporal server $TEMPORAL_SERVER_VERSION: exit $status"
exit $status
