#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# cpcstat_cpu.sh - cpcstat cpu / cpustat in the VM: every output line checked
# against illumos cpustat's printf formats (libcpc.md section 4.2), counts
# against the interval, the usage and exit codes, CSV and JSON, Ctrl-C,
# and the options -p, -T, -s and -D.
set -u
cd "$(dirname "$0")/../.." || exit 1
. selftests/cpcstat/lib.sh

names=("title line" "sample lines" "one line per cpu per interval" "total line"
	"cpu-clock counts the interval" "tsc column" "several sets are cycled"
	"-n drops the title" "bad spec: one line, usage, exit 2" "-h lists events"
	"-x CSV" "--json lines" "SIGINT prints totals, exits 130" "cpcstat cpu is cpustat"
	"-p: one cycle through the sets a period" "-T u: time(2) before each line"
	"-T d: date(1) before each line" "-s: an idle soaker per CPU for a system-only set"
	"-D: messages name the failing function")
need_binaries || fail_all "build/tools/cpcstat not built (make tools selftests)" "${names[@]}"
need_awk || fail_all "no awk in PATH (the checks compute with it)" "${names[@]}"
if ! probe=$("$CPUSTAT" -c cpu-clock,sys 0.2 1 2>&1); then
	fail_all "the probe run failed: $(echo "$probe" | grep -m1 cpustat:)" "${names[@]}"
fi
ncpu=$(grep -c ^processor /proc/cpuinfo)

# %7.3f %3d %5s then %9lld per counter, each followed by a space.
T='[ 0-9]{2}[0-9]\.[0-9]{3}'	# %7.3f below 1000 s
V='[ 0-9]{8}[0-9]'		# %9lld below 10^9 ...
W='[ 0-9]*[0-9]{9}'		# ... or wider

out=$("$CPUSTAT" -c cpu-clock,sys 0.5 3 2>&1); rc=$?
title=$(echo "$out" | head -n 1)
check "${names[0]}" '[ "$title" = "   time cpu event      pic0 " ]' "$out"
ticks=$(echo "$out" | grep -E " tick ")
check "${names[1]}" '[ $rc -eq 0 ] && ! echo "$ticks" | grep -vqE "^$T [ 0-9]{2}[0-9]  tick ($V|$W) \$"' "$out"
check "${names[2]}" '[ "$(echo "$ticks" | wc -l)" -eq $((3 * ncpu)) ]' "$out"
sum=$(echo "$ticks" | awk '{ s += $4 } END { printf "%.0f", s }')
total=$(echo "$out" | tail -n 1)
check "${names[3]}" 'echo "$total" | grep -qE "^$T [ 0-9]{2}$ncpu total ($V|$W) \$" &&
	[ "$(echo "$total" | awk "{ print \$4 }")" = "$sum" ]' "$out"
# A CPU's cpu-clock (kernel and user) runs whenever the counter is on: each
# line's count is the time since the CPU's previous line (printed to the ms).
bad=$(echo "$ticks" | awk '{ if ($2 in t) { d = ($1 - t[$2]) * 1e9; e = $4 - d; if (e < 0) e = -e;
	if (e > 0.02 * d + 2e6) print $0, "expected", d } t[$2] = $1 }')
check "${names[4]}" '[ -z "$bad" ]' "$out"

out=$("$CPUSTAT" -t -c cpu-clock,sys 0.3 1 2>&1)
check "${names[5]}" '[ "$(echo "$out" | head -n 1)" = "   time cpu event       tsc      pic0 " ] &&
	echo "$out" | grep -qE "^$T [ 0-9]{2}[0-9]  tick ($V|$W) ($V|$W) \$"' "$out"

