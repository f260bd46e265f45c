#!/usr/bin/env bash
# The load generator of bench/e2e: wrk from Debian. Installs it when it is missing.
set -euo pipefail
command -v wrk >/dev/null 2>&1 && exit 0
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO=sudo; else echo "wrk is missing and installing it needs root: apt-get install wrk" >&2; exit 1; fi
else SUDO=""
fi
echo "installing wrk (Debian package) for the benchmarks" >&2
$SUDO apt-get update -qq >/dev/null
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq wrk >/dev/null
command -v wrk >/dev/null
