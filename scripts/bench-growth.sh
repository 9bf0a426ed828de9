#!/usr/bin/env bash
# Memory growth of every command with catalog size: the peak RSS (MB,
# median of RUNS) of migrate, serve <index.db>, serve <dir> (after
# ListBundles), validate, render and parity on generated indexes of
# 2,500 / 5,000 / 10,000 / 20,000 bundles (SIZES), printed as a table with
# the growth from the smallest to the largest size. Flat memory means a
# growth near 1x; the target is under 1.5x up to 40,000 bundles:
#
#   SIZES="2500 5000 10000 20000 40000" scripts/bench-growth.sh
#
# Indexes and migrations are kept under BENCH_DIR (default /tmp/bench) as
# index-N.db and catalog-N, generated when missing (~35 MB of sqlite and
# ~25 MB of JSON per 1,000 bundles). COMMANDS narrows the columns.
source "$(dirname "$0")/bench-lib.sh"
BENCH_DIR=${BENCH_DIR:-/tmp/bench}
SIZES=${SIZES:-2500 5000 10000 20000}
RUNS=${RUNS:-1}
COMMANDS=${COMMANDS:-migrate serve-db serve-dir validate render parity}

declare -A peak
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
		*) echo "bench-growth: unknown command $c" >&2; exit 2 ;;
		esac
		peak[$n,$c]=$BENCH_RSS
	done
done

printf '%-9s' bundles
for c in $COMMANDS; do printf ' %10s' "$c"; done
echo
for n in $SIZES; do
	printf '%-9s' "$n"
	for c in $COMMANDS; do printf ' %10s' "${peak[$n,$c]}"; done
	echo
done
first=${SIZES%% *} last=${SIZES##* }
printf '%-9s' growth
for c in $COMMANDS; do
	printf ' %9.2fx' "$(awk -v a="${peak[$first,$c]}" -v b="${peak[$last,$c]}" 'BEGIN {print b / a}')"
done
echo
echo "(peak RSS in MB, median of $RUNS; serve-dir after ListBundles; growth $first -> $last bundles)"
