#!/usr/bin/env bash
# Print the sizes of the olmcat binaries and of the binary layer of an
# olmcat build image:
#
#   cli        make build: the whole CLI, -s -w
#   cli-debug  the whole CLI with symbols and DWARF (go build's default)
#   slim       make build-images: -tags slim -s -w, the binary of the images
#              olmcat build makes and of the unpack Job (serve of declarative
#              configs, bundle copy and bundle extract: no sqlite library, no
#              Kubernetes client library)
#   layer      the compressed binary layer of `olmcat build --push=false`
#              of a small catalog with the slim binary
#
#   scripts/binary-sizes.sh            # host platform
#   GOARCH=arm64 scripts/binary-sizes.sh
#
# Targets (README): cli <= 40 MB, slim <= 25 MB.
set -euo pipefail

cd "$(dirname "$0")/.."
GO=${GO:-go}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export CGO_ENABLED=0 GOOS=linux
"$GO" build -ldflags "-s -w" -o "$out/cli" ./cmd/olmcat
"$GO" build -o "$out/cli-debug" ./cmd/olmcat
"$GO" build -tags slim -ldflags "-s -w" -o "$out/slim" ./cmd/olmcat

mb() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1e6 }'; }
printf '%-10s %12s %8s\n' binary bytes MB
for b in cli cli-debug slim; do
	n=$(stat -c %s "$out/$b")
	printf '%-10s %12d %8s\n' "$b" "$n" "$(mb "$n")"
done

# The image for the host platform only: the layer is the biggest blob.
if [ "$(go env GOARCH)" = "$("$GO" env GOHOSTARCH)" ]; then
	"$out/cli" build fixtures/legacy/small-fbb/opm-migrate example.invalid/catalog:v1 \
		--push=false --oci-layout "$out/layout" --binary "linux/$(go env GOARCH)=$out/slim" >/dev/null
	n=$(find "$out/layout/blobs" -type f -printf '%s\n' | sort -n | tail -1)
	printf '%-10s %12d %8s\n' layer "$n" "$(mb "$n")"
fi
