#!/usr/bin/env bash
# Benchmark `olmcat serve <index.db>`: time to SERVING (grpc.health.v1),
# peak RSS at SERVING and after draining ListBundles, median of RUNS.
#
#   scripts/bench-serve-db.sh                 # /tmp/bench/index.db, generated if missing
#   DB=path/to/index.db RUNS=3 scripts/bench-serve-db.sh
#
# Target (10,000 bundles, 2 cores): SERVING under 0.3 s, under 100 MB.
source "$(dirname "$0")/bench-lib.sh"
bench_setup bench-serve-db
bench_serve "serve <index.db>" -list "$BIN" serve --no-deprecation-warning "$DB"
