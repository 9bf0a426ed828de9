#!/usr/bin/env bash
# Benchmark the pictures on a large generated legacy index: olmcat graph
# -o svg of one package and of the whole migrated catalog (wall, CPU and
# peak RSS, median of RUNS), the size of the
# migration's HTML report, and the time headless Chromium takes to open it
# (BenchmarkOpenMigrationReport).
#
#   scripts/bench-graph.sh                   # uses /tmp/bench/index.db, generating it if missing
#   DB=path/to/index.db PACKAGE=pkg-0000 scripts/bench-graph.sh
#
# Targets (10,000 bundles, 2 cores): graph -o svg of the largest package
# under 1 s; the report under 20 MB and open in the browser under 5 s.
source "$(dirname "$0")/bench-lib.sh"
PACKAGE=${PACKAGE:-pkg-0000}
bench_setup bench-graph
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
bench_run "graph --package $PACKAGE -o svg" "$BIN" graph "$CATALOG" --package "$PACKAGE" -o svg
bench_run "graph -o svg (every package)" "$BIN" graph "$CATALOG" -o svg
"$BIN" migrate --no-deprecation-warning "$DB" "$OUT/catalog" --report-html "$OUT/report.html" >/dev/null 2>&1
echo "migrate --report-html: $(du -h "$OUT/report.html" | cut -f1) ($(stat -c %s "$OUT/report.html") bytes)"
OLMCAT_BENCH_DB="$DB" go test ./cmd/olmcat/internal/report -run '^$' -bench BenchmarkOpenMigrationReport -benchtime "${RUNS}x"
