# SPDX-License-Identifier: GPL-2.0
# lib.sh - what the cpcstat VM test scripts (selftests/scripts/cpcstat_*.sh)
# share: TAP output, the binaries, a scratch directory, prerequisites.
# Sourced, not run.

BIN=build/tools
CPCSTAT=$BIN/cpcstat
CPUSTAT=$BIN/cpustat
CPUTRACK=$BIN/cputrack
PROGS=build/selftests/cpcstat
TMP=$(mktemp -d /tmp/cpcstat-test.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

tap_n=0
tap_failed=0
ok() { tap_n=$((tap_n + 1)); echo "ok $tap_n $1"; }
skip() { tap_n=$((tap_n + 1)); echo "ok $tap_n $1 # SKIP $2"; }
not_ok() {
	tap_n=$((tap_n + 1)); tap_failed=1
	echo "not ok $tap_n $1"
	[ -n "${2:-}" ] && printf '%s\n' "$2" | head -n 40 | sed 's/^/# /'
	return 0
}
# check NAME CONDITION [OUTPUT-TO-SHOW-ON-FAILURE]
check() { if eval "$2"; then ok "$1"; else not_ok "$1" "${3:-}"; fi; }
finish() { echo "1..$tap_n"; exit $tap_failed; }

# Every test of a script failed, with the reason: what the script needs
# (the binaries, a working probe run) is never absent in the VM suite, so
# it is no reason to skip (selftests/skips-allowed).
fail_all() {
	local reason=$1; shift
	for name in "$@"; do not_ok "$name" "$reason"; done
	finish
}

need_binaries() {
	[ -x "$CPCSTAT" ] && [ -x "$PROGS/hot3to1" ] && [ -x "$PROGS/spin" ]
}

# The checks compute with awk: without it they would compare empty strings.
need_awk() {
	command -v awk > /dev/null
}

# Percentage arithmetic without bc: awk.
calc() { awk "BEGIN { printf \"%.4f\", $* }"; }
within() { awk -v a="$1" -v b="$2" -v tol="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= tol) }'; }
