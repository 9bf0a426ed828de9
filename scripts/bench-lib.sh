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
# bench_once CMD       runs CMD once under /usr/bin/time (stdout to
#                       BENCH_STDOUT, stderr to BENCH_ERR) and sets
#                       BENCH_WALL, BENCH_CPU and BENCH_RSS (MB) of that
#                       run; its status is CMD's.
# bench_serve [-list] CMD  starts the server CMD $RUNS times and prints
#                       the time to SERVING (grpc.health.v1) and peak RSS,
#                       with -list also after draining ListBundles
#                       (BENCH_WALL: the median time to SERVING,
#                       BENCH_CPU: the server's median CPU, BENCH_RSS: the
#                       median peak, after ListBundles with -list).
# bench_serve_once [-list] CMD  one start of bench_serve: sets BENCH_WALL,
#                       BENCH_CPU, BENCH_RSS and BENCH_SERVE_OUT (the
#                       prober's line); BENCH_SERVE_TIMEOUT (e.g. 300s)
#                       bounds the wait for SERVING.
# bench_index_registry DIR  pushes $DB as a sqlite index image and 10 real
#                       bundles (an add opm accepts in replaces mode) as
#                       bundle images to a loopback registry
#                       (scripts/benchregistry, its log in DIR); sets
#                       BENCH_INDEX_IMAGE, BENCH_BUNDLE_IMAGES (comma-
#                       separated) and BENCH_REG (the registry's pid).
# bench_template_inputs N DIR  serves the N bundles of the generated
#                       N-bundle index as bundle images on a loopback
#                       registry (scripts/fixtureregistry -synthetic, on
#                       127.0.0.1:$PORT, its pid in BENCH_REG) and writes
#                       DIR/basic.json (the migration of $CATALOG as one
#                       basic template), DIR/registries.conf (the mirror
#                       olmcat reads with --registries-conf) and DIR/home
#                       (a HOME whose containers configuration makes opm
#                       pull from it).
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

bench_once() {
	local log rc=0 wall user sys rss
	log=$(mktemp)
	/usr/bin/time -f 'wall %e user %U sys %S rss %M' -o "$log" "$@" >"${BENCH_STDOUT:-/dev/null}" 2>"${BENCH_ERR:-/dev/null}" || rc=$?
	# GNU time writes "Command exited with non-zero status N" first on failure.
	read -r _ wall _ user _ sys _ rss < <(tail -1 "$log")
	rm -f "$log"
	BENCH_WALL=$wall
	BENCH_CPU=$(awk -v u="$user" -v s="$sys" 'BEGIN {printf "%.2f", u + s}')
	BENCH_RSS=$((rss / 1024))
	return "$rc"
}

bench_run() {
	local label=$1 err walls=() cpus=() rsss=() i
	shift
	err=$(mktemp)
	for i in $(seq 1 "$RUNS"); do
		if [ -n "${BENCH_BEFORE_EACH:-}" ]; then eval "$BENCH_BEFORE_EACH"; fi
		BENCH_ERR=$err bench_once "$@" || {
			echo "$label: the command failed (last lines below)" >&2
			tail -5 "$err" >&2
			rm -f "$err"
			return 1
		}
		walls+=("$BENCH_WALL")
		cpus+=("$BENCH_CPU")
		rsss+=("$BENCH_RSS")
		echo "  run $i: wall $BENCH_WALL s, CPU $BENCH_CPU s, peak RSS $BENCH_RSS MB"
	done
	rm -f "$err"
	BENCH_RSS=$(printf '%s\n' "${rsss[@]}" | median)
	BENCH_WALL=$(printf '%s\n' "${walls[@]}" | median)
	BENCH_CPU=$(printf '%s\n' "${cpus[@]}" | median)
	echo "$label: median wall $BENCH_WALL s, CPU $BENCH_CPU s, peak RSS $BENCH_RSS MB"
}

