#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# cpcstat_record.sh - cpcstat record and report in the VM, on hot3to1 (two
# hot functions in a 3:1 ratio): the shares match the ratio and what
# `perf record`/`perf report` measure of the same run, the flame graph is
# valid XML naming both, SIGINT mid-run leaves a readable log, -p and -a work.
set -u
cd "$(dirname "$0")/../.." || exit 1
. selftests/cpcstat/lib.sh

names=("record writes a log and a summary" "report: hot_three:hot_one is 3:1 within 5 points"
	"report agrees with perf report of the same run within 5 points" "--callgraph: hot_three under main"
	"--svg is valid XML naming both functions" "--json parses" "--folded stacks"
	"SIGINT mid-run: exit 130, readable log" "-p samples a running process"
	"-a samples every CPU" "bad event: one line, usage, exit 2"
	"unprivileged: user mode only")
need_binaries || fail_all "build/tools/cpcstat not built (make tools selftests)" "${names[@]}"
need_awk || fail_all "no awk in PATH (the checks compute with it)" "${names[@]}"
if ! probe=$("$CPCSTAT" record -q -o "$TMP/probe.log" /bin/true 2>&1); then
	fail_all "the probe run failed: $(echo "$probe" | head -n 1)" "${names[@]}"
fi
hot=$PROGS/hot3to1
secs=3

# The share of hot_three in hot_three + hot_one, in percent, from a report table.
share() {
	awk '$NF == "hot3to1" && $(NF-1) == "hot_three" { a = $3 }
	     $NF == "hot3to1" && $(NF-1) == "hot_one" { b = $3 }
	     END { if (a + b > 0) printf "%.2f", 100 * a / (a + b); else print "none" }'
}

out=$("$CPCSTAT" record -g -e cpu-clock,freq=1000 -o "$TMP/hot.log" "$hot" $secs 2>&1); rc=$?
check "${names[0]}" '[ $rc -eq 0 ] && [ -s "$TMP/hot.log" ] &&
	echo "$out" | grep -qE "^cpcstat record: [0-9]+ samples, [0-9]+ lost, [0-9.]+ s, [0-9]+ bytes written to"' "$out"

# Report after the process has exited: only the log's exec/map records can name its code.
rep=$("$CPCSTAT" report -i "$TMP/hot.log" 2>&1)
ours=$(echo "$rep" | share)
echo "# cpcstat: hot_three has $ours% of the samples of hot_three + hot_one"
check "${names[1]}" '[ "$ours" != none ] && within "$ours" 75 5' "share $ours%
$rep"

