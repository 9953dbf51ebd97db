#!/usr/bin/env bash
# Builds the Pulumi CLI from its Go modules (the CLI is not on npm; the `pulumi` npm package only downloads
# a prebuilt binary, which this network cannot reach) into a cache outside the repository, once.
# Idempotent: a second run finds the binary and only prints the PATH line.
# `--check` never builds: it prints the PATH line if the CLI is built, else says so and exits 1 (for tests).
# Last stdout line: export PATH=<bin dir>:$PATH
set -euo pipefail
check_only=false
[[ "${1:-}" == "--check" ]] && check_only=true
version="${PULUMI_VERSION:-v3.274.1}"
cache="${TMKIT_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/tmkit}"
bin="$cache/pulumi-$version/bin"
if [[ -x "$bin/pulumi" ]] && "$bin/pulumi" version 2>/dev/null | grep -qx "$version"; then
  echo "install-pulumi: Pulumi CLI $version already built in $bin" >&2
  echo "export PATH=$bin:\$PATH"
  exit 0
fi
if $check_only; then
  echo "install-pulumi: Pulumi CLI $version is not built in $bin: run scripts/install-pulumi.sh (about 10-15 min)" >&2
  exit 1
fi
command -v go >/dev/null 2>&1 || { echo "install-pulumi: no Go toolchain on PATH: install Go (the CLI is built from its Go modules)" >&2; exit 1; }
work="$cache/pulumi-$version/src"
mkdir -p "$work" "$bin"
cd "$work"
cat > go.mod <<MOD
module tmkit.local/pulumi-cli

go 1.24

require (
	github.com/pulumi/pulumi/pkg/v3 $version
	github.com/pulumi/pulumi/sdk/v3 $version
)

replace github.com/atotto/clipboard => github.com/tgummerer/clipboard v0.0.0-20241001131231-d02d263e614e
MOD
cat > tools.go <<'GO'
//go:build tools

package tools

import _ "github.com/pulumi/pulumi/pkg/v3/cmd/pulumi"
GO
export GOFLAGS=-mod=mod
export GOMODCACHE="${GOMODCACHE:-$cache/gomod}"
export GOCACHE="${GOCACHE:-$cache/gobuild}"
echo "install-pulumi: resolving modules for pulumi $version (first run downloads ~3.5 GB into $GOMODCACHE)" >&2
start=$(date +%s)
go mod tidy >&2 2>&1 || go mod download >&2
echo "install-pulumi: modules ready after $(( $(date +%s) - start )) s; compiling (about 10 min cold on 2 cores)" >&2
( while sleep 60; do echo "install-pulumi: still compiling ($(( $(date +%s) - start )) s)" >&2; done ) &
ticker=$!
trap 'kill $ticker 2>/dev/null || true' EXIT
go build -o "$bin/pulumi.tmp" \
  -ldflags "-X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=$version" \
  github.com/pulumi/pulumi/pkg/v3/cmd/pulumi >&2
mv "$bin/pulumi.tmp" "$bin/pulumi"
echo "install-pulumi: built $("$bin/pulumi" version) in $(( $(date +%s) - start )) s" >&2
echo "export PATH=$bin:\$PATH"
