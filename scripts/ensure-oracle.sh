#!/usr/bin/env bash
# The Java oracle of the differential tests: installs, when missing, a headless JDK and Debian's
# XStream 1.4.20, Jettison 1.5.3, Jackson 2.14 (core, databind, dataformat-xml) and Woodstox 6.2.1
# packages, compiles test/oracle/*.java into dist/oracle when they changed, and prints the class path
# to run them with (the jars, then dist/oracle).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
# Each jar with the Debian package that installs it.
jars=(xstream:libxstream-java jettison:libjettison-java jackson-core:libjackson2-core-java
  jackson-databind:libjackson2-databind-java jackson-annotations:libjackson2-annotations-java
  jackson-dataformat-xml:libjackson2-dataformat-xml-java woodstox-core:libwoodstox-java stax2-api:libstax2-api-java
  xpp3:libxpp3-java)
"$root/scripts/ensure-debian.sh" javac:openjdk-17-jdk-headless $(printf '/usr/share/java/%s ' "${jars[@]/:/.jar:}") >&2
jars=("${jars[@]%%:*}")
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
