#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Per-process uprobes (register_uprobe(), seed 000) on a live process:
# kpt_utarget (uprobes/kpt_utarget.c) answers commands on a FIFO, and
# kpt_uprobes.ko registers probes on it through debugfs.  One case per
# rule of the seed and per errno.  On a kernel without register_uprobe()
# (stock 6.12) only the uprobe_events baseline runs; the rest skip.
. "$(dirname "$0")/lib.sh"

C=/sys/kernel/debug/kpt_uprobes/ctl
L=/sys/kernel/debug/uprobes/list
BIN=$KPT_DIR/kpt_utarget
ULIST=/tmp/uprobes.list

# kpt_utarget is x86-64 code, built there only (Makefile)
if [ ! -x "$BIN" ]; then
	ktap_print_header
	ktap_skip_all "kpt_utarget is x86-64 code, not built for this arch"
	exit "$KSFT_SKIP"
fi

# A_lea, A_push, ... : the probe targets' addresses
eval "$($BIN addrs | sed 's/^\([a-z0-9_]*\) \(.*\)/A_\1=\2/')"
off() { printf '0x%x' $(($1 - 0x400000)); }

# Two targets, A on fds 3/4 and B on fds 5/6; "ta CMD" sends a command to
# A and leaves its reply in $R.
start_a() {
	rm -f /tmp/ta.in /tmp/ta.out && mkfifo /tmp/ta.in /tmp/ta.out
	$BIN serve < /tmp/ta.in > /tmp/ta.out &
	exec 3> /tmp/ta.in 4< /tmp/ta.out
	read -r R <&4; PA=${R#ready }
}
start_b() {
	rm -f /tmp/tb.in /tmp/tb.out && mkfifo /tmp/tb.in /tmp/tb.out
	$BIN serve < /tmp/tb.in > /tmp/tb.out &
	JB=$!
	exec 5> /tmp/tb.in 6< /tmp/tb.out
	read -r R <&6; PB=${R#ready }
}
ta() { echo "$*" >&3; read -r R <&4; }
tb() { echo "$*" >&5; read -r R <&6; }
# field NAME: the word after NAME in $R
field() { echo "$R" | tr ' ' '\n' | sed -n "/^$1\$/{n;p;}"; }

ctl() { echo "$*" > $C; }
# sg SLOT KEY: a counter of the driver's slot
sg() { grep "^$1 " $C | tr ' ' '\n' | sed -n "s/^$2=//p"; }
# byte PID ADDR: the byte at ADDR in that process, as /proc/PID/mem shows it
byte() { dd if=/proc/$1/mem bs=1 skip=$(($2)) count=1 2> /dev/null | od -An -tx1 | tr -d ' \n'; }
nlist() { cat $L | wc -l; }
# snapshot / unchanged: the listing is the same as at the snapshot
snapshot() { cat $L > $ULIST; }
unchanged() { cat $L | cmp -s - $ULIST; }

HAVE=0
if insmod $M/kpt_uprobes.ko 2> /dev/null; then HAVE=1; fi
start_a
start_b
NO_API="stock 6.12 has no register_uprobe()"

# --- cases -----------------------------------------------------------------
# On failure, result_r also shows the target's last reply and the slots.
# result_r NAME... STATUS: result, with the driver's state on a failure
result_r() {
	eval "_st=\${$#}"
	[ "$_st" -eq 0 ] || { diag "last reply: $R"; grep -v "hits=0 " $C | sed 's/^/# /'; }
	result "$@"
}

c_register() {
	ctl set 0 "$PA" "$A_lea" count; ctl reg 0
	[ "$(sg 0 ret)" = 0 ] && [ "$(byte "$PA" "$A_lea")" = cc ]
	result_r "register_uprobe() returns 0 with the int3 already in the process's memory" $?
}
c_list() {
	grep -q "^$PA  $A_lea  inode  $BIN+$(off "$A_lea")  \[ACTIVE\]  handler \[kpt_uprobes\]" $L
	result_r "uprobes/list shows pid, vaddr, the engine, file+offset, [ACTIVE] and the" \
		"handler" $?
}
c_hits() {
	ta call lea 100
	[ "$R" = "sum 5050 bad 0" ] && [ "$(sg 0 hits)" = 100 ] &&
		[ "$(sg 0 ip)" = "$A_lea" ] && [ "$(sg 0 di)" = 99 ]
	result_r "100 calls: 100 hits in the probed thread, ip == vaddr, di == the argument," \
		"results intact" $?
}
c_other_process() {
	tb call lea 50
	[ "$R" = "sum 1275 bad 0" ] && [ "$(sg 0 hits)" = 100 ] &&
		[ "$(byte "$PB" "$A_lea")" = 48 ]
	result_r "a second process running the same binary: no hits, its text untouched" $?
}
c_threads() {
	ctl reset 0
	ta threads lea 4 250
	[ "$R" = "sum 125500 bad 0" ] && [ "$(sg 0 hits)" = 1000 ]
	result_r "4 threads started after registration x 250 calls: 1000 hits" $?
}
c_fork() {
	ctl reset 0
	ta fork lea 100
	r1=$R
	ta call lea 10
	[ "${r1% child*}" = "sum 5050 bad 0" ] && [ "$(sg 0 hits)" = 10 ]
	result_r "a fork child's 100 calls reach no handler; the parent's 10 all do" $?
}
c_order() {
	ctl set 1 "$PA" "$A_lea" count; ctl set 2 "$PA" "$A_lea" count
	ctl reg 2; ctl reg 1; ctl seq
	ta call lea 2
	seq=$(sed -n 's/^seq: //p' $C)
	ctl unreg 1; ctl unreg 2
	[ "$seq" = "0 2 1 0 2 1" ]
	result_r "three probes at one address run in registration order" $?
}
# kinds ADDR F...: a probe on each target F (at "ADDR F"), 100 calls of
# each: exact hits, ip at the probe, results intact, the int3 gone after
# unregistration; the outcome in $ok
kinds() {
	addr=$1; shift
	ok=0 i=1
	for f in "$@"; do
		ctl set $i "$PA" "$($addr $f)" count; ctl reg $i
		[ "$(sg $i ret)" = 0 ] || { ok=1; diag "$f: $(sg $i ret)"; }
		i=$((i + 1))
	done
	for f in "$@"; do
		ta call $f 100
		[ "${R#* bad }" = 0 ] || { ok=1; diag "$f: $R"; }
	done
	i=1
	for f in "$@"; do
		a=$($addr $f)
		[ "$(sg $i hits)" = 100 ] && [ "$(sg $i ip)" = "$a" ] || { ok=1; diag "$f:" \
			"$(grep "^$i " $C)"; }
		ctl unreg $i
		[ "$(byte "$PA" "$a")" != cc ] || { ok=1; diag "$f: int3 left"; }
		i=$((i + 1))
	done
}
# taddr F: F's probed instruction in the binary
taddr() { eval echo "\$A_$1"; }
c_kinds() {
	kinds taddr push riprel call jcc
	result_r "push, call, jcc (emulated) and a RIP-relative load (stepped): exact hits," \
		"results intact, text restored" $ok
}
c_sleep() {
	ctl set 1 "$PA" "$A_riprel" sleep; ctl reg 1
	ta call riprel 20
	[ "$R" = "sum 330 bad 0" ] && [ "$(sg 1 hits)" = 20 ]
	result_r "a handler that sleeps (msleep) runs on every hit" $?
	ctl unreg 1
}
c_setdi() {
	ctl set 1 "$PA" "$A_push" setdi 3e8; ctl reg 1
	ta call push 10
	ctl unreg 1
	[ "$R" = "sum 10000 bad 10" ]
	result_r "a handler that sets di: the function sees the new argument" $?
}
c_setip() {
	ctl set 1 "$PA" "$A_skip" setip "$A_skip_ret" 2a; ctl reg 1
	ta call skip 5
	ctl unreg 1
	[ "$R" = "sum 210 bad 5" ]
	result_r "a handler that moves ip past the instruction: it is skipped" $?
}
c_kprobe() {
	ctl set 1 "$PA" "$A_push" kprobe; ctl reg 1
	ta call push 1
	[ "$(sg 1 kp)" = 0 ] && [ "$(sg 1 kphits)" = 1 ]
	r=$?
	ctl unreg 1
	result_r "a uprobe handler registers a kprobe, which then hits" $r
}
c_delayed_reg() {
	ctl set 2 "$PA" "$A_riprel" count
	ctl set 1 "$PA" "$A_push" regother 2; ctl reg 1
	ta call push 1
	ta call riprel 10
	[ "$(sg 1 hret)" = -115 ] && [ "$(sg 2 cbreg)" = 1 ] &&
		[ "$(sg 2 cbres)" = 0 ] && [ "$(sg 2 hits)" = 10 ]
	r=$?
	ctl unreg 1; ctl unreg 2
	[ "$(sg 2 cbunreg)" = 0 ] || r=1
	result_r "register_uprobe() from a handler: -EINPROGRESS, one callback (1, 0), then hits" $r
}
c_delayed_unreg() {
	ctl set 1 "$PA" "$A_call" selfunreg; ctl reg 1
	ta call "call" 5
	[ "$R" = "sum 20 bad 0" ] && [ "$(sg 1 hits)" = 1 ] &&
		[ "$(sg 1 cbunreg)" = 1 ] && [ "$(sg 1 cbres)" = 0 ] &&
		[ "$(byte "$PA" "$A_call")" = e8 ] && ! grep -q " $A_call " $L
	result_r "a handler unregisters its own probe: one callback (0, 0), no more hits, text" \
		"restored" $?
	ctl unreg 1
}
c_delayed_fail() {
	ctl set 2 99999 "$A_riprel" count
	ctl set 1 "$PA" "$A_push" regother 2; ctl reg 1
	ta call push 1
	[ "$(sg 1 hret)" = -115 ] && [ "$(sg 2 cbreg)" = 1 ] && [ "$(sg 2 cbres)" = -3 ]
	r=$?
	ctl unreg 1
	result_r "a delayed registration that fails reports -ESRCH through its callback" $r
}
c_signals() {
	ctl reset 0
	ta sig lea 2000
	sigs=$(field sigs)
	[ "${R% sigs*}" = "sum 2001000 bad 0" ] && [ "$(sg 0 hits)" = 2000 ] && [ "$sigs" -gt 0 ]
	result_r "signals arriving while threads step: 2000 hits, results intact ($sigs signals)" $?
}
# bad SLOT-SETUP WANT NAME: registration refused with WANT, nothing changed
bad() {
	want=$1 name=$2; shift 2
	snapshot
	ctl set 5 "$@"; ctl reg 5
	got=$(sg 5 ret)
	[ "$got" = "$want" ] && unchanged
	r=$?
	[ $r -eq 0 ] || diag "got $got"
	result_r "$name" $r
}
c_errnos() {
	bad -3 "no such pid: -ESRCH" 99999 "$A_lea" count
	ta zombie
	bad -3 "a process that has exited (zombie): -ESRCH" "$(field pid)" "$A_lea" count
	bad -22 "a kernel thread: -EINVAL" 2 "$A_lea" count
	bad -14 "an unmapped address: -EFAULT" "$PA" 0x10000 count
	bad -22 "a non-executable address: -EINVAL" "$PA" "$A_data" count
	jit shared
	bad -95 "shared executable memory (a memfd JIT cache, a writable alias): -EOPNOTSUPP" \
		"$PA" "$(jaddr jlea)" count
	bad -16 "an int3 in the program's own text: -EBUSY" "$PA" "$A_int3" count
	ta poke
	bad -16 "an int3 a debugger wrote: -EBUSY" "$PA" "$A_poke" count
	bad -22 "no handler: -EINVAL" "$PA" "$A_push" none
	snapshot
	ctl reg 0
	[ "$(sg 0 ret)" = -16 ] && unchanged
	result_r "registering a registered probe again: -EBUSY" $?
	ctl set 6 "$PA" "$A_push" count
	snapshot
	ctl unreg 6
	[ "$(sg 6 ret)" = 0 ] && unchanged && [ "$(byte "$PA" "$A_push")" = 55 ]
	result_r "unregistering a probe never registered changes nothing" $?
}
# --- JIT code: the memory engine ---------------------------------------------
# "ta jit M" maps a copy of the JIT functions; jaddr F: F's probed
# instruction in that copy
jaddr() { eval printf '0x%x' "\$((JBASE + A_$1 - A_jit_begin))"; }
jit() { ta jit "$1"; JBASE=$(field addr); }
# bytes PID ADDR N: N bytes there, as /proc/PID/mem shows them
bytes() { dd if=/proc/$1/mem bs=1 skip=$(($2)) count=$3 2> /dev/null | od -An -tx1 | tr -d ' \n'; }
c_jit_hits() {
	jit rx; a=$(jaddr jlea)
	ctl set 1 "$PA" "$a" count; ctl reg 1
	r=0
	[ "$(sg 1 ret)" = 0 ] && [ "$(byte "$PA" "$a")" = cc ] || r=1
	grep -q "^$PA  $a  mem  \[anon\]  \[ACTIVE\]" $L || { r=1; diag "$(cat $L)"; }
	ta threads jlea 4 250
	[ "$R" = "sum 125500 bad 0" ] && [ "$(sg 1 hits)" = 1000 ] &&
		[ "$(sg 1 ip)" = "$a" ] && [ "$(sg 1 di)" = 249 ] || r=1
	ctl unreg 1
	[ "$(bytes "$PA" "$a" 4)" = 488d4701 ] || r=1
	result_r "anonymous JIT code, 4 threads x 250 calls: 1000 hits, ip and di right," \
		"results intact, listed as mem [anon], bytes original after" $r
}
# nr_on / nr_count: a kprobe event on uprobe_notify_resume(), the inode
# engine's pass on the way back to user space, and its passes in target A
nr_on() {
	echo "p:kptu/nr uprobe_notify_resume" >> $T/kprobe_events &&
		echo 1 > $T/events/kptu/nr/enable && echo > $T/trace
}
nr_off() { echo 0 > $T/events/kptu/nr/enable; echo "-:kptu/nr" >> $T/kprobe_events; }
nr_count() { grep -c -- "-$PA .* nr: (" $T/trace; }
# sigwait F ADDR SUM: a handler that sleeps at ADDR (target F) while
# signals come, 50 calls: each signal that came during a handler waits
# until the instruction has run (one hit per call, none twice)
sigwait() {
	ctl set 1 "$PA" "$2" sleep; ctl reg 1
	ta sig "$1" 50
	sigs=$(field sigs)
	[ "${R% sigs*}" = "sum $3 bad 0" ] && [ "$(sg 1 hits)" = 50 ] && [ "$sigs" -gt 0 ]
	_r=$?
	ctl unreg 1
	return $_r
}
c_sigwait() {
	nr_on
	sigwait riprel "$A_riprel" 1575
	r=$?; n=$(nr_count)
	nr_off
	[ "$n" = 0 ] || { r=1; diag "uprobe_notify_resume() passes: $n"; }
	result_r "signals while a sleeping handler runs (file text, taken in the trap, out" \
		"of line): 50 calls, 50 hits, results intact ($sigs signals)" $r
}
c_jit_sigwait() {
	jit rx
	sigwait jlea "$(jaddr jlea)" 1275
	result_r "the same in JIT code: 50 calls, 50 hits, results intact ($sigs signals)" $?
}
c_jit_kinds() {
	jit rwx
	kinds jaddr jpush jpushr jpushsp jriprel jcall jjcc
	result_r "read-write-execute JIT memory: push %rbp, %r12, %rsp, call, jcc (emulated)," \
		"a RIP-relative load (out of line): exact hits, results intact, bytes restored" $ok
}
c_jit_vex() {
	jit rx
	kinds jaddr jvexj jvexp
	result_r "JIT memory: VEX instructions whose opcode byte is a jcc's (vpshufd) or a push's" \
		"(vxorps) run as themselves, out of line: exact hits, results intact" $ok
}
c_jit_fork() {
	jit rx; a=$(jaddr jlea)
	ctl set 1 "$PA" "$a" count; ctl reg 1
	ta fork jlea 100
	r1=$R
	ta call jlea 10
	[ "${r1% child*}" = "sum 5050 bad 0" ] && [ "$(sg 1 hits)" = 10 ]
	r=$?
	ctl unreg 1
	result_r "JIT code: a fork child's 100 calls run unprobed (no SIGTRAP); the parent's 10" \
		"all hit" $r
}
c_jit_rewrite() {
	jit rx; a=$(jaddr jlea)
	ctl set 1 "$PA" "$a" count; ctl reg 1
	ta call jlea 10
	ta jpatch jlea 488d4705
	ta call jlea 10
	[ "$R" = "sum 95 bad 10" ] && [ "$(sg 1 hits)" = 10 ]
	r=$?
	ctl unreg 1
	[ "$(bytes "$PA" "$a" 4)" = 488d4705 ] || r=1
	result_r "the program rewrites probed code: the new code runs, the probe no longer fires," \
		"unregistration leaves the new bytes" $r
}
c_jit_tail() {
	jit rx; a=$(jaddr jlea)
	ctl set 1 "$PA" "$a" count; ctl reg 1
	ta jtail jlea 488d4706
	ta call jlea 10
	[ "$R" = "sum 105 bad 10" ] && [ "$(sg 1 hits)" = 0 ] &&
		grep -q "^$PA  $a  mem  \[anon\](lost)" $L
	r=$?
	ctl unreg 1
	[ "$(bytes "$PA" "$a" 4)" = 488d4706 ] || r=1
	result_r "the program rewrites all of a probed instruction but its first byte: no stale" \
		"copy runs, the probe is lost, the bytes are the program's" $r
}
c_jit_unmap() {
	jit rx; a=$(jaddr jlea); old=$JBASE
	ctl set 1 "$PA" "$a" count; ctl reg 1
	ta junmap
	jit rx
	ta call jlea 10
	[ "$R" = "sum 55 bad 0" ] && [ "$(sg 1 hits)" = 0 ]
	r=$?
	grep -q "^$PA  $a  mem  \[anon\](lost)" $L || r=1
	ctl unreg 1
	[ "$JBASE" != "$old" ] || [ "$(byte "$PA" "$a")" = 48 ] || r=1
	result_r "probed JIT memory unmapped, new code mapped: it is not probed, and" \
		"unregistration does not touch it" $r
}
c_jit_mremap() {
	jit rx; a=$(jaddr jlea)
	ctl set 1 "$PA" "$a" count; ctl reg 1
	ta jremap; JBASE=$(field addr); b=$(jaddr jlea)
	ta call jlea 10
	[ "$R" = "sum 55 bad 0" ] && [ "$(sg 1 hits)" = 0 ] && [ "$b" != "$a" ] &&
		grep -q "^$PA  $a  mem  \[anon\](lost)" $L && [ "$(byte "$PA" "$b")" = 48 ]
	r=$?
	ctl unreg 1
	result_r "probed JIT memory moved by mremap(): the code runs unprobed at its new" \
		"address (no SIGTRAP), the probe is lost" $r
}
# jit_trap F CMD WANT: probe JIT function F, "ta CMD" makes its probed
# instruction trap out of line; the reply must be WANT, each @ in it the
# instruction's address, and the probe must have hit once
jit_trap() {
	jit rx; a=$(jaddr "$1")
	ctl set 1 "$PA" "$a" count; ctl reg 1
	ta "$2"
	[ "$R" = "$(echo "$3" | sed "s/@/$a/g")" ] && [ "$(sg 1 hits)" = 1 ]
	_r=$?
	ctl unreg 1
	return $_r
}
c_jit_fault() {
	jit_trap jload jfault "rip @"
	result_r "a probed instruction that faults out of line: the SIGSEGV handler sees ip" \
		"at the instruction, as unprobed" $?
}
c_jit_fpe() {
	jit_trap jdiv jfpe "rip @ addr @"
	result_r "a probed division by zero out of line: SIGFPE's ip and si_addr are the" \
		"instruction's, as unprobed" $?
}
c_wx() {
	ta wx; a=$(field addr)
	ctl set 1 "$PA" "$a" count; ctl reg 1
	[ "$(sg 1 ret)" = 0 ] && [ "$(byte "$PA" "$a")" = cc ] &&
		grep -q "^$PA  $a  mem  $BIN+$(off "$A_lea")  \[ACTIVE\]" $L &&
		[ "$(byte "$PB" "$A_lea")" = 48 ]
	r=$?
	ctl unreg 1
	[ "$(byte "$PA" "$a")" = 48 ] || r=1
	result_r "a writable private file mapping: the memory engine, listed with the file's" \
		"offset; the file's text in another process untouched" $r
}

# the probe through tracefs on the target's file (both kernels)
ev_on() {
	echo "p:kptu/lea $BIN:$(off "$A_lea")" >> $T/uprobe_events &&
		echo 1 > $T/events/kptu/lea/enable && echo > $T/trace
}
ev_off() { echo 0 > $T/events/kptu/lea/enable; echo "-:kptu/lea" >> $T/uprobe_events; }
ev_count() { grep -c "kptu_lea\|lea: (" $T/trace; }
c_tracefs_baseline() {
	ev_on; ta call lea 30
	n=$(ev_count)
	ev_off
	[ "$n" = 30 ]
	result_r "a uprobe_events probe on the target: 30 calls, 30 events" $?
}
# --- 6.12's consumer API (kpt_ucons.ko), on both kernels ------------------
# up NAME: kpt_ucons's counter NAME
up() { cat /sys/module/kpt_ucons/parameters/$1; }
# result_u NAME... STATUS: result, with the target's reply and the
# consumer's counters on a failure
result_u() {
	eval "_st=\${$#}"
	if [ "$_st" -ne 0 ]; then
		diag "last reply: $R"
		for _c in hits rets filtered bad_ip bad_ret last_arg last_ax; do
			diag "$_c $(up $_c 2>&1)"
		done
	fi
	result "$@"
}
UC="insmod $M/kpt_ucons.ko path=$BIN offset=$(off "$A_lea")"
c_consumer() {
	$UC || { result "6.12 consumer API: kpt_ucons loads" 1; return; }
	ta call lea 1000
	[ "$R" = "sum 500500 bad 0" ] && [ "$(up hits)" = 1000 ] && [ "$(up rets)" = 1000 ] &&
		[ "$(up bad_ip)" = 0 ] && [ "$(up bad_ret)" = 0 ] &&
		[ "$(up last_arg)" = 999 ] && [ "$(up last_ax)" = 1000 ] &&
		[ "$(byte "$PA" "$A_lea")" = cc ] && [ "$(byte "$PB" "$A_lea")" = cc ]
	result_u "6.12 consumer API: uprobe_register() on the file, 1000 calls: 1000 hits at" \
		"one ip, 1000 ret_handler calls with func == it, the argument and return value" $?
	tb call lea 10
	rmmod kpt_ucons
	[ "$R" = "sum 55 bad 0" ] && [ "$(byte "$PA" "$A_lea")" != cc ] &&
		[ "$(byte "$PB" "$A_lea")" != cc ]
	result_u "6.12 consumer API: uprobe_unregister_nosync() + _sync(): no breakpoint left" $?
}
c_consumer_filter() {
	$UC pid="$PA" || { result "6.12 consumer API: filter: kpt_ucons loads" 1; return; }
	_ba=$(byte "$PA" "$A_lea") _bb=$(byte "$PB" "$A_lea")
	tb call lea 100; _h=$(up hits)
	ta call lea 100
	[ "$_ba" = cc ] && [ "$_bb" != cc ] && [ "$_h" = 0 ] && [ "$(up hits)" = 100 ] &&
		[ "$(up filtered)" -gt 0 ]
	result_u "6.12 consumer API: a filter() for one process: its breakpoint only, its" \
		"100 hits, none from the other ($_ba/$_bb, $_h)" $?
	rmmod kpt_ucons
}
c_consumer_remove() {
	$UC remove=1 || { result "6.12 consumer API: remove: kpt_ucons loads" 1; return; }
	ta call lea 100
	[ "$R" = "sum 5050 bad 0" ] && [ "$(up hits)" = 1 ] && [ "$(byte "$PA" "$A_lea")" != cc ] &&
		[ "$(byte "$PB" "$A_lea")" = cc ]
	result_u "6.12 consumer API: UPROBE_HANDLER_REMOVE confirmed by filter(): one hit," \
		"then no breakpoint in that process, still one in the other" $?
	rmmod kpt_ucons
}
c_front() {
	ctl reset 0
	nr_on; ta call lea 50
	r=0; n=$(nr_count)
	[ "$n" = 0 ] && [ "$(sg 0 hits)" = 50 ] || { r=1; diag "alone: passes $n, hits" \
		"$(sg 0 hits)"; }
	ev_on; ta call lea 20
	n=$(nr_count); e=$(ev_count)
	ev_off
	[ "$n" -ge 20 ] && [ "$e" = 20 ] && [ "$(sg 0 hits)" = 70 ] || { r=1; diag "beside" \
		"an event: passes $n, events $e, hits $(sg 0 hits)"; }
	echo > $T/trace; ta call lea 10
	n=$(nr_count)
	[ "$n" = 0 ] && [ "$(sg 0 hits)" = 80 ] && [ "$R" = "sum 55 bad 0" ] || { r=1
		diag "alone again: passes $n, hits $(sg 0 hits)"; }
	nr_off
	result_r "a probe alone on file text takes its hits in the trap (no" \
		"uprobe_notify_resume()); beside a uprobe_events probe the inode engine" \
		"runs both" $r
}
c_coexist() {
	ctl reset 0
	ev_on; ta call lea 30
	r=0; n=$(ev_count)
	[ "$n" = 30 ] && [ "$(sg 0 hits)" = 30 ] || { r=1; diag "both: events $n, hits" \
		"$(sg 0 hits)"; }
	ev_off; ta call lea 10
	[ "$(sg 0 hits)" = 40 ] && [ "$(byte "$PA" "$A_lea")" = cc ] || { r=1; diag "events" \
		"removed: hits $(sg 0 hits)"; }
	ev_on; ctl unreg 0; ta call lea 10
	n=$(ev_count)
	[ "$n" = 10 ] && [ "$(sg 0 hits)" = 40 ] || { r=1; diag "ours removed: events $n, hits" \
		"$(sg 0 hits)"; }
	ev_off
	[ "$(byte "$PA" "$A_lea")" = 48 ] || { r=1; diag "int3 left"; }
	result_r "a uprobe_events probe at the same address: both see every hit, removing either" \
		"leaves the other" $r
}
# --- P: events: per-process probes defined through tracefs -------------------
DE=$T/dynamic_events
# uev EVENT: its lines in the trace
uev() { grep " $1: (" $T/trace; }
# uev_bad DEFINITION ERRNO-TEXT LOG-TEXT: the write fails with that errno,
# error_log says why, and nothing was defined or written
uev_bad() {
	echo > $T/error_log
	e=$( { echo "$1" >> $DE; } 2>&1 )
	case "$e" in *"$2"*) ;; *) diag "write: ${e:-succeeded}"; return 1 ;; esac
	grep -q "$3" $T/error_log || { diag "error_log: $(cat $T/error_log)"; return 1; }
	! grep -q "kptp" $DE && [ "$(byte "$PA" "$A_lea")" = 48 ]
}
c_uevent() {
	echo "P:kptp/lea $PA:$A_lea x=%di:u64 sp=%sp comm=\$comm" >> $DE &&
		echo 1 > $T/events/kptp/lea/enable && echo > $T/trace
	r=$?
	[ "$(byte "$PA" "$A_lea")" = cc ] || r=1
	grep -q "^P:kptp/lea $PA:$A_lea x=%di:u64 sp=%sp comm=\$comm\$" $DE || r=1
	ta call lea 5
	uev lea > /tmp/uev
	xs=$(sed -n 's/.* x=\([0-9]*\) .*/\1/p' /tmp/uev | tr '\n' ' ')
	[ "$(wc -l < /tmp/uev)" = 5 ] && [ "$xs" = "0 1 2 3 4 " ] &&
		[ "$(grep -c "lea: ($A_lea) .*comm=\"kpt_utarget\"" /tmp/uev)" = 5 ] || {
		r=1; sed 's/^/# /' /tmp/uev; }
	echo 0 > $T/events/kptp/lea/enable; echo "-:kptp/lea" >> $DE
	[ "$(byte "$PA" "$A_lea")" = 48 ] && ! grep -q kptp $DE || r=1
	result_r "a P: event: 5 calls, 5 events at the probed address with the argument" \
		"register and \$comm; deleted, the byte is back" $r
}
c_uevent_jit() {
	jit rx; a=$(jaddr jlea)
	echo "P:kptp/jlea $PA:$a x=%di:u64" >> $DE &&
		echo 1 > $T/events/kptp/jlea/enable && echo > $T/trace
	r=$?
	ta call jlea 3
	xs=$(uev jlea | sed -n 's/.* x=\([0-9]*\)$/\1/p' | tr '\n' ' ')
	[ "$R" = "sum 6 bad 0" ] && [ "$xs" = "0 1 2 " ] || { r=1; diag "events: $xs"; }
	echo 0 > $T/events/kptp/jlea/enable; echo "-:kptp/jlea" >> $DE
	[ "$(byte "$PA" "$a")" = 48 ] || r=1
	result_r "a P: event on anonymous JIT code: every call traced with its argument," \
		"the code's byte back after deletion" $r
}
c_uevent_ret() {
	echo "P:kptp/rlea $PA:$A_lea%return rv=\$retval:s64" >> $DE &&
		echo 1 > $T/events/kptp/rlea/enable && echo > $T/trace
	r=$?
	grep -q "^P:kptp/rlea $PA:$A_lea%return rv=\$retval:s64\$" $DE || r=1
	ta call lea 5
	uev rlea > /tmp/uev
	rvs=$(sed -n 's/.* rv=\(-\?[0-9]*\)$/\1/p' /tmp/uev | tr '\n' ' ')
	a=$(printf '0x%x' "$A_lea")
	[ "$R" = "sum 15 bad 0" ] && [ "$rvs" = "1 2 3 4 5 " ] &&
		[ "$(grep -c "rlea: (0x[0-9a-f]* <- $a) " /tmp/uev)" = 5 ] || {
		r=1; sed 's/^/# /' /tmp/uev; }
	grep -q "field:unsigned long __probe_ret_ip;" $T/events/kptp/rlea/format || r=1
	echo 0 > $T/events/kptp/rlea/enable; echo "-:kptp/rlea" >> $DE
	! grep -q kptp $DE && ! grep -q "return trace_uprocess" $L || r=1
	result_r "a P:...%return event: 5 calls, 5 events (RET_IP <- FUNC) with \$retval;" \
		"deleted, its probe is gone" $r
	jit rx; a=$(jaddr jlea)
	echo "P:kptp/rjlea $PA:$a%return rv=\$retval:s64" >> $DE &&
		echo 1 > $T/events/kptp/rjlea/enable && echo > $T/trace
	r=$?
	ta call jlea 3
	rvs=$(uev rjlea | sed -n 's/.* rv=\(-\?[0-9]*\)$/\1/p' | tr '\n' ' ')
	[ "$R" = "sum 6 bad 0" ] && [ "$rvs" = "1 2 3 " ] || { r=1; diag "events: $rvs"; }
	echo 0 > $T/events/kptp/rjlea/enable; echo "-:kptp/rjlea" >> $DE
	[ "$(byte "$PA" "$a")" = 48 ] || r=1
	result_r "a P:...%return event on anonymous JIT code: every return traced with" \
		"\$retval, the code's byte back after deletion" $r
}
c_uevent_errnos() {
	uev_bad "P:kptp/bad 99999:$A_lea" "No such process" "Failed to register probe"
	result_r "P: event for no such pid: ESRCH, error_log says so, nothing defined" $?
	uev_bad "P:kptp/bad $A_lea" "Invalid argument" "Process probe must be PID:VADDR"
	result_r "P: event without PID: EINVAL, error_log says so, nothing defined" $?
	uev_bad "P:kptp/bad $PA:$A_data" "Invalid argument" "Failed to register probe"
	result_r "P: event on a non-executable address: EINVAL, nothing defined" $?
	uev_bad "P:kptp/bad $PA:$A_lea x=@+0" "Invalid argument" "Invalid file offset"
	result_r "P: event with a file-offset argument (@+0): EINVAL, nothing defined" $?
	uev_bad "P:kptp/bad $PA:$A_lea%ret" "Invalid argument" "Invalid probed address suffix"
	result_r "P: event with a suffix other than %return: EINVAL, nothing defined" $?
	uev_bad "P:kptp/bad $PA:$A_lea rv=\$retval" "Invalid argument" \
		"\$retval is not available on probe"
	result_r "P: event (not %return) fetching \$retval: EINVAL, nothing defined" $?
}
# --- return probes: register_uretprobe() ------------------------------------
# rg SLOT KEY: a counter of the driver's uretprobe slot
rg() { grep "^r$1 " $C | tr ' ' '\n' | sed -n "s/^$2=//p"; }
rshow() { grep "^r$1 " $C | sed 's/^/# /'; }
c_ret_hits() {
	ctl rset 0 "$PA" "$A_lea" count; ctl rreg 0
	r=0
	[ "$(rg 0 ret)" = 0 ] &&
		grep -q "^$PA  $A_lea  .*  \[ACTIVE\]  return rhandler \[kpt_uprobes\]" $L || r=1
	ta call lea 100
	[ "$R" = "sum 5050 bad 0" ] && [ "$(rg 0 hits)" = 100 ] && [ "$(rg 0 ax)" = 100 ] &&
		[ "$(rg 0 ipbad)" = 0 ] && [ "$(rg 0 ra)" != 0x0 ] &&
		[ "$(rg 0 nmissed)" = 0 ] || r=1
	ta threads lea 4 250
	[ "$R" = "sum 125500 bad 0" ] && [ "$(rg 0 hits)" = 1100 ] || r=1
	ctl runreg 0
	ta call lea 10
	[ "$(rg 0 hits)" = 1100 ] && ! grep -q "return rhandler" $L || r=1
	[ $r = 0 ] || rshow 0
	result_r "uretprobe on file text: 100 calls then 4 threads x 250, one return hit each," \
		"ax the return value, ip the return address; none after unregistration" $r
}
c_ret_recursion() {
	ctl rset 1 "$PA" "$A_rec" count; ctl rreg 1
	ta rec x 20
	r=0
	[ "$R" = "bad 0" ] && [ "$(rg 1 hits)" = 420 ] && [ "$(rg 1 ax)" = 210 ] &&
		[ "$(rg 1 nmissed)" = 0 ] && [ "$(rg 1 ipbad)" = 0 ] || r=1
	ctl runreg 1
	[ $r = 0 ] || rshow 1
	result_r "recursion 20 deep, 20 times: 420 return hits, innermost first (the last one" \
		"returns the sum, 210)" $r
}
c_ret_maxactive() {
	ctl rset 1 "$PA" "$A_rec" count 5; ctl rreg 1
	ta rec x 10
	r=0
	[ "$R" = "bad 0" ] && [ "$(rg 1 hits)" = 50 ] && [ "$(rg 1 nmissed)" = 60 ] || r=1
	ctl runreg 1
	[ $r = 0 ] || rshow 1
	result_r "maxactive 5, calls nested 11 deep, 10 times: 50 probed returns, 60 in nmissed," \
		"results intact" $r
}
c_ret_longjmp() {
	ctl rset 1 "$PA" "$A_ljmp" count 4; ctl rreg 1
	ta ljmp x 100
	r=0
	[ "$R" = "ret 5 bad 0" ] && [ "$(rg 1 hits)" = 1 ] && [ "$(rg 1 ax)" = 5 ] &&
		[ "$(rg 1 nmissed)" = 0 ] || r=1
	ctl runreg 1
	[ $r = 0 ] || rshow 1
	result_r "100 calls left by longjmp() with 4 instances, then one that returns: the" \
		"abandoned instances are reclaimed, one hit, none missed" $r
}
c_ret_fork() {
	ctl rset 1 "$PA" "$A_rfork" count; ctl rreg 1
	ta rfork
	r=0
	[ "$R" = "ret 8 status 0" ] && [ "$(rg 1 hits)" = 1 ] && [ "$(rg 1 ax)" = 8 ] || r=1
	ctl runreg 1
	[ $r = 0 ] || rshow 1
	result_r "fork inside a probed call: the child returns to its real address (exit 0)," \
		"the parent's return is the one hit" $r
}
c_ret_jit() {
	jit rx; a=$(jaddr jlea)
	ctl rset 2 "$PA" "$a" count; ctl rreg 2
	ta threads jlea 4 250
	r=0
	[ "$(rg 2 ret)" = 0 ] && [ "$R" = "sum 125500 bad 0" ] && [ "$(rg 2 hits)" = 1000 ] &&
		[ "$(rg 2 ax)" = 250 ] && [ "$(rg 2 ipbad)" = 0 ] || r=1
	ctl runreg 2
	[ "$(bytes "$PA" "$a" 4)" = 488d4701 ] || r=1
	[ $r = 0 ] || rshow 2
	result_r "uretprobe on anonymous JIT code, 4 threads x 250 calls: 1000 return hits," \
		"results intact, bytes original after" $r
}
c_ret_selfunreg() {
	ctl rset 1 "$PA" "$A_lea" selfunreg; ctl rreg 1
	ta call lea 5
	r=0
	[ "$R" = "sum 15 bad 0" ] && [ "$(rg 1 hits)" = 1 ] && [ "$(rg 1 cbunreg)" = 1 ] &&
		[ "$(rg 1 cbres)" = 0 ] && ! grep -q "return rhandler" $L || r=1
	# the probe is the caller's again: it registers as handed in
	ctl rreg 1
	ta call lea 3
	[ "$(rg 1 ret)" = 0 ] && [ "$(rg 1 hits)" = 4 ] || r=1
	ctl runreg 1
	[ $r = 0 ] || rshow 1
	result_r "a return handler unregisters its probe: delayed, one callback (0, 0), no more" \
		"hits; registered again as it was, it hits again" $r
}
c_ret_inflight() {
	ctl rset 1 "$PA" "$A_block" count; ctl rreg 1
	ta bg x 400
	ctl runreg 1
	ta join
	r=0
	[ "$R" = "ret 401" ] && [ "$(rg 1 hits)" = 0 ] || r=1
	ta call lea 3
	[ "$R" = "sum 6 bad 0" ] || r=1
	[ $r = 0 ] || rshow 1
	result_r "unregistered while a call is in flight: the call returns to its real" \
		"address with its result, no handler runs" $r
}
# rbad WANT NAME SETUP...: register_uretprobe() refused with WANT, nothing changed
rbad() {
	want=$1 name=$2; shift 2
	snapshot
	ctl rset 3 "$@"; ctl rreg 3
	got=$(rg 3 ret)
	[ "$got" = "$want" ] && unchanged
	r=$?
	[ $r -eq 0 ] || diag "got $got"
	result_r "uretprobe: $name" $r
}
c_ret_errnos() {
	rbad -22 "no handler: -EINVAL" "$PA" "$A_lea" none
	rbad -22 "maxactive -1: -EINVAL" "$PA" "$A_lea" count -1
	rbad -22 "maxactive 4097: -EINVAL" "$PA" "$A_lea" count 4097
	rbad -3 "no such pid: -ESRCH" 99999 "$A_lea" count
	rbad -14 "an unmapped address: -EFAULT" "$PA" 0x10000 count
	ctl rset 3 "$PA" "$A_lea" count; ctl rreg 3
	snapshot
	ctl rreg 3
	[ "$(rg 3 ret)" = -16 ] && unchanged
	result_r "uretprobe: registering a registered one again: -EBUSY" $?
	ctl runreg 3
}
c_exec() {
	ctl set 1 "$PA" "$A_lea" count; ctl reg 1
	ctl set 2 "$PA" "$A_push" count; ctl reg 2
	ta exec
	[ "$R" = "ready $PA" ] || diag "exec: $R"
	ta call lea 10
	[ "$(sg 1 hits)" = 0 ] && [ "$(byte "$PA" "$A_lea")" = 48 ] && ! grep -q "^$PA " $L
	r=$?
	ctl unreg 1; ctl unreg 2
	result_r "exec drops every probe of the process; later unregister_uprobe() is a no-op" $r
}
c_exit() {
	ctl set 3 "$PB" "$A_lea" count; ctl reg 3
	[ "$(sg 3 ret)" = 0 ] && grep -q "^$PB " $L
	r=$?
	echo exit >&5; wait $JB
	exec 5>&- 6<&-
	! grep -q "^$PB " $L || r=1
	ctl unreg 3
	result_r "exit drops every probe of the process; later unregister_uprobe() is a no-op" $r
}
c_churn() {
	ctl set 3 "$PA" "$A_lea" count
	echo "churn 3 200" > $C &
	j=$!
	ta storm lea 8
	wait $j
	[ "${R#* bad }" = 0 ] && [ "$(sg 3 churnok)" = 200 ] && [ "$(sg 3 churnfail)" = 0 ] &&
		! grep -q "^$PA " $L && [ "$(byte "$PA" "$A_lea")" = 48 ]
	result_r "200 register/unregister rounds while the target runs threads and forks: results" \
		"intact, nothing left" $?
}
c_jit_churn() {
	jit rx; a=$(jaddr jlea)
	ctl set 3 "$PA" "$a" count
	# each registration held 2 ms, so that the target's threads meet it
	echo "churn 3 200 2" > $C &
	j=$!
	# storm rounds (threads and a fork each) for as long as the churn runs
	bad=0 n=0
	while kill -0 $j 2> /dev/null; do
		ta storm jlea 1
		[ "${R#* bad }" = 0 ] || bad=1
		n=$((n + 1))
	done
	wait $j
	diag "$n storm rounds, $(sg 3 hits) hits"
	[ $bad = 0 ] && [ "$(sg 3 churnok)" = 200 ] && [ "$(sg 3 churnfail)" = 0 ] &&
		[ "$(sg 3 hits)" -gt 0 ] && ! grep -q "^$PA " $L &&
		[ "$(bytes "$PA" "$a" 4)" = 488d4701 ]
	result_r "the same in JIT memory (the memory engine; forks strip what they inherit):" \
		"hits while it runs, results intact, nothing left" $?
}
c_exit_race() {
	ok=0 i=0
	while [ $i -lt 20 ]; do
		printf 'call lea 100\nexit\n' | $BIN serve > /dev/null &
		p=$!
		ctl set 4 $p "$A_lea" count; ctl reg 4
		case $(sg 4 ret) in 0|-3|-14|-95) ;; *) ok=1; diag "pid $p: $(sg 4 ret)" ;; esac
		wait $p
		ctl unreg 4
		i=$((i + 1))
	done
	[ "$(nlist)" = 0 ] || ok=1
	result_r "registrations racing the target's exec and exit: 0, or an errno (before exec" \
		"the pid is a shell), nothing left" $ok
}
c_sample() {
	dmesg -c > /dev/null
	modprobe uprobe_example pid="$PA" vaddr="$A_jcc" &&
		ta call jcc 3 && rmmod uprobe_example
	a=$(printf '%#x' "$A_jcc")
	dmesg | grep -q "Hit #3 on probepoint at $a" &&
		dmesg | grep -q "Probepoint was hit 3 times"
	result_r "uprobe_example: one Hit line per hit, the total at unload" $?
}
c_empty() {
	[ "$(nlist)" = 0 ] && rmmod kpt_uprobes
	result_r "nothing left registered; the driver unloads" $?
}

