#!/usr/bin/env bash
# `npm run setup:system`: installs, from Debian's packages, the system programs some test suites
# drive: chromium (the share-page browser tests), openssl (the native TLS tests), caddy (the scale
# topology), dockerd, docker-compose and debootstrap (the docker suite: a private engine, the compose stack
# and stand-in base images), tesseract (bench:statements:real compares the reader's OCR with it on the same
# pages).
# Without them `npm test` skips those suites with one line each; .ci/run runs this first and then
# requires them. Needs root (or sudo) and apt.
set -euo pipefail
# program:package
wanted=(chromium:chromium openssl:openssl caddy:caddy dockerd:docker.io docker-compose:docker-compose debootstrap:debootstrap tesseract:tesseract-ocr)
missing=()
for pair in "${wanted[@]}"; do
  command -v "${pair%%:*}" >/dev/null 2>&1 || missing+=("${pair##*:}")
done
if [ "${#missing[@]}" -eq 0 ]; then
  echo "system programs present: ${wanted[*]%%:*}"
  exit 0
fi
command -v apt-get >/dev/null 2>&1 || { echo "missing ${missing[*]}, and no apt-get here: install them with this system's package manager" >&2; exit 1; }
sudo=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null 2>&1 || { echo "missing ${missing[*]}: run as root (apt-get install ${missing[*]})" >&2; exit 1; }
  sudo=(sudo)
fi
echo "installing ${missing[*]} (apt)"
"${sudo[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq "${missing[@]}"