if command -v perf > /dev/null; then
	# Both sample the same run: perf record runs the program and cpcstat
	# record attaches to it (Debian 12's perf record -p got a few samples
	# a run here). Under TCG a program's pace follows the host's load:
	# two runs made one after the other gave shares 6 points apart. The
	# two samplers of one run agreed within half a point in 6 runs on a
	# quiet host and within 1.6 in 4 with two busy loops on it, but one
	# CI run had them 5.1 points apart (cpcstat 77.11, perf 71.99), so a
	# pair outside the tolerance is followed by another, up to three: a
	# report that misattributes samples disagrees with perf in each.
	pairs=
	for attempt in 1 2 3; do
		perf record -q -e cpu-clock -F 1000 -g -o "$TMP/perf.data" "$hot" 4 \
			> /dev/null 2> "$TMP/perf.err" &
		perfpid=$!
		target=
		for _ in $(seq 300); do
			target=$(pgrep -P $perfpid -x hot3to1) && break
			sleep 0.1
		done
		"$CPCSTAT" record -q -g -e cpu-clock,freq=1000 -p "${target:-0}" -o "$TMP/both.log" \
			2> "$TMP/both.err"
		wait $perfpid
		brep=$("$CPCSTAT" report -i "$TMP/both.log" 2>&1)
		both=$(echo "$brep" | share)
		prep=$(perf report -q --stdio --no-children -g none -n --sort dso,sym -i "$TMP/perf.data" 2>/dev/null |
			grep -E "\[\.\] hot_(three|one)")
		theirs=$(echo "$prep" | awk '{ gsub("%", "", $1) }
			/hot_three/ { a = $1 } /hot_one/ { b = $1 }
			END { if (a + b > 0) printf "%.2f", 100 * a / (a + b); else print "none" }')
		# Sample counts and perf's lost/throttle records, to tell noise from a bias.
		ours_n=$(echo "$brep" |
			awk '$NF == "hot3to1" && $(NF-1) ~ /^hot_(three|one)$/ { n += $3 } END { print n + 0 }')
		theirs_n=$(echo "$prep" | awk '{ n += $2 } END { print n + 0 }')
		pstats=$(perf report --stats -i "$TMP/perf.data" 2>/dev/null |
			awk '$1 ~ /^(LOST|THROTTLE)$/ && $3 > 0 && !seen[$1]++ { printf ", %s %s", $1, $3 }')
		echo "# the same run ($attempt): cpcstat $both% of $ours_n samples, perf $theirs% of $theirs_n${pstats}"
		pairs+="cpcstat $both% of $ours_n, perf $theirs% of $theirs_n${pstats}
"
		[ "$theirs" != none ] && [ "$both" != none ] && within "$both" "$theirs" 5 && break
	done
	check "${names[2]}" '[ "$theirs" != none ] && [ "$both" != none ] && within "$both" "$theirs" 5' \
		"$pairs$(cat "$TMP/both.err" "$TMP/perf.err")
$prep"
else
	skip "${names[2]}" "no perf"
fi

out=$("$CPCSTAT" report -i "$TMP/hot.log" --callgraph 2>&1)
check "${names[3]}" 'echo "$out" | grep -A3 -E "^ +[0-9.]+% +[0-9.]+% +main +\[hot3to1\]$" |
	grep -qE "^ +[0-9.]+% +[0-9.]+% +hot_three +\[hot3to1\]$"' "$out"

"$CPCSTAT" report -i "$TMP/hot.log" --svg "$TMP/hot.svg" > /dev/null 2>&1
check "${names[4]}" 'xmllint --noout "$TMP/hot.svg" && grep -q "<title>hot_three \[hot3to1\] (" "$TMP/hot.svg" &&
	grep -q "<title>hot_one \[hot3to1\] (" "$TMP/hot.svg"' "$(head -c 2000 "$TMP/hot.svg")"

out=$("$CPCSTAT" report -i "$TMP/hot.log" --json --callgraph 2>&1)
check "${names[5]}" 'echo "$out" | python3 -c "
import json, sys
d = json.load(sys.stdin)
syms = [e[\"symbol\"] for e in d[\"entries\"]]
assert \"hot_three\" in syms and \"hot_one\" in syms, syms
assert d[\"callgraph\"][\"total\"] == d[\"samples\"]"' "$(echo "$out" | head -c 2000)"

out=$("$CPCSTAT" report -i "$TMP/hot.log" --folded 2>&1)
check "${names[6]}" 'echo "$out" | grep -qE "^hot3to1;(.*;)?main;hot_three [0-9]+$"' "$(echo "$out" | head -n 20)"

env --default-signal=INT "$CPCSTAT" record -q -o "$TMP/int.log" "$hot" 20 > /dev/null 2> "$TMP/int.err" &
pid=$!
# Interrupt once the command has run a while: on a slow guest (the debug
# kernel) record's start-up alone took over 2 s.
for _ in $(seq 300); do
	pgrep -P $pid -x hot3to1 > /dev/null && break
	sleep 0.1
done
sleep 1
kill -INT $pid
wait $pid; rc=$?
out=$("$CPCSTAT" report -i "$TMP/int.log" 2>&1); rrc=$?
check "${names[7]}" '[ $rc -eq 130 ] && [ $rrc -eq 0 ] && ! echo "$out" | grep -q "damaged\|no closing" &&
	echo "$out" | grep -qE " hot_three +hot3to1$"' "record rc $rc, report rc $rrc
$(cat "$TMP/int.err")
$out"

# The targets below outlive record (killed after it) by a margin, but not
# by much: under QEMU's -icount on arm64, a CPU spinning at EL0 can keep
# the other CPU taking nothing but its timer interrupt for as long as it
# spins (docs/arm64.md; perf record -a does it too), which past 20 s is a
# soft lockup in the guest log. 15 s bounds that stall below it.
"$hot" 15 > /dev/null &
target=$!
sleep 0.5
"$CPCSTAT" record -q -p $target -d 1.5 -o "$TMP/pid.log" 2> "$TMP/pid.err"; rc=$?
kill $target 2>/dev/null; wait $target 2>/dev/null
out=$("$CPCSTAT" report -i "$TMP/pid.log" 2>&1)
check "${names[8]}" '[ $rc -eq 0 ] && echo "$out" | grep -qE " hot_three +hot3to1$"' \
	"$(cat "$TMP/pid.err")
$out"

"$hot" 15 > /dev/null &
target=$!
sleep 0.5
"$CPCSTAT" record -q -a -d 1.5 -o "$TMP/all.log" 2> "$TMP/all.err"; rc=$?
kill $target 2>/dev/null; wait $target 2>/dev/null
out=$("$CPCSTAT" report -i "$TMP/all.log" --sort pid 2>&1)
check "${names[9]}" '[ $rc -eq 0 ] && echo "$out" | grep -qE " $target  hot3to1$"' \
	"$(cat "$TMP/all.err")
$out"

out=$("$CPCSTAT" record -e cpu-clock,perod=5 /bin/true 2>&1); rc=$?
check "${names[10]}" '[ $rc -eq 2 ] && [ "$(echo "$out" | head -n 1)" = "cpcstat record: bad token '"'"'perod=5'"'"' in '"'"'cpu-clock,perod=5'"'"'" ] &&
	echo "$out" | sed -n 2p | grep -q "^Usage:"' "$out"

# As nobody, with /dev/pmc opened up for the test (restored after): the
# kernel may not be sampled, so record falls back to user mode, as perf does.
if command -v setpriv > /dev/null; then
	mode=$(stat -c %a /dev/pmc)
	chmod 0666 /dev/pmc
	chmod 0755 "$TMP"; mkdir -m 0777 "$TMP/nobody"
	err=$(setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$CPCSTAT" record -q -o "$TMP/nobody/u.log" "$hot" 1 2>&1 > /dev/null); rc=$?
	chmod "$mode" /dev/pmc
	out=$("$CPCSTAT" report -i "$TMP/nobody/u.log" 2>&1)
	check "${names[11]}" '[ $rc -eq 0 ] && echo "$err" | grep -q "user mode only" &&
		echo "$out" | grep -qE " hot_three +hot3to1$" && ! echo "$out" | grep -q "kernel.kallsyms"' \
		"$err
$out"
else
	skip "${names[11]}" "no setpriv"
fi
finish
