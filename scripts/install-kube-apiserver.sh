#!/usr/bin/env bash
# Build a kube-apiserver binary for the cluster tests (unpack/) from the
# k8s.io/kubernetes module on the Go module proxy, and cache it outside the
# repository. Prints the binary's path on stdout.
#
#   scripts/install-kube-apiserver.sh            # KUBE_VERSION=v1.34.4
#   KUBE_VERSION=v1.34.3 scripts/install-kube-apiserver.sh
#
# k8s.io/kubernetes cannot be `go install`ed: its go.mod requires every
# staging module k8s.io/X at v0.0.0 and replaces it with ./staging/src/k8s.io/X.
# So a throw-away wrapper module (in a temp dir, never committed) requires
# k8s.io/kubernetes and replaces each staging module with its published
# k8s.io/X v0.<minor>.<patch>. The build takes ~10 minutes on 2 cores once;
# later runs reuse the cached binary.
set -euo pipefail

KUBE_VERSION=${KUBE_VERSION:-v1.34.4}
CACHE_DIR=${XDG_CACHE_HOME:-$HOME/.cache}/olmcat-test
BIN="$CACHE_DIR/kube-apiserver-$KUBE_VERSION"
GO=${GO:-go}

if [ -x "$BIN" ]; then
	echo "$BIN"
	exit 0
fi

staging_version="v0.${KUBE_VERSION#v1.}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$CACHE_DIR"

echo "install-kube-apiserver: building kube-apiserver $KUBE_VERSION (staging $staging_version) in $work" >&2
modfile=$(cd "$work" && GOFLAGS=-mod=mod $GO mod download -json "k8s.io/kubernetes@$KUBE_VERSION" |
	sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",*$/\1/p')
if [ ! -f "$modfile" ]; then
	echo "install-kube-apiserver: cannot download k8s.io/kubernetes@$KUBE_VERSION go.mod" >&2
	exit 1
fi

{
	echo "module olmcat-test/kube-apiserver"
	echo
	echo "go $(sed -n 's/^go \([0-9.]*\)$/\1/p' "$modfile")"
	echo
	echo "require k8s.io/kubernetes $KUBE_VERSION"
	echo
	echo "replace ("
	# Every "k8s.io/X => ./staging/src/k8s.io/X" line of the kubernetes go.mod.
	sed -n 's#^[[:space:]]*\(k8s\.io/[a-z0-9-]*\) => \./staging/src/k8s\.io/[a-z0-9-]*$#\t\1 => \1 '"$staging_version"'#p' "$modfile"
	echo ")"
} >"$work/go.mod"
cat >"$work/main.go" <<'EOF'
// Command kube-apiserver runs the Kubernetes API server (test harness build).
package main

import (
	"os"

	"k8s.io/component-base/cli"
	"k8s.io/kubernetes/cmd/kube-apiserver/app"
)

func main() {
	os.Exit(cli.Run(app.NewAPIServerCommand()))
}
EOF

start=$(date +%s)
(cd "$work" && GOFLAGS=-mod=mod $GO mod tidy)
(cd "$work" && CGO_ENABLED=0 GOFLAGS=-mod=mod $GO build -trimpath -ldflags='-s -w' -o "$work/kube-apiserver" .)
mv "$work/kube-apiserver" "$BIN.tmp.$$"
mv "$BIN.tmp.$$" "$BIN"
echo "install-kube-apiserver: built $BIN in $(($(date +%s) - start))s" >&2
echo "$BIN"
