#!/usr/bin/env bash
# Stand-in for the official postgres image's docker-entrypoint.sh (tools/docker/base-images.sh):
# the same contract, much shortened. On an empty PGDATA: initdb with POSTGRES_USER and
# POSTGRES_PASSWORD (or POSTGRES_PASSWORD_FILE), password logins from anywhere (scram-sha-256),
# POSTGRES_DB created; then `postgres` runs in the foreground. As root it first drops to postgres.
set -euo pipefail
if [ "${1:0:1}" = '-' ]; then set -- postgres "$@"; fi
if [ "$1" = postgres ] && [ "$(id -u)" = 0 ]; then
  mkdir -p "$PGDATA" && chown -R postgres:postgres "$PGDATA" && chmod 700 "$PGDATA"
  exec setpriv --reuid=postgres --regid=postgres --init-groups "$0" "$@"
fi
if [ "$1" = postgres ] && [ ! -s "$PGDATA/PG_VERSION" ]; then
  if [ -n "${POSTGRES_PASSWORD_FILE:-}" ]; then POSTGRES_PASSWORD="$(<"$POSTGRES_PASSWORD_FILE")"; fi
  : "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD or POSTGRES_PASSWORD_FILE must be set}"
  user="${POSTGRES_USER:-postgres}"
  db="${POSTGRES_DB:-$user}"
  chmod 700 "$PGDATA" 2>/dev/null || :
  initdb --username="$user" --pwfile=<(printf '%s\n' "$POSTGRES_PASSWORD") --auth-local=trust --auth-host=scram-sha-256 \
    -D "$PGDATA" ${POSTGRES_INITDB_ARGS:-} >/dev/null
  printf "\nhost all all all scram-sha-256\n" >>"$PGDATA/pg_hba.conf"
  printf "listen_addresses = '*'\n" >>"$PGDATA/postgresql.auto.conf"
  pg_ctl -D "$PGDATA" -o "-c listen_addresses='' -c unix_socket_directories=/var/run/postgresql" -w start >/dev/null
  if [ "$db" != postgres ]; then psql -v ON_ERROR_STOP=1 -h /var/run/postgresql -U "$user" -d postgres -qc "CREATE DATABASE \"$db\""; fi
  pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
  echo "PostgreSQL init process complete; ready for start up."
fi
exec "$@"
