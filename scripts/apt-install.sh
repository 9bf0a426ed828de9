#!/usr/bin/env bash
# Install Debian packages the tests need (make test's etcd-server,
# chromium, libxml2-utils and runc targets), waiting for another apt or
# dpkg run to let go of its locks (a machine's own updates, a second
# checkout's make test) instead of failing with "Could not get lock".
#   usage: apt-install.sh PACKAGE...
#
# The install waits through dpkg's option (DPkg::Lock::Timeout); apt-get
# update does not honour it for the package lists' lock, so the update is
# tried again while that lock is what failed it (apt's message, read in the
# C locale). Any other failure (the network, a bad package name) fails at
# once.
set -euo pipefail
if [ $# -eq 0 ]; then
	echo "usage: apt-install.sh PACKAGE..." >&2
	exit 2
fi
wait_s=${APT_LOCK_WAIT:-600}
deadline=$((SECONDS + wait_s))
while :; do
	if out=$(LC_ALL=C apt-get -o DPkg::Lock::Timeout="$wait_s" update 2>&1); then
		break
	fi
	if ! grep -q 'Could not get lock' <<<"$out" || [ $SECONDS -ge $deadline ]; then
		printf '%s\n' "$out" >&2
		exit 1
	fi
	sleep 5
done
DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout="$wait_s" install -y --no-install-recommends "$@"
