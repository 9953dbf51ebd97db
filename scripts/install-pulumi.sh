#!/usr/bin/env bash
# Builds the Pulumi CLI from its Go modules (the CLI is not on npm; the `pulumi` npm package only downloads
# a prebuilt binary, which this network cannot reach) into a cache outside the repository, once.
# Idempotent: a second run finds the binary and only prints the PATH line.
# `--check` never builds: it prints the PATH line if the CLI is built, else says so and exits 1 (for tests).
# Last stdout line: export PATH=<bin dir>:$PATH
set -euo pipefail
source "$(dirname "$0")/go-tool.sh"
version="${PULUMI_VERSION:-v3.274.1}"
bin="$cache/pulumi-$version/bin"
built() { [[ -x "$bin/pulumi" ]] && "$bin/pulumi" version 2>/dev/null | grep -qx "$version"; }
go_tool_done install-pulumi "Pulumi CLI $version" "$bin" "$check_only" "about 10-15 min" built
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
go_tool_env
echo "install-pulumi: resolving modules for pulumi $version (first run downloads ~3.5 GB into $GOMODCACHE)" >&2
start=$(date +%s)
go mod tidy >&2 2>&1 || go mod download >&2
echo "install-pulumi: modules ready after $(( $(date +%s) - start )) s; compiling (about 10 min cold on 2 cores)" >&2
go_tool_ticker install-pulumi "$start"
go build -o "$bin/pulumi.tmp" \
  -ldflags "-X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=$version" \
  github.com/pulumi/pulumi/pkg/v3/cmd/pulumi >&2
mv "$bin/pulumi.tmp" "$bin/pulumi"
echo "install-pulumi: built $("$bin/pulumi" version) in $(( $(date +%s) - start )) s" >&2
echo "export PATH=$bin:\$PATH"
