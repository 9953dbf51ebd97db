#!/usr/bin/env bash
# Builds the OpenTofu CLI from its Go module (no prebuilt binary can be downloaded here) into a cache outside
# the repository, once, like scripts/install-pulumi.sh builds the Pulumi CLI. OpenTofu's go.mod has replace
# directives, so `go install module@version` refuses it: the module is downloaded, its directory copied
# somewhere writable, and `go build ./cmd/tofu` runs inside it (about 4 min cold on 2 cores).
# Idempotent: a second run finds the binary and only prints the PATH line.
# `--check` never builds: it prints the PATH line if tofu is built, else says so and exits 1 (for tests).
# Last stdout line: export PATH=<bin dir>:$PATH
set -euo pipefail
source "$(dirname "$0")/go-tool.sh"
version="${TOFU_VERSION:-v1.10.10}"
bin="$cache/tofu-$version/bin"
built() { [[ -x "$bin/tofu" ]] && "$bin/tofu" version 2>/dev/null | head -1 | grep -qx "OpenTofu ${version}"; }
go_tool_done install-tofu "OpenTofu $version" "$bin" "$check_only" "about 4 min" built
go_tool_env
start=$(date +%s)
mkdir -p "$bin"
# A writable copy of the module (go.sum updates, embedded files).
work="$cache/tofu-$version/src"
go_tool_copy install-tofu "github.com/opentofu/opentofu@$version" "$work"
echo "install-tofu: module ready after $(( $(date +%s) - start )) s; resolving its dependencies" >&2
go mod download >&2
echo "install-tofu: dependencies ready after $(( $(date +%s) - start )) s; compiling (about 4 min cold on 2 cores)" >&2
go_tool_ticker install-tofu "$start"
# The version string is the module's own (version/VERSION); -ldflags only drops the "-dev" prerelease mark.
go build -o "$bin/tofu.tmp" -ldflags "-s -w -X github.com/opentofu/opentofu/version.dev=no" ./cmd/tofu >&2
mv "$bin/tofu.tmp" "$bin/tofu"
cd "$cache"
rm -rf "$work"
echo "install-tofu: built $("$bin/tofu" version | head -1) in $(( $(date +%s) - start )) s" >&2
echo "export PATH=$bin:\$PATH"
