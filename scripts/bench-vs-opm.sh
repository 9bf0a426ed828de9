#!/usr/bin/env bash
# olmcat against the real opm v1.73.0 on every command both have, on the
# same inputs: the generated legacy index (scripts/gen-bench-db.sh) and its
# migration. Each command runs as RUNS pairs, olmcat then opm, and the
# script prints a Markdown table of the medians (wall seconds, user+sys CPU
# seconds, peak RSS from /usr/bin/time; for the servers the time from
# start to SERVING on grpc.health.v1 and the peak RSS then, measured by
# scripts/servebench) and the ratios opm / olmcat, under a line naming the
# machine (CPUs, CPU model, RAM), the date and the load average before and
# after the run (timings of a busy machine are noisy).
#
#   scripts/bench-vs-opm.sh                          # /tmp/bench/index.db (10,000 bundles), 3 pairs
#   DB=/tmp/httpload-bench/b2500/index.db RUNS=1 scripts/bench-vs-opm.sh
#   ONLY="migrate serve-dir" OPM_TIMEOUT=120 scripts/bench-vs-opm.sh
#
# Rows (ONLY picks some): migrate, validate, render, serve-dir (cold, no
# cache), serve-db (registry serve -d), index-add (10 bundle images added
# to the index pushed as a sqlite index image, --generate, as
# scripts/bench-index.sh), index-prune (registry prune -d of a copy of the
# index, keeping 10 packages: opm's index prune pulls only through podman
# or docker), render-template (the migration of the generated
# TEMPLATE_BUNDLES-bundle index as one basic template, its bundle images
# on a loopback registry, as scripts/bench-template.sh), list-packages and
# list-bundles (alpha list of the index), render-graph (alpha render-graph
# of the migration), parity (olmcat alone: opm has none).
#
# Every opm run is bounded by OPM_TIMEOUT seconds (default 300): opm's
# prune ran more than 10 minutes and its render-template at 10,000 images
# more than 48; a run that reaches it shows as "did not finish in N s",
# and opm is not run again for that row. olmcat runs without its layer
# cache, as opm has none. OPM defaults to scripts/install-opm.sh's binary.
RUNS=${RUNS:-3}
# shellcheck source=scripts/bench-lib.sh
source "$(dirname "$0")/bench-lib.sh"
OPM=${OPM:-$HOME/.cache/opm-v1.73.0/opm}
OPM_TIMEOUT=${OPM_TIMEOUT:-300}
TEMPLATE_BUNDLES=${TEMPLATE_BUNDLES:-250}
BENCH_DIR=${BENCH_DIR:-/tmp/bench}
ONLY=${ONLY:-migrate validate render serve-dir serve-db index-add index-prune render-template list-packages list-bundles render-graph parity}
if [ ! -x "$OPM" ]; then
	echo "bench-vs-opm: no opm at $OPM (scripts/install-opm.sh installs it; or set OPM)" >&2
	exit 2
fi

load_avg() { cut -d' ' -f1-3 /proc/loadavg; }
before=$(load_avg)
echo "load average before: $before"
bench_setup bench-vs-opm
BIN=$(realpath "$BIN")
PROBER=$(realpath "$PROBER")
DB=$(realpath "$DB")
CATALOG=$(realpath "$CATALOG")
work=$(mktemp -d /tmp/bench-vs-opm.XXXXXX)
BENCH_REG=
trap 'if [ -n "$BENCH_REG" ]; then kill "$BENCH_REG" 2>/dev/null; fi; rm -rf "$work"' EXIT
rows=()

# cell WALL CPU RSS prints a table cell of one side's medians.
cell() { printf '%s s (%s s), %s MB' "$1" "$2" "$3"; }

# ratio A B prints A / B as a factor.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {r = b > 0 ? a / b : 0; printf (r >= 10 ? "%.0fx" : r >= 1 ? "%.1fx" : "%.2fx"), r}'; }

