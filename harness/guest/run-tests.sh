#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest test runner.  Runs every suite (or the ones named in
# /harness/suites), each bracketed by markers the host uses to attribute
# kernel reports to the suite that was running:
#   harness: suite NAME begin
#   harness: suite NAME end rc=N
# A suite is a module (/tests/NAME.ko: KUnit runs its suites as it loads,
# printing KTAP; it is removed afterwards), a kselftest of the kprobes target
# (kprobes:NAME.sh in /kselftest/kselftest-list.txt, run by kselftest's
# run_kselftest.sh, which nests the test's KTAP under "# "), or a script
# the host handed over (/mnt/host/NAME.sh).  All output goes through
# /dev/kmsg so that KTAP lines are never torn by concurrent kernel
# messages on the console.

set -o pipefail

klog() { echo "$*" > /dev/kmsg; }
# Forward a stream to the kernel log line by line.
tokmsg() { while IFS= read -r l; do echo "$l" > /dev/kmsg; done; }

only=$(cat /harness/suites 2>/dev/null)
[ "$only" = all ] && only=
ksft=$(sed -n 's/^kprobes:/ksft:/p' /kselftest/kselftest-list.txt 2>/dev/null)
set -- /tests/*.ko $ksft /mnt/host/*.ko /mnt/host/*.sh
# "kselftest": the kprobes kselftest target alone, every test of it
[ "$only" = kselftest ] && { only=; set -- $ksft; }
for t in "$@"; do
	case "$t" in ksft:*) ;; *) [ -e "$t" ] || continue ;; esac
	name=$(basename "${t#ksft:}"); name=${name%.*}
	case "$t" in /mnt/host/*) ;; *)
		if [ -n "$only" ]; then
			case " $only " in *" $name "*) ;; *) continue ;; esac
		fi ;;
	esac
	klog "harness: suite $name begin"
	case "$t" in
	*.ko)
		# insmod waits, uninterruptibly, for each KUnit case the module
		# runs, some of them for seconds (slower under lockdep and KASAN):
		# the hung-task watch (30 s in this config) waits longer than
		# KUnit's own per-case timeout (300 s) meanwhile, which reports a
		# case that hangs
		hung=$(cat /proc/sys/kernel/hung_task_timeout_secs 2>/dev/null)
		[ -n "$hung" ] && echo 600 > /proc/sys/kernel/hung_task_timeout_secs
		insmod "$t" 2>&1 | tokmsg
		rc=$?
		[ -n "$hung" ] && echo "$hung" > /proc/sys/kernel/hung_task_timeout_secs
		mod=$(basename "$t" .ko | tr - _)
		# a test module must leave: one that cannot be removed (a
		# reference leaked, its exit stuck) fails its suite
		if grep -q "^$mod " /proc/modules; then
			why=$(rmmod "$mod" 2>&1) || klog "harness: suite $name unload rmmod: $why"
			grep -q "^$mod " /proc/modules &&
				klog "harness: suite $name unload still in /proc/modules"
		fi
		;;
	ksft:*)
		/kselftest/run_kselftest.sh -t "kprobes:${t#ksft:}" 2>&1 | tokmsg
		rc=$?
		;;
	*.sh)
		( cd "$(dirname "$t")" && sh "$t" 2>&1 ) | tokmsg
		rc=$?
		;;
	esac
	klog "harness: suite $name end rc=$rc"
done
klog "harness: suites done"
