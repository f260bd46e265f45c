#!/usr/bin/env bash
# podman as it works on hosts like the development machines (cgroup v1 "hybrid", no rlimit changes
# allowed): runc instead of crun, cgroupfs instead of systemd, and no default ulimits. On a host where
# the defaults work, IGW_PODMAN_DEFAULTS=1 runs plain podman.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if [ "${IGW_PODMAN_DEFAULTS:-}" = 1 ]; then exec podman "$@"; fi
export CONTAINERS_CONF="${CONTAINERS_CONF:-$here/containers.conf}"
exec podman --runtime runc --cgroup-manager cgroupfs "$@"
