#!/usr/bin/env bash
# Load test of `olmcat serve` side by side with the real `opm serve` (the
# migrated catalog directory) and `opm registry serve` (the legacy index),
# on loopback only: each server is started, and once SERVING, ghz drives
# it with CLIENTS concurrent clients (one connection each) for DURATION,
# the RPCs weighted as OLM calls them on a catalog sync (see mix in
# scripts/servebench/load.go): GetPackage and GetBundleForChannel over
# every package and channel, one client each on ListBundles,
# ListPackages and Health.Check. Prints per server and client count each
# RPC's calls, errors (non-OK answers; there must be none), p50 and p99
# latency, and the server's peak RSS (VmHWM) after the load.
#
# olmcat also serves catalogd's HTTP API (--http), and at the same time
# as the gRPC load CLIENTS more clients, each on connections of its own,
# load it (see httpMix in scripts/servebench/httpload.go): a tenth fetch
# /all whole and as many with gzip, a fifth revalidate /all
# (If-None-Match, If-Modified-Since: 304), the rest query /metas by
# package round robin; per endpoint it prints the requests, errors (an
# unexpected status, encoding or size; there must be none), p50 and p99
# latency (to the end of the body). The peak RSS is the server's under
# both loads.
#
# Then the stalled-client case (STALLED clients, default 40; 0 skips
# it): a catalog of CSV_BUNDLES bundles (default 4) without images, each
# a single CSV of CSV_BYTES (default 5 MB), so ListBundles streams their
# manifests inline; each server drains ListBundles once (the no-stall
# peak RSS), then STALLED clients open ListBundles and never read, and a
# client drains it again beside them: the peak RSS after that, and how
# much it grew.
#
#   OPM=path/to/opm scripts/loadtest-serve.sh          # 10,000 bundles, 50 and 200 clients, 20 s
#   CLIENTS=50 DURATION=10s OPM= scripts/loadtest-serve.sh   # olmcat only
#
# ghz is installed from the Go module proxy at GHZ_VERSION into
# TOOLS_DIR/ghz-GHZ_VERSION (TOOLS_DIR default ~/.cache/olmcat-test) when
# missing. Every run is
# bounded: DURATION of load plus at most a minute for the calls in flight.
source "$(dirname "$0")/bench-lib.sh"
CLIENTS=${CLIENTS:-50 200}
DURATION=${DURATION:-20s}
OPM=${OPM-$HOME/.cache/opm-v1.73.0/opm}
GHZ_VERSION=${GHZ_VERSION:-v0.121.0}
TOOLS_DIR=${TOOLS_DIR:-$HOME/.cache/olmcat-test}
GHZ=$TOOLS_DIR/ghz-$GHZ_VERSION/ghz

bench_setup loadtest-serve
if [ ! -x "$GHZ" ]; then
	echo "loadtest-serve: installing ghz $GHZ_VERSION into $(dirname "$GHZ")" >&2
	mkdir -p "$(dirname "$GHZ")"
	GOBIN=$(dirname "$GHZ") go install "github.com/bojand/ghz/cmd/ghz@$GHZ_VERSION"
fi
servers=("olmcat serve <dir>|$BIN serve $CATALOG" "olmcat serve <index.db>|$BIN serve --no-deprecation-warning $DB")
if [ -n "$OPM" ]; then
	if [ ! -x "$OPM" ]; then
		echo "loadtest-serve: $OPM is not an executable opm binary (set OPM, or OPM= for olmcat only)" >&2
		exit 2
	fi
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ -n "$OPM" ]; then
	# opm serve builds its cache before SERVING (minutes at 10,000 bundles);
	# its images pre-build it with --cache-only, and so does this script
	# (not timed).
	echo "loadtest-serve: building opm's serve cache (--cache-only)" >&2
	"$OPM" serve "$CATALOG" --cache-dir "$work/opm-cache" --cache-only >/dev/null 2>&1
	servers+=("opm serve <dir> --cache-dir|$OPM serve $CATALOG --cache-dir $work/opm-cache" "opm registry serve -d <index.db>|$OPM registry serve -d $DB")
fi
echo "ghz $GHZ_VERSION, $DURATION per run, load average $(cut -d' ' -f1-3 /proc/loadavg)"
for entry in "${servers[@]}"; do
	label=${entry%%|*}
	read -r -a cmd <<<"${entry#*|}"
	for c in $CLIENTS; do
		echo "$label, $c clients:"
		http=()
		if [ "${label#olmcat}" != "$label" ]; then http=(-http); fi
		"$PROBER" -timeout 5m -ghz "$GHZ" "${http[@]}" -clients "$c" -duration "$DURATION" -dir "$work" -- "${cmd[@]}"
	done
done
STALLED=${STALLED:-40}
if [ "$STALLED" -gt 0 ]; then
	bigcsv=$work/bigcsv
	"$PROBER" -write-csv-catalog "$bigcsv" -csv-bundles "${CSV_BUNDLES:-4}" -csv-bytes "${CSV_BYTES:-5000000}"
	echo "stalled clients: $bigcsv ($(du -sh "$bigcsv" | cut -f1)), $STALLED clients that never read"
	stallservers=("olmcat serve <dir>|$BIN serve $bigcsv")
	if [ -n "$OPM" ]; then
		stallservers+=("opm serve <dir>|$OPM serve $bigcsv")
	fi
	for entry in "${stallservers[@]}"; do
		read -r -a cmd <<<"${entry#*|}"
		echo "${entry%%|*}: $("$PROBER" -timeout 5m -stalled "$STALLED" -- "${cmd[@]}")"
	done
fi
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
