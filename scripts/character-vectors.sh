#!/usr/bin/env bash
# Regenerates test/conformance/characters/vectors.json by asking the real Java serializers (Debian's
# XStream 1.4.20, Jettison 1.5.3, Jackson 2.14, Woodstox 6.2.1 on OpenJDK 17); scripts/ensure-oracle.sh
# installs them when missing and compiles test/oracle/*.java.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cp="$("$root/scripts/ensure-oracle.sh")"
java -cp "$cp" CharacterVectors > "$root/test/conformance/characters/vectors.json"
sha256sum "$root/test/conformance/characters/vectors.json"
