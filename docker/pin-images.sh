#!/bin/sh
# Pins every registry image docker/compose.yaml names to the digest its tag has on the registry
# now (image: postgres:15-bookworm -> image: postgres:15-bookworm@sha256:...), so every host runs
# the same bytes and a re-pushed tag changes nothing until you pin again. Run it on a host that
# reaches the registry, review the diff, commit it; to update later, put the plain tags back (or
# newer ones) and run it again.
#   sh docker/pin-images.sh [COMPOSE_FILE]
set -eu
file="${1:-$(dirname "$0")/compose.yaml}"
for ref in $(sed -n 's/^ *image: *\([^ #]*\).*/\1/p' "$file" | grep -v '^ledgerlens:' | sort -u); do
  name="${ref%@*}"
  docker pull -q "$name" >/dev/null
  digest="$(docker image inspect --format '{{range .RepoDigests}}{{println .}}{{end}}' "$name" | sed -n '1s/.*@//p')"
  [ -n "$digest" ] || { echo "$name: the registry gave no digest (an image built or imported locally?)" >&2; exit 1; }
  sed -i "s|image: $ref\$|image: $name@$digest|" "$file"
  echo "$name@$digest"
done