# pair ROW LABEL [RUNNER] runs the commands in the arrays olm and opm
# (none: olmcat alone) as RUNS pairs with RUNNER (bench_once, or
# bench_serve_once for servers), evaluating before_each before every run,
# and adds the row of medians to rows.
pair() {
	local row=$1 label=$2 runner=${3:-bench_once} i rc start dnf=
	local ow=() oc=() orss=() pw=() pc=() prss=()
	echo "== $label"
	for i in $(seq 1 "$RUNS"); do
		eval "${before_each:-}"
		BENCH_ERR=$work/err "$runner" "${olm[@]}" || {
			echo "$row: olmcat failed (last lines below)" >&2
			tail -5 "$work/err" >&2
			exit 1
		}
		ow+=("$BENCH_WALL") oc+=("$BENCH_CPU") orss+=("$BENCH_RSS")
		echo "  run $i olmcat: wall $BENCH_WALL s, CPU $BENCH_CPU s, peak RSS $BENCH_RSS MB"
		if [ "${#opm[@]}" = 0 ] || [ -n "$dnf" ]; then continue; fi
		eval "${before_each:-}"
		rc=0 start=$SECONDS
		if [ "$runner" = bench_serve_once ]; then
			BENCH_SERVE_TIMEOUT=${OPM_TIMEOUT}s bench_serve_once "${opm[@]}" 2>"$work/err" || rc=$?
		else
			BENCH_ERR=$work/err bench_once timeout -k 5 "$OPM_TIMEOUT" "${opm[@]}" || rc=$?
		fi
		if [ "$rc" != 0 ] && [ $((SECONDS - start)) -ge "$OPM_TIMEOUT" ]; then
			dnf=1
			echo "  run $i opm: did not finish in $OPM_TIMEOUT s"
			continue
		elif [ "$rc" != 0 ]; then
			echo "$row: opm failed (last lines below)" >&2
			tail -5 "$work/err" >&2
			exit 1
		fi
		pw+=("$BENCH_WALL") pc+=("$BENCH_CPU") prss+=("$BENCH_RSS")
		echo "  run $i opm: wall $BENCH_WALL s, CPU $BENCH_CPU s, peak RSS $BENCH_RSS MB"
	done
	local w c r mine theirs factor
	w=$(printf '%s\n' "${ow[@]}" | median) c=$(printf '%s\n' "${oc[@]}" | median) r=$(printf '%s\n' "${orss[@]}" | median)
	mine=$(cell "$w" "$c" "$r")
	if [ "${#opm[@]}" = 0 ]; then
		theirs="—" factor="—"
	elif [ "${#pw[@]}" = 0 ]; then
		theirs="did not finish in $OPM_TIMEOUT s"
		factor="> $(ratio "$OPM_TIMEOUT" "$w") wall"
	else
		local pwm pcm prm
		pwm=$(printf '%s\n' "${pw[@]}" | median) pcm=$(printf '%s\n' "${pc[@]}" | median) prm=$(printf '%s\n' "${prss[@]}" | median)
		theirs=$(cell "$pwm" "$pcm" "$prm")
		if [ -n "$dnf" ]; then theirs+=" (${#pw[@]} of $RUNS runs finished in $OPM_TIMEOUT s)"; fi
		factor="$(ratio "$pwm" "$w") wall, $(ratio "$pcm" "$c") CPU, $(ratio "$prm" "$r") RSS"
	fi
	rows+=("| $label | $mine | $theirs | $factor |")
	echo "${rows[-1]}"
}

want() { [[ " $ONLY " == *" $1 "* ]]; }

if want migrate; then
	before_each="rm -rf $work/out"
	olm=("$BIN" migrate --no-deprecation-warning -o json "$DB" "$work/out")
	opm=("$OPM" migrate -o json "$DB" "$work/out")
	pair migrate "\`migrate -o json <index.db> <dir>\`"
	before_each=
fi
if want validate; then
	olm=("$BIN" validate "$CATALOG") opm=("$OPM" validate "$CATALOG")
	pair validate "\`validate <dir>\`"
fi
if want render; then
	olm=("$BIN" render "$CATALOG") opm=("$OPM" render "$CATALOG")
	pair render "\`render <dir>\` (to /dev/null)"
fi
if want serve-dir; then
	olm=("$BIN" serve "$CATALOG" --pprof-addr=) opm=("$OPM" serve "$CATALOG" --pprof-addr=)
	pair serve-dir "\`serve <dir>\`, no cache: start to SERVING" bench_serve_once
fi
if want serve-db; then
	olm=("$BIN" registry serve -d "$DB" --no-deprecation-warning) opm=("$OPM" registry serve -d "$DB")
	pair serve-db "\`registry serve -d <index.db>\`: start to SERVING" bench_serve_once
