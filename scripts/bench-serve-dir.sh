#!/usr/bin/env bash
# Benchmark `olmcat serve <dir>` on the migration of the benchmark index:
# time to SERVING (grpc.health.v1), peak RSS at SERVING and after
# draining ListBundles, median of RUNS; cold (no --cache-dir) and with a
# warm --cache-dir.
#
#   scripts/bench-serve-dir.sh                # /tmp/bench/index.db and its migration
#   CATALOG=path/to/dir scripts/bench-serve-dir.sh
#
# Target (10,000 bundles, 2 cores): SERVING under 1 s cold, under 0.3 s
# warm; peak RSS under 150 MB at start and while answering ListBundles.
source "$(dirname "$0")/bench-lib.sh"
bench_setup bench-serve-dir
bench_serve "serve <dir>, no cache" -list "$BIN" serve "$CATALOG"
cache=$(mktemp -d)
trap 'rm -rf "$cache"' EXIT
"$BIN" serve --cache-dir "$cache" --cache-only "$CATALOG" # warms the cache (opm's step)
bench_serve "serve <dir>, warm cache" -list "$BIN" serve --cache-dir "$cache" "$CATALOG"
