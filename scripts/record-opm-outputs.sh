#!/bin/sh
# Records what an opm binary prints for every case of
# fixtures/opmcli/cases.txt: <name>.stdout, and <name>.stderr plus the
# exit status in <name>.exit. sqlite files are copied first: opm
# migrates them in place.
#
#   scripts/record-opm-outputs.sh ~/.cache/opm-v1.73.0/opm
set -eu
opm=$1
root=$(cd "$(dirname "$0")/.." && pwd)
out=$root/fixtures/opmcli
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
grep -v '^#' "$out/cases.txt" | while IFS='	' read -r name args _; do
	set --
	for a in $args; do
		case $a in
		@*.db) cp "$root${a#@}" "$tmp/$name.db"; a=$tmp/$name.db ;;
		@*) a=$root${a#@} ;;
		esac
		set -- "$@" "$a"
	done
	rc=0
	(cd "$tmp" && "$opm" "$@" >"$out/$name.stdout" 2>"$tmp/stderr") || rc=$?
	echo "$rc" >"$out/$name.exit"
	if [ "$rc" != 0 ]; then sed "s|$tmp|TMP|g; s|$root|@|g" "$tmp/stderr" >"$out/$name.stderr"; fi
done
