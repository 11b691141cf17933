#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# `make run`: show the series at work.  Loads the kprobes samples, shows the
# probes in debugfs, fires them, shows what their handlers printed, unloads.
M=/lib/modules/kprobes
step() { echo; echo "### $*"; }

dmesg -n 1	# handler output is read back with dmesg below, not interleaved
step "kprobes on this kernel: $(uname -r)"
cat /sys/kernel/debug/kprobes/enabled 2>/dev/null | sed 's/^/kprobes enabled: /'
n=0
for m in kprobe_example kretprobe_example jprobe_example; do
	[ -e $M/$m.ko ] || continue
	step "insmod $m.ko"
	insmod $M/$m.ko && n=$((n + 1))
done
step "/sys/kernel/debug/kprobes/list"
cat /sys/kernel/debug/kprobes/list

step "fire the probes: fork and exec a few processes"
dmesg -c > /dev/null
for i in 1 2 3; do /bin/true; done
ls / > /dev/null
step "what the handlers printed"
dmesg -c | head -40

step "a kprobe event through tracefs (kprobe_events)"
T=/sys/kernel/tracing
if echo 'p:demo/open do_sys_openat2 dfd=%di' > $T/kprobe_events 2>/dev/null; then
	echo 1 > $T/events/demo/open/enable
	cat /proc/version > /dev/null
	echo 0 > $T/events/demo/open/enable
	grep -m 3 'open:' $T/trace
	echo '-:demo/open' >> $T/kprobe_events
	echo > $T/trace
fi

step "a watchpoint probe: who writes jiffies? (wprobe_example)"
if [ -e $M/wprobe_example.ko ]; then
	dmesg -c > /dev/null
	insmod $M/wprobe_example.ko report=3
	grep '  w  ' /sys/kernel/debug/kprobes/list
	sleep 0.2
	rmmod wprobe_example
	dmesg -c | grep wprobe_example
	step "a watchpoint event through tracefs (wprobe_events)"
	echo 'w:demo/kptr w@kptr_restrict $value' > $T/wprobe_events
	echo 1 > $T/events/demo/kptr/enable
	old=$(cat /proc/sys/kernel/kptr_restrict)
	echo 1 > /proc/sys/kernel/kptr_restrict; echo "$old" > /proc/sys/kernel/kptr_restrict
	echo 0 > $T/events/demo/kptr/enable
	grep 'kptr:' $T/trace
	echo '-:demo/kptr' >> $T/wprobe_events
	echo > $T/trace
fi

step "unload"
for m in jprobe_example kretprobe_example kprobe_example; do
	grep -q "^$m " /proc/modules && rmmod $m && echo "rmmod $m"
done
dmesg | tail -5
cat /sys/kernel/debug/kprobes/list
echo
echo "### done: $n sample module(s) shown"
dmesg -n 7	# back to the default, so the harness sees the power-off marker
