#!/usr/bin/env bash
# Benchmark `olmcat parity` of a large legacy index against its migration:
# wall time, peak memory (max RSS) and calls per RPC.
#
#   scripts/bench-parity.sh                  # /tmp/bench/index.db, generated if missing
#   DB=path/to/index.db scripts/bench-parity.sh
#
# Target (10,000 bundles): under 60 s.
set -euo pipefail

cd "$(dirname "$0")/.."
DB=${DB:-/tmp/bench/index.db}
OUT=${OUT:-$(dirname "$DB")/parity-catalog}
BIN=${BIN:-bin/olmcat}

if [ ! -x /usr/bin/time ]; then
	echo "bench-parity: /usr/bin/time is required (GNU time)" >&2
	exit 2
fi
if [ ! -f "$DB" ]; then
	echo "bench-parity: $DB missing, generating it with scripts/gen-bench-db.sh" >&2
	scripts/gen-bench-db.sh "$DB"
fi
go build -o "$BIN" ./cmd/olmcat

log=$(mktemp)
trap 'rm -f "$log"; rm -rf "$OUT"' EXIT
rm -rf "$OUT"
"$BIN" migrate --no-deprecation-warning "$DB" "$OUT" >/dev/null 2>"$log" || {
	cat "$log" >&2
	exit 1
}
echo "input: $DB ($(du -h "$DB" | cut -f1)) vs its migration $OUT, $(nproc) CPUs"
status=0
/usr/bin/time -v "$BIN" parity --no-deprecation-warning --max-diffs 0 "$DB" "$OUT" 2>"$log" || status=$?
grep -E 'Elapsed \(wall clock\)|Maximum resident set size|Percent of CPU' "$log" | sed 's/^\s*/  /'
exit "$status"
