#!/usr/bin/env bash
# The Java host of Java microservices (docs/java.md): installs, when missing, OpenJDK 17 and Debian's jars
# the platform provides to them (Spring 4.3's context, XStream + Jettison, Jackson + Woodstox, protobuf-java
# with protoc), generates the protocol classes from proto/gateway.proto, compiles java/api into
# dist/java/platform-api.jar and java/host into dist/java/host when their sources changed, writes the
# host's class path to dist/java/classpath and prints it. scripts/build-java-package.sh builds packages
# against it.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
# One install and build at a time: test files run in parallel, and each may be the first to ask.
mkdir -p "$root/dist"
exec 9>"$root/dist/.java-host.lock"
flock 9
"$root/scripts/ensure-debian.sh" javac:openjdk-17-jdk-headless protoc:protobuf-compiler >&2
jars=(spring3-context spring3-beans spring3-core spring3-expression spring3-aop commons-logging
  xstream jettison xpp3 jackson-core jackson-databind jackson-annotations jackson-dataformat-xml woodstox-core stax2-api
  protobuf swagger-annotations)
missing=()
for j in "${jars[@]}"; do [ -f "/usr/share/java/$j.jar" ] || missing+=("$j"); done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null 2>&1 || { echo "missing ${missing[*]}; installing needs root" >&2; exit 1; }
    SUDO=sudo
  fi
  echo "installing the Java host's libraries (Debian packages)" >&2
  $SUDO apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends libspring-context-java \
    libcommons-logging-java libxstream-java libjettison-java libxpp3-java libjackson2-databind-java \
    libjackson2-dataformat-xml-java libwoodstox-java libprotobuf-java libswagger-core-java >/dev/null
  for j in "${jars[@]}"; do [ -f "/usr/share/java/$j.jar" ] || { echo "/usr/share/java/$j.jar still missing" >&2; exit 1; }; done
fi
libs=$(printf '/usr/share/java/%s.jar:' "${jars[@]}")
out="$root/dist/java"
api="$out/platform-api.jar"
cp="$libs$api:$out/host"
stamp="$out/.sources.sha256"
sum=$(cat "$0" "$root/proto/gateway.proto" $(find "$root/java" -name '*.java' | sort) | sha256sum | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$sum" ] || [ ! -f "$out/classpath" ]; then
  rm -rf "$out" && mkdir -p "$out/gen" "$out/api" "$out/host"
  protoc --java_out="$out/gen" -I "$root/proto" "$root/proto/gateway.proto"
  javac -nowarn -encoding UTF-8 --release 17 -d "$out/api" $(find "$root/java/api" -name '*.java')
  jar --create --file "$api" -C "$out/api" .
  # sun.misc.Signal (jdk.unsupported): the host decides itself what SIGTERM means (docs/java.md, Stopping).
  javac -nowarn -XDignore.symbol.file -encoding UTF-8 --release 17 -d "$out/host" -cp "$libs$api" \
    $(find "$out/gen" -name '*.java') $(find "$root/java/host" -name '*.java') 2>&1 | grep -v "^Note:" >&2 || true
  [ -f "$out/host/platform/host/Host.class" ] || { echo "the Java host did not compile" >&2; exit 1; }
  rm -rf "$out/gen" "$out/api"
  echo "$cp" > "$out/classpath"
  echo "$sum" > "$stamp"
fi
cat "$out/classpath"
