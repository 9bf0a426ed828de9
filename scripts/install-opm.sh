#!/usr/bin/env bash
# Build the reference opm v1.73.0 (operator-registry's CLI, the last release
# with sqlite support) from the Go module proxy, once, and cache it outside
# the repository. The tests run it beside olmcat: opm serve --cache-dir on
# the cache olmcat writes, olmcat serve on the caches opm writes
# (cmd/olmcat TestOPMStartsFromOlmcatCache, TestServeStartsFromOPMCache), and
# scripts/bench-serve-cache.sh. About 10 minutes on 2 cores (cgo: sqlite).
#   usage: install-opm.sh [OUT_DIR]   (default ~/.cache/opm-v1.73.0; prints the binary's path)
set -euo pipefail
version=${OPM_VERSION:-v1.73.0}
out=${1:-${XDG_CACHE_HOME:-$HOME/.cache}/opm-$version}
bin="$out/opm"
if [ -x "$bin" ]; then echo "$bin"; exit 0; fi
mkdir -p "$out"
work=$(mktemp -d); trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
dir=$(cd "$work" && GOFLAGS=-mod=mod ${GO:-go} mod download -json "github.com/operator-framework/operator-registry@$version" |
  sed -n 's/^[[:space:]]*"Dir": "\(.*\)",*$/\1/p')
cp -r "$dir" "$work/src" && chmod -R u+w "$work/src" && rm -rf "$work/src/vendor"
# json1 and containers_image_openpgp are the tags upstream's release builds use.
(cd "$work/src" && GOFLAGS=-mod=mod CGO_ENABLED=1 ${GO:-go} build -tags=json1,containers_image_openpgp -o "$bin.tmp" ./cmd/opm)
mv "$bin.tmp" "$bin"
echo "$bin"
