#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Kretprobe instances of tasks that never return from the probed function
# (do_exit) are recycled when the task is freed: with a pool of 2, twenty
# exits one after the other must not run the pool dry.  After each exit
# the suite waits for the reaped task to be freed (kpt_rcu: a grace
# period and every RCU callback queued so far), which is when instances
# come back.
. "$(dirname "$0")/lib.sh"
plan 6

check "kpt_rcu helper loads" insmod $M/kpt_rcu.ko

echo > $T/kprobe_events
check "define r2 event on do_exit" sh -c "echo 'r2:kpt/exit do_exit' >> $T/kprobe_events"
# a kretprobe event's profile counts returns; count entries with a kprobe
check "define p event on do_exit" sh -c "echo 'p:kpt/exitp do_exit' >> $T/kprobe_events"
echo 1 > $T/events/kpt/exit/enable
echo 1 > $T/events/kpt/exitp/enable
i=0
while [ $i -lt 20 ]; do
	/bin/true
	echo 1 > /sys/module/kpt_rcu/parameters/barrier
	i=$((i + 1))
done
echo 0 > $T/events/kpt/exit/enable
echo 0 > $T/events/kpt/exitp/enable
hits=$(awk '$1 == "exitp" { print $2 }' $T/kprobe_profile)
missed=$(awk '$1 == "exit" { print $3 }' $T/kprobe_profile)
diag "do_exit: $hits hits, $missed missed with maxactive 2"
[ "${hits:-0}" -ge 20 ]; result "every exit hit the entry probe" $?
[ "${missed:-99}" -le 4 ]; result "instances of exited tasks came back to the pool" $?
echo > $T/kprobe_events
[ -z "$(cat $T/kprobe_events)" ]; result "event removed" $?
rmmod kpt_rcu

done_testing
