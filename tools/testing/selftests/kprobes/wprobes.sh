#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Watchpoint probes (register_wprobe(), seed 002 §8.2): kpt_wprobes.ko
# (wprobes/kpt_wprobes_main.c) registers wprobes on a word of its own data
# and runs the assembly that touches it (wprobes/kpt_wprobes_targets.S);
# kpt_wpuser takes a debug register the way gdb (ptrace DR0/DR7) and perf
# (a per-task breakpoint) do.  Exact counts per access type, both CPUs,
# CPU hotplug, the errno table, yielding and re-arming.  Stock 6.12 has
# no wprobes: there every case skips.
. "$(dirname "$0")/lib.sh"

C=/sys/kernel/debug/kpt_wprobes/ctl
L=/sys/kernel/debug/kprobes/list
CPU1=/sys/devices/system/cpu/cpu1/online

ctl() { echo "$*" > $C; }
# sg SLOT KEY: a field of the driver's slot line
sg() { grep "^$1 " $C | tr ' ' '\n' | sed -n "s/^$2=//p"; }
addr() { sed -n "1s/.* $1=\([^ ]*\).*/\1/p" $C; }
wlist() { grep '  w  ' $L; }
nw() { wlist | wc -l; }

# need_cpu1 NAME: a case that stores on cpu1; skipped, saying why, on a
# kernel or boot with one CPU (make configs' CONFIG_SMP=n row)
need_cpu1() {
	[ "$(cat $CPU1 2> /dev/null)" = 1 ] && return 0
	skip "$*" "this boot: needs a second CPU online"
	return 1
}

# result_r NAME... STATUS: result, with the driver's state on a failure
result_r() {
	eval "_st=\${$#}"
	[ "$_st" -eq 0 ] || {
		grep -v "hits=0 .*state=free" $C | sed 's/^/# /'
		wlist | sed 's/^/# list: /'
		[ -n "$EVDIAG" ] && {
			cat $T/wprobe_events $T/wprobe_profile $T/error_log
			grep -v '^#' $T/trace | head -5
		} | sed 's/^/# ev: /'
	}
	result "$@"
}

