#!/usr/bin/env bash
# Growth of every command of the flat-memory work with catalog size:
# migrate, serve <index.db>, serve <dir> (peak after draining
# ListBundles), validate, render and parity, each run RUNS times on
# generated indexes of SIZES bundles and their migrations. Prints three
# tables (peak RSS in MB, wall seconds, CPU seconds; medians), each with
# the growth from the smallest to the largest size. Flat memory means a
# peak RSS growth near 1x; the target is under 1.5x from 2,500 to 40,000
# bundles:
#
#   scripts/bench-growth.sh                                 # 2,500 .. 40,000 bundles
#   SIZES="2500 10000 40000" RUNS=3 scripts/bench-growth.sh
#   COMMANDS="validate render graph graph-db" scripts/bench-growth.sh
#
# For serve the wall column is the time to SERVING and the CPU column the
# server's CPU through ListBundles (serve-dir) or to SERVING (serve-db).
# graph (-o svg of the migrated dir), graph-db (of the index) and
# to-template (migrate --to-template semver of the index) are extra
# columns, not in the default COMMANDS, as are the CI outputs:
# parity-junit and parity-github (parity -o junit|github) and
# validate-junit (validate -o junit), each written as the check runs:
#
#   SIZES="2500 40000" COMMANDS="parity parity-junit validate-junit" scripts/bench-growth.sh
#
# Indexes and migrations are kept under BENCH_DIR (default /tmp/bench) as
# index-N.db and catalog-N, generated when missing (~35 MB of sqlite and
# ~25 MB of JSON per 1,000 bundles: ~2.4 GB for 40,000). The load average
# is printed before and after: timings from a busy machine are noisy.
source "$(dirname "$0")/bench-lib.sh"
BENCH_DIR=${BENCH_DIR:-/tmp/bench}
SIZES=${SIZES:-2500 5000 10000 20000 40000}
RUNS=${RUNS:-1}
COMMANDS=${COMMANDS:-migrate serve-db serve-dir validate render parity}

load_avg() { cut -d' ' -f1-3 /proc/loadavg; }

before=$(load_avg)
echo "load average before: $before" >&2
declare -A rss wall cpu
for n in $SIZES; do
	DB=$BENCH_DIR/index-$n.db CATALOG=$BENCH_DIR/catalog-$n BUNDLES=$n bench_setup bench-growth >&2
	NO_BUILD=1
	db=$BENCH_DIR/index-$n.db cat=$BENCH_DIR/catalog-$n
	for c in $COMMANDS; do
		case $c in
		migrate)
			out=$(mktemp -d)
			BENCH_BEFORE_EACH="rm -rf $out/c" bench_run "$n $c" "$BIN" migrate --no-deprecation-warning "$db" "$out/c" >&2
			rm -rf "$out" ;;
		serve-db) bench_serve "$n $c" "$BIN" serve --no-deprecation-warning "$db" >&2 ;;
		serve-dir) bench_serve "$n $c" -list "$BIN" serve "$cat" >&2 ;;
		validate) bench_run "$n $c" "$BIN" validate "$cat" >&2 ;;
		render) bench_run "$n $c" "$BIN" render "$cat" >&2 ;;
		parity) bench_run "$n $c" "$BIN" parity --no-deprecation-warning --max-diffs 0 "$db" "$cat" >&2 ;;
		parity-junit) bench_run "$n $c" "$BIN" parity --no-deprecation-warning -o junit "$db" "$cat" >&2 ;;
		parity-github) bench_run "$n $c" "$BIN" parity --no-deprecation-warning -o github "$db" "$cat" >&2 ;;
		validate-junit) bench_run "$n $c" "$BIN" validate -o junit "$cat" >&2 ;;
		graph) bench_run "$n $c" "$BIN" graph -o svg "$cat" >&2 ;;
		to-template)
			out=$(mktemp -d)
			BENCH_BEFORE_EACH="rm -rf $out/t" bench_run "$n $c" "$BIN" migrate --to-template semver "$db" "$out/t" >&2
			rm -rf "$out" ;;
		graph-db) bench_run "$n $c" "$BIN" graph --no-deprecation-warning -o svg "$db" >&2 ;;
		*) echo "bench-growth: unknown command $c" >&2; exit 2 ;;
		esac
		rss[$n,$c]=$BENCH_RSS wall[$n,$c]=$BENCH_WALL cpu[$n,$c]=$BENCH_CPU
	done
done
after=$(load_avg)
echo "load average after: $after" >&2

# table TITLE ARRAY prints one metric per size and command, and its growth.
table() {
	local -n v=$2
	local n c first=${SIZES%% *} last=${SIZES##* }
	echo "$1"
	printf '%-9s' bundles
	for c in $COMMANDS; do printf ' %10s' "$c"; done
	echo
	for n in $SIZES; do
		printf '%-9s' "$n"
		for c in $COMMANDS; do printf ' %10s' "${v[$n,$c]}"; done
		echo
	done
	printf '%-9s' growth
	for c in $COMMANDS; do
		printf ' %9.2fx' "$(awk -v a="${v[$first,$c]}" -v b="${v[$last,$c]}" 'BEGIN {print (a > 0 ? b / a : 0)}')"
	done
	echo
}

table "peak RSS (MB; serve-dir: after ListBundles)" rss
table "wall (s; serve: to SERVING)" wall
table "CPU (s; serve-db: to SERVING, serve-dir: through ListBundles)" cpu
echo "(medians of $RUNS; growth ${SIZES%% *} -> ${SIZES##* } bundles; load average before: $before, after: $after)"
