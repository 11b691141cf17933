#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# `make stress`, in the guest (at /mnt/host, with mod/kprobes_stress.ko):
# each phase of kprobes_stress.ko as KTAP cases; the counts go to the log.
#   STRESS_S       seconds of hammering (from ./params; 0: no hammer)
#   STRESS_BUDGET  seconds probe-everything may spend registering
#   STRESS_MODS    load/unload cycles of the module churn
#   STRESS_SWEEP   functions the instruction sweep covers
# the kprobes selftests as the guest has them installed
KPT_DIR=${KPT_DIR:-/kselftest/kprobes}
. $KPT_DIR/lib.sh
[ -f ./params ] && . ./params
K=./mod/kprobes_stress.ko
T=./mod/kprobes_stress_target.ko
L=/sys/kernel/debug/kprobes/list
plan 14

diag_log() { dmesg | grep "kprobes_stress: $1" | sed 's/^\[[ 0-9.]*\] /# /'; }

if [ "${STRESS_S:-20}" -gt 0 ]; then
	check "hammer: witness hits equal calls on every CPU, none missed" \
		insmod $K phase=hammer secs="${STRESS_S:-20}"
	rmmod kprobes_stress 2> /dev/null
	diag_log hammer
else
	skip "hammer: witness hits equal calls on every CPU, none missed" "STRESS_S=0"
fi

check "kretprobe pressure: no miss (ours, spares), the shortfall (upstream)" \
	insmod $K phase=kretpressure
rmmod kprobes_stress 2> /dev/null
diag_log kretpressure

# Module churn: the target module loaded, probed (a kprobe and a kretprobe
# on an ftrace site and an int3 site of it, kretprobe instances live in
# both) and unloaded, STRESS_MODS times.  Odd cycles take the target out
# first (its probes go [GONE] while instances return during its exit),
# even ones the probes first (unregistered with instances live in it).
cycles=${STRESS_MODS:-20} done=0 hit=0 gone=0
for i in $(seq 1 "$cycles"); do
	insmod $T || break
	insmod $K phase=modprobe || { rmmod kprobes_stress_target; break; }
	usleep 200000
	if [ $((i % 2)) -eq 1 ]; then
		rmmod kprobes_stress_target || break
		[ "$(grep -c 'GONE' $L)" -ge 4 ] && gone=$((gone + 1))
		rmmod kprobes_stress || break
	else
		rmmod kprobes_stress || break
		rmmod kprobes_stress_target || break
	fi
	done=$((done + 1))
	set -- $(dmesg | sed -n \
		's/.*modprobe: kprobe hits \([0-9]*\), kretprobe hits \([0-9]*\).*/\1 \2/p' |
		tail -1)
	[ "${1:-0}" -gt 0 ] && [ "${2:-0}" -gt 0 ] && hit=$((hit + 1))
done
diag "module churn: $done of $cycles cycles, probes hit in $hit, [GONE] shown in $gone of" \
	"$(((cycles + 1) / 2))"
diag_log modprobe | tail -2
[ $done -eq "$cycles" ]; result "module churn: every load, probe and unload succeeded" $?
[ $hit -eq "$cycles" ]; result "module churn: kprobes and kretprobes hit in every cycle" $?
[ $gone -eq $(((cycles + 1) / 2)) ]; result "module churn: probes shown [GONE] once their module" \
	"is" $?
grep -q "tgt_\|GONE" $L
[ $? -ne 0 ]; result "module churn: kprobes/list holds none of them after" $?

# Probe everything: every text symbol of the kernel (modules aside), one
# kprobe each, and a kretprobe on every 20th accepted one.
grep ' [tT] ' /proc/kallsyms | grep -v '\[' | cut -d' ' -f3 > /tmp/funcs
diag "candidates: $(wc -l < /tmp/funcs) text symbols"
workload_start
check "everything: registered within budget, every refusal a clean errno" \
	insmod $K phase=everything funcs=/tmp/funcs \
	budget_s="${STRESS_BUDGET:-150}" kret_every=20
diag_log everything
if grep -q '^kprobes_stress ' /proc/modules; then
	workload
	[ $good -eq 3 ]; result "everything: fork/exec, file I/O, loopback HTTP work with all" \
		"armed" $?
	rmmod kprobes_stress
	diag_log "everything: armed"
	hit=$(dmesg | sed -n 's/.*everything: armed [0-9]*, probes hit \([0-9]*\),.*/\1/p' |
		tail -1)
	[ "${hit:-0}" -gt 0 ]; result "everything: probes hit during the workload" $?
	grep -q "^[0-9a-f]* " /sys/kernel/debug/kprobes/list
	[ $? -ne 0 ]; result "everything: kprobes/list empty after unregister" $?
else
	skip "everything: workload with all armed" "registration failed"
	skip "everything: probes hit during the workload" "registration failed"
	skip "everything: kprobes/list empty after unregister" "registration failed"
fi
workload
[ $good -eq 3 ]; result "workload works after everything is gone" $?

# Instruction sweep: a few hundred functions on the workload's paths
# (syscalls, VFS, page cache, sockets, memory), spread over the kernel;
# a probe at every instruction boundary of each, every other offset
# refused.
sweep_re='__x64_sys_|__do_sys_|ksys_|do_sys_|vfs_|path_|lookup_|dput|fput|fget|filemap_'
sweep_re="$sweep_re|generic_file|pipe_|copy_|tcp_|udp_|inet_|sock_|ip_|kmem_cache_|__kmalloc"
sweep_re="$sweep_re|kfree|do_fault|handle_mm_fault|folio_|do_wait|copy_process|do_exit|bprm_"
sweep_re="$sweep_re|load_elf|do_mmap|mmap_"
grep -E " [tT] ($sweep_re)" \
	/proc/kallsyms | grep -v '\[' | cut -d' ' -f3 | awk 'NR % 3 == 0' > /tmp/sweep
diag "sweep candidates: $(wc -l < /tmp/sweep)"
check "sweep: each boundary probed or cleanly refused, every other offset refused" \
	insmod $K phase=sweep funcs=/tmp/sweep sweep_funcs=${STRESS_SWEEP:-300}
diag_log sweep
if grep -q '^kprobes_stress ' /proc/modules; then
	workload
	[ $good -eq 3 ]; result "sweep: workload works with every boundary armed" $?
	rmmod kprobes_stress
	diag_log "sweep: functions entered"
	set -- $(dmesg | sed -n \
		's/.*sweep: functions entered \([0-9]*\) .* probes hit \([0-9]*\) of.*/\1 \2/p' |
		tail -1)
	[ "${2:-0}" -gt "${1:-0}" ]; result "sweep: probes past the first hit in entered" \
		"functions" $?
else
	skip "sweep: workload works with every boundary armed" "registration failed"
	skip "sweep: probes past the first hit in entered functions" "registration failed"
fi