# wait_state SLOT STATE: up to 5 s for the re-arm work (a workqueue)
wait_state() {
	i=0
	while [ "$(sg "$1" state)" != "$2" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	[ "$(sg "$1" state)" = "$2" ]
}

# a kpt_wpuser in the background on fifos: wpu_start MODE, wpu_line N
# (its Nth line, waiting up to 5 s), wpu_release
wpu_start() {
	rm -f /tmp/wpu.in /tmp/wpu.out && mkfifo /tmp/wpu.in && : > /tmp/wpu.out
	kpt_wpuser "$1" < /tmp/wpu.in > /tmp/wpu.out &
	WPU=$!
	exec 7> /tmp/wpu.in
}
wpu_wait() {
	i=0
	while ! grep -q "^$1" /tmp/wpu.out && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
}
wpu_get() { sed -n "s/^$1 //p" /tmp/wpu.out; }
wpu_release() { echo go >&7; exec 7>&-; wait $WPU; }

# --- cases -----------------------------------------------------------------
c_write() {
	ctl set 0 kpt_wp_var 4 w; ctl reg 0
	ctl store 100 7; ctl load 50
	[ "$(sg 0 ret)" = 0 ] && [ "$(sg 0 hits)" = 100 ] &&
		[ "$(sg 0 ip)" = "$(addr store_after)" ] && [ "$(sg 0 val)" = 7 ]
	result_r "write watchpoint: 100 stores 100 hits, 50 loads none, ip after the store, the" \
		"new value seen" $?
}
c_list() {
	wlist | grep -q "  w  kpt_wp_var+0x0  kpt_wprobes len=4 w $"
	result_r "kprobes/list: type w, symbol, module, len=4, type w, no flags" $?
}
c_adjacent() {
	ctl reset 0; ctl adj 100 1
	[ "$(sg 0 hits)" = 0 ]
	result_r "a store to the byte after the watched 4: no hit" $?
}
c_rw() {
	# alone on the word: TCG reports one register per access
	ctl unreg 0
	ctl set 1 kpt_wp_var 4 rw; ctl reg 1
	ctl store 30 1; ctl load 70
	[ "$(sg 1 ret)" = 0 ] && [ "$(sg 1 hits)" = 100 ] &&
		[ "$(sg 1 ip)" = "$(addr load_after)" ]
	result_r "read-write watchpoint: 30 stores + 70 loads = 100 hits, ip after the load" $?
	ctl unreg 1
	ctl reg 0
}
c_exec() {
	ctl set 2 kpt_wp_xfn 0 x; ctl reg 2
	ctl xfn 100
	[ "$(sg 2 ret)" = 0 ] && [ "$(sg 2 hits)" = 100 ] &&
		[ "$(sg 2 ip)" = "$(addr xfn)" ]
	result_r "execute watchpoint: 100 calls 100 hits, ip at the instruction (before it runs)" $?
	ctl unreg 2
}
c_cpus() {
	need_cpu1 "armed on both CPUs: 40 stores on cpu0, 60 on cpu1, each counted where it" \
		"ran" || return 0
	ctl reset 0
	ctl oncpu 0 store 40 1; ctl oncpu 1 store 60 2
	[ "$(sg 0 cpu0)" = 40 ] && [ "$(sg 0 cpu1)" = 60 ]
	result_r "armed on both CPUs: 40 stores on cpu0, 60 on cpu1, each counted where it ran" $?
}
c_disable() {
	ctl reset 0; ctl disable 0; ctl store 10 1
	h1=$(sg 0 hits)
	wlist | grep -q "kpt_wp_var+0x0.*\[DISABLED\]"; d=$?
	ctl enable 0; ctl store 10 1
	[ "$h1" = 0 ] && [ $d = 0 ] && [ "$(sg 0 hits)" = 10 ] &&
		! wlist | grep -q DISABLED
	result_r "disable_wprobe: no hits, [DISABLED] listed; enable_wprobe: hits again" $?
}
c_missed() {
	ctl reset 0; ctl kprobe on
	ctl store 25 3
	ctl kprobe off
	[ "$(sed -n 's/.*kprobe=//p' $C)" = 0 ] && [ "$(sg 0 hits)" = 25 ] &&
		[ "$(sg 0 missed)" = 25 ]
	result_r "a write from a kprobe handler counts nmissed (25); the probed store itself" \
		"still hits (25)" $?
}
c_hotplug() {
	need_cpu1 "cpu1 offline and back: watched again there, also by a wprobe registered while" \
		"it was down" || return 0
	ok=0
	echo 0 > $CPU1 || ok=1
	ctl reset 0
	ctl store 10 1
	# registered while cpu1 is down: armed there when it comes up
	ctl set 3 kpt_wp_more+16 8 w; ctl reg 3
	echo 1 > $CPU1 || ok=1
	ctl oncpu 1 storeall 20 1
	[ $ok = 0 ] && [ "$(sg 0 cpu0)" = 10 ] && [ "$(sg 0 cpu1)" = 20 ] &&
		[ "$(sg 3 cpu1)" = 20 ] && [ "$(sg 3 ret)" = 0 ]
	result_r "cpu1 offline and back: watched again there, also by a wprobe registered while" \
		"it was down" $?
	ctl unreg 3
}

# errno WHAT EXPECTED SET-ARGS...: one refused registration
errno_case() {
	what=$1 want=$2; shift 2
	before=$(wlist)
	ctl set 5 "$@"; ctl reg 5
	got=$(sg 5 ret)
	[ "$got" = "$want" ] && [ "$(wlist)" = "$before" ] && [ "$(sg 5 state)" = free ]
	result_r "$what: $want, nothing armed" $?
}
c_errnos() {
	var=$(addr var)
	errno_case "length 3" -22 kpt_wp_var 3 w
	errno_case "length 4 at an address 2 past alignment" -22 kpt_wp_var+2 4 w
	errno_case "read-only type (x86 has none)" -22 kpt_wp_var 4 r
	errno_case "an unknown type" -22 kpt_wp_var 4 9
	errno_case "a user address" -22 @0x10000 4 w
	errno_case "the CPU entry area" -22 @0xfffffe0000001000 8 w
	errno_case "execute on a kprobe-blacklisted function" -22 kprobe_busy_begin 0 x
	errno_case "execute on data" -22 kpt_wp_var 0 x
	errno_case "an unknown symbol" -2 kpt_wp_no_such_var 4 w
	errno_case "both symbol and address" -22 "kpt_wp_var@$var" 4 w
	errno_case "neither symbol nor address" -22 - 4 w
	errno_case "no handler" -22 kpt_wp_var 4 w none
	# slot 0 again: registered already
	ctl reg 0
	[ "$(sg 0 ret)" = -16 ] && [ "$(nw)" = 1 ]
	result_r "registered twice: -16 (EBUSY), still listed once" $?
}
c_full() {
	ctl set 1 kpt_wp_more 8 w; ctl set 2 kpt_wp_more+8 8 w; ctl set 3 kpt_wp_more+16 8 w
	ctl regn 1 3
	before=$(wlist)
	ctl set 4 kpt_wp_var 4 w; ctl reg 4
	[ "$(sg 1 ret)" = 0 ] && [ "$(nw)" = 4 ] && [ "$(sg 4 ret)" = -28 ] &&
		[ "$(wlist)" = "$before" ]
	result_r "register_wprobes() of 3 beside 1: 4 armed; a fifth gets -28 (ENOSPC), nothing" \
		"changes" $?
}

# yield_case HOW: with 4 wprobes armed (slots 0..3), a task takes a register
yield_case() {
	how=$1
	for s in 0 1 2 3; do ctl reset $s; done
	y3=$(sg 3 yielded)
	wpu_start "$how"
	wpu_wait holding
	ctl storeall 10 1
	if [ "$how" = ptrace ]; then
		[ "$(wpu_get dr0)" = 0 ] && [ "$(wpu_get dr7)" = 0 ] && [ "$(wpu_get trap)" = 1 ]
	else
		[ "$(wpu_get open)" = 0 ] && [ "$(wpu_get count)" = 10 ]
	fi
	got=$?
	[ $got = 0 ] && [ "$(sg 3 state)" = yielded ] && [ "$(sg 3 yielded)" = $((y3 + 1)) ] &&
		[ "$(sg 2 state)" = armed ] && [ "$(sg 3 hits)" = 0 ] && [ "$(sg 0 hits)" = 10 ] &&
		wlist | grep -q "kpt_wp_more+0x10  kpt_wprobes len=8 w \[YIELDED\]$" &&
		[ "$(wlist | grep -c YIELDED)" = 1 ]
	result_r "$how takes a register from 4 wprobes: it works, the newest wprobe is [YIELDED]" \
		"and counted, the others keep hitting" $?
	wpu_release
	wait_state 3 armed
	ctl storeall 10 1
	[ "$(sg 3 hits)" = 10 ] && ! wlist | grep -q YIELDED
	result_r "$how lets the register go: the yielded wprobe re-arms by itself and hits again" $?
}
c_yield_ptrace() { yield_case ptrace; }
c_yield_perf() { yield_case perf; }
c_yield_disabled() {
	ctl disable 1
	wpu_start ptrace
	wpu_wait holding
	[ "$(wpu_get dr7)" = 0 ] && [ "$(sg 1 state)" = yielded ] && [ "$(sg 3 state)" = armed ] &&
		wlist | grep -q "\[YIELDED\]\[DISABLED\]"
	result_r "a disabled wprobe yields before newer armed ones: [YIELDED][DISABLED]" $?
	wpu_release
	wait_state 1 armed
	ctl enable 1
	for s in 0 1 2 3; do ctl reset $s; done
	ctl storeall 5 1
	[ "$(sg 1 hits)" = 5 ] && [ "$(sg 3 hits)" = 5 ]
	result_r "it re-arms still disabled; enabled, it hits again" $?
}
c_unreg_hammer() {
	need_cpu1 "unregister while cpu1 keeps storing: hits stop at once, the stores go on," \
		"nothing left" || { ctl unregn 1 3; ctl unreg 0; return 0; }
	ctl unregn 1 3
	ctl reset 0; ctl hammer 1
	sleep 0.3
	ctl unreg 0
	h1=$(sg 0 hits); n1=$(sed -n 's/^hammer=\([0-9]*\).*/\1/p' $C)
	sleep 0.2
	h2=$(sg 0 hits); n2=$(sed -n 's/^hammer=\([0-9]*\).*/\1/p' $C)
	ctl stop
	[ "$h1" -gt 0 ] && [ "$h1" = "$h2" ] && [ "$n2" -gt "$n1" ] && [ "$(nw)" = 0 ]
	result_r "unregister while cpu1 keeps storing: hits stop at once ($h1), the stores go on," \
		"nothing left" $?
}

# --- tracefs "w:" events -----------------------------------------------------
WE=$T/wprobe_events
DE=$T/dynamic_events
EV=$T/events/wprobes
trace_lines() { grep -c "$1" $T/trace; }
# wait_gone PATTERN: a deleted event's wprobe goes by a worker (up to 5 s)
wait_gone() {
	i=0
	while wlist | grep -q "$1" && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	! wlist | grep -q "$1"
}
EVDIAG=
c_ev_write() {
	EVDIAG=1
	echo > $T/trace
	echo 'w:wp1 w@kpt_wp_var:4 $value di=%di:u32 c=$comm' > $WE &&
		echo 1 > $EV/wp1/enable
	ok=$?
	ctl store 5 7
	echo 0 > $EV/wp1/enable
	n=$(trace_lines "wp1: (kpt_wp_store+0x")
	# the storing task is this shell: its comm is the suite's name when
	# kselftest's runner runs it, "sh" when a shell is given it
	me=$(cat /proc/$$/comm)
	[ $ok = 0 ] && [ "$n" = 5 ] && [ "$(trace_lines "value=7 di=7 c=\"$me\"")" = 5 ] &&
		wlist | grep -q "  w  kpt_wp_var+0x0  kpt_wprobes len=4 w $" &&
		grep -q '^w:wprobes/wp1 w@kpt_wp_var:4 $value di=%di:u32 c=$comm$' $WE
	result_r "w: event: 5 stores 5 records at kpt_wp_store+.., \$value the new value, a" \
		"register, $comm" $?
}
c_ev_profile() {
	ctl store 3 1
	p1=$(awk '$1 == "wp1" {print $2}' $T/wprobe_profile)
	echo 1 > $EV/wp1/enable; ctl store 4 1; echo 0 > $EV/wp1/enable
	p2=$(awk '$1 == "wp1" {print $2 " " $3 " " $4}' $T/wprobe_profile)
	[ "$p1" = 5 ] && [ "$p2" = "9 0 0" ]
	result_r "wprobe_profile: hits only while enabled (5, then 9), 0 missed, 0 yielded" $?
}
c_ev_filter() {
	echo > $T/trace
	echo 'value == 3' > $EV/wp1/filter && echo 1 > $EV/wp1/enable
	ok=$?
	ctl store 4 2; ctl store 6 3
	echo 0 > $EV/wp1/enable; echo 0 > $EV/wp1/filter
	[ $ok = 0 ] && [ "$(trace_lines 'wp1:')" = 6 ] && [ "$(trace_lines 'value=2')" = 0 ]
	result_r "filter 'value == 3': 6 of 10 stores recorded" $?
}
c_ev_trigger() {
	echo > $T/trace
	echo 'stacktrace' > $EV/wp1/trigger && echo 1 > $EV/wp1/enable
	ok=$?
	ctl store 1 4
	echo 0 > $EV/wp1/enable; echo '!stacktrace' > $EV/wp1/trigger
	[ $ok = 0 ] && grep -q "<stack trace>" $T/trace && grep -q "=> kpt_wp_store" $T/trace
	result_r "trigger stacktrace: the stack of the store (kpt_wp_store) is recorded" $?
}
c_ev_dynevent() {
	echo > $T/trace
	echo 'w:mygrp/wx x@kpt_wp_xfn' >> $DE && echo 'w w@kpt_wp_more+8' >> $DE &&
		echo 1 > $T/events/mygrp/wx/enable && echo 1 > $EV/w_kpt_wp_more_8/enable
	ok=$?
	ctl xfn 3; ctl storeall 2 5
	echo 0 > $T/events/mygrp/wx/enable; echo 0 > $EV/w_kpt_wp_more_8/enable
	[ $ok = 0 ] && [ "$(trace_lines 'wx: (kpt_wp_xfn+0x0')" = 3 ] &&
		[ "$(trace_lines 'w_kpt_wp_more_8: ')" = 2 ] &&
		grep -q '^w:mygrp/wx x@kpt_wp_xfn$' $DE &&
		wlist | grep -q "kpt_wp_more+0x8  kpt_wprobes len=8 w $"
	result_r "dynamic_events: an x event (ip at the instruction) and a default-named w event" \
		"(len 8)" $?
}
c_ev_busy_delete() {
	echo 1 > $EV/wp1/enable
	echo '-:wprobes/wp1' >> $WE 2> /dev/null; busy=$?
	echo 0 > $EV/wp1/enable
	echo '-:wprobes/wp1' >> $WE && echo '-:mygrp/wx' >> $DE &&
		echo '-:wprobes/w_kpt_wp_more_8' >> $DE
	ok=$?
	[ $busy != 0 ] && [ $ok = 0 ] && [ ! -d $EV/wp1 ] && wait_gone kpt_wp && [ -z "$(cat $WE)" ]
	result_r "an enabled event cannot go; disabled, -: deletes it and frees its register" $?
}
# ev_err WHAT DEFINITION MESSAGE: a refused definition, logged, nothing added
ev_err() {
	before=$(wlist)
	echo > $T/error_log
	echo "$2" >> $WE 2> /dev/null && { result_r "$1: refused" 1; return; }
	grep -q "$3" $T/error_log && [ -z "$(cat $WE)" ] && [ "$(wlist)" = "$before" ]
	result_r "$1: refused, error_log says '$3', nothing added" $?
}
c_ev_errors() {
	ev_err "type q" 'w:e1 q@kpt_wp_var' "Watch type must be"
	ev_err "no type" 'w:e1 kpt_wp_var' "Watch type must be"
	ev_err "read-only (x86)" 'w:e1 r@kpt_wp_var:4' "Watch type must be"
	ev_err "length 3" 'w:e1 w@kpt_wp_var:3' "Watch length must be"
	ev_err "a length for x" 'w:e1 x@kpt_wp_xfn:8' "Watch length must be"
	ev_err "misaligned" 'w:e1 w@kpt_wp_var+2:4' "This address cannot be watched"
	ev_err "a user address" 'w:e1 w@0x10000:4' "This address cannot be watched"
	ev_err "unknown symbol" 'w:e1 w@kpt_wp_nosuch:4' "Invalid probed address or symbol"
	ev_err "\$value on x" 'w:e1 x@kpt_wp_xfn $value' 'Invalid \$-variable'
	ev_err "bad fetch-arg" 'w:e1 w@kpt_wp_var:4 +0(%nosuchreg)' "Invalid register name"
	ctl set 0 kpt_wp_var 4 w
	ctl set 1 kpt_wp_more 8 w; ctl set 2 kpt_wp_more+8 8 w; ctl set 3 kpt_wp_more+16 8 w
	ctl regn 0 4
	ev_err "a fifth register" 'w:e1 w@kpt_wp_var:4' "No debug register is free"
	ctl unregn 0 4
}
c_gone() {
	insmod $M/kpt_target_mod.ko
	ctl set 4 kpt_target_mod:result 4 w; ctl reg 4
	echo 5 > /sys/module/kpt_target_mod/parameters/call
	h=$(sg 4 hits) v=$(sg 4 val)
	rmmod kpt_target_mod
	wlist | grep -q "  w  [0-9a-f]* len=4 w \[GONE\]$"; g=$?
	ctl unreg 4
	[ "$(sg 4 ret)" = 0 ] && [ "$h" = 1 ] && [ "$v" = 16 ] && [ $g = 0 ] && [ "$(nw)" = 0 ]
	result_r "a watched module variable: its write hits; the module unloaded, the wprobe is" \
		"[GONE]; unregister clears it" $?
}
c_empty() {
	[ "$(nw)" = 0 ] && rmmod kpt_wprobes
	result_r "nothing left registered; the driver unloads" $?
}

CASES="c_write c_list c_adjacent c_rw c_exec c_cpus c_disable c_missed c_hotplug
c_errnos c_full c_yield_ptrace c_yield_perf c_yield_disabled c_unreg_hammer
c_ev_write c_ev_profile c_ev_filter c_ev_trigger c_ev_dynevent c_ev_busy_delete
c_ev_errors c_gone c_empty"
# c_errnos reports 13 results, each yield case 2, c_ev_errors 11
n=$(($(echo $CASES | wc -w) + 12 + 1 + 1 + 1 + 10))
plan $n
if insmod $M/kpt_wprobes.ko 2> /dev/null; then
	for c in $CASES; do $c; done
else
	skip_all $n "wprobes" "stock 6.12 has no register_wprobe()"
fi

done_testing
