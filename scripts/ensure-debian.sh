#!/usr/bin/env bash
# Installs Debian packages the tests and benchmarks need when their command is missing:
#   scripts/ensure-debian.sh wrk:wrk nginx:nginx-light chromium:chromium
#   scripts/ensure-debian.sh /usr/share/java/xstream.jar:libxstream-java
# Each argument is command:package, or /file:package for a package that installs no command (a
# library's jar). Nothing is installed when every command and file is already there.
set -euo pipefail
missing=()
there() { case $1 in /*) [ -e "$1" ] ;; *) command -v "$1" >/dev/null 2>&1 ;; esac; }
for pair in "$@"; do
  there "${pair%%:*}" || missing+=("${pair#*:}")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO=sudo; else echo "missing ${missing[*]}; installing needs root: apt-get install ${missing[*]}" >&2; exit 1; fi
else SUDO=""
fi
echo "installing ${missing[*]} (Debian packages)" >&2
$SUDO apt-get update -qq >/dev/null
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
for pair in "$@"; do there "${pair%%:*}" || { echo "${pair%%:*} still missing" >&2; exit 1; }; done
