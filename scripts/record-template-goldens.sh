#!/usr/bin/env bash
# Record what the real opm v1.73.0 makes of the template fixtures, into
# declcfg/template/testdata/opm/ (the tests compare olmcat to these files;
# they never run opm). The fixture bundles are served as images on
# 127.0.0.1:5000 (scripts/fixtureregistry), the names the legacy fixtures
# give them.
# Usage: scripts/record-template-goldens.sh [OPM]   (default ~/.cache/opm-v1.73.0/opm)
set -euo pipefail
opm="${1:-$HOME/.cache/opm-v1.73.0/opm}"
cd "$(dirname "$0")/.."
in=declcfg/template/testdata/templates
out=declcfg/template/testdata/opm
mkdir -p "$out"
scratch="$(mktemp -d)"
trap 'kill "$reg" 2>/dev/null || true; rm -rf "$scratch"' EXIT
go build -o "$scratch/fixtureregistry" ./scripts/fixtureregistry
"$scratch/fixtureregistry" > "$scratch/registry.log" 2>&1 &
reg=$!
until grep -q ready "$scratch/registry.log"; do sleep 0.2; kill -0 "$reg"; done
# containers/image (opm's client) wants a policy and the registry marked insecure.
mkdir -p "$scratch/home/.config/containers"
echo '{"default":[{"type":"insecureAcceptAnything"}]}' > "$scratch/home/.config/containers/policy.json"
printf '[[registry]]\nlocation = "127.0.0.1:5000"\ninsecure = true\n' > "$scratch/home/.config/containers/registries.conf"
run() { HOME="$scratch/home" TMPDIR="$scratch" "$opm" "$@"; }

run alpha convert-template basic "$in/small-fbb.catalog.json" > "$out/convert-basic-small-fbb.json"
run alpha convert-template basic "$in/small-fbb.catalog.json" -o yaml > "$out/convert-basic-small-fbb.yaml"
run alpha convert-template substitutes "$in/prometheus-csvmetadata.catalog.json" > "$out/convert-substitutes-prometheus.json"
run alpha convert-template substitutes "$in/prometheus-csvmetadata.catalog.json" -o yaml > "$out/convert-substitutes-prometheus.yaml"

# basic: the converted small-fbb catalog rendered back.
cp "$out/convert-basic-small-fbb.json" "$in/basic-small-fbb.json"
for o in json yaml mermaid; do
	run alpha render-template "$in/basic-small-fbb.json" -o "$o" --use-http > "$out/render-basic-small-fbb.$o"
done
# semver: foo with each channel setting, cockroachdb as csv metadata.
for t in both major minor prefmajor; do
	run alpha render-template "$in/foo-semver-$t.yaml" --use-http > "$out/render-semver-foo-$t.json"
done
run alpha render-template semver "$in/foo-semver-both.yaml" -o yaml --use-http > "$out/render-semver-foo-both.yaml"
run alpha render-template semver "$in/foo-semver-both.yaml" -o mermaid --use-http > "$out/render-semver-foo-both.mermaid"
run alpha render-template "$in/cockroachdb-semver.json" --migrate-level bundle-object-to-csv-metadata --use-http > "$out/render-semver-cockroachdb.json"
run alpha render-template "$in/cockroachdb-semver.json" -o mermaid --use-http > "$out/render-semver-cockroachdb.mermaid"
# substitutes: prometheus 0.14.0 substituted by its 0.14.0+2 rebuild.
python3 - "$out/convert-substitutes-prometheus.json" "$in/substitutes-prometheus.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
t["substitutions"] = [{"name": "127.0.0.1:5000/operator-registry/bundles:prometheus.0.14.0.substitutesfor2", "base": "prometheusoperator.0.14.0"}]
json.dump(t, open(sys.argv[2], "w"), indent=4)
PY
for o in json yaml mermaid; do
	run alpha render-template "$in/substitutes-prometheus.json" --migrate-level bundle-object-to-csv-metadata -o "$o" --use-http > "$out/render-substitutes-prometheus.$o"
done
ls -l "$out"
