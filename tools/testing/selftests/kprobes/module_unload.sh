#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Probes in module text: a module may unload while probed (its probes are
# then gone, shown as [GONE], and never touch freed text), and a probe on
# a module that is loaded again works again.  A probe in a module's init
# text goes [GONE] when that text is freed.
. "$(dirname "$0")/lib.sh"
plan 14
P=/sys/module/kpt_target_mod/parameters

echo > $T/trace
echo > $T/kprobe_events
check "target module loads" insmod $M/kpt_target_mod.ko
check "probe defined on MOD:sym" sh -c \
	"echo 'p:kpt/modf kpt_target_mod:kpt_mod_func x=%di:s32' >> $T/kprobe_events"
echo 1 > $T/events/kpt/modf/enable
echo 7 > $P/call
[ "$(cat $P/result)" = 22 ]; result "probed module function still returns its value" $?
grep -q 'modf: (kpt_mod_func+0x[0-9a-f]*/0x[0-9a-f]* \[kpt_target_mod\]) x=7' $T/trace
result "probe in module text fired with the argument" $?
grep -q ' k  kpt_mod_func+0x[0-9a-f]*  kpt_target_mod ' $D/list
result "kprobes/list names the module" $?

check "module unloads while probed" rmmod kpt_target_mod
grep -q '\[GONE\]' $D/list
result "probe on the unloaded module shown [GONE]" $?

# loading it again: trace_kprobe re-registers its event on the new text
check "module loads again" insmod $M/kpt_target_mod.ko
echo > $T/trace
echo 5 > $P/call
grep -q 'modf: (kpt_mod_func+0x[0-9a-f]*/0x[0-9a-f]* \[kpt_target_mod\]) x=5' $T/trace
result "probe fires again after reload" $?
echo 0 > $T/events/kpt/modf/enable
echo > $T/kprobe_events
rmmod kpt_target_mod
! grep -q 'kpt_mod_func' $D/list
result "nothing left in kprobes/list" $?

# init text: probed and hit during init, gone once init memory is freed
before=$(grep -c . $D/list)
check "module probing its own __init function loads" insmod $M/kpt_init_probe.ko
[ "$(cat /sys/module/kpt_init_probe/parameters/hits)" = 1 ]
result "probe in init text was hit during init" $?
[ "$(grep -c '\[GONE\]' $D/list)" -ge 1 ] && [ "$(grep -c . $D/list)" -gt "$before" ]
result "probe in freed init text shown [GONE]" $?
check "module with the gone probe unloads" rmmod kpt_init_probe

done_testing
