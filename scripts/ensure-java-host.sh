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
# Each jar with the Debian package that installs it.
jars=(spring3-context:libspring-context-java spring3-beans:libspring-beans-java spring3-core:libspring-core-java
  spring3-expression:libspring-expression-java spring3-aop:libspring-aop-java commons-logging:libcommons-logging-java
  xstream:libxstream-java jettison:libjettison-java xpp3:libxpp3-java jackson-core:libjackson2-core-java
  jackson-databind:libjackson2-databind-java jackson-annotations:libjackson2-annotations-java
  jackson-dataformat-xml:libjackson2-dataformat-xml-java woodstox-core:libwoodstox-java stax2-api:libstax2-api-java
  protobuf:libprotobuf-java swagger-annotations:libswagger-core-java)
"$root/scripts/ensure-debian.sh" javac:openjdk-17-jdk-headless protoc:protobuf-compiler \
  $(printf '/usr/share/java/%s ' "${jars[@]/:/.jar:}") >&2
jars=("${jars[@]%%:*}")
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
