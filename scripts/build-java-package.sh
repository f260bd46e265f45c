#!/usr/bin/env bash
# Builds a Java microservice package from a source folder, as a team would with its own build:
#   scripts/build-java-package.sh SOURCE TARGET
# SOURCE holds microservice.json, src/ (Java sources) and optionally resources/ (META-INF/… contexts)
# and lib/*.jar; TARGET gets the jar microservice.json names, microservice.json and lib/. It compiles
# against the platform's class path (scripts/ensure-java-host.sh: Spring, the serializers, the API jar),
# and does nothing when the sources are unchanged since the last build (its stamp, TARGET.sources.sha256,
# lies beside TARGET, not in it: what is in TARGET is packed and deployed).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
src="$(cd "$1" && pwd)"
target="$2"
cp="$("$root/scripts/ensure-java-host.sh")"
jar=$(node -e 'process.stdout.write(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).jar)' "$src/microservice.json")
# One build of a target at a time (test files run in parallel).
mkdir -p "$(dirname "$target")"
exec 9>"$target.lock"
flock 9
sum=$( (echo "$cp"; cat "$0" "$root/dist/java/.sources.sha256"; cd "$src" && find . -type f -print0 | sort -z | xargs -0 sha256sum) | sha256sum | cut -d' ' -f1)
stamp="$target.sources.sha256"
if [ -d "$target" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$sum" ]; then exit 0; fi
rm -rf "$target" "$stamp" && mkdir -p "$target/.classes"
libs=""
if [ -d "$src/lib" ]; then
  cp -r "$src/lib" "$target/lib"
  for l in "$src"/lib/*.jar; do libs="$libs:$l"; done
fi
javac -nowarn -encoding UTF-8 --release 17 -d "$target/.classes" -cp "$cp$libs" $(find "$src/src" -name '*.java')
[ -d "$src/resources" ] && cp -r "$src/resources/." "$target/.classes/"
jar --create --file "$target/$jar" -C "$target/.classes" .
rm -rf "$target/.classes"
cp "$src/microservice.json" "$target/"
echo "$sum" > "$stamp"