API_CASES="c_register c_list c_hits c_other_process c_threads c_fork c_order c_kinds c_sleep
c_setdi c_setip c_kprobe c_delayed_reg c_delayed_unreg c_delayed_fail c_signals
c_sigwait c_errnos c_jit_hits c_jit_sigwait c_jit_kinds c_jit_vex c_jit_fork
c_jit_rewrite c_jit_tail c_jit_unmap c_jit_mremap c_jit_fault c_jit_fpe c_wx c_front
c_coexist c_uevent c_uevent_jit c_uevent_ret c_uevent_errnos c_ret_hits c_ret_recursion
c_ret_maxactive c_ret_longjmp c_ret_fork c_ret_jit c_ret_selfunreg c_ret_inflight
c_ret_errnos
c_exec c_exit c_churn c_jit_churn c_exit_race c_sample c_empty"
# c_errnos reports 11 results, c_uevent_errnos 6, c_ret_errnos 6,
# c_uevent_ret 2, the others one each
n_api=$(($(echo $API_CASES | wc -w) + 21))
plan $((n_api + 5))
c_tracefs_baseline
c_consumer
c_consumer_filter
c_consumer_remove
if [ $HAVE = 1 ]; then
	for c in $API_CASES; do $c; done
else
	skip_all $n_api "per-process uprobes" "$NO_API"
fi
echo exit >&3
exec 3>&- 4<&- 5>&- 6<&- 2> /dev/null
wait

done_testing
