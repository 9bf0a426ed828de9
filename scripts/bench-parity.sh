#!/usr/bin/env bash
# Benchmark `olmcat parity` of a large legacy index against its migration:
# wall time, CPU and peak RSS (median of RUNS), and the last run's
# summary (calls per RPC, losses).
#
#   scripts/bench-parity.sh                  # /tmp/bench/index.db and its migration
#   DB=path/to/index.db RUNS=1 scripts/bench-parity.sh
#
# Target (10,000 bundles, 2 cores): under 10 s and under 400 MB, 0 losses.
source "$(dirname "$0")/bench-lib.sh"
bench_setup bench-parity
summary=$(mktemp)
trap 'rm -f "$summary"' EXIT
BENCH_STDOUT=$summary bench_run "parity <db> <dir>" "$BIN" parity --no-deprecation-warning --max-diffs 0 "$DB" "$CATALOG" || {
	cat "$summary" >&2
	exit 1
}
cat "$summary"
