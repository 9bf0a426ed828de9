#!/usr/bin/env bash
# Benchmark olmcat's index add and index prune next to the real opm
# v1.73.0 on the same inputs: the synthetic 10,000-bundle index
# (scripts/gen-bench-db.sh) pushed as a sqlite index image to a loopback
# registry (scripts/benchregistry, go-containerregistry in process), and
# 10 real bundles (cockroachdb's six, bar's three, baz 1.0.0: an add opm
# accepts in replaces mode) pushed as bundle images.
#
#   scripts/bench-index.sh                 # /tmp/bench/index.db, 5 runs
#   RUNS=3 OPM=path/to/opm scripts/bench-index.sh
#   PART=prune scripts/bench-index.sh      # only the prune half (add, prune, all)
#
# index add -b <10 bundles> --generate: opm and olmcat from the sqlite
# index image; olmcat also from the database file and from its migrated
# catalog directory. Prune keeping 10 packages: opm index prune pulls only
# with podman or docker, so opm runs registry prune on a copy of the file
# (the same code minus the pull); olmcat runs index prune --generate from
# the image and registry prune --output from the file and the directory.
# olmcat runs without its layer cache (--no-image-cache), as opm has none.
# Each line: median wall seconds, user+sys CPU seconds and peak RSS.
set -euo pipefail
source "$(dirname "$0")/bench-lib.sh"
RUNS=${RUNS:-5}
PART=${PART:-all}
OPM=${OPM:-$HOME/.cache/opm-v1.73.0/opm}
bench_setup bench-index
if [ ! -x "$OPM" ]; then
	echo "bench-index: no opm at $OPM (set OPM)" >&2
	exit 2
fi
BIN=$(realpath "$BIN")
DB=$(realpath "$DB")
CATALOG=$(realpath "$CATALOG")
work=$(mktemp -d /tmp/bench-index.XXXXXX)
BENCH_REG=
trap 'if [ -n "$BENCH_REG" ]; then kill "$BENCH_REG" 2>/dev/null; fi; rm -rf "$work"' EXIT
bench_index_registry "$work"
index=$BENCH_INDEX_IMAGE
bundles=$BENCH_BUNDLE_IMAGES
# sed, not head: head exits after 10 lines, and under pipefail the writer's
# SIGPIPE (a catalog of more than a few hundred packages) ends the script.
keep=$(ls "$CATALOG" | sed -n 1,10p | paste -sd,)
echo "index image $index, $(tr ',' '\n' <<<"$bundles" | wc -l) bundle images, keeping packages $keep"
cd "$work"

if [ "$PART" != prune ]; then
echo "== index add of 10 bundles (--generate)"
BENCH_BEFORE_EACH='rm -rf database index.Dockerfile'
bench_run "opm index add, sqlite image" "$OPM" index add -f "$index" -b "$bundles" --generate --use-http
bench_run "olmcat index add, sqlite image" "$BIN" index add -f "$index" -b "$bundles" --generate -i opm:v1.73.0 --use-http --no-image-cache --no-deprecation-warning
bench_run "olmcat index add, sqlite file" "$BIN" index add -f "$DB" -b "$bundles" --generate -i opm:v1.73.0 --use-http --no-image-cache --no-deprecation-warning
bench_run "olmcat index add, catalog dir" "$BIN" index add -f "$CATALOG" -b "$bundles" --generate -i opm:v1.73.0 --use-http --no-image-cache --no-deprecation-warning

fi
if [ "$PART" = add ]; then exit 0; fi
echo "== prune keeping 10 packages"
BENCH_BEFORE_EACH='cp "$DB" prune.db'
bench_run "opm registry prune, file copy" "$OPM" registry prune -d prune.db -p "$keep"
BENCH_BEFORE_EACH='rm -rf database index.Dockerfile'
bench_run "olmcat index prune, sqlite image" "$BIN" index prune -f "$index" -p "$keep" --generate -i opm:v1.73.0 --use-http --no-image-cache --no-deprecation-warning
BENCH_BEFORE_EACH='rm -rf out'
bench_run "olmcat registry prune, sqlite file" "$BIN" registry prune -d "$DB" -p "$keep" --output out --no-deprecation-warning
bench_run "olmcat registry prune, catalog dir" "$BIN" registry prune -d "$CATALOG" -p "$keep" --output out --no-deprecation-warning
