#!/usr/bin/env bash
# Regenerates test/conformance/characters/vectors.json by asking the real Java serializers (Debian's
# XStream 1.4.20, Jettison 1.5.3, Jackson 2.14, Woodstox 6.2.1 on OpenJDK 17), installing them when missing.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/ensure-debian.sh" javac:openjdk-17-jdk-headless
jars=(xstream jettison jackson-core jackson-databind jackson-annotations jackson-dataformat-xml woodstox-core stax2-api xpp3)
missing=()
for j in "${jars[@]}"; do [ -f "/usr/share/java/$j.jar" ] || missing+=("$j"); done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends libxstream-java libjettison-java \
    libjackson2-databind-java libjackson2-dataformat-xml-java libwoodstox-java libxpp3-java >/dev/null
fi
cp=$(printf '/usr/share/java/%s.jar:' "${jars[@]}")
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
javac -nowarn -d "$out" -cp "$cp" "$root/test/oracle/CharacterVectors.java"
java -cp "$cp$out" CharacterVectors > "$root/test/conformance/characters/vectors.json"
sha256sum "$root/test/conformance/characters/vectors.json"
