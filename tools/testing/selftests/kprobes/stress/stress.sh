#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# `make stress`, in the guest (at /mnt/host, with mod/kprobes_stress.ko):
# each phase of kprobes_stress.ko as KTAP cases; the counts go to the log.
#   STRESS_S       seconds of hammering (from ./params)
#   STRESS_BUDGET  seconds probe-everything may spend registering
. /harness/ktap.sh
[ -f ./params ] && . ./params
K=./mod/kprobes_stress.ko
plan 7

diag_log() { dmesg | grep "kprobes_stress: $1" | sed 's/^\[[ 0-9.]*\] /# /'; }

check "hammer: witness hits equal calls on every CPU, none missed" \
	insmod $K phase=hammer secs="${STRESS_S:-20}"
rmmod kprobes_stress 2> /dev/null
diag_log hammer

check "kretprobe pressure: nmissed is exactly the shortfall" \
	insmod $K phase=kretpressure
rmmod kprobes_stress 2> /dev/null
diag_log kretpressure

# Probe everything: every text symbol of the kernel (modules aside), one
# kprobe each, and a kretprobe on every 20th accepted one.
grep ' [tT] ' /proc/kallsyms | grep -v '\[' | cut -d' ' -f3 > /tmp/funcs
diag "candidates: $(wc -l < /tmp/funcs) text symbols"
workload_start
check "everything: registered within budget, every refusal a clean errno" \
	insmod $K phase=everything funcs=/tmp/funcs \
	budget_s="${STRESS_BUDGET:-90}" kret_every=20
diag_log everything
if grep -q '^kprobes_stress ' /proc/modules; then
	workload
	[ $good -eq 3 ]; result "everything: fork/exec, file I/O, loopback HTTP work with all armed" $?
	rmmod kprobes_stress
	diag_log "everything: armed"
	hit=$(dmesg | sed -n 's/.*everything: armed [0-9]*, probes hit \([0-9]*\),.*/\1/p' | tail -1)
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
