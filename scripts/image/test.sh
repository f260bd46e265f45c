#!/usr/bin/env bash
# npm run test:image: builds the image (npm run image), then
#   1. test/image/container.suite.ts against a container of it (podman): the README's calls, an
#      upload into the mounted directory, the CLI, the admin endpoints, malformed requests directly
#      on :8082, SIGTERM;
#   2. part of the suite on the image's Node 24 and uWebSockets.js build, in a container that
#      mounts this checkout: the conformance vectors, the SPEC matrix, the error table, the
#      malformed-request cases, and client certificates on the uWS listeners (which need 20.5x's
#      getX509Certificate: test/image/client-certificates.suite.ts).
# Both go through scripts/test.mjs with --files (the suite is named *.suite.js so that npm test leaves
# it out), under npm test's guards: a committed focus or skip is refused, each file has its time limit,
# a skipped test fails the run, the count line closes each; with CI=true each writes its own JUnit
# report (reports/junit-image.xml, reports/junit-image-node24.xml). No coverage: npm test measures it.
#   3. test/image/java-container.suite.ts against a container of the image for Java microservices
#      (npm run image -- --java): the Java example uploaded and called (reports/junit-image-java.xml);
#   4. the all-pairs matrix's cells placed in the image (test/integration/contract/all-pairs.test.ts with
#      IGW_ALL_PAIRS_PLACEMENT=image; reports/junit-image-all-pairs.xml).
# The full suite runs on the host's Node 20 (npm test).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cd "$root"
tag=localhost/invocation-gateway:test
bash "$here/build.sh" --tag "$tag" >/dev/null
[ -f dist/test/image/container.suite.js ] || npm run build >/dev/null
echo "== the image under podman"
IGW_IMAGE=$tag node scripts/test.mjs --no-coverage --name image --files dist/test/image/container.suite.js

echo "== the suite's SPEC cases on the image's Node and uWebSockets.js"
uws=$(mktemp -d)
holder="igw-uws-$$"
trap '"$here/podman.sh" rm -f "$holder" >/dev/null 2>&1 || true; rm -rf "$uws"' EXIT
"$here/podman.sh" create --name "$holder" "$tag" >/dev/null
"$here/podman.sh" cp "$holder:/app/node_modules/uWebSockets.js" "$uws/"
# The checkout at the same path (dist/, scripts/ with the runner and its reporter, and the dev
# dependencies the tests need), with the image's uWebSockets.js over the host's; CI and
# TEST_TIMEOUT_MS pass through when set.
"$here/podman.sh" run --rm --network host --user 0 -e CI -e TEST_TIMEOUT_MS \
  -v "$root:$root" -v "$uws/uWebSockets.js:$root/node_modules/uWebSockets.js:ro" -w "$root" \
  --entrypoint node "$tag" scripts/test.mjs --no-coverage --name image-node24 --files \
  dist/test/conformance/vectors.test.js dist/test/conformance/characters.test.js \
  dist/test/integration/contract/matrix.test.js dist/test/integration/contract/errors.test.js \
  dist/test/integration/security/malformed-http.test.js dist/test/image/client-certificates.suite.js

echo "== the image for Java microservices under podman"
java_tag=localhost/invocation-gateway:java-test
bash "$here/build.sh" --java --tag "$java_tag" >/dev/null
IGW_JAVA_IMAGE=$java_tag node scripts/test.mjs --no-coverage --name image-java --files dist/test/image/java-container.suite.js

echo "== the all-pairs matrix's cells placed in the image"
IGW_IMAGE=$tag IGW_JAVA_IMAGE=$java_tag IGW_ALL_PAIRS_PLACEMENT=image \
  node scripts/test.mjs --no-coverage --name image-all-pairs --files dist/test/integration/contract/all-pairs.test.js
