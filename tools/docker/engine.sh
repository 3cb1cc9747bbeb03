#!/usr/bin/env bash
# A private Docker engine for the docker suite (npm run test:docker): its own data root, socket
# and pid file, overlay2 storage where the kernel and the data root's filesystem allow it (vfs,
# which works everywhere but copies every layer in full, otherwise), no iptables rules, no docker0
# bridge: every container the suite starts uses the host's network, so all traffic stays on
# 127.0.0.1. The data root is kept between runs (build cache, stand-in base images).
#   tools/docker/engine.sh start   # prints DOCKER_HOST=unix://...; exits 3 when no engine can run here
#   tools/docker/engine.sh stop    # stops the engine (the data root stays)
#   tools/docker/engine.sh purge   # stops it and removes its data root
set -euo pipefail
root="${LEDGERLENS_DOCKER_ROOT:-/var/tmp/ledgerlens-docker}"
sock="$root/docker.sock"
pidfile="$root/dockerd.pid"
export DOCKER_HOST="unix://$sock"

running() { [ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null && docker version >/dev/null 2>&1; }

case "${1:-}" in
  start)
    if running; then echo "DOCKER_HOST=$DOCKER_HOST (running)"; exit 0; fi
    command -v dockerd >/dev/null 2>&1 || { echo "no dockerd here (Debian: apt-get install docker.io)" >&2; exit 3; }
    [ "$(id -u)" -eq 0 ] || { echo "dockerd needs root" >&2; exit 3; }
    mkdir -p "$root/data" "$root/exec"
    driver="${LEDGERLENS_DOCKER_STORAGE:-}"
    if [ -z "$driver" ]; then
      driver=vfs
      probe="$(mktemp -d "$root/overlay-probe.XXXXXX")"
      mkdir -p "$probe/l" "$probe/u" "$probe/w" "$probe/m"
      if mount -t overlay overlay -o "lowerdir=$probe/l,upperdir=$probe/u,workdir=$probe/w" "$probe/m" 2>/dev/null; then
        umount "$probe/m"
        driver=overlay2
      fi
      rm -rf "$probe"
    fi
    dockerd --data-root "$root/data" --exec-root "$root/exec" -H "$DOCKER_HOST" --pidfile "$pidfile" \
      --storage-driver "$driver" --iptables=false --ip-masq=false --ip6tables=false --bridge=none \
      --userland-proxy=false --log-level warn >"$root/dockerd.log" 2>&1 &
    for _ in $(seq 1 120); do
      if docker version >/dev/null 2>&1; then echo "DOCKER_HOST=$DOCKER_HOST (storage: $driver)"; exit 0; fi
      kill -0 $! 2>/dev/null || break
      sleep 0.5
    done
    echo "dockerd did not start (log: $root/dockerd.log):" >&2
    tail -n 20 "$root/dockerd.log" >&2 || true
    exit 3
    ;;
  stop | purge)
    if [ -f "$pidfile" ]; then
      pid="$(cat "$pidfile")"
      kill "$pid" 2>/dev/null || true
      for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
      kill -9 "$pid" 2>/dev/null || true
      rm -f "$pidfile"
    fi
    if [ "$1" = purge ]; then
      # vfs layers are plain folders; the exec root may hold mounts of stopped containers
      grep -o " $root/[^ ]*" /proc/mounts | sort -r | xargs -r -n1 umount -l 2>/dev/null || true
      rm -rf "$root"
    fi
    ;;
  *)
    echo "usage: $0 start|stop|purge" >&2
    exit 2
    ;;
esac
