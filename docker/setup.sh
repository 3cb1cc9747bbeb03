#!/bin/sh
# Writes what docker/compose.yaml needs, once, next to it (both git-ignored):
#   docker/.env          SITE_ADDRESS and the S3 store's key pair (compose reads it)
#   docker/secrets/      postgres_password, redis_password, secrets_key: random, mounted at /run/secrets
# usage: sh docker/setup.sh DOMAIN [DIR]   (localhost for a trial; DIR: another folder than docker/,
# for compose's --env-file and an override of the secrets' files). Existing secrets are kept: a new
# postgres password would not match the database's, a new SECRETS_KEY would make stored secrets
# unreadable.
set -eu
site="${1:?usage: sh docker/setup.sh DOMAIN (e.g. underwriting.example.com, or localhost for a trial)}"
dir="${2:-$(cd "$(dirname "$0")" && pwd)}"
umask 077
mkdir -p "$dir/secrets"
chmod 0700 "$dir/secrets"
secret() { # name, command printing a fresh value
  [ -s "$dir/secrets/$1" ] || sh -c "$2" >"$dir/secrets/$1"
  # the containers read them as their own users (postgres 999, redis 999, node 1000); the folder stays private
  chmod 0644 "$dir/secrets/$1"
}
random_hex() { od -An -N"$1" -tx1 /dev/urandom | tr -d ' \n'; }
secret postgres_password "od -An -N16 -tx1 /dev/urandom | tr -d ' \n'"
secret redis_password "od -An -N16 -tx1 /dev/urandom | tr -d ' \n'"
secret secrets_key "head -c 32 /dev/urandom | base64"
s3_secret="$(grep -s '^S3_SECRET_KEY=' "$dir/.env" | cut -d= -f2- || true)"
[ -n "$s3_secret" ] || s3_secret="$(random_hex 20)"
{
  echo "COMPOSE_PROJECT_NAME=ledgerlens"
  echo "SITE_ADDRESS=$site"
  echo "S3_ACCESS_KEY=ledgerlens"
  echo "S3_SECRET_KEY=$s3_secret"
} >"$dir/.env"
echo "wrote $dir/.env (SITE_ADDRESS=$site) and $dir/secrets/ (postgres_password, redis_password, secrets_key)"
