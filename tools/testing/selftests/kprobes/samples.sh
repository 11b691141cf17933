#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The kprobes samples (samples/kprobes, built with the kernel) load, fire
# on real kernel work, print what their handlers saw, and unload cleanly.
. "$(dirname "$0")/lib.sh"

# the samples are the kernel's modules (CONFIG_SAMPLE_KPROBES=m)
if ! grep -q '/kprobe_example\.ko' "/lib/modules/$(uname -r)/modules.dep" 2> /dev/null; then
	ktap_print_header
	ktap_skip_all "the kprobes samples are not installed (CONFIG_SAMPLE_KPROBES=m)"
	exit "$KSFT_SKIP"
fi
plan 15

# kprobe_example: pre/post handlers on kernel_clone (every fork)
dmesg -c > /dev/null
check "kprobe_example loads" modprobe kprobe_example
grep -q 'kernel_clone' $D/list; result "kprobe_example listed in debugfs" $?
/bin/true; /bin/true
out=$(dmesg -c)
echo "$out" | grep -q "<kernel_clone> p->addr = 0x[0-9a-f]*, ip = "
result "kprobe_example pre_handler ran on fork" $?
echo "$out" | grep -q "<kernel_clone> p->addr = 0x[0-9a-f]*, flags = "
result "kprobe_example post_handler ran on fork" $?
check "kprobe_example unloads" rmmod kprobe_example

# kretprobe_example: entry + return handler on kernel_clone, reports the
# child's pid as the return value
check "kretprobe_example loads" modprobe kretprobe_example
/bin/true &
pid=$!
wait $pid
dmesg | grep -q "kernel_clone returned $pid and took"
result "kretprobe_example saw the child's pid as return value" $?
rmmod kretprobe_example
dmesg | grep -q "Missed probing 0 instances of kernel_clone"
result "kretprobe_example unloads with 0 missed" $?

# jprobe_example: a mirror handler of kernel_clone prints its arguments;
# kprobes/list shows it with type j.  Stock 6.12 has no jprobes: skipped
# there, and only there (a kernel with jprobes must have built the sample).
if ! grep -q ' register_jprobe$' /proc/kallsyms; then
	for c in "jprobe_example loads" "jprobe_example listed with type j" \
		 "jprobe_example handler saw kernel_clone's arguments" \
		 "jprobe_example unloads with 0 missed"; do
		skip "$c" "this kernel has no jprobes (stock 6.12)"
	done
else
dmesg -c > /dev/null
check "jprobe_example loads" modprobe jprobe_example
grep -q '^[0-9a-f]*  *j  *kernel_clone+0x[0-9a-f]*' $D/list
result "jprobe_example listed with type j" $?
/bin/true
dmesg | grep -q "<kernel_clone> flags = 0x[0-9a-f]*, exit_signal = 17, stack = 0x0, stack_size = 0"
result "jprobe_example handler saw kernel_clone's arguments" $?
rmmod jprobe_example
dmesg | grep -q "jprobe at [0-9a-fx]* unregistered, missed 0"
result "jprobe_example unloads with 0 missed" $?
fi

# wprobe_example: a watchpoint on kptr_restrict names the function that
# writes it (a sysctl write: do_proc_dointvec_minmax_conv())
if ! grep -q ' register_wprobe$' /proc/kallsyms; then
	for c in "wprobe_example loads, listed with type w" \
		 "wprobe_example names the writer of kptr_restrict" \
		 "wprobe_example unloads with its totals"; do
		skip "$c" "this kernel has no wprobes (stock 6.12)"
	done
	exit 0
fi
K=/proc/sys/kernel/kptr_restrict
old=$(cat $K)
dmesg -c > /dev/null
modprobe wprobe_example symbol=kptr_restrict &&
	grep -q '  w  kptr_restrict+0x0  *len=4 w $' $D/list
st=$?
[ $st = 0 ] || grep '  w  ' $D/list | sed 's/^/# /'
result "wprobe_example loads, listed with type w" $st
echo 1 > $K; echo "$old" > $K
w1="<kptr_restrict> written by do_proc_dointvec_minmax_conv+0x[0-9a-f]*/0x[0-9a-f]*"
dmesg | grep -q "$w1, now 0x1 (write #1)" &&
	dmesg | grep -q "now 0x$old (write #2)"
st=$?
[ $st = 0 ] || dmesg | grep wprobe_example | sed 's/^/# /'
result "wprobe_example names the writer of kptr_restrict" $st
rmmod wprobe_example
dmesg | grep -q "kptr_restrict: 2 writes seen, 0 missed, the register yielded 0 times"
result "wprobe_example unloads with its totals" $?

done_testing
