#!/bin/sh
# One-shot job `temporal-schema` in docker-compose.yml (image temporalio/admin-tools): creates the
# two PostgreSQL databases Temporal needs and brings both schemas to the version this admin-tools
# image ships (/etc/temporal/schema), with Temporal's SQL tool. Re-running it is safe (the tool's
# own behaviour): `create` leaves an existing database alone, `setup-schema -v 0.0` skips a schema
# already past 0.0, and `update-schema` applies only the versions not yet applied, so the same job
# also upgrades the schema after the image tags are raised. The server starts only after this exits 0.
# Written for the alpine image's /bin/sh (POSIX sh, no bash).
set -eu

: "${POSTGRES_SEEDS:?POSTGRES_SEEDS (the database host) is required}"
: "${POSTGRES_USER:?POSTGRES_USER is required}"
: "${SQL_PASSWORD:?SQL_PASSWORD (the database password) is required}"
port="${DB_PORT:-5432}"
schema_dir="${TEMPORAL_SCHEMA_DIR:-/etc/temporal/schema/postgresql/v12}"

sql_tool() {
  temporal-sql-tool --plugin postgres12 --ep "$POSTGRES_SEEDS" -p "$port" -u "$POSTGRES_USER" "$@"
}

for pair in temporal:temporal temporal_visibility:visibility; do
  db="${pair%%:*}"
  schema="${pair#*:}"
  echo "temporal-schema: database $db, schema $schema_dir/$schema"
  sql_tool --db "$db" create
  sql_tool --db "$db" setup-schema -v 0.0
  sql_tool --db "$db" update-schema -d "$schema_dir/$schema/versioned"
done
echo "temporal-schema: both schemas are up to date"