bench_serve_once() {
	local list=
	if [ "${1:-}" = -list ]; then list=-list; shift; fi
	BENCH_SERVE_OUT=$("$PROBER" ${BENCH_SERVE_TIMEOUT:+-timeout "$BENCH_SERVE_TIMEOUT"} $list -- "$@") || return
	BENCH_WALL=$(sed -E 's/^serving ([0-9.]+) s.*/\1/' <<<"$BENCH_SERVE_OUT")
	BENCH_RSS=$(sed -E 's/.*peak RSS at serving ([0-9]+) MB.*/\1/' <<<"$BENCH_SERVE_OUT")
	BENCH_CPU=$(sed -E 's/.*CPU ([0-9.]+) s.*/\1/' <<<"$BENCH_SERVE_OUT")
}

bench_serve() {
	local label=$1 ready=() hwm=() hwml=() rssl=() cpus=() i
	shift
	local list=
	if [ "${1:-}" = -list ]; then list=-list; shift; fi
	for i in $(seq 1 "$RUNS"); do
		bench_serve_once $list "$@"
		echo "  run $i: $BENCH_SERVE_OUT"
		ready+=("$BENCH_WALL")
		hwm+=("$BENCH_RSS")
		cpus+=("$BENCH_CPU")
		if [ -n "$list" ]; then
			hwml+=("$(sed -E 's/.*bundles, peak RSS ([0-9]+) MB.*/\1/' <<<"$BENCH_SERVE_OUT")")
			rssl+=("$(sed -E 's/.*RSS after ([0-9]+) MB.*/\1/' <<<"$BENCH_SERVE_OUT")")
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

bench_index_registry() {
	local dir=$1 bundle_dirs
	go build -o bin/benchregistry ./scripts/benchregistry
	bundle_dirs=$(printf '%s\n' "$PWD"/fixtures/bundles/community/cockroachdb/*/ "$PWD"/fixtures/bundles/small-fbb/bar-bundle-*/ "$PWD"/fixtures/bundles/small-fbb/baz-bundle-v1.0.0/ | sed 's:/$::' | paste -sd,)
	bin/benchregistry -index "$DB" -bundles "$bundle_dirs" >"$dir/registry.out" 2>&1 &
	BENCH_REG=$!
	until grep -q '^ready$' "$dir/registry.out"; do
		if ! kill -0 "$BENCH_REG" 2>/dev/null; then
			cat "$dir/registry.out" >&2
			return 1
		fi
		sleep 0.5
	done
	# shellcheck disable=SC2034 # the caller's
	BENCH_INDEX_IMAGE=$(awk '$1 == "index" {print $2}' "$dir/registry.out")
	# shellcheck disable=SC2034 # the caller's
	BENCH_BUNDLE_IMAGES=$(awk '$1 == "bundle" {print $2}' "$dir/registry.out" | paste -sd,)
}

bench_template_inputs() {
	local n=$1 dir=$2 prefix
	PORT=${PORT:-5055}
	go build -o "$dir/fixtureregistry" ./scripts/fixtureregistry
	"$dir/fixtureregistry" -addr "127.0.0.1:$PORT" -synthetic "$n" >"$dir/registry.log" 2>&1 &
	BENCH_REG=$!
	until grep -q ready "$dir/registry.log"; do sleep 1; kill -0 "$BENCH_REG"; done
	cat "$dir/registry.log"
	"$BIN" alpha convert-template basic "$CATALOG" >"$dir/basic.json"
	echo "template: $(grep -c '"image"' "$dir/basic.json") bundle images, $(du -h "$dir/basic.json" | cut -f1)"
	# The synthetic images are named HOST/REPO/...; mirror HOST/REPO to the loopback registry.
	prefix=$(grep -m1 -o '"image": *"[^"]*"' "$dir/basic.json" | sed -E 's/.*"([^"/]+\/[^"/]+)\/.*/\1/')
	printf '[[registry]]\nprefix = "%s"\nlocation = "127.0.0.1:%s/%s"\ninsecure = true\n' "$prefix" "$PORT" "${prefix#*/}" >"$dir/registries.conf"
	mkdir -p "$dir/home/.config/containers"
	echo '{"default":[{"type":"insecureAcceptAnything"}]}' >"$dir/home/.config/containers/policy.json"
	cp "$dir/registries.conf" "$dir/home/.config/containers/registries.conf"
}
