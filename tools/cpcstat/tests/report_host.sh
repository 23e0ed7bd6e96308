#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# report_host.sh CPCSTAT MKLOG HOT3TO1 TMPDIR - `cpcstat report` end to end on
# the host, on logs written by mklog: samples of hot3to1's hot_three and
# hot_one in a 3:1 ratio at a made-up load address of a process that never
# existed (so only the log's exec and map records can symbolize them).
# Prints TAP.
set -u
cpcstat=$1 mklog=$2 exe=$3 dir=$4
n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n $1"; }
nok() { n=$((n + 1)); failed=1; echo "not ok $n $1"; [ $# -gt 1 ] && echo "$2" | sed 's/^/# /'; }
check() { if eval "$2"; then ok "$1"; else nok "$1" "${3:-}"; fi; }
mkdir -p "$dir"
log=$dir/hot.log
base=0x7f1200000000

"$mklog" "$log" "$exe" 999999 $base hot_three:300 hot_one:100 || { nok "mklog"; exit 1; }
out=$("$cpcstat" report -i "$log" 2>&1)
check "report names hot_three with 75.00% of the samples" \
	'echo "$out" | grep -Eq "^ +75\.00% +75\.00% +300  hot_three +hot3to1$"' "$out"
check "report names hot_one with 25.00% of the samples" \
	'echo "$out" | grep -Eq "^ +25\.00% +25\.00% +100  hot_one +hot3to1$"' "$out"
check "report counts main inclusively and the lost samples" \
	'echo "$out" | grep -Eq "^ +0\.00% 100\.00% +0  main +hot3to1$" &&
	 echo "$out" | grep -q "^# 400 samples of cpu-clock, 3 lost"' "$out"

out=$("$cpcstat" report -i "$log" --sort dso 2>&1)
check "--sort dso puts every sample in hot3to1" \
	'echo "$out" | grep -Eq "^ +100\.00% 100\.00% +400  hot3to1$"' "$out"
out=$("$cpcstat" report -i "$log" --sort pid 2>&1)
check "--sort pid names the process after its exec record" \
	'echo "$out" | grep -Eq "^ +100\.00% +400 +999999  hot3to1$"' "$out"

out=$("$cpcstat" report -i "$log" --folded 2>&1)
check "--folded gives flame-graph stacks" \
	'[ "$out" = "$(printf "hot3to1;main;hot_three 300\nhot3to1;main;hot_one 100")" ]' "$out"

out=$("$cpcstat" report -i "$log" --callgraph 2>&1)
check "--callgraph nests hot_three under main" \
	'echo "$out" | grep -Eq "^ +100\.00% +0\.00% +main +\[hot3to1\]$" &&
	 echo "$out" | grep -Eq "^ +75\.00% +75\.00% +hot_three +\[hot3to1\]$"' "$out"

"$cpcstat" report -i "$log" --svg "$dir/hot.svg" > /dev/null 2>&1
if command -v xmllint > /dev/null; then
	check "--svg writes valid XML" 'xmllint --noout "$dir/hot.svg" 2>&1'
else
	ok "--svg writes valid XML # SKIP no xmllint"
fi
check "the SVG names both functions with their share" \
	'grep -q "<title>hot_three \[hot3to1\] (300 samples, 75.00%)</title>" "$dir/hot.svg" &&
	 grep -q "<title>hot_one \[hot3to1\] (100 samples, 25.00%)</title>" "$dir/hot.svg"'

out=$("$cpcstat" report -i "$log" --json -n 2 2>&1)
if command -v python3 > /dev/null; then
	check "--json is valid JSON with both functions" \
		'echo "$out" | python3 -c "import json,sys; d=json.load(sys.stdin); e=d[\"entries\"];
assert d[\"samples\"] == 400 and d[\"lost\"] == 3, d
assert [x[\"symbol\"] for x in e] == [\"hot_three\", \"hot_one\"], e
assert e[0][\"self_pct\"] == 75.0 and e[1][\"self_pct\"] == 25.0, e"' "$out"
else
	ok "--json is valid JSON # SKIP no python3"
fi
out=$("$cpcstat" report -i "$log" -x ';' -n 2 2>&1)
check "-x ';' prints CSV" \
	'[ "$out" = "$(printf "self_pct;total_pct;samples;symbol;object\n75.00;75.00;300;hot_three;hot3to1\n25.00;25.00;100;hot_one;hot3to1")" ]' "$out"

"$mklog" -t "$dir/cut.log" "$exe" 999999 $base hot_three:30 hot_one:10
out=$("$cpcstat" report -i "$dir/cut.log" 2>&1); rc=$?
check "a log cut short still reports what it holds, with a warning" \
	'[ $rc -eq 0 ] && echo "$out" | grep -q "damaged\|no closing record" &&
	 echo "$out" | grep -Eq "^ +75\.00% +75\.00% +30  hot_three"' "$out"

head -c 100 /dev/urandom > "$dir/junk.log"; : > "$dir/empty.log"
out=$("$cpcstat" report -i "$dir/junk.log" 2>&1; echo "rc=$?"; "$cpcstat" report -i "$dir/empty.log" 2>&1; echo "rc=$?")
check "a file that is not a log is an error (exit 1)" \
	'[ "$(echo "$out" | grep -c "is not a pmc log")" -eq 2 ] && [ "$(echo "$out" | grep -c "^rc=1$")" -eq 2 ]' "$out"

out=$("$cpcstat" report --sort nope 2>&1); rc=$?
check "a bad --sort key is a usage error (exit 2)" \
	'[ $rc -eq 2 ] && echo "$out" | grep -q "bad sort key .nope."' "$out"
echo "1..$n"
exit $failed
