#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The guest side of `make bench` (harness/bench.sh runs it with this folder
# and kprobes_bench.ko at /mnt/host).  Every figure is printed by the
# module or here as a "kpb: " line on the console, in guest nanoseconds
# (instructions under -icount shift=0).
#   BENCH_N      registration sizes (default "1000 10000")
#   BENCH_KN     sizes on kernel functions and tracefs (default "1000":
#                both implementations update ftrace per probe there, so
#                10000 takes many minutes)
#   BENCH_LOOPS  calls per per-hit figure (default 20000)
#   BENCH_ONLY=hit  the per-hit figures only; =reg the registration ones
#                (BENCH_N) only; =tracefs the tracefs ones only
#   BENCH_SCALE_S  guest seconds the scale phase may spend registering
#   BENCH_ICOUNT   1 under -icount (the two-CPU figure's clock is shared)
set -u
# the kprobes selftests as the guest has them installed
KPT_DIR=${KPT_DIR:-/kselftest/kprobes}
. $KPT_DIR/lib.sh
KO=/mnt/host/kprobes_bench.ko
T=/sys/kernel/tracing
N=${BENCH_N:-1000 10000}
KN=${BENCH_KN:-1000}
LOOPS=${BENCH_LOOPS:-20000}
kpb() { echo "kpb: $*" > /dev/kmsg; }
# before a timed step: what the one before left to the background ends
settle() { sleep 1; }
now() { cat /sys/module/kprobes_bench/parameters/now; }

# Kernel functions a tool would attach to: the ftrace-able ones (what
# bpftrace lists for kprobe:*), minus the kprobes blacklist.
sed 's/ .*//' $T/available_filter_functions | sort -u > /tmp/all
sed 's/.*[[:space:]]//' /sys/kernel/debug/kprobes/blacklist | sort -u > /tmp/black
grep -v -x -F -f /tmp/black /tmp/all > /tmp/funcs
kpb "funcs candidates $(wc -l < /tmp/funcs) of $(wc -l < /tmp/all)"

only=${BENCH_ONLY:-}
case $only in tracefs|reg) ;; *)
	{ insmod $KO phase=hit loops="$LOOPS" icount="${BENCH_ICOUNT:-0}" &&
	  rmmod kprobes_bench; } ;;
esac

# consumer_row OFF ROW [ret=1]: a counting uprobe_consumer of the kernel's
# own API (kpt_uconsumer.ko) at file offset OFF, timed: the row "hit ROW"
# (with ret=1 its ret_handler alone: 6.12's uretprobe)
consumer_row() {
	insmod /mnt/host/kpt_uconsumer.ko path=$bin offset="$1" ${3:-}
	v=$(timed)
	n=$(cat /sys/module/kpt_uconsumer/parameters/hits)
	rmmod kpt_uconsumer
	kpb "hit $2 $(( (v - base) / LOOPS ))" "$([ "$n" = "$LOOPS" ] || echo "hits $n")"
}

# seed_row R ADDR ROW: a counting register_uprobe() (R empty) or
# register_uretprobe() (R=r) probe of kpt_uprobes.ko at ADDR, timed: the
# row "hit ROW", where the kernel has the driver and the probe registers
seed_row() {
	insmod $M/kpt_uprobes.ko 2> /dev/null || return 0
	echo "${1}set 0 $p $2 fast" > $uc 2> /dev/null && echo "${1}reg 0" > $uc
	ret=$(grep "^${1}0 " $uc | tr ' ' '\n' | sed -n 's/^ret=//p')
	v=$(timed)
	n=$(grep "^${1}0 " $uc | tr ' ' '\n' | sed -n 's/^hits=//p')
	echo "${1}unreg 0" > $uc
	rmmod kpt_uprobes
	[ "$ret" = 0 ] &&
		kpb "hit $3 $(( (v - base) / LOOPS ))" "$([ "$n" = "$LOOPS" ] || echo "hits $n")"
	return 0
}

