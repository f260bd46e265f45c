#!/usr/bin/env bash
# npm run image [-- --tag NAME] [--uws SPEC [--uws-integrity SHA512]] [--java]: builds the platform's
# image from the Containerfile without a Docker engine (podman), on the base image that base.sh makes.
# --java: the variant for Java microservices, on the base with Debian's JRE, with the Java host and its
# jars (docs/java.md, In the image); tagged :java unless --tag says otherwise.
# Installs podman, runc, fuse-overlayfs and mmdebstrap from Debian when missing.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/versions.env"
tag=""
java=""
uws=$UWS_SPEC
uws_integrity=$UWS_INTEGRITY
while [ $# -gt 0 ]; do
  case $1 in
    --tag) tag=$2; shift 2 ;;
    --uws) uws=$2; uws_integrity=-; shift 2 ;;
    --uws-integrity) uws_integrity=$2; shift 2 ;;
    --java) java=1; shift ;;
    -h|--help) sed -n '2,6p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "image: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
"$root/scripts/ensure-debian.sh" podman:podman runc:runc fuse-overlayfs:fuse-overlayfs mmdebstrap:mmdebstrap
if [ -z "$tag" ]; then
  if [ -n "$java" ]; then tag=localhost/invocation-gateway:java; else tag=localhost/invocation-gateway:latest; fi
fi
start=$(date +%s)
base=$("$here/base.sh" ${java:+--java})
# The Java host for the image: its classes, the API jar and the library jars it was built and tested
# with, staged in the build context (.image-java, which the Containerfile moves to dist/java) with a
# class path file of the image's paths.
rm -rf "$root/.image-java"
trap 'rm -rf "$root/.image-java"' EXIT
if [ -n "$java" ]; then
  cp_host=$("$root/scripts/ensure-java-host.sh")
  stage="$root/.image-java"
  mkdir -p "$stage/lib"
  cp -r "$root/dist/java/host" "$stage/host"
  cp "$root/dist/java/platform-api.jar" "$stage/"
  image_cp=""
  IFS=: read -ra entries <<<"$cp_host"
  for e in "${entries[@]}"; do
    case $e in
      /usr/share/java/*) cp -L "$e" "$stage/lib/" && image_cp="$image_cp/app/dist/java/lib/$(basename "$e"):" ;;
    esac
  done
  echo "${image_cp}/app/dist/java/platform-api.jar:/app/dist/java/host" >"$stage/classpath"
fi
version=$(node -p "require('$root/package.json').version")
revision=$(git -C "$root" rev-parse HEAD 2>/dev/null || echo unknown)
# The npm cache of this machine is lent to the build, so a rebuild downloads nothing it has.
npm_cache=$(npm config get cache)
# So is its CA bundle, when the registry is reached through a proxy with its own CA.
ca=()
host_ca=${NODE_EXTRA_CA_CERTS:-$(npm config get cafile 2>/dev/null || true)}
if [ -n "$host_ca" ] && [ "$host_ca" != null ] && [ -f "$host_ca" ]; then
  ca=(--volume "$host_ca:/run/host-ca.crt:ro" --build-arg NODE_EXTRA_CA_CERTS=/run/host-ca.crt)
fi
"$here/podman.sh" build --format docker --network host --layers \
  --volume "$npm_cache:/root/.npm" "${ca[@]}" \
  --build-arg "BASE=$base" --build-arg "UWS_SPEC=$uws" --build-arg "UWS_INTEGRITY=$uws_integrity" \
  --build-arg "VERSION=$version" --build-arg "REVISION=$revision" \
  --build-arg "SOURCE=${IGW_IMAGE_SOURCE:-https://example.invalid/invocation-gateway}" \
  -f "$root/Containerfile" -t "$tag" "$root" >&2
size=$("$here/podman.sh" image inspect --format '{{.Size}}' "$tag")
echo "image $tag: $((size / 1000000)) MB, built in $(($(date +%s) - start)) s" >&2
echo "$tag"
