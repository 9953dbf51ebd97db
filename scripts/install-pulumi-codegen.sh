#!/usr/bin/env bash
# Builds tmkit-pulumi-codegen: a small Go program that generates the Python, Go and Node.js SDKs of a Pulumi
# package schema with Pulumi's own code generators (github.com/pulumi/pulumi/pkg/v3/codegen/{python,go,nodejs},
# the functions the language hosts' GeneratePackage calls). `pulumi package gen-sdk` needs those language hosts,
# which cannot be built from the Go module proxy; the generators can. test/providers/pulumi/codegen.test.ts runs
# it on the tmkit plugin's schema. Same Pulumi version and Go caches as scripts/install-pulumi.sh, so after it
# the build is mostly cache hits (about 20-60 s); with cold caches it compiles much of the CLI's code.
# Idempotent: a second run finds the binary (built from this script's program) and only prints the PATH line.
# `--check` never builds: it prints the PATH line if it is built, else says so and exits 1 (for tests).
# Usage of the binary: tmkit-pulumi-codegen SCHEMA.json OUTDIR  (writes OUTDIR/{python,go,nodejs}/...)
# Last stdout line: export PATH=<bin dir>:$PATH
set -euo pipefail
source "$(dirname "$0")/go-tool.sh"
version="${PULUMI_VERSION:-v3.274.1}"
bin="$cache/pulumi-codegen-$version/bin"
program() {
  cat <<'GO'
// tmkit-pulumi-codegen SCHEMA.json OUTDIR: binds a Pulumi package schema (validated as `pulumi package
// gen-sdk` does) and writes its Python, Go and Node.js SDKs with Pulumi's code generators.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	gogen "github.com/pulumi/pulumi/pkg/v3/codegen/go"
	"github.com/pulumi/pulumi/pkg/v3/codegen/nodejs"
	"github.com/pulumi/pulumi/pkg/v3/codegen/python"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
)

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "tmkit-pulumi-codegen: "+format+"\n", args...)
	os.Exit(1)
}

func main() {
	if len(os.Args) != 3 {
		fail("usage: tmkit-pulumi-codegen SCHEMA.json OUTDIR")
	}
	data, err := os.ReadFile(os.Args[1])
	if err != nil {
		fail("%v", err)
	}
	var spec schema.PackageSpec
	if err := json.Unmarshal(data, &spec); err != nil {
		fail("%s is not a package schema: %v", os.Args[1], err)
	}
	// No plugin context: a schema that references another package fails here, which tmkit's does not.
	loader := schema.NewPluginLoader(nil)
	pkg, diags, err := schema.BindSpec(spec, loader, schema.ValidationOptions{})
	if err != nil {
		fail("binding the schema: %v", err)
	}
	if diags.HasErrors() {
		fail("the schema is invalid: %v", diags)
	}
	gens := []struct {
		lang string
		gen  func() (map[string][]byte, error)
	}{
		{"python", func() (map[string][]byte, error) { return python.GeneratePackage("tmkit-pulumi-codegen", pkg, nil, loader) }},
		{"go", func() (map[string][]byte, error) { return gogen.GeneratePackage("tmkit-pulumi-codegen", pkg, nil) }},
		{"nodejs", func() (map[string][]byte, error) {
			return nodejs.GeneratePackage("tmkit-pulumi-codegen", pkg, nil, nil, false, loader)
		}},
	}
	for _, g := range gens {
		files, err := g.gen()
		if err != nil {
			fail("%s: %v", g.lang, err)
		}
		for name, b := range files {
			p := filepath.Join(os.Args[2], g.lang, name)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				fail("%v", err)
			}
			if err := os.WriteFile(p, b, 0o644); err != nil {
				fail("%v", err)
			}
		}
		fmt.Printf("%s: %d files\n", g.lang, len(files))
	}
}
GO
}
stamp="pulumi $version $(program | cksum | cut -d' ' -f1)"
built() { [[ -x "$bin/tmkit-pulumi-codegen" && "$(cat "$bin/.built" 2>/dev/null)" == "$stamp" ]]; }
go_tool_done install-pulumi-codegen "tmkit-pulumi-codegen (Pulumi $version)" "$bin" "$check_only" "about 1 min after scripts/install-pulumi.sh" built
work="$cache/pulumi-codegen-$version/src"
mkdir -p "$work" "$bin"
cd "$work"
cat > go.mod <<MOD
module tmkit.local/pulumi-codegen

go 1.24

require github.com/pulumi/pulumi/pkg/v3 $version

replace github.com/atotto/clipboard => github.com/tgummerer/clipboard v0.0.0-20241001131231-d02d263e614e
MOD
program > main.go
go_tool_env
start=$(date +%s)
echo "install-pulumi-codegen: resolving modules for pulumi $version (shared with the CLI's in $GOMODCACHE)" >&2
go mod tidy >&2 2>&1 || go mod download >&2
echo "install-pulumi-codegen: modules ready after $(( $(date +%s) - start )) s; compiling" >&2
go_tool_ticker install-pulumi-codegen "$start"
go build -o "$bin/tmkit-pulumi-codegen.tmp" . >&2
mv "$bin/tmkit-pulumi-codegen.tmp" "$bin/tmkit-pulumi-codegen"
echo "$stamp" > "$bin/.built"
echo "install-pulumi-codegen: built in $(( $(date +%s) - start )) s" >&2
echo "export PATH=$bin:\$PATH"