out=$("$CPUSTAT" -c cpu-clock,sys -c pic0=task-clock,sys 0.3 4 2>&1)
check "${names[6]}" '[ "$(echo "$out" | grep -c " tick .*  # cpu-clock,sys$")" -eq $((2 * ncpu)) ] &&
	[ "$(echo "$out" | grep -c " tick .*  # pic0=task-clock,sys$")" -eq $((2 * ncpu)) ] &&
	[ "$(echo "$out" | grep -c " total ")" -eq 2 ]' "$out"

out=$("$CPUSTAT" -n -c cpu-clock 0.2 1 2>&1)
check "${names[7]}" '! echo "$out" | grep -q "time cpu event"' "$out"

out=$("$CPUSTAT" -c cpu-clock,foo=bar 1 1 2>&1); rc=$?
check "${names[8]}" '[ $rc -eq 2 ] && [ "$(echo "$out" | head -n 1)" = "cpustat: bad token '"'"'foo=bar'"'"'" ] &&
	[ "$(echo "$out" | sed -n 2p)" = "Usage:" ]' "$out"

out=$("$CPUSTAT" -h 2>&1); rc=$?
check "${names[9]}" '[ $rc -eq 0 ] && echo "$out" | grep -q "^	event specification syntax:" &&
	echo "$out" | grep -qE "^	event\[0-[0-9]+\]: .*cpu-clock"' "$out"

out=$("$CPUSTAT" -x ';' -c cpu-clock,sys 0.2 1 2>&1)
check "${names[10]}" '[ "$(echo "$out" | head -n 1)" = "time;cpu;event;pic0" ] &&
	[ "$(echo "$out" | grep -cE "^[0-9]+\.[0-9]{3};[0-9]+;tick;[0-9]+$")" -eq $ncpu ] &&
	echo "$out" | tail -n 1 | grep -qE "^[0-9.]+;$ncpu;total;[0-9]+$"' "$out"

out=$("$CPUSTAT" --json -c cpu-clock,sys 0.2 1 2>&1)
check "${names[11]}" 'echo "$out" | python3 -c "
import json, sys
lines = [json.loads(l) for l in sys.stdin]
assert len(lines) == $ncpu + 1, lines
assert all(l[\"label\"] == \"tick\" and l[\"counters\"][0][\"event\"] == \"cpu-clock\" for l in lines[:-1])
assert lines[-1][\"label\"] == \"total\" and lines[-1][\"ncpus\"] == $ncpu"' "$out"

env --default-signal=INT "$CPUSTAT" -c cpu-clock,sys 0.5 > "$TMP/int.out" 2>&1 &
pid=$!
sleep 1.8
kill -INT $pid
wait $pid; rc=$?
out=$(cat "$TMP/int.out")
check "${names[12]}" '[ $rc -eq 130 ] && tail -n 1 "$TMP/int.out" | grep -qE "^$T [ 0-9]{2}$ncpu total "' "$out (rc $rc)"

out=$("$CPCSTAT" cpu -c cpu-clock,sys 0.2 1 2>&1)
check "${names[13]}" '[ "$(echo "$out" | head -n 1)" = "   time cpu event      pic0 " ] &&
	[ "$(echo "$out" | grep -c " tick ")" -eq $ncpu ]' "$out"

# -p 1 with two sets of 0.2 s: each cycle measures 0.4 s and lets the rest
# of its second pass unmeasured, so the third line of a CPU comes at 1.2 s
# (0.6 s without -p); 2 counts two cycles: 4 lines per CPU.
out=$("$CPUSTAT" -p 1 -c cpu-clock,sys -c task-clock,sys 0.2 2 2>&1)
t3=$(echo "$out" | awk '$3 == "tick" && $2 == 0 { if (++n == 3) print $1 }')
check "${names[14]}" '[ "$(echo "$out" | grep -c " tick ")" -eq $((4 * ncpu)) ] &&
	awk -v t="${t3:-0}" "BEGIN { exit !(t >= 1.1 && t < 1.6) }"' "$out"

# -T u: the seconds of time(2) on a line of their own before each line.
t0=$(date +%s)
out=$("$CPUSTAT" -T u -c cpu-clock,sys 0.3 2 2>&1)
t1=$(date +%s)
bad=$(echo "$out" | awk -v a="$t0" -v b="$t1" '/ tick / { if (!(prev ~ /^[0-9]+$/ && prev >= a && prev <= b)) print } { prev = $0 }')
check "${names[15]}" '[ "$(echo "$out" | grep -c " tick ")" -eq $((2 * ncpu)) ] && [ -z "$bad" ]' "$out"

# -T d: the date as date(1) prints it (C locale) before each line.
out=$(LC_ALL=C "$CPUSTAT" -T d -c cpu-clock,sys 0.3 1 2>&1)
D='^[A-Z][a-z]{2} [A-Z][a-z]{2} [ 0-9][0-9] [0-9]{2}:[0-9]{2}:[0-9]{2} [A-Z]+ [0-9]{4}$'
# (grep: mawk has no {n} in its regular expressions)
stamps=$(echo "$out" | grep -B1 " tick " | grep -v -e " tick " -e "^--")
check "${names[16]}" '[ "$(echo "$out" | grep -c " tick ")" -eq $ncpu ] &&
	[ "$(echo "$stamps" | grep -cE "$D")" -eq $ncpu ]' "$out"

# -s: while a system-only set is bound, one SCHED_IDLE (policy 5, field 41
# of /proc/PID/task/TID/stat) thread per CPU; none without -s.
# (read, not awk: the arm64 guest takes most of a second to start awk, and
# the stat files are read while cpustat runs; it runs up to 20 s, stopped
# once the threads are seen or after 3 s of looking.)
idle_threads() {
	local n=0 t f
	for t in /proc/"$1"/task/*/stat; do
		read -r -a f < "$t" 2> /dev/null || continue
		[ "${f[40]:-}" = 5 ] && n=$((n + 1))
	done
	echo $n
}
soakers() {
	local pid n=0 i
	"$CPUSTAT" "$@" -c cpu-clock,nouser,sys 0.5 40 > /dev/null 2>&1 &
	pid=$!
	for i in $(seq 30); do
		sleep 0.1
		n=$(idle_threads $pid)
		[ "$n" -ge "$ncpu" ] && break
	done
	kill -INT $pid 2>/dev/null
	wait $pid
	echo "$n"
}
with=$(soakers -s)
without=$(soakers)
check "${names[17]}" '[ "$with" -eq "$ncpu" ] && [ "$without" -eq 0 ]' \
	"idle threads with -s: $with, without: $without, CPUs: $ncpu"

# -D: a message names the libcpc function that refused (cpc_strtoset).
out=$("$CPUSTAT" -D -c cpu-clock,foo=bar 1 1 2>&1); rc=$?
check "${names[18]}" '[ $rc -eq 2 ] &&
	[ "$(echo "$out" | head -n 1)" = "cpustat: cpc_strtoset: bad token '"'"'foo=bar'"'"'" ]' "$out"
finish
