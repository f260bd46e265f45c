#!/usr/bin/env bash
# npm run image [-- --tag NAME] [--uws SPEC [--uws-integrity SHA512]]: builds the platform's image
# from the Containerfile without a Docker engine (podman), on the base image that base.sh makes.
# Installs podman, runc, fuse-overlayfs and mmdebstrap from Debian when missing.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/versions.env"
tag=localhost/invocation-gateway:latest
uws=$UWS_SPEC
uws_integrity=$UWS_INTEGRITY
while [ $# -gt 0 ]; do
  case $1 in
    --tag) tag=$2; shift 2 ;;
    --uws) uws=$2; uws_integrity=-; shift 2 ;;
    --uws-integrity) uws_integrity=$2; shift 2 ;;
    -h|--help) sed -n '2,4p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "image: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
"$root/scripts/ensure-debian.sh" podman:podman runc:runc fuse-overlayfs:fuse-overlayfs mmdebstrap:mmdebstrap
start=$(date +%s)
base=$("$here/base.sh")
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
