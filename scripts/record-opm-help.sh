#!/bin/sh
# Records the --help text of every command of an opm binary (alpha
# commands included) into DIR/<command path joined by "-">.txt, the flag
# lists cmd/olmcat/opmflags_test.go holds olmcat to.
#
#   scripts/record-opm-help.sh ~/.cache/opm-v1.73.0/opm fixtures/opm-help
set -eu
opm=$1
dir=$2
mkdir -p "$dir"
export HELP_ALPHA=true

record() { # record <command words...>
	name=$(echo "opm $*" | sed 's/ *$//' | tr ' ' '-')
	"$opm" "$@" --help >"$dir/$name.txt" 2>&1
	# Subcommands: the first word of each line under "Available Commands:".
	sed -n '/^Available Commands:/,/^$/p' "$dir/$name.txt" | sed '1d;/^$/d' | awk '{print $1}' |
		while read -r sub; do
			[ "$sub" = help ] || record "$@" "$sub"
		done
}
record
# Deprecated commands are left out of their parent's list.
record alpha bundle validate
# Hidden commands are left out of their parent's list too.
record registry deprecatetruncate
record index deprecatetruncate
