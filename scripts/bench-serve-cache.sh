#!/usr/bin/env bash
# Benchmark the serve caches of the migration of the benchmark index: the
# time from start to SERVING (grpc.health.v1) of the real opm v1.73 serve
# and of olmcat serve, each on olmcat's cache (what olmcat build ships at
# /tmp/cache: opm's JSON format, and olmcat's snapshot in the sibling
# /tmp/cache.olmcat), on opm's own cache (what opm serve --cache-only
# writes: pogreb.v1) and with no cache; olmcat also on olmcat's cache
# without the snapshot (what OLM's extractContent copies: /tmp/cache only).
# Medians of RUNS: wall time to SERVING, the server's CPU, its peak RSS. Every cache is written once before and only read by the
# runs (--cache-dir enforces integrity when serving, in both tools).
#
#   scripts/bench-serve-cache.sh              # /tmp/bench/index.db and its migration
#   OPM=path/to/opm RUNS=3 scripts/bench-serve-cache.sh
#
# OPM defaults to the binary scripts/install-opm.sh builds (make opm-bin).
source "$(dirname "$0")/bench-lib.sh"
bench_setup bench-serve-cache
OPM=${OPM:-$(scripts/install-opm.sh)}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
olmcat_cache=$work/olmcat/cache opm_cache=$work/opm/cache json_only=$work/json-only/cache
"$BIN" serve --cache-dir "$olmcat_cache" --cache-only "$CATALOG" 2>"$work/olmcat.log" || { tail -3 "$work/olmcat.log" >&2; exit 1; }
mkdir -p "$(dirname "$json_only")" && cp -a "$olmcat_cache" "$json_only"
"$OPM" serve "$CATALOG" --cache-dir "$opm_cache" --cache-only --pprof-addr= 2>"$work/opm.log" || { tail -3 "$work/opm.log" >&2; exit 1; }

declare -A result
row() {
	local label=$1
	shift
	bench_serve "$label" "$@"
	result[$label]="$BENCH_WALL | $BENCH_CPU | $BENCH_RSS"
}
row "opm, olmcat's cache" "$OPM" serve "$CATALOG" --cache-dir "$olmcat_cache" --pprof-addr=
row "opm, opm's cache (pogreb.v1)" "$OPM" serve "$CATALOG" --cache-dir "$opm_cache" --pprof-addr=
row "opm, no cache" "$OPM" serve "$CATALOG" --pprof-addr=
row "olmcat, olmcat's cache (snapshot)" "$BIN" serve "$CATALOG" --cache-dir "$olmcat_cache" --pprof-addr=
row "olmcat, olmcat's cache without the snapshot (opm's JSON format)" "$BIN" serve "$CATALOG" --cache-dir "$json_only" --pprof-addr=
row "olmcat, opm's cache (pogreb.v1)" "$BIN" serve "$CATALOG" --cache-dir "$opm_cache" --pprof-addr=
row "olmcat, no cache" "$BIN" serve "$CATALOG" --pprof-addr=

echo
echo "| server, cache | start to SERVING (s) | server CPU (s) | peak RSS at SERVING (MB) |"
echo "|---|---|---|---|"
for label in "opm, olmcat's cache" "opm, opm's cache (pogreb.v1)" "opm, no cache" "olmcat, olmcat's cache (snapshot)" \
	"olmcat, olmcat's cache without the snapshot (opm's JSON format)" "olmcat, opm's cache (pogreb.v1)" "olmcat, no cache"; do
	echo "| $label | ${result[$label]} |"
done