# Uprobe hits: kpt_utarget's loop of LOOPS calls unprobed, then with a
# tracefs uprobe event (recording), a counting uprobe_consumer (the
# kernel's own API, kpt_uconsumer.ko) and, on a kernel that has it, a
# counting register_uprobe() probe (kpt_uprobes.ko).  Per hit: (probed -
# unprobed) / LOOPS, for lea (single-stepped) and push (emulated); for
# lea also the return probes, 6.12's and register_uretprobe(), per call.
uprobe_hits() {
	bin=/kselftest/kprobes/kpt_utarget
	eval "$($bin addrs | sed 's/^\([a-z0-9_]*\) \(.*\)/A_\1=\2/')"
	rm -f /tmp/ub.in /tmp/ub.out && mkfifo /tmp/ub.in /tmp/ub.out
	$bin serve < /tmp/ub.in > /tmp/ub.out &
	exec 7> /tmp/ub.in 8< /tmp/ub.out
	read -r r <&8; p=${r#ready }
	uc=/sys/kernel/debug/kpt_uprobes/ctl
	for f in lea push; do
		eval a=\$A_$f
		off=$(printf '0x%x' $((a - 0x400000)))
		timed() { echo "time $f $LOOPS" >&7; read -r r <&8; set -- $r; echo "$2"; }
		timed > /dev/null
		base=$(timed)
		echo "p:kpbu/$f $bin:$off" >> $T/uprobe_events
		echo 1 > $T/events/kpbu/$f/enable
		v=$(timed)
		n=$(grep -c " $f: (" $T/trace)
		echo 0 > $T/events/kpbu/$f/enable
		echo "-:kpbu/$f" >> $T/uprobe_events
		echo > $T/trace
		kpb "hit uprobe_${f}_tracefs $(( (v - base) / LOOPS ))" \
		    "$([ "$n" = "$LOOPS" ] || echo "events $n")"
		consumer_row "$off" "uprobe_${f}_consumer"
		seed_row "" "$a" "uprobe_${f}_seed"
		# return probes (entry and return, per call): 6.12's through
		# its consumer API, and register_uretprobe()
		if [ $f = lea ]; then
			consumer_row "$off" "uretprobe_${f}_consumer" ret=1
			seed_row r "$a" "uretprobe_${f}_seed"
		fi
	done
	# the same instructions in anonymous memory (a JIT's copy): the
	# memory engine of register_uprobe(), where the kernel has one
	echo "jit rx" >&7; read -r r <&8; jb=${r#addr }
	for f in jlea jpush; do
		eval a=\$A_$f
		a=$(printf '0x%x' $((jb + a - A_jit_begin)))
		timed() { echo "time $f $LOOPS" >&7; read -r r <&8; set -- $r; echo "$2"; }
		timed > /dev/null
		base=$(timed)
		seed_row "" "$a" "uprobe_${f}_seed"
		if [ $f = jlea ]; then
			seed_row r "$a" "uretprobe_${f}_seed"
		fi
	done
	echo exit >&7
	exec 7>&- 8<&-
	wait
}
case $only in tracefs|reg) ;; *) uprobe_hits ;; esac
if [ "$only" = hit ]; then kpb "end"; exit 0; fi

[ "$only" = tracefs ] && N=
for n in $N; do
	head -n "$n" /tmp/funcs > /tmp/funcs.n
	f=; case " $KN " in *" $n "*) f=funcs=/tmp/funcs.n ;; esac
	insmod $KO phase=reg n="$n" $f && rmmod kprobes_bench
done
if [ "$only" = reg ]; then kpb "end"; exit 0; fi

# tracefs, as perf probe / bpftrace's kprobe_events users do it.
insmod $KO phase=none
for n in $KN; do
	head -n "$n" /tmp/funcs > /tmp/funcs.n
	settle
	t0=$(now)
	i=0
	while read -r f; do
		echo "p:kpb/e$i $f"
		i=$((i + 1))
	done < /tmp/funcs.n >> $T/kprobe_events 2>/dev/null
	t1=$(now)
	kpb "tracefs $n define $((t1 - t0)) events $(wc -l < $T/kprobe_events)"
	settle
	t1=$(now)
	echo 1 > $T/events/kpb/enable
	t2=$(now)
	kpb "tracefs $n enable $((t2 - t1))"
	settle
	t2=$(now)
	echo 0 > $T/events/kpb/enable
	t3=$(now)
	kpb "tracefs $n disable $((t3 - t2))"
	settle
	t3=$(now)
	echo > $T/kprobe_events
	t4=$(now)
	kpb "tracefs $n remove $((t4 - t3)) left $(wc -l < $T/kprobe_events)"
done
if [ "$only" = tracefs ]; then rmmod kprobes_bench; kpb "end"; exit 0; fi

# The busybox workload of lib.sh (fork/exec, file I/O, HTTP).
workload_start
settle
t0=$(now); workload; t1=$(now)
kpb "scale workload_unprobed $((t1 - t0)) ok $good/3"
rmmod kprobes_bench

# Scale: every candidate at once, armed while the workload runs.
settle
insmod $KO phase=scale funcs=/tmp/funcs budget_s="${BENCH_SCALE_S:-120}"
t0=$(now); workload; t1=$(now)
kpb "scale workload_armed $((t1 - t0)) ok $good/3"
rmmod kprobes_bench
kpb "end"
