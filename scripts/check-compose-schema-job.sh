#!/usr/bin/env bash
# Runs the compose file's schema job (deploy/scripts/setup-postgres.sh) here, as the admin-tools
# image runs it: under /bin/sh, with `temporal-sql-tool` on PATH, against a scratch PostgreSQL of its
# own (initdb + pg_ctl on a free loopback port, in a temp directory, stopped and deleted at the end).
# Checks that the first run creates both databases with both schemas at the newest versioned
# schema, and that a second run succeeds and changes nothing. .ci/run runs it after the cluster
# tests. What it needs:
#   - the image's pair: the SQL tool and the schema files of the Temporal version that
#     docker-compose.yml's `temporalio/admin-tools` tag names (the tool and the schema must come from
#     one tag: an older tool cannot parse a newer visibility schema). The tool is built from
#     go.temporal.io/server/cmd/tools/sql at that version into the cache (scripts/lib/go-install.sh),
#     under Go 1.27 (that module needs a newer Go than this machine's: go_use_newer_toolchain);
#   - PostgreSQL's bin folder (newest /usr/lib/postgresql/<n>/bin, or PG_BIN).
# Prints "compose schema job (temporal-sql-tool vX): N of M checks passed" and exits non-zero on any failure.
set -euo pipefail
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export PATH="$PATH:/usr/local/go/bin"

source "$repo_root/scripts/lib/go-install.sh"
go_use_newer_toolchain
source "$repo_root/scripts/lib/compose-versions.sh"
version="$(compose_image_version temporalio/admin-tools)"
tool_dir="${AGENT_TEAMS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/agent-teams-temporal}/temporal-sql-tool-$version"
go_install_cached temporal-sql-tool "$version" "$tool_dir" go.temporal.io/server/cmd/tools/sql
module_dir="$(go mod download -json "go.temporal.io/server@$version" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')"
schema_dir="$module_dir/schema/postgresql/v12"
pg_bin="${PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)}"
[[ -x "$pg_bin/initdb" && -d "$schema_dir/temporal/versioned" ]] || { echo "check-compose-schema-job: need $pg_bin/initdb and $schema_dir" >&2; exit 1; }

work="$(mktemp -d /var/tmp/compose-schema-job-XXXXXX)"
chmod 755 "$work"
as_postgres() { if [[ "$(id -u)" == 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi; }
cleanup() {
  as_postgres "$pg_bin/pg_ctl" -D "$work/pg" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

port="$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
mkdir -p "$work/pg" "$work/bin"
[[ "$(id -u)" == 0 ]] && chown postgres:postgres "$work/pg"
# Passwords over TCP (as in the postgres image), so the job must pass SQL_PASSWORD; the socket, for the
# checks below, trusts the postgres user.
as_postgres "$pg_bin/initdb" -D "$work/pg" -U postgres --auth-local=trust --auth-host=scram-sha-256 -E UTF8 --no-locale >/dev/null
as_postgres "$pg_bin/pg_ctl" -D "$work/pg" -w -l "$work/pg/server.log" -o "-p $port -c listen_addresses=127.0.0.1 -k $work/pg" start >/dev/null
psql() { as_postgres "$pg_bin/psql" -h "$work/pg" -p "$port" -U postgres -tAc "$@"; }
psql "CREATE ROLE temporal LOGIN CREATEDB PASSWORD 'temporal'" >/dev/null
ln -s "$tool_dir/sql" "$work/bin/temporal-sql-tool"

job() {
  env -i PATH="$work/bin:/usr/bin:/bin" HOME="$work" POSTGRES_SEEDS=127.0.0.1 DB_PORT="$port" POSTGRES_USER=temporal SQL_PASSWORD=temporal \
    TEMPORAL_SCHEMA_DIR="$schema_dir" sh "$repo_root/deploy/scripts/setup-postgres.sh" >"$work/job-$1.log" 2>&1
}
newest() { ls "$schema_dir/$1/versioned" | sed 's/^v//' | sort -V | tail -1; }
version_of() { psql "SELECT curr_version FROM schema_version" -d "$1" 2>/dev/null | tr -d '[:space:]'; }
tables_of() { psql "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'" -d "$1" | tr -d '[:space:]'; }

passed=0 failed=0
check() {
  if [[ "$2" == "$3" ]]; then passed=$((passed + 1)); echo "ok: $1 ($2)"; else failed=$((failed + 1)); echo "FAIL: $1: got '$2', expected '$3'"; fi
}

job 1 && first=0 || first=$?
check "first run exits 0" "$first" 0
check "temporal schema at the newest version" "$(version_of temporal)" "$(newest temporal)"
check "temporal_visibility schema at the newest version" "$(version_of temporal_visibility)" "$(newest visibility)"
tables_before="$(tables_of temporal)/$(tables_of temporal_visibility)"
job 2 && second=0 || second=$?
check "second run exits 0" "$second" 0
check "second run leaves the schema versions" "$(version_of temporal)/$(version_of temporal_visibility)" "$(newest temporal)/$(newest visibility)"
check "second run leaves the tables" "$(tables_of temporal)/$(tables_of temporal_visibility)" "$tables_before"
if [[ $failed -ne 0 ]]; then echo "--- first run ---"; cat "$work/job-1.log"; echo "--- second run ---"; cat "$work/job-2.log"; fi
echo "compose schema job (temporal-sql-tool $version): $passed of $((passed + failed)) checks passed"
[[ $failed -eq 0 ]]