fi
# sed, not head: under pipefail sort's SIGPIPE would end the script (see bench-index.sh).
keep=$(find "$CATALOG" -mindepth 1 -maxdepth 1 -printf '%f\n' | sort | sed -n 1,10p | paste -sd,)
if want index-add; then
	mkdir -p "$work/add"
	bench_index_registry "$work"
	before_each="rm -rf $work/add/database $work/add/index.Dockerfile"
	olm=("$BIN" index add -f "$BENCH_INDEX_IMAGE" -b "$BENCH_BUNDLE_IMAGES" --generate -i opm:v1.73.0 --use-http --no-image-cache --no-deprecation-warning)
	opm=("$OPM" index add -f "$BENCH_INDEX_IMAGE" -b "$BENCH_BUNDLE_IMAGES" --generate --use-http)
	cd "$work/add" || exit
	pair index-add "\`index add --generate\` of 10 bundle images to the index as a sqlite index image"
	cd - >/dev/null || exit
	kill "$BENCH_REG"
	wait "$BENCH_REG" 2>/dev/null || true
	BENCH_REG='' before_each=''
fi
if want index-prune; then
	# opm killed at OPM_TIMEOUT leaves its rollback journal beside the copy.
	before_each="cp $DB $work/prune.db; rm -rf $work/prune.db-journal $work/out"
	olm=("$BIN" registry prune -d "$work/prune.db" -p "$keep" --output "$work/out" --no-deprecation-warning)
	opm=("$OPM" registry prune -d "$work/prune.db" -p "$keep")
	pair index-prune "index prune keeping 10 packages (\`registry prune -d\` of a copy of index.db; opm's \`index prune\` pulls only through podman or docker)"
	before_each=
	rm -rf "$work/prune.db" "$work/prune.db-journal" "$work/out"
fi
if want render-template; then
	mkdir -p "$work/tpl"
	NO_BUILD=1 DB=$BENCH_DIR/index-$TEMPLATE_BUNDLES.db CATALOG=$BENCH_DIR/catalog-$TEMPLATE_BUNDLES BUNDLES=$TEMPLATE_BUNDLES bench_setup bench-vs-opm
	CATALOG=$BENCH_DIR/catalog-$TEMPLATE_BUNDLES bench_template_inputs "$TEMPLATE_BUNDLES" "$work/tpl"
	before_each="rm -rf $work/tpl/cache"
	olm=("$BIN" alpha render-template "$work/tpl/basic.json" --registries-conf "$work/tpl/registries.conf" --image-cache-dir "$work/tpl/cache")
	opm=(env HOME="$work/tpl/home" "$OPM" alpha render-template "$work/tpl/basic.json" --use-http)
	pair render-template "\`alpha render-template\` of a basic template of $TEMPLATE_BUNDLES bundle images (loopback registry)"
	kill "$BENCH_REG"
	wait "$BENCH_REG" 2>/dev/null || true
	BENCH_REG='' before_each=''
fi
if want list-packages; then
	olm=("$BIN" alpha list packages "$DB") opm=("$OPM" alpha list packages "$DB")
	pair list-packages "\`alpha list packages <index.db>\`"
fi
if want list-bundles; then
	olm=("$BIN" alpha list bundles "$DB") opm=("$OPM" alpha list bundles "$DB")
	pair list-bundles "\`alpha list bundles <index.db>\`"
fi
if want render-graph; then
	olm=("$BIN" alpha render-graph "$CATALOG") opm=("$OPM" alpha render-graph "$CATALOG")
	pair render-graph "\`alpha render-graph <dir>\`"
fi
if want parity; then
	olm=("$BIN" parity --no-deprecation-warning --max-diffs 0 "$DB" "$CATALOG") opm=()
	pair parity "\`parity <index.db> <dir>\` (olmcat only)"
fi
after=$(load_avg)

bundles=$(sqlite3 -readonly "$DB" 'select count(*) from operatorbundle' 2>/dev/null || echo "?")
echo
printf '%s CPUs (%s), %s GiB RAM; %s; load average before %s, after %s; %s bundles (%s); medians of %s pairs, olmcat then opm; opm bounded to %s s a run\n\n' \
	"$(nproc)" "$(grep -m1 '^model name' /proc/cpuinfo | sed 's/^[^:]*: *//')" \
	"$(awk '/^MemTotal/ {printf "%.0f", $2 / 1048576}' /proc/meminfo)" "$(date -u '+%Y-%m-%d %H:%M UTC')" \
	"$before" "$after" "$bundles" "$(basename "$DB")" "$RUNS" "$OPM_TIMEOUT"
echo "| command | olmcat wall (CPU), peak RSS | opm v1.73.0 wall (CPU), peak RSS | opm / olmcat |"
echo "|---|---|---|---|"
printf '%s\n' "${rows[@]}"
