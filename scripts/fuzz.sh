#!/usr/bin/env bash
# Runs each fuzz target (NAME:PKG) for FUZZTIME. go test's fuzz coordinator
# sometimes ends a run with "context deadline exceeded" when a worker is
# descheduled at the deadline on a loaded machine; such a run found nothing
# (no "Failing input written to"), so it is run once more. Any run that
# writes a failing input fails at once.
set -euo pipefail
GO=${GO:-go}
FUZZTIME=${FUZZTIME:-3s}
for t in "$@"; do
	name=${t%%:*} pkg=${t#*:}
	for attempt in 1 2; do
		echo "fuzz $name ($pkg, $FUZZTIME)"
		log=$(mktemp)
		if "$GO" test -run '^$' -fuzz "^${name}\$" -fuzztime "$FUZZTIME" "$pkg" >"$log" 2>&1; then
			cat "$log"; rm -f "$log"; break
		fi
		cat "$log"
		if [ "$attempt" = 1 ] && grep -q 'context deadline exceeded' "$log" && ! grep -q 'Failing input written to' "$log"; then
			rm -f "$log"; echo "fuzz $name: coordinator deadline, no failing input: running it again"; continue
		fi
		rm -f "$log"; exit 1
	done
done
