#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tracefs kprobe_events (upstream's trace_kprobe, unmodified) on the
# kprobes core: define, list, enable, trace with fetch-args, profile
# counts, kretprobe events with maxactive, global disarm, bad input, remove.
. "$(dirname "$0")/lib.sh"
plan 24

echo > $T/trace
echo > $T/kprobe_events

check "define p event on kernel_clone" \
	sh -c "echo 'p:kpt/clone kernel_clone' >> $T/kprobe_events"
grep -q '^p:kpt/clone kernel_clone' $T/kprobe_events
result "event shown in kprobe_events" $?
grep -q ' k  kernel_clone+0x[0-9a-f]* ' $D/list
result "probe shown in debugfs kprobes/list as type k" $?
# the whole line, as perf and tools parse it: not yet enabled, on ftrace
# (a kernel without dynamic ftrace has no ftrace site: an int3, no flag)
if [ -e $T/available_filter_functions ]; then on_ftrace='\[FTRACE\]'; else on_ftrace=; fi
grep -Eqx "[0-9a-f]{16}  k  kernel_clone\+0x[0-9a-f]+    \[DISABLED\]$on_ftrace" $D/list
result "kprobes/list line: ADDR  k  sym+off  [DISABLED]${on_ftrace:+[FTRACE]}" $?
# addresses only for readers kallsyms would show them to
old=$(cat /proc/sys/kernel/kptr_restrict)
echo 2 > /proc/sys/kernel/kptr_restrict
grep -Eq '^0{16}  k  kernel_clone\+0x[0-9a-f]+ ' $D/list
r=$?
echo "$old" > /proc/sys/kernel/kptr_restrict
result "kprobes/list hides addresses under kptr_restrict=2" $r

# Ours arms an entry probe enabled on its own by an int3 on the instruction
# after the fentry nop (a carrier: no ftrace update), and hooks it on
# ftrace when debug.kprobes-carriers is 0, as upstream always does.
carriers=/proc/sys/debug/kprobes-carriers
ef=$T/enabled_functions
echo 1 > $T/events/kpt/clone/enable
/bin/true; /bin/true
grep -Eq ' k  kernel_clone\+0x[0-9a-f]+ .*\[CARRIED\]' $D/list
carried=$?
[ -e $ef ] && grep -q '^kernel_clone ' $ef
listed=$?
echo 0 > $T/events/kpt/clone/enable
[ "$(grep -c ' clone: (kernel_clone+0x' $T/trace)" -ge 2 ]
result "enabled event traced each fork" $?
if [ -e $carriers ] && [ -e $ef ]; then
	[ $carried = 0 ] && [ $listed != 0 ]
	result "carried: [CARRIED] in kprobes/list, kernel_clone not in enabled_functions" $?
	echo 0 > $carriers
elif grep -qw register_jprobe /proc/kallsyms; then	# ours
	skip "carried: [CARRIED] in kprobes/list, kernel_clone not in enabled_functions" \
		"this boot: no carriers (no dynamic ftrace, no OPTPROBES, or not this arch)"
else
	skip "carried: [CARRIED] in kprobes/list, kernel_clone not in enabled_functions" \
		"this kernel has no carriers (stock 6.12)"
fi
echo > $T/trace
echo 1 > $T/events/kpt/clone/enable
/bin/true; /bin/true
[ -e $ef ] && grep -q '^kernel_clone ' $ef
hooked=$?
echo 0 > $T/events/kpt/clone/enable
[ -e $carriers ] && echo 1 > $carriers
[ "$(grep -c ' clone: (kernel_clone+0x' $T/trace)" -ge 2 ]
result "enabled event traced each fork (hooked on ftrace)" $?
# an entry probe's ftrace hook: there while enabled, gone soon after (ours
# leaves it a moment, so that a tool detaching and attaching again, or
# detaching many, pays one ftrace update for all)
if [ -e $ef ]; then
	result "enabled_functions lists kernel_clone while its event is enabled" $hooked
	i=0
	while grep -q '^kernel_clone ' $ef && [ $i -lt 3 ]; do
		sleep 1
		i=$((i + 1))
	done
	! grep -q '^kernel_clone ' $ef
	result "... and not 3 s after it was disabled (${i} s)" $?
