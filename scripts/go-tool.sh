# What scripts/install-pulumi.sh, install-pulumi-yaml.sh, install-pulumi-codegen.sh, install-tofu.sh,
# install-external-dns.sh and install-kube-apiserver.sh share
# (sourced, after `set -euo pipefail`): each builds a program from Go modules into "$cache/<tool>-<version>/bin",
# once, and prints `export PATH=<bin>:$PATH` as its last stdout line.
#   cache                                    TMKIT_CACHE_DIR, else $XDG_CACHE_HOME/tmkit, else ~/.cache/tmkit
#   check_only                               true when the script was run with --check
#   go_tool_done NAME WHAT BIN CHECK HOWLONG TEST...
#                                            TEST succeeds: says WHAT is built, prints the PATH line, exits 0;
#                                            else with CHECK=true (--check): says how to build it, exits 1;
#                                            else without go on PATH: says so, exits 1
#   go_tool_env                              GOFLAGS, GOMODCACHE, GOCACHE (under $cache unless set)
#   go_tool_ticker NAME START                "still compiling (N s)" every minute until the script exits
#   go_tool_copy NAME MODULE@VERSION WORK    downloads the module (after go_tool_env), copies it into WORK (emptied
#                                            first: the module cache is read-only, a build needs a writable copy)
#                                            and changes to WORK
cache="${TMKIT_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/tmkit}"
# `--check` (the script's first argument): never build, only say whether it is built.
check_only=false
[[ "${1:-}" == "--check" ]] && check_only=true

go_tool_done() {
  local name=$1 what=$2 bin=$3 check=$4 howlong=$5
  shift 5
  if "$@"; then
    echo "$name: $what already built in $bin" >&2
    echo "export PATH=$bin:\$PATH"
    exit 0
  fi
  if [[ "$check" == true ]]; then
    echo "$name: $what is not built in $bin: run scripts/$name.sh ($howlong)" >&2
    exit 1
  fi
  command -v go >/dev/null 2>&1 || { echo "$name: no Go toolchain on PATH: install Go ($what is built from its Go modules)" >&2; exit 1; }
}

go_tool_env() {
  export GOFLAGS=-mod=mod
  export GOMODCACHE="${GOMODCACHE:-$cache/gomod}"
  export GOCACHE="${GOCACHE:-$cache/gobuild}"
}

go_tool_ticker() {
  local name=$1 start=$2
  ( while sleep 60; do echo "$name: still compiling ($(( $(date +%s) - start )) s)" >&2; done ) &
  go_tool_ticker_pid=$!
  trap 'kill $go_tool_ticker_pid 2>/dev/null || true' EXIT
}

go_tool_copy() {
  local name=$1 module=$2 work=$3 dir
  echo "$name: downloading $module into $GOMODCACHE${GOTOOLCHAIN:+ (toolchain $GOTOOLCHAIN)}" >&2
  mkdir -p "$cache"
  dir="$(cd "$cache" && go mod download -json "$module" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
  [[ -n "$dir" && -f "$dir/go.mod" ]] || { echo "$name: go mod download gave no module directory" >&2; exit 1; }
  rm -rf "$work"
  mkdir -p "$work"
  cp -R "$dir/." "$work/"
  chmod -R u+w "$work"
  cd "$work"
}
