#!/bin/sh
# Stand-in for the official redis image's docker-entrypoint.sh (tools/docker/base-images.sh):
# options alone run redis-server; as root it first drops to the redis user.
set -e
case "$1" in -* | *.conf) set -- redis-server "$@" ;; esac
if [ "$1" = redis-server ] && [ "$(id -u)" = 0 ]; then
  chown -R redis:redis /data 2>/dev/null || :
  exec setpriv --reuid=redis --regid=redis --init-groups "$@"
fi
exec "$@"
