#!/bin/sh
# Restores the newest backup (or the dump named) of the stack's backups volume into a stack whose
# database and bucket are empty (a fresh host, or after `down -v`); then start it (`up -d`):
#   sh docker/restore.sh [DUMP] [-- compose command...]
# The compose command defaults to `docker compose -f docker/compose.yaml`. To restore on another
# host, first copy the backups (docker/backups of the old host, or the volume's contents) into the
# new stack's backups volume (docs/docker.md, "Backups").
set -eu
dump=""
if [ $# -gt 0 ] && [ "$1" != -- ]; then dump="$1"; shift; fi
if [ "${1:-}" = -- ]; then shift; fi
[ $# -gt 0 ] || set -- docker compose -f "$(dirname "$0")/compose.yaml"
# the database and the store only (no backup runs yet: its first dump would be of the empty database)
"$@" up -d postgres s3
"$@" run --rm -T --no-deps s3-init
if [ -z "$dump" ]; then
  dump="$("$@" run --rm -T --no-deps --entrypoint sh backup-db -c 'ls -1t /backups/db/*.dump | head -n 1' | tr -d '\r')"
fi
[ -n "$dump" ] || { echo "no dump in the backups volume" >&2; exit 1; }
echo "restoring $dump"
# pg_isready until the database answers (at most 2 minutes)
"$@" run --rm -T --no-deps --entrypoint sh backup-db -c '
  for i in $(seq 1 240); do pg_isready -q && break; sleep 0.5; done
  export PGPASSWORD="$(cat /run/secrets/postgres_password)"
  pg_restore --clean --if-exists --no-owner --exit-on-error -d "$PGDATABASE" "$1"' sh "$dump"
"$@" run --rm -T --no-deps backup-files node bin/bucket.mjs restore /backups/files
echo "restored: start the stack with $* up -d"
