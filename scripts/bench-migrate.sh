#!/usr/bin/env bash
# Benchmark `olmcat migrate` on a large generated legacy index: wall time,
# CPU and peak RSS, median of RUNS.
#
#   scripts/bench-migrate.sh                 # uses /tmp/bench/index.db, generating it if missing
#   DB=path/to/index.db scripts/bench-migrate.sh
#   FORMAT=yaml MIGRATE_LEVEL=bundle-object-to-csv-metadata scripts/bench-migrate.sh
#
# Target (10,000 bundles, ~340 MB, 2 cores): under 3 s and under 200 MB
# RSS; under 150 MB at 40,000 bundles.
source "$(dirname "$0")/bench-lib.sh"
FORMAT=${FORMAT:-json}
MIGRATE_LEVEL=${MIGRATE_LEVEL:-none}
bench_setup bench-migrate
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
BENCH_BEFORE_EACH='rm -rf "$OUT/catalog"' bench_run "migrate -o $FORMAT --migrate-level $MIGRATE_LEVEL" \
	"$BIN" migrate --no-deprecation-warning -o "$FORMAT" --migrate-level "$MIGRATE_LEVEL" "$DB" "$OUT/catalog"
