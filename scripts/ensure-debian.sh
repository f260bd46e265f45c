#!/usr/bin/env bash
# Installs Debian packages the tests and benchmarks need when their command is missing:
#   scripts/ensure-debian.sh wrk:wrk nginx:nginx-light chromium:chromium
# Each argument is command:package. Nothing is installed when every command is already there.
set -euo pipefail
missing=()
for pair in "$@"; do
  command -v "${pair%%:*}" >/dev/null 2>&1 || missing+=("${pair#*:}")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO=sudo; else echo "missing ${missing[*]}; installing needs root: apt-get install ${missing[*]}" >&2; exit 1; fi
else SUDO=""
fi
echo "installing ${missing[*]} (Debian packages)" >&2
$SUDO apt-get update -qq >/dev/null
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
for pair in "$@"; do command -v "${pair%%:*}" >/dev/null 2>&1 || { echo "${pair%%:*} still missing" >&2; exit 1; }; done
