#!/usr/bin/env bash
# The Java oracle of the differential tests: installs, when missing, a headless JDK and Debian's
# XStream 1.4.20, Jettison 1.5.3, Jackson 2.14 (core, databind, dataformat-xml) and Woodstox 6.2.1
# packages, compiles test/oracle/*.java into dist/oracle when they changed, and prints the class path
# to run them with (the jars, then dist/oracle).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/ensure-debian.sh" javac:openjdk-17-jdk-headless >&2
jars=(xstream jettison jackson-core jackson-databind jackson-annotations jackson-dataformat-xml woodstox-core stax2-api xpp3)
missing=()
for j in "${jars[@]}"; do [ -f "/usr/share/java/$j.jar" ] || missing+=("$j"); done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null 2>&1 || { echo "missing ${missing[*]}; installing needs root" >&2; exit 1; }
    SUDO=sudo
  fi
  echo "installing the Java serializers (Debian packages) for the oracle" >&2
  $SUDO apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends libxstream-java libjettison-java \
    libjackson2-databind-java libjackson2-dataformat-xml-java libwoodstox-java libxpp3-java >/dev/null
  for j in "${jars[@]}"; do [ -f "/usr/share/java/$j.jar" ] || { echo "/usr/share/java/$j.jar still missing" >&2; exit 1; }; done
fi
cp=$(printf '/usr/share/java/%s.jar:' "${jars[@]}")
out="$root/dist/oracle"
stamp="$out/.sources.sha256"
sum=$(cat "$root"/test/oracle/*.java | sha256sum | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$sum" ]; then
  rm -rf "$out" && mkdir -p "$out"
  javac -nowarn -encoding UTF-8 -d "$out" -cp "$cp" "$root"/test/oracle/*.java >&2
  echo "$sum" > "$stamp"
fi
echo "$cp$out"
