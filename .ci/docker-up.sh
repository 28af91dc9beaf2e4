#!/usr/bin/env bash
# Make sure a Docker engine answers on this machine: install docker.io and
# busybox-static from Debian if missing, start dockerd (no iptables, no bridge,
# vfs storage: what works inside this sandbox) and wait for it.
set -euo pipefail

need=()
command -v dockerd >/dev/null 2>&1 || need+=(docker.io)
# the test images need a *static* busybox (Debian's busybox package is dynamic)
if [ ! -x /bin/busybox ] || ldd /bin/busybox >/dev/null 2>&1; then need+=(busybox-static); fi
if [ ${#need[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${need[@]}" >/dev/null
fi

if ! docker version >/dev/null 2>&1; then
  nohup dockerd --iptables=false --bridge=none --storage-driver=vfs >/tmp/dockerd.log 2>&1 &
  for _ in $(seq 1 60); do
    docker version >/dev/null 2>&1 && break
    sleep 1
  done
fi
docker version --format 'docker engine {{.Server.Version}} is up' || {
  echo "dockerd did not start; its log:" >&2
  tail -50 /tmp/dockerd.log >&2 || true
  exit 1
}
