#!/usr/bin/env bash
# Builds Pulumi's YAML language host, pulumi-language-yaml, from its Go module github.com/pulumi/pulumi-yaml
# (the CLI does not carry it; Pulumi's own releases ship it as a separate binary, which this network cannot
# download) into a cache outside the repository, once, beside the CLI that scripts/install-pulumi.sh builds.
# Run it after scripts/install-pulumi.sh: the build then finds most of its modules downloaded (GOMODCACHE) and
# much of its code compiled (GOCACHE), about 2 min; with neither cached, about 10 min on 2 cores.
# Idempotent: a second run finds the binary and only prints the PATH line.
# `--check` never builds: it prints the PATH line if the host is built, else says so and exits 1 (for tests).
# Last stdout line: export PATH=<bin dir>:$PATH
set -euo pipefail
source "$(dirname "$0")/go-tool.sh"
version="${PULUMI_YAML_VERSION:-v1.25.0}"
bin="$cache/pulumi-yaml-$version/bin"
# The host prints no version of its own; the stamp file records what the binary was built from.
stamp="pulumi-yaml $version"
built() { [[ -x "$bin/pulumi-language-yaml" && "$(cat "$bin/.built" 2>/dev/null)" == "$stamp" ]]; }
go_tool_done install-pulumi-yaml "Pulumi YAML language host $version" "$bin" "$check_only" "about 1-2 min after scripts/install-pulumi.sh" built
mkdir -p "$bin"
go_tool_env
# `go install MODULE@VERSION` builds with the module's own go.mod and go.sum (it has no replace directives).
# Its Pulumi pkg/sdk pins are older than the CLI's: v1.25.0 does not compile against v3.274.1's plugin API (tried),
# so the host is not built in a wrapper module at the CLI's version, as the CLI is; the engine's gRPC protocol
# is compatible across those versions, as in Pulumi's own releases, where the host ships built on its own pins.
# The modules both builds need are downloaded once (GOMODCACHE); what they share is compiled once (GOCACHE).
start=$(date +%s)
echo "install-pulumi-yaml: building github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml@$version (modules into $GOMODCACHE)" >&2
go_tool_ticker install-pulumi-yaml "$start"
GOFLAGS= GOBIN="$bin" go install \
  -ldflags "-X github.com/pulumi/pulumi-yaml/pkg/version.Version=${version#v}" \
  "github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml@$version" >&2
echo "$stamp" > "$bin/.built"
echo "install-pulumi-yaml: built pulumi-language-yaml $version in $(( $(date +%s) - start )) s" >&2
echo "export PATH=$bin:\$PATH"
