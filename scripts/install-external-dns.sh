#!/usr/bin/env bash
# Builds ExternalDNS from its Go module (sigs.k8s.io/external-dns; no prebuilt binary can be downloaded here)
# into a cache outside the repository, once, like scripts/install-tofu.sh builds OpenTofu. The tests drive it
# with `--provider=webhook` against `tmkit external-dns` (test/cli/external-dns-e2e.test.ts).
# v0.23 needs Go 1.27 (GOTOOLCHAIN=go1.27.3: the go command fetches that toolchain from the module proxy), and
# the module proxy refuses two of its dependencies: github.com/civo/civogo (the civo provider) and
# github.com/openshift/{api,client-go} (the OpenShift route source). So the module is copied somewhere
# writable, those two are dropped from the copy (the civo provider's package and its line in the provider
# factory; the openshift-route source, its client in source/store.go, and the three requirements in go.mod),
# and the rest is built unchanged (`go build .`).
# Idempotent: a second run finds the binary and only prints the PATH line.
# `--check` never builds: it prints the PATH line if external-dns is built, else says so and exits 1 (for tests).
# Last stdout line: export PATH=<bin dir>:$PATH
set -euo pipefail
source "$(dirname "$0")/go-tool.sh"
version="${EXTERNAL_DNS_VERSION:-v0.23.0}"
bin="$cache/external-dns-$version/bin"
built() { [[ -x "$bin/external-dns" ]] && "$bin/external-dns" --version 2>&1 | grep -qx "${version}"; }
go_tool_done install-external-dns "ExternalDNS $version" "$bin" "$check_only" "about 12 min" built
go_tool_env
export GOTOOLCHAIN="${EXTERNAL_DNS_GOTOOLCHAIN:-go1.27.3}"
start=$(date +%s)
mkdir -p "$bin"
work="$cache/external-dns-$version/src"
go_tool_copy install-external-dns "sigs.k8s.io/external-dns@$version" "$work"
echo "install-external-dns: dropping the civo provider and the OpenShift route source (refused by the module proxy)" >&2
rm -rf provider/civo source/openshift_route.go source/openshift_route_test.go source/openshift_route_fqdn_test.go
# provider factory: the civo import and its map entry
sed -i -e '\#"sigs.k8s.io/external-dns/provider/civo"#d' -e '/externaldns.ProviderCivo:.*civo.New,/d' provider/factory/provider.go
# source/store.go: the openshift client (import, interface method, fields, generator) and the route source
perl -0pi -e '
  s/\n\topenshift "github.com\/openshift\/client-go\/route\/clientset\/versioned"//;
  s/\n\tOpenShiftClient\(\) \(openshift.Interface, error\)//;
  s/\n\topenshiftClient +openshift.Interface//;
  s/\n\topenshiftClientErr +error//;
  s/\n\topenshiftOnce +sync.Once//;
  s/\n\/\/ OpenShiftClient generates.*?\n}\n//s;
  s/\n\tcase types.OpenShiftRoute:\n\t\treturn buildOpenShiftRouteSource\(ctx, p, cfg\)//;
  s/\nfunc buildOpenShiftRouteSource.*?\n}\n//s;
' source/store.go
sed -i -e '\#github.com/civo/civogo #d' -e '\#github.com/openshift/api #d' -e '\#github.com/openshift/client-go #d' go.mod
if grep -q "openshift\.\|civo\." source/store.go provider/factory/provider.go; then
  echo "install-external-dns: the patch did not apply cleanly to $version (openshift/civo still referenced); update this script" >&2
  exit 1
fi
echo "install-external-dns: module ready after $(( $(date +%s) - start )) s; resolving its dependencies" >&2
go_tool_ticker install-external-dns "$start"
echo "install-external-dns: compiling (about 12 min cold on 2 cores)" >&2
go build -o "$bin/external-dns.tmp" -ldflags "-s -w -X sigs.k8s.io/external-dns/pkg/apis/externaldns.Version=$version" . >&2
mv "$bin/external-dns.tmp" "$bin/external-dns"
cd "$cache"
rm -rf "$work"
echo "install-external-dns: built ExternalDNS $("$bin/external-dns" --version 2>&1 | head -1) in $(( $(date +%s) - start )) s" >&2
echo "export PATH=$bin:\$PATH"
