#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# cpcstat_ring.sh - cpcstat cpu / cpustat reading every CPU's snapshots from
# the driver's ring (issue 12): the path is taken (libcpc's LIBCPC_STATS
# counts: the snapshots read, and ioctls that do not grow with the number of
# intervals, while the per-CPU reads of the fallback do), the output is the
# fallback's, and the counts follow the kernel's timestamps.
set -u
cd "$(dirname "$0")/../.." || exit 1
. selftests/cpcstat/lib.sh

names=("ring path: one snapshot per cpu and interval" "ring path: no ioctl per interval"
	"fallback: reads every interval" "same lines both ways"
	"cpu-clock counts the kernel's interval" "SIGINT prints totals, exits 130")
need_binaries || fail_all "build/tools/cpcstat not built (make tools selftests)" "${names[@]}"
need_awk || fail_all "no awk in PATH (the checks compute with it)" "${names[@]}"
if ! probe=$(LIBCPC_STATS=1 "$CPUSTAT" -c cpu-clock,sys 0.2 1 2>&1); then
	fail_all "the probe run failed: $(echo "$probe" | grep -m1 cpustat:)" "${names[@]}"
fi
if ! echo "$probe" | grep -q "snapshots=[1-9]"; then
	fail_all "no SNAPSHOT record reached cpustat (LIBCPC_STATS: $(echo "$probe" | grep -m1 snapshots=))" "${names[@]}"
fi
ncpu=$(grep -c ^processor /proc/cpuinfo)
stat() { echo "$1" | sed -n "s/.*libcpc: stats: .*$2=\([0-9]*\).*/\1/p"; }

out3=$(LIBCPC_STATS=1 "$CPUSTAT" -c cpu-clock,sys 0.2 3 2>&1)
out6=$(LIBCPC_STATS=1 "$CPUSTAT" -c cpu-clock,sys 0.2 6 2>&1)
check "${names[0]}" '[ "$(stat "$out3" snapshots)" = $((3 * ncpu)) ] &&
	[ "$(stat "$out6" snapshots)" = $((6 * ncpu)) ] &&
	[ "$(echo "$out6" | grep -c " tick ")" -eq $((6 * ncpu)) ]' "$out3
$out6"
# Binding and releasing cost the same however long it runs.
check "${names[1]}" '[ -n "$(stat "$out3" ioctls)" ] && [ "$(stat "$out3" ioctls)" = "$(stat "$out6" ioctls)" ]' "$out3
$out6"

f3=$(CPCSTAT_NO_SNAPSHOT=1 LIBCPC_STATS=1 "$CPUSTAT" -c cpu-clock,sys 0.2 3 2>&1)
f6=$(CPCSTAT_NO_SNAPSHOT=1 LIBCPC_STATS=1 "$CPUSTAT" -c cpu-clock,sys 0.2 6 2>&1)
# One PMCREADSET per CPU and interval.
check "${names[2]}" '[ "$(stat "$f3" snapshots)" = 0 ] &&
	[ $(( $(stat "$f6" ioctls) - $(stat "$f3" ioctls) )) -eq $((3 * ncpu)) ]' "$f3
$f6"

# The same line formats (time, cpu, label, count) and totals.
shape() { echo "$1" | grep -v "^libcpc:" | sed -E 's/[0-9]+/N/g' | sort | uniq -c; }
check "${names[3]}" '[ "$(shape "$out3")" = "$(shape "$f3")" ]' "$(shape "$out3")
---
$(shape "$f3")"

# Each line's count is the time since the CPU's previous line, to the ms:
# the line's time is the kernel's timestamp of the snapshot.
ticks=$(echo "$out6" | grep -E " tick ")
bad=$(echo "$ticks" | awk '{ if ($2 in t) { d = ($1 - t[$2]) * 1e9; e = $4 - d; if (e < 0) e = -e;
	if (e > 0.01 * d + 1.5e6) print $0, "expected", d } t[$2] = $1 }')
check "${names[4]}" '[ -z "$bad" ]' "$bad
$out6"

env --default-signal=INT "$CPUSTAT" -c cpu-clock,sys 0.5 > "$TMP/int.out" 2>&1 &
pid=$!
sleep 1.8
kill -INT $pid
wait $pid; rc=$?
out=$(cat "$TMP/int.out")
sum=$(grep " tick " "$TMP/int.out" | awk '{ s += $4 } END { printf "%.0f", s }')
total=$(tail -n 1 "$TMP/int.out" | awk '{ print $4 }')
# The total holds the lines and what was counted after the last one.
check "${names[5]}" '[ $rc -eq 130 ] && tail -n 1 "$TMP/int.out" | grep -qE " $ncpu total " &&
	[ "$total" -ge "$sum" ]' "$out (rc $rc)"
finish
