#!/usr/bin/env bash
# Builds kube-apiserver from its Go module (k8s.io/kubernetes; no prebuilt binary can be downloaded here) into
# a cache outside the repository, once, like scripts/install-external-dns.sh builds ExternalDNS. The tests start
# it on loopback against a test etcd (test/support/kube-apiserver.ts) so that ExternalDNS's `crd` and `service`
# sources read real DNSEndpoint objects and Services (test/cli/external-dns-kube.test.ts).
# v1.37.0 matches the k8s.io/{api,apimachinery,client-go} v0.37.0 ExternalDNS v0.23 is built with: both builds
# share the module downloads and the compiled k8s.io packages (run it after scripts/install-external-dns.sh).
# Measured on 2 cores: 286 s with the shared module and build caches, 265 s with empty ones (a separate
# GOMODCACHE and GOCACHE, the Go 1.27.3 toolchain and 884 MB of modules downloaded): compiling dominates.
# The module zip of k8s.io/kubernetes lacks its staging/src/k8s.io/* directories, which its go.mod replaces the
# k8s.io/* staging modules with (`k8s.io/api => ./staging/src/k8s.io/api`, required as v0.0.0). So the module
# is copied somewhere writable, and in the copy's go.mod the replace lines are dropped and those requirements
# point at the published modules of the same release (`k8s.io/api v0.37.0`); then `go build ./cmd/kube-apiserver`.
# Idempotent: a second run finds the binary and only prints the PATH line.
# `--check` never builds: it prints the PATH line if kube-apiserver is built, else says so and exits 1 (for tests).
# Last stdout line: export PATH=<bin dir>:$PATH
set -euo pipefail
source "$(dirname "$0")/go-tool.sh"
version="${KUBE_APISERVER_VERSION:-v1.37.0}"
# The staging modules are published as v0.<minor>.<patch> for kubernetes v1.<minor>.<patch>.
staging="v0.${version#v1.}"
bin="$cache/kube-apiserver-$version/bin"
built() { [[ -x "$bin/kube-apiserver" ]] && "$bin/kube-apiserver" --version 2>&1 | grep -qx "Kubernetes ${version}"; }
go_tool_done install-kube-apiserver "kube-apiserver $version" "$bin" "$check_only" "about 5 min" built
go_tool_env
export GOTOOLCHAIN="${KUBE_APISERVER_GOTOOLCHAIN:-go1.27.3}"
# The module ships the go.work that ties it to its staging directories: build as a plain module.
export GOWORK=off
start=$(date +%s)
mkdir -p "$bin"
work="$cache/kube-apiserver-$version/src"
go_tool_copy install-kube-apiserver "k8s.io/kubernetes@$version" "$work"
echo "install-kube-apiserver: pointing go.mod's staging replaces at the published k8s.io/* $staging modules" >&2
# Every module replaced by ./staging/src/k8s.io/X: its replace line goes, its `k8s.io/X v0.0.0` requirement
# becomes `k8s.io/X $staging`.
mods="$(sed -n 's#^[[:space:]]*\(k8s\.io/[^ ]*\) => \./staging/src/k8s\.io/.*#\1#p' go.mod)"
[[ -n "$mods" ]] || { echo "install-kube-apiserver: no staging replaces in go.mod of $version; update this script" >&2; exit 1; }
sed -i -e '\#^[[:space:]]*k8s\.io/[^ ]* => \./staging/src/#d' go.mod
for m in $mods; do
  sed -E -i -e "s#^([[:space:]]*)${m//./\\.} v0\.0\.0( //.*)?\$#\1$m $staging\2#" go.mod
done
if grep -Eq "staging/src|k8s\.io/[^ ]* v0\.0\.0( |\$)" go.mod; then
  echo "install-kube-apiserver: go.mod of $version still refers to staging modules; update this script" >&2
  exit 1
fi
echo "install-kube-apiserver: module ready after $(( $(date +%s) - start )) s; resolving its dependencies" >&2
go_tool_ticker install-kube-apiserver "$start"
echo "install-kube-apiserver: compiling (about 5 min on 2 cores, cold or warm)" >&2
# The version kube-apiserver reports (and checks its emulation version against) comes from these variables,
# which the release build sets from git; without them it says v0.0.0-master.
minor="${version#v1.}"
minor="${minor%%.*}"
pkg=k8s.io/component-base/version
go build -o "$bin/kube-apiserver.tmp" \
  -ldflags "-s -w -X $pkg.gitVersion=$version -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor -X $pkg.gitTreeState=clean" \
  ./cmd/kube-apiserver >&2
mv "$bin/kube-apiserver.tmp" "$bin/kube-apiserver"
cd "$cache"
rm -rf "$work"
echo "install-kube-apiserver: built $("$bin/kube-apiserver" --version 2>&1 | head -1) in $(( $(date +%s) - start )) s" >&2
echo "export PATH=$bin:\$PATH"
