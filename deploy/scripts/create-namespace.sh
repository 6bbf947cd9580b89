#!/bin/sh
# One-shot job `temporal-namespace` in docker-compose.yml (image temporalio/admin-tools), run once
# the server is healthy: waits until the cluster answers Temporal's gRPC health check, creates the
# namespace with its retention (or sets the retention if the namespace exists), then registers the
# project's search attributes in it. The worker starts only after this exits 0.
#
#   TEMPORAL_ADDRESS     frontend host:port (required)
#   NAMESPACE            default: default
#   NAMESPACE_RETENTION  how long closed workflows are kept, default 72h (as `npm run cluster`)
#   SEARCH_ATTRIBUTES    space-separated Name=Type pairs (required; docker-compose.yml keeps them equal
#                        to SEARCH_ATTRIBUTE_REGISTRATIONS in shared/contract/searchAttributes.ts)
#   MAX_ATTEMPTS, SLEEP_SECONDS  retries of each step and the pause between them, default 60 x 5 s
#
# Idempotent: a registered attribute of the same type is left as it is. Written for the alpine
# image's /bin/sh (POSIX sh, no bash); test/integration/composeNamespaceJob.test.ts runs it against a dev server.
set -eu

: "${TEMPORAL_ADDRESS:?TEMPORAL_ADDRESS is required}"
: "${SEARCH_ATTRIBUTES:?SEARCH_ATTRIBUTES (Name=Type pairs) is required}"
namespace="${NAMESPACE:-default}"
retention="${NAMESPACE_RETENTION:-72h}"
max_attempts="${MAX_ATTEMPTS:-60}"
sleep_seconds="${SLEEP_SECONDS:-5}"

# retry <what> <command...>: runs the command until it succeeds, at most max_attempts times.
retry() {
  what="$1"
  shift
  attempt=1
  until "$@"; do
    if [ "$attempt" -ge "$max_attempts" ]; then
      echo "temporal-namespace: gave up on $what after $attempt attempts" >&2
      exit 1
    fi
    echo "temporal-namespace: $what not done yet (attempt $attempt/$max_attempts), retrying in ${sleep_seconds}s"
    attempt=$((attempt + 1))
    sleep "$sleep_seconds"
  done
}

# Checked first: a configuration mistake fails at once, not after the retries.
set --
for pair in $SEARCH_ATTRIBUTES; do
  case "$pair" in
    ?*=?*) set -- "$@" --name "${pair%%=*}" --type "${pair#*=}" ;;
    *) echo "temporal-namespace: '$pair' in SEARCH_ATTRIBUTES is not Name=Type" >&2; exit 1 ;;
  esac
done

retry "the cluster health check" temporal operator cluster health --address "$TEMPORAL_ADDRESS"

upsert_namespace() {
  if temporal operator namespace describe --namespace "$namespace" --address "$TEMPORAL_ADDRESS" >/dev/null 2>&1; then
    temporal operator namespace update --namespace "$namespace" --retention "$retention" --address "$TEMPORAL_ADDRESS"
  else
    temporal operator namespace create --namespace "$namespace" --retention "$retention" --address "$TEMPORAL_ADDRESS"
  fi
}
retry "namespace $namespace with retention $retention" upsert_namespace

# Right after a create the frontend may not see the namespace yet: the retry covers that too.
retry "the search attributes $SEARCH_ATTRIBUTES" temporal operator search-attribute create --namespace "$namespace" "$@" --address "$TEMPORAL_ADDRESS"
echo "temporal-namespace: namespace $namespace (retention $retention) has the search attributes $SEARCH_ATTRIBUTES"
