#!/usr/bin/env bash
# Benchmark pull + migrate of a large legacy index pushed as an image to a
# loopback registry (go-containerregistry's, in process), with an empty
# and with a warm layer cache, next to migrating the file and copying it.
#
#   scripts/bench-image.sh               # uses /tmp/bench/index.db, generating it if missing
#   DB=path/to/index.db COUNT=5 scripts/bench-image.sh
#
# It prints wall seconds (file-s, copy-s, cold-s, warm-s), their ratios,
# the CPU of each (file-cpu-s, cold-cpu-s, warm-cpu-s: the whole test
# process, so the image runs include the loopback registry) and the
# process's peak RSS (peak-rss-MB, registry included), medians of COUNT.
#
# Targets (10,000 bundles): warm within 1.2x of the file migrate; cold
# within the file migrate plus the time to copy the layer.
set -euo pipefail

cd "$(dirname "$0")/.."
DB=${DB:-/tmp/bench/index.db}
COUNT=${COUNT:-5}
if [ ! -f "$DB" ]; then
	echo "bench-image: $DB missing, generating it with scripts/gen-bench-db.sh" >&2
	scripts/gen-bench-db.sh "$DB"
fi
OLMCAT_BENCH_DB=$(realpath "$DB") go test -run '^$' -bench '^BenchmarkMigrateImage$' \
	-benchtime "${COUNT}x" -timeout 60m ./image
