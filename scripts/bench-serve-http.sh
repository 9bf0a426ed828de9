#!/usr/bin/env bash
# Benchmark catalogd's HTTP API of `olmcat serve --http` on benchmark
# catalogs of SIZES bundles (default 2500 10000 40000): for each size,
# the migrated directory served with the HTTP API only (-p -1) and
# beside the gRPC API, RUNS times (default 3), each run a fresh server:
# the time from start until /healthz is 200, the peak RSS then (VmHWM),
# the time to first byte of /api/v1/all, of metas?schema=olm.package and
# of metas?package=<one> (one request at a time, each on a new
# connection), the whole /all body's size and transfer time without and
# with gzip, and the peak RSS after all that. Prints every run, then a
# table of the medians.
#
#   scripts/bench-serve-http.sh                       # /tmp/bench-<size>/index.db
#   SIZES=10000 BENCH_ROOT=/tmp/bench- scripts/bench-serve-http.sh
#
# The index of SIZE bundles is BENCH_ROOT<size>/index.db (default
# BENCH_ROOT /tmp/bench-), generated with scripts/gen-bench-db.sh when
# missing (40,000 bundles take a quarter of an hour and 1.4 GB), and its
# migration BENCH_ROOT<size>/catalog (bench-lib.sh's conventions).
#
# Target: memory stays flat-ish as the catalog grows (the served body is
# a file; the server keeps an offset index of it), time to first byte in
# milliseconds at every size.
source "$(dirname "$0")/bench-lib.sh"
SIZES=${SIZES:-2500 10000 40000}
BENCH_ROOT=${BENCH_ROOT:-/tmp/bench-}
RUNS=${RUNS:-3}

# bench_http LABEL PROBER-FLAGS...: RUNS runs, then the medians as one
# table row in rows.
rows=()
bench_http() {
	local label=$1 out i ready=() all=() pkg=() pkgs=() alls=() gzs=() rss=() size gzsize
	shift
	for i in $(seq 1 "$RUNS"); do
		out=$("$PROBER" -http -http-bench "$@" -- "$BIN" serve "$CATALOG")
		echo "  run $i: $out"
		ready+=("$(sed -E 's/^healthz ([0-9.]+) s.*/\1/' <<<"$out")")
		all+=("$(sed -E 's/.*TTFB \/all ([0-9.]+) ms.*/\1/' <<<"$out")")
		pkg+=("$(sed -E 's/.*metas\?package=[^ ]+ ([0-9.]+) ms.*/\1/' <<<"$out")")
		pkgs+=("$(sed -E 's/.*metas\?schema=olm.package ([0-9.]+) ms.*/\1/' <<<"$out")")
		alls+=("$(sed -E 's/.*; \/all [0-9]+ bytes in ([0-9.]+) s.*/\1/' <<<"$out")")
		gzs+=("$(sed -E 's/.*gzip [0-9]+ bytes in ([0-9.]+) s.*/\1/' <<<"$out")")
		rss+=("$(sed -E 's/.*peak RSS after ([0-9]+) MB.*/\1/' <<<"$out")")
		size=$(sed -E 's/.*; \/all ([0-9]+) bytes.*/\1/' <<<"$out")
		gzsize=$(sed -E 's/.*gzip ([0-9]+) bytes.*/\1/' <<<"$out")
	done
	rows+=("$(printf '%-28s %7s s %8s ms %8s ms %8s ms %6d MB %7s s %6d MB %7s s %6s MB' "$label" \
		"$(printf '%s\n' "${ready[@]}" | median)" "$(printf '%s\n' "${all[@]}" | median)" \
		"$(printf '%s\n' "${pkg[@]}" | median)" "$(printf '%s\n' "${pkgs[@]}" | median)" \
		"$((size / 1000000))" "$(printf '%s\n' "${alls[@]}" | median)" \
		"$((gzsize / 1000000))" "$(printf '%s\n' "${gzs[@]}" | median)" "$(printf '%s\n' "${rss[@]}" | median)")")
}

for n in $SIZES; do
	DB=$BENCH_ROOT$n/index.db
	CATALOG=$BENCH_ROOT$n/catalog
	BUNDLES=$n
	bench_setup bench-serve-http
	NO_BUILD=1 # built once
	echo "$n bundles, load average $(cut -d' ' -f1-3 /proc/loadavg):"
	echo " --http only (-p -1):"
	bench_http "$n bundles, HTTP only" -no-grpc
	echo " --http beside gRPC:"
	bench_http "$n bundles, HTTP + gRPC"
done
echo
printf '%-28s %9s %11s %11s %11s %9s %9s %9s %9s %9s\n' "median of $RUNS" "healthz" "TTFB /all" "TTFB pkg" "TTFB pkgs" "/all" "/all" "gzip" "gzip" "peak RSS"
printf '%s\n' "${rows[@]}"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
