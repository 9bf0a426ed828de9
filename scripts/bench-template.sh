#!/usr/bin/env bash
# Catalog templates at benchmark sizes: for each of SIZES bundles,
# render-template of the migrated generated index as one basic template
# (its bundle images served by scripts/fixtureregistry -synthetic on a
# loopback registry and pulled through a registries.conf mirror under
# their own names), olmcat and the real opm side by side, and migrate
# --to-template semver of the index, without and with --verify (the
# templates rendered back, bundle images pulled from the same registry,
# and compared with parity). Wall time, CPU and peak RSS, medians
# of RUNS (opm: OPM_RUNS) runs, then a table per size with the peak RSS
# growth from the smallest size to the largest (flat memory: at most 1.5x)
# and the load average before and after (timings of a busy machine are
# noisy).
#
#   scripts/bench-template.sh                       # 250, 2,500 and 10,000 bundle images
#   SIZES=2500 RUNS=1 scripts/bench-template.sh
#   OPM=~/.cache/opm-v1.73.0/opm OPM_RUNS=1 SIZES=250 scripts/bench-template.sh
#
# Indexes and migrations are kept under BENCH_DIR (default /tmp/bench) as
# index-N.db and catalog-N, generated when missing, as bench-growth.sh
# keeps them. olmcat pulls with an empty layer cache each run
# (--image-cache-dir in a fresh directory), as opm has none; opm runs
# only when OPM is executable. The growth of --to-template with catalog
# size alone: COMMANDS=to-template scripts/bench-growth.sh.
source "$(dirname "$0")/bench-lib.sh"
BENCH_DIR=${BENCH_DIR:-/tmp/bench}
SIZES=${SIZES:-250 2500 10000}
RUNS=${RUNS:-3}
OPM=${OPM:-$HOME/.cache/opm-v1.73.0/opm}
OPM_RUNS=${OPM_RUNS:-1}
PORT=${PORT:-5055}
scratch=$(mktemp -d)
reg=
trap 'if [ -n "$reg" ]; then kill "$reg" 2>/dev/null || true; fi; rm -rf "$scratch"' EXIT

load_avg() { cut -d' ' -f1-3 /proc/loadavg; }

# bench_size N benchmarks the templates of the N-bundle index.
bench_size() {
	local n=$1
	DB=$BENCH_DIR/index-$n.db CATALOG=$BENCH_DIR/catalog-$n BUNDLES=$n bench_setup bench-template
	NO_BUILD=1
	local cat=$BENCH_DIR/catalog-$n db=$BENCH_DIR/index-$n.db
	CATALOG=$cat bench_template_inputs "$n" "$scratch"
	reg=$BENCH_REG
	local conf=$scratch/registries.conf

	BENCH_STDOUT=$scratch/olmcat.json BENCH_BEFORE_EACH="rm -rf $scratch/cache" bench_run "$n olmcat alpha render-template" \
		"$BIN" alpha render-template "$scratch/basic.json" --registries-conf "$conf" --image-cache-dir "$scratch/cache"
	rss[$n]=$BENCH_RSS wall[$n]=$BENCH_WALL cpu[$n]=$BENCH_CPU
	opm[$n]=-
	if [ -x "$OPM" ]; then
		HOME="$scratch/home" RUNS=$OPM_RUNS BENCH_STDOUT=$scratch/opm.json bench_run "$n opm alpha render-template" \
			"$OPM" alpha render-template "$scratch/basic.json" --use-http
		if cmp -s "$scratch/olmcat.json" "$scratch/opm.json"; then echo "outputs: identical"; else echo "outputs: DIFFER"; fi
		opm[$n]="$BENCH_WALL/$BENCH_CPU/$BENCH_RSS"
	fi
	BENCH_BEFORE_EACH="rm -rf $scratch/t" bench_run "$n olmcat migrate --to-template semver" \
		"$BIN" migrate --to-template semver "$db" "$scratch/t"
	tt[$n]="$BENCH_WALL/$BENCH_CPU/$BENCH_RSS"
	BENCH_BEFORE_EACH="rm -rf $scratch/t $scratch/cache" bench_run "$n olmcat migrate --to-template semver --verify" \
		"$BIN" migrate --to-template semver --verify --registries-conf "$conf" --image-cache-dir "$scratch/cache" "$db" "$scratch/t"
	tv[$n]="$BENCH_WALL/$BENCH_CPU/$BENCH_RSS"
	rm -rf "$scratch/t" "$scratch/cache" "$scratch/olmcat.json" "$scratch/opm.json"
	kill "$reg"
	wait "$reg" 2>/dev/null || true
	reg=
}

before=$(load_avg)
echo "load average before: $before"
if [ -z "${NO_BUILD:-}" ]; then
	go build -o "$BIN" ./cmd/olmcat
	go build -o "$PROBER" ./scripts/servebench
	NO_BUILD=1
fi
declare -A rss wall cpu opm tt tv
for n in $SIZES; do
	bench_size "$n"
done
after=$(load_avg)

printf '\n%-8s %10s %10s %14s %22s %22s %24s\n' images "wall (s)" "CPU (s)" "peak RSS (MB)" "opm wall/CPU/RSS" "to-template wall/CPU/RSS" "--verify wall/CPU/RSS"
for n in $SIZES; do
	printf '%-8s %10s %10s %14s %22s %22s %24s\n' "$n" "${wall[$n]}" "${cpu[$n]}" "${rss[$n]}" "${opm[$n]}" "${tt[$n]}" "${tv[$n]}"
done
first=${SIZES%% *} last=${SIZES##* }
printf 'peak RSS growth %s -> %s images: %.2fx (medians of %s runs; load average before: %s, after: %s)\n' "$first" "$last" \
	"$(awk -v a="${rss[$first]}" -v b="${rss[$last]}" 'BEGIN {print (a > 0 ? b / a : 0)}')" "$RUNS" "$before" "$after"
