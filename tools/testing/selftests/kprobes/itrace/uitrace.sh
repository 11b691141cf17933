#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# uitrace.sh CASE LOOPS: make itrace's user-space cases, run in the guest.
# Holds one register_uprobe() probe (kpt_uprobes.ko, counting only) on an
# instruction of the uprobes suite's target, kpt_utarget, and has the
# target call it LOOPS times.  CASE: jpush, jlea (the instruction in
# anonymous memory, a JIT's copy: the memory engine), push, lea (in the
# program's file: 6.12's inode engine under the per-process layer).  The
# probed address is the iteration mark ("itrace: kit_call ADDR").
case=$1
loops=$2
bin=/kselftest/kprobes/kpt_utarget
uc=/sys/kernel/debug/kpt_uprobes/ctl
eval "$($bin addrs | sed 's/^\([a-z0-9_]*\) \(.*\)/A_\1=\2/')"
mkfifo /tmp/ui.in /tmp/ui.out
$bin serve < /tmp/ui.in > /tmp/ui.out &
exec 7> /tmp/ui.in 8< /tmp/ui.out
read -r r <&8
pid=${r#ready }
eval a=\$A_"$case"
case $case in
j*)
	echo "jit rx" >&7
	read -r r <&8
	a=$(printf '0x%x' $((${r#addr } + a - A_jit_begin)))
	;;
esac
insmod /kselftest/kprobes/modules/kpt_uprobes.ko || exit 1
echo "set 0 $pid $a fast" > $uc
echo "reg 0" > $uc
grep "^0 " $uc
printf 'itrace: kit_call %016x\n' "$a" > /dev/kmsg
echo "itrace: loop" > /dev/kmsg
echo "time $case $loops" >&7
read -r r <&8
echo "unreg 0" > $uc
grep "^0 " $uc
echo exit >&7
wait
