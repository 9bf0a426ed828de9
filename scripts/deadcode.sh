#!/usr/bin/env bash
# Reports the module's unreachable functions and fails if there is any.
# deadcode sees one build at a time, so it runs once per build given as
# argument: a tag list ("" is the default build), with tests as callers,
# or TAGS:notests for a build whose tests do not compile (the slim CLI's
# tests are the full CLI's). A function is reported only if it is
# unreachable in every build that compiles its file: code that only the
# slim or crashtest build reaches stays, and dead code in files only a
# tagged build compiles is still reported.
# DEADCODE is the deadcode package@version go run runs.
set -euo pipefail
GO=${GO:-go}
DEADCODE=${DEADCODE:?DEADCODE names the deadcode package@version}
[ $# -gt 0 ] || set -- ""
mod=$("$GO" list -m)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
i=0
for build in "$@"; do
	i=$((i + 1))
	tags=${build%:notests} test=-test lists="GoFiles TestGoFiles XTestGoFiles"
	if [ "$tags" != "$build" ]; then test=-test=false lists=GoFiles; fi
	tmpl='{{$d := .Dir}}'
	for l in $lists; do tmpl+="{{range .$l}}{{\$d}}/{{.}}
{{end}}"; done
	# deadcode prints paths relative to the working directory: so do these.
	"$GO" list -tags "$tags" -f "$tmpl" ./... | sed "s|^$PWD/||" >"$tmp/files.$i"
	"$GO" run "$DEADCODE" "$test" -tags "$tags" -filter "^$mod(/|\$)" ./... >"$tmp/dead.$i"
done
# A finding is "file:line:col: unreachable func: name".
awk -v runs="$i" '
	FNR == 1 { base = FILENAME; sub(/.*\//, "", base); split(base, p, "."); kind = p[1]; n = p[2] }
	kind == "files" { compiled[n, $0] = 1; next }
	{ dead[n, $0] = 1; if (!($0 in seen)) { seen[$0] = 1; order[++count] = $0 } }
	END {
		for (k = 1; k <= count; k++) {
			f = order[k]; file = f; sub(/:.*/, "", file)
			for (r = 1; r <= runs; r++) if (compiled[r, file] && !dead[r, f]) break
			if (r > runs) { print f; found = 1 }
		}
		exit found
	}' $(for r in $(seq "$i"); do echo "$tmp/files.$r" "$tmp/dead.$r"; done)
