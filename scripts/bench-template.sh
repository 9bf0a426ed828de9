#!/usr/bin/env bash
# Catalog templates at benchmark size: render-template of the migrated
# generated index as one basic template (its BUNDLES bundle images served
# by scripts/fixtureregistry -synthetic on a loopback registry and pulled
# through a registries.conf mirror under their own names), olmcat and the
# real opm side by side, and migrate --to-template semver of the index.
# Wall time, CPU and peak RSS, medians of RUNS (opm: OPM_RUNS) runs.
#
#   scripts/bench-template.sh                     # the 10,000-bundle index of bench-lib.sh
#   OPM=~/.cache/opm-v1.73.0/opm OPM_RUNS=1 scripts/bench-template.sh
#
# olmcat pulls with an empty layer cache each run (--image-cache-dir in a
# fresh directory), as opm has none. The growth of --to-template with
# catalog size: COMMANDS=to-template scripts/bench-growth.sh.
source "$(dirname "$0")/bench-lib.sh"
OPM=${OPM:-$HOME/.cache/opm-v1.73.0/opm}
OPM_RUNS=${OPM_RUNS:-1}
PORT=${PORT:-5055}
bench_setup bench-template
scratch=$(mktemp -d)
trap 'kill "$reg" 2>/dev/null || true; rm -rf "$scratch"' EXIT
go build -o "$scratch/fixtureregistry" ./scripts/fixtureregistry
"$scratch/fixtureregistry" -addr "127.0.0.1:$PORT" -synthetic "$BUNDLES" > "$scratch/registry.log" 2>&1 &
reg=$!
until grep -q ready "$scratch/registry.log"; do sleep 1; kill -0 "$reg"; done
cat "$scratch/registry.log"

"$BIN" alpha convert-template basic "$CATALOG" > "$scratch/basic.json"
echo "template: $(grep -c '"image"' "$scratch/basic.json") bundle images, $(du -h "$scratch/basic.json" | cut -f1)"
conf=$scratch/registries.conf
printf '[[registry]]\nprefix = "quay.io/olmcat-bench"\nlocation = "127.0.0.1:%s/olmcat-bench"\ninsecure = true\n' "$PORT" > "$conf"

BENCH_STDOUT=$scratch/olmcat.json BENCH_BEFORE_EACH="rm -rf $scratch/cache" bench_run "olmcat alpha render-template" \
	"$BIN" alpha render-template "$scratch/basic.json" --registries-conf "$conf" --image-cache-dir "$scratch/cache"
if [ -x "$OPM" ]; then
	mkdir -p "$scratch/home/.config/containers"
	echo '{"default":[{"type":"insecureAcceptAnything"}]}' > "$scratch/home/.config/containers/policy.json"
	cp "$conf" "$scratch/home/.config/containers/registries.conf"
	HOME="$scratch/home" RUNS=$OPM_RUNS BENCH_STDOUT=$scratch/opm.json bench_run "opm alpha render-template" \
		"$OPM" alpha render-template "$scratch/basic.json" --use-http
	if cmp -s "$scratch/olmcat.json" "$scratch/opm.json"; then echo "outputs: identical"; else echo "outputs: DIFFER"; fi
fi
BENCH_BEFORE_EACH="rm -rf $scratch/t" bench_run "olmcat migrate --to-template semver" \
	"$BIN" migrate --to-template semver "$DB" "$scratch/t"
