#!/usr/bin/env bash
# Benchmark `olmcat render <dir>` (to /dev/null) on the migration of the
# benchmark index: wall time, CPU and peak RSS, median of RUNS.
#
#   scripts/bench-render.sh                   # /tmp/bench/index.db and its migration
#   CATALOG=path/to/dir scripts/bench-render.sh
#
# Target (10,000 bundles, 2 cores): under 100 MB.
source "$(dirname "$0")/bench-lib.sh"
bench_setup bench-render
bench_run "render <dir>" "$BIN" render "$CATALOG"
