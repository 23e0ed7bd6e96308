#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# cpcstat_names.sh - the one event vocabulary (docs/events.md) in each tool:
# cpustat (cpcstat cpu), cputrack (cpcstat track) and cpcstat record accept
# the same names. On the driver's software events: the Linux names, in
# FreeBSD's spelling too, and pmc(3)'s aliases (a clock without a PMU); a
# hardware name refused alike. On the test PMU (selftests/testpmu, loaded
# under pmc.ko here): PAPI names, perf's generic names and pmc(3)'s aliases.
set -u
cd "$(dirname "$0")/../.." || exit 1
. selftests/cpcstat/lib.sh

soft_names=("task-clock" "TASK_CLOCK" "instructions")
hw_names=("PAPI_tot_ins" "cpu-cycles" "branches")
names=()
for tool in cpustat cputrack record; do
	for n in "${soft_names[@]}"; do names+=("$tool: $n (software)"); done
	names+=("$tool: PAPI_tot_ins refused without a PMU")
	for n in "${hw_names[@]}"; do names+=("$tool: $n (test PMU)"); done
done
need_binaries || fail_all "build/tools/cpcstat not built (make tools selftests)" "${names[@]}"
if ! probe=$("$CPUTRACK" -T 0 -c task-clock /bin/true 2>&1); then
	fail_all "the probe run failed: $(echo "$probe" | head -n 1)" "${names[@]}"
fi

# run TOOL EVENT: one short run of the tool counting (or sampling) EVENT.
run() {
	case $1 in
	cpustat) "$CPUSTAT" -c "pic0=$2,sys" 0.2 1 ;;
	cputrack) "$CPUTRACK" -T 0 -c "$2" "$PROGS/spin" 0.2 ;;
	record) "$CPCSTAT" record -q -e "$2,freq=500" -o "$TMP/rec.log" "$PROGS/spin" 0.3 ;;
	esac
}

# counted TOOL EVENT OUT: the run's output shows a non-zero count or samples.
counted() {
	case $1 in
	cpustat) echo "$3" | grep -qE "^ *[0-9.]+ +[0-9]+ +tick +[1-9][0-9]* *$" ;;
	cputrack) echo "$3" | grep -qE " exit +[1-9][0-9]* *$" ;;
	record) echo "$3" | grep -qE "^cpcstat record: [1-9][0-9]* samples" ;;
	esac
}

results_soft() {
	local tool=$1 n out rc
	for n in "${soft_names[@]}"; do
		out=$(run "$tool" "$n" 2>&1); rc=$?
		check "$tool: $n (software)" '[ $rc -eq 0 ] && counted "$tool" "$n" "$out"' "$out"
	done
	out=$(run "$tool" PAPI_tot_ins 2>&1); rc=$?
	check "$tool: PAPI_tot_ins refused without a PMU" '[ $rc -ne 0 ] && echo "$out" | grep -q PAPI_tot_ins' "$out"
}

for tool in cpustat cputrack record; do
	results_soft "$tool"
done

# The hardware names on the test PMU: reload pmc.ko over it, put it back after.
hw_skip="" hw_fail=""
if [ -z "${PMC_VM:-}" ]; then
	hw_skip="reloads kernel modules: only in the test VM"
elif [ "$(id -u)" -ne 0 ]; then
	hw_skip="needs root to load modules"
elif [ ! -f selftests/testpmu/testpmu.ko ] || [ ! -f driver/pmc.ko ]; then
	hw_fail="selftests/testpmu/testpmu.ko or driver/pmc.ko not built"
elif ! { rmmod pmc 2>/dev/null; rmmod testpmu 2>/dev/null
	 insmod selftests/testpmu/testpmu.ko && insmod driver/pmc.ko; }; then
	hw_fail="the test PMU does not load"
	insmod driver/pmc.ko 2>/dev/null
fi
for tool in cpustat cputrack record; do
	for n in "${hw_names[@]}"; do
		if [ -n "$hw_skip" ]; then
			skip "$tool: $n (test PMU)" "$hw_skip"
			continue
		elif [ -n "$hw_fail" ]; then
			not_ok "$tool: $n (test PMU)" "$hw_fail"
			continue
		fi
		out=$(run "$tool" "$n" 2>&1); rc=$?
		check "$tool: $n (test PMU)" '[ $rc -eq 0 ] && counted "$tool" "$n" "$out"' "$out"
	done
done
if [ -z "$hw_skip$hw_fail" ]; then
	rmmod pmc && rmmod testpmu && insmod driver/pmc.ko
fi
finish