else
	skip "enabled_functions lists kernel_clone while its event is enabled" \
		"this boot: no dynamic ftrace"
	skip "... and not 3 s after it was disabled" "this boot: no dynamic ftrace"
fi
hits=$(awk '$1 == "clone" { print $2 }' $T/kprobe_profile)
[ "${hits:-0}" -ge 2 ]
result "kprobe_profile counts hits ($hits)" $?

# fetch-args: the handler sees the probed function's argument registers
check "define event with fetch-args" sh -c \
	"echo 'p:kpt/open do_sys_openat2 dfd=%di:s32 path=+0(%si):ustring' >> $T/kprobe_events"
echo > $T/trace
echo 1 > $T/events/kpt/open/enable
cat /proc/version > /dev/null
echo 0 > $T/events/kpt/open/enable
grep -q 'open: (do_sys_openat2+0x[0-9a-f]*/0x[0-9a-f]*) dfd=-100 path="/proc/version"' $T/trace
result "fetch-args read argument registers (dfd=AT_FDCWD, path)" $?

# kretprobe event with maxactive; its return value is the child's pid
check "define r event with maxactive 16" sh -c \
	"echo 'r16:kpt/clone_ret kernel_clone ret=\$retval:s32' >> $T/kprobe_events"
grep -q ' r  kernel_clone+0x[0-9a-f]* ' $D/list
result "kretprobe shown in kprobes/list as type r" $?
echo > $T/trace
echo 1 > $T/events/kpt/clone_ret/enable
/bin/true &
pid=$!
wait $pid
echo 0 > $T/events/kpt/clone_ret/enable
grep -q "clone_ret: (.* <- kernel_clone) ret=$pid\$" $T/trace
result "kretprobe event reports the return value (pid $pid)" $?

# global disarm through debugfs kprobes/enabled
echo 1 > $T/events/kpt/clone/enable
before=$(awk '$1 == "clone" { print $2 }' $T/kprobe_profile)
echo 0 > $D/enabled
/bin/true
mid=$(awk '$1 == "clone" { print $2 }' $T/kprobe_profile)
echo 1 > $D/enabled
/bin/true
after=$(awk '$1 == "clone" { print $2 }' $T/kprobe_profile)
echo 0 > $T/events/kpt/clone/enable
[ "$mid" = "$before" ]; result "kprobes/enabled=0 disarms ($before -> $mid)" $?
[ "$after" -gt "$mid" ]; result "kprobes/enabled=1 re-arms ($mid -> $after)" $?

# bad input is refused and leaves nothing behind
! sh -c "echo 'p:kpt/nosuch no_such_function_kpt' >> $T/kprobe_events" 2>/dev/null
result "unknown symbol refused" $?
! sh -c "echo 'p:kpt/mid kernel_clone+1' >> $T/kprobe_events" 2>/dev/null
result "mid-instruction offset refused" $?
! sh -c "echo 'p:kpt/bl notify_die' >> $T/kprobe_events" 2>/dev/null
result "blacklisted function refused" $?
grep -q 'notify_die' $D/blacklist
result "kprobes/blacklist lists notify_die" $?

# a probe past the entry runs its instruction from a slot page, which
# /proc/kallsyms names for profilers (the first boundary after the entry)
for o in $(seq 9 40); do
	echo "p:kpt/slot kernel_clone+$o" >> $T/kprobe_events 2> /dev/null && break
done
grep -q '^p:kpt/slot ' $T/kprobe_events && echo 1 > $T/events/kpt/slot/enable &&
	grep -Eq ' t kprobe_(opt)?insn_page[[:space:]]+\[__builtin__kprobes\]$' /proc/kallsyms
result "/proc/kallsyms names the slot pages (kprobe_insn_page [__builtin__kprobes])" $?
echo 0 > $T/events/kpt/slot/enable
echo '-:kpt/slot' >> $T/kprobe_events

echo > $T/trace
echo > $T/kprobe_events
[ -z "$(cat $T/kprobe_events)" ] && ! grep -q 'kernel_clone' $D/list
result "removing all events leaves no probe in kprobes/list" $?

done_testing
