#!/usr/bin/env bash
# Shared helpers for the scripts/bench-*.sh benchmarks; source it.
#
# bench_setup NAME      checks the tools, builds $BIN (and the server
#                       prober), generates $DB with gen-bench-db.sh when
#                       missing and migrates it to $CATALOG when missing.
# bench_run LABEL CMD   runs CMD $RUNS times under /usr/bin/time and
#                       prints each run's wall time, user+sys CPU and peak
#                       RSS, then their medians (BENCH_WALL, BENCH_CPU,
#                       BENCH_RSS). BENCH_BEFORE_EACH is evaluated before each
#                       run; the last run's stdout goes to BENCH_STDOUT.
# bench_serve [-list] CMD  starts the server CMD $RUNS times and prints
#                       the time to SERVING (grpc.health.v1) and peak RSS,
#                       with -list also after draining ListBundles
#                       (BENCH_WALL: the median time to SERVING,
#                       BENCH_CPU: the server's median CPU, BENCH_RSS: the
#                       median peak, after ListBundles with -list).
#
# Environment: DB (legacy index, default /tmp/bench/index.db), BUNDLES
# (bundles to generate when DB is missing, default 10000), CATALOG (its
# migration, default DB's directory/catalog), BIN (default bin/olmcat),
# RUNS (default 5).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
DB=${DB:-/tmp/bench/index.db}
BUNDLES=${BUNDLES:-10000}
CATALOG=${CATALOG:-$(dirname "$DB")/catalog}
BIN=${BIN:-bin/olmcat}
RUNS=${RUNS:-5}
PROBER=${PROBER:-bin/servebench}

bench_setup() {
	local name=$1
	if [ ! -x /usr/bin/time ]; then
		echo "$name: /usr/bin/time is required (GNU time)" >&2
		exit 2
	fi
	if [ -z "${NO_BUILD:-}" ]; then
		go build -o "$BIN" ./cmd/olmcat
		go build -o "$PROBER" ./scripts/servebench
	fi
	if [ ! -f "$DB" ]; then
		echo "$name: $DB missing, generating it with scripts/gen-bench-db.sh" >&2
		mkdir -p "$(dirname "$DB")"
		scripts/gen-bench-db.sh "$DB" "$BUNDLES"
	fi
	if [ ! -d "$CATALOG" ]; then
		echo "$name: $CATALOG missing, migrating $DB into it" >&2
		"$BIN" migrate --no-deprecation-warning "$DB" "$CATALOG" >/dev/null
	fi
	echo "input: $DB ($(du -h "$DB" | cut -f1)), its migration $CATALOG ($(du -sh "$CATALOG" | cut -f1)), $(nproc) CPUs, $RUNS runs"
}

# median reads numbers, one a line, and prints their median.
median() {
	sort -g | awk '{v[NR]=$1} END {if (NR == 0) exit; if (NR % 2) print v[(NR+1)/2]; else printf "%g\n", (v[NR/2]+v[NR/2+1])/2}'
}

bench_run() {
	local label=$1 log walls=() cpus=() rsss=() i
	shift
	log=$(mktemp)
	for i in $(seq 1 "$RUNS"); do
		if [ -n "${BENCH_BEFORE_EACH:-}" ]; then eval "$BENCH_BEFORE_EACH"; fi
		/usr/bin/time -f 'wall %e user %U sys %S rss %M' -o "$log" "$@" >"${BENCH_STDOUT:-/dev/null}" 2>"$log.err" || {
			echo "$label: the command failed (last lines below)" >&2
			tail -5 "$log.err" >&2
			rm -f "$log" "$log.err"
			return 1
		}
		read -r _ wall _ user _ sys _ rss <"$log"
		walls+=("$wall")
		cpus+=("$(awk -v u="$user" -v s="$sys" 'BEGIN {printf "%.2f", u + s}')")
		rsss+=("$((rss / 1024))")
		echo "  run $i: wall $wall s, CPU ${cpus[-1]} s, peak RSS ${rsss[-1]} MB"
	done
	rm -f "$log" "$log.err"
	BENCH_RSS=$(printf '%s\n' "${rsss[@]}" | median)
	BENCH_WALL=$(printf '%s\n' "${walls[@]}" | median)
	BENCH_CPU=$(printf '%s\n' "${cpus[@]}" | median)
	echo "$label: median wall $BENCH_WALL s, CPU $BENCH_CPU s, peak RSS $BENCH_RSS MB"
}

bench_serve() {
	local label=$1 out ready=() hwm=() hwml=() rssl=() cpus=() i
	shift
	local list=
	if [ "${1:-}" = -list ]; then list=-list; shift; fi
	for i in $(seq 1 "$RUNS"); do
		out=$("$PROBER" $list -- "$@")
		echo "  run $i: $out"
		ready+=("$(sed -E 's/^serving ([0-9.]+) s.*/\1/' <<<"$out")")
		hwm+=("$(sed -E 's/.*peak RSS at serving ([0-9]+) MB.*/\1/' <<<"$out")")
		cpus+=("$(sed -E 's/.*CPU ([0-9.]+) s.*/\1/' <<<"$out")")
		if [ -n "$list" ]; then
			hwml+=("$(sed -E 's/.*bundles, peak RSS ([0-9]+) MB.*/\1/' <<<"$out")")
			rssl+=("$(sed -E 's/.*RSS after ([0-9]+) MB.*/\1/' <<<"$out")")
		fi
	done
	BENCH_RSS=$(printf '%s\n' "${hwm[@]}" | median)
	BENCH_WALL=$(printf '%s\n' "${ready[@]}" | median)
	BENCH_CPU=$(printf '%s\n' "${cpus[@]}" | median)
	local line="$label: median SERVING $BENCH_WALL s, peak RSS at SERVING $BENCH_RSS MB"
	if [ -n "$list" ]; then
		BENCH_RSS=$(printf '%s\n' "${hwml[@]}" | median)
		line+=", peak RSS after ListBundles $BENCH_RSS MB, RSS after ListBundles $(printf '%s\n' "${rssl[@]}" | median) MB"
	fi
	echo "$line, server CPU $BENCH_CPU s"
}
