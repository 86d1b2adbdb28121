#!/bin/sh
# Runs once, when the Postgres container initialises an empty data folder
# (/docker-entrypoint-initdb.d). Two roles, passwords from the compose secrets:
#   pis_owner  owns the schemas (public, pgboss): the one-shot `migrate` service connects as it.
#   pis_app    owns nothing: it may read and write rows, never change the schema. The service
#              connects as it (MIGRATE_ON_START=false).
# Default privileges make every table, sequence and function pis_owner creates later (every
# migration, pg-boss upgrades) usable by pis_app without another grant.
set -eu
secrets="${SECRETS_DIR:-/run/secrets}"
owner_password="$(cat "$secrets/pis_owner_password")"
app_password="$(cat "$secrets/pis_app_password")"

psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" -v DBNAME="$POSTGRES_DB" \
  -v owner_password="$owner_password" -v app_password="$app_password" <<'SQL'
create role pis_owner login password :'owner_password';
create role pis_app login password :'app_password';

alter database :"DBNAME" owner to pis_owner;
alter schema public owner to pis_owner;
revoke create on schema public from public;
create schema pgboss authorization pis_owner;

revoke all on database :"DBNAME" from public;
grant connect, temporary on database :"DBNAME" to pis_owner, pis_app;
grant usage on schema public, pgboss to pis_app;

alter default privileges for role pis_owner
  grant select, insert, update, delete on tables to pis_app;
alter default privileges for role pis_owner
  grant usage, select on sequences to pis_app;
alter default privileges for role pis_owner
  grant execute on functions to pis_app;
SQL
