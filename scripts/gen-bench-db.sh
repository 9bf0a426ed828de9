#!/usr/bin/env bash
# Generate the synthetic benchmark legacy index database.
# Usage: scripts/gen-bench-db.sh [OUT] [BUNDLES]   (defaults /tmp/bench/index.db, 10000)
# OUT must not exist. 10000 bundles (400 packages x 25, ~340 MB) is the size opm
# was measured at; pass e.g. 200 for a quick run.
set -euo pipefail
out="${1:-/tmp/bench/index.db}"
bundles="${2:-10000}"
cd "$(dirname "$0")/.."
if [ -e "$out" ]; then
	echo "gen-bench-db: $out exists; remove it first" >&2
	exit 2
fi
go run ./scripts/genbench -o "$out" -n "$bundles"
