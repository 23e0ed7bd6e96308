#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# cpcstat_names.sh - the one event vocabulary (docs/events.md) in each tool:
# cpustat (cpcstat cpu), cputrack (cpcstat track) and cpcstat record accept
# the same names. On the driver's software events: the Linux names, in
# FreeBSD's spelling too, and pmc(3)'s aliases (a clock without a PMU); a
# hardware name refused alike where the kernel has no hardware PMU. On the
# hardware PMU (arm64's PMUv3), or else on the test PMU (selftests/testpmu,
# loaded under pmc.ko here): PAPI names, perf's generic names and pmc(3)'s
# aliases.
set -u
cd "$(dirname "$0")/../.." || exit 1
. selftests/cpcstat/lib.sh

# The hardware PMU the kernel registered, if any (none in the x86 VM).
hw_pmu=$(ls /sys/bus/event_source/devices 2>/dev/null |
	 grep -m 1 -xE 'cpu|cpu_core|armv8_pmuv3.*')
soft_names=("task-clock" "TASK_CLOCK" "instructions")
hw_names=("PAPI_tot_ins" "cpu-cycles" "branches")
if [ -n "$hw_pmu" ]; then
	hw_where=$hw_pmu no_pmu="PAPI_tot_ins counted with a PMU ($hw_pmu)"
else
	hw_where="test PMU" no_pmu="PAPI_tot_ins refused without a PMU"
fi
names=()
for tool in cpustat cputrack record; do
	for n in "${soft_names[@]}"; do names+=("$tool: $n (software)"); done
	names+=("$tool: $no_pmu")
	for n in "${hw_names[@]}"; do names+=("$tool: $n ($hw_where)"); done
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
	if [ -n "$hw_pmu" ]; then
		check "$tool: $no_pmu" '[ $rc -eq 0 ] && counted "$tool" PAPI_tot_ins "$out"' "$out"
	else
		check "$tool: $no_pmu" '[ $rc -ne 0 ] && echo "$out" | grep -q PAPI_tot_ins' "$out"
	fi
}

for tool in cpustat cputrack record; do
	results_soft "$tool"
done

# The hardware names on the hardware PMU, or on the test PMU: reload pmc.ko
# over it, and put it back after.
hw_skip="" hw_fail="" hw_reload=""
if [ -n "$hw_pmu" ]; then
	:
elif [ -z "${PMC_VM:-}" ]; then
	hw_skip="reloads kernel modules: only in the test VM"
elif [ "$(id -u)" -ne 0 ]; then
	hw_skip="needs root to load modules"
elif [ ! -f selftests/testpmu/testpmu.ko ] || [ ! -f driver/pmc.ko ]; then
	hw_fail="selftests/testpmu/testpmu.ko or driver/pmc.ko not built"
elif ! { rmmod pmc 2>/dev/null; rmmod testpmu 2>/dev/null
	 insmod selftests/testpmu/testpmu.ko && insmod driver/pmc.ko; }; then
	hw_fail="the test PMU does not load"
	insmod driver/pmc.ko 2>/dev/null
else
	hw_reload=1
fi
for tool in cpustat cputrack record; do
	for n in "${hw_names[@]}"; do
		if [ -n "$hw_skip" ]; then
			skip "$tool: $n ($hw_where)" "$hw_skip"
			continue
		elif [ -n "$hw_fail" ]; then
			not_ok "$tool: $n ($hw_where)" "$hw_fail"
			continue
		elif [ -n "$hw_pmu" ] && command -v perf > /dev/null &&
		     perf stat -x, -e "$n" true 2>&1 | grep -q "<not supported>"; then
			# QEMU's PMUv3 has no branch event (its PMCEID0).
			skip "$tool: $n ($hw_where)" "the hardware PMU lacks the event ($hw_pmu: perf stat -e $n says <not supported>)"
			continue
		fi
		out=$(run "$tool" "$n" 2>&1); rc=$?
		check "$tool: $n ($hw_where)" '[ $rc -eq 0 ] && counted "$tool" "$n" "$out"' "$out"
	done
done
if [ -n "$hw_reload" ]; then
	rmmod pmc && rmmod testpmu && insmod driver/pmc.ko
fi
finish
