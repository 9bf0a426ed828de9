#!/usr/bin/env bash
# Benchmark `olmcat validate <dir>` on the migration of the benchmark
# index: wall time, CPU and peak RSS, median of RUNS.
#
#   scripts/bench-validate.sh                 # /tmp/bench/index.db and its migration
#   CATALOG=path/to/dir scripts/bench-validate.sh
#
# Target (10,000 bundles, 2 cores): under 2 s and under 200 MB.
source "$(dirname "$0")/bench-lib.sh"
bench_setup bench-validate
bench_run "validate <dir>" "$BIN" validate "$CATALOG"
