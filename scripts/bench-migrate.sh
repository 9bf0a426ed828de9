#!/usr/bin/env bash
# Benchmark `olmcat migrate` on a large generated legacy index: wall time
# and peak memory (max RSS), measured with /usr/bin/time -v.
#
#   scripts/bench-migrate.sh                 # uses /tmp/bench/index.db, generating it if missing
#   DB=path/to/index.db scripts/bench-migrate.sh
#   FORMAT=yaml MIGRATE_LEVEL=bundle-object-to-csv-metadata scripts/bench-migrate.sh
#
# Target (10,000 bundles, ~340 MB, 2 cores): under 3 s and under 200 MB RSS.
set -euo pipefail

cd "$(dirname "$0")/.."
DB=${DB:-/tmp/bench/index.db}
OUT=${OUT:-$(dirname "$DB")/catalog}
FORMAT=${FORMAT:-json}
MIGRATE_LEVEL=${MIGRATE_LEVEL:-none}
RUNS=${RUNS:-3}
BIN=${BIN:-bin/olmcat}

if [ ! -x /usr/bin/time ]; then
	echo "bench-migrate: /usr/bin/time is required (GNU time)" >&2
	exit 2
fi
if [ ! -f "$DB" ]; then
	echo "bench-migrate: $DB missing, generating it with scripts/gen-bench-db.sh" >&2
	scripts/gen-bench-db.sh "$DB"
fi
go build -o "$BIN" ./cmd/olmcat

size=$(du -h "$DB" | cut -f1)
bundles=$(sqlite3 -readonly "file:$DB?immutable=1" 'select count(*) from operatorbundle where name is not null' 2>/dev/null || echo '?')
echo "input: $DB ($size, $bundles bundles), format $FORMAT, migrate-level $MIGRATE_LEVEL, $(nproc) CPUs"

log=$(mktemp)
trap 'rm -f "$log"; rm -rf "$OUT"' EXIT
for i in $(seq 1 "$RUNS"); do
	rm -rf "$OUT"
	/usr/bin/time -v "$BIN" migrate --no-deprecation-warning -o "$FORMAT" --migrate-level "$MIGRATE_LEVEL" "$DB" "$OUT" >/dev/null 2>"$log" || {
		echo "bench-migrate: the migration failed (first lines below); a benchmark needs a servable index" >&2
		grep -v '^\s' "$log" | head -3 >&2
		grep -m 5 '^  ' "$log" >&2
		exit 1
	}
	wall=$(grep 'Elapsed (wall clock)' "$log" | awk '{print $NF}')
	rss=$(grep 'Maximum resident set size' "$log" | awk '{print $NF}')
	cpu=$(grep 'Percent of CPU' "$log" | awk '{print $NF}')
	out=$(du -sh "$OUT" | cut -f1)
	echo "run $i: wall $wall, max RSS $((rss / 1024)) MB, CPU $cpu, output $out"
done
