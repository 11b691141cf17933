#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Real tracing clients on this kernel: Debian's perf and bpftrace, copied
# into the guest by `make test-clients` (harness/clients.sh), driven over
# a known workload (kpt_workload: N getppid(), N failing close(), N calls
# of a user function, one open of a known path).  Every count is exact, so
# both implementations must show the same ones.  Run from /mnt/host.
# the kprobes selftests as the guest has them installed
KPT_DIR=${KPT_DIR:-/kselftest/kprobes}
. $KPT_DIR/lib.sh
plan 25

N=200
export PATH=$PATH:/usr/bin:/usr/sbin
W=/mnt/host/kpt_workload
P=/tmp/kpt-clients-marker
OUT=/tmp/clients.out
# seconds since boot, to the hundredth
now() { cut -d' ' -f1 /proc/uptime; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }
# value of bpftrace map @NAME in $OUT ("@NAME: 123")
map() { sed -n "s/^@$1: \([0-9-]*\)$/\1/p" $OUT | tail -1; }

bt() {	# bpftrace PROGRAM: runs it over the workload, output in $OUT
	bpftrace -e "$1" -c "$W $N $P" > $OUT 2>&1
}

# --- perf probe + perf stat -a ---------------------------------------------
F=__x64_sys_getppid
perf probe -q -a $F > /tmp/perf-probe.out 2>&1 &&
	perf probe -q -a "$F%return" >> /tmp/perf-probe.out 2>&1
st=$?
[ $st -ne 0 ] && sed 's/^/# /' /tmp/perf-probe.out
result "perf probe: entry and %return probes on $F" $st
perf stat -a -x, -e "probe:$F" -e "probe:${F}__return" -- $W $N $P > $OUT 2>&1
sed 's/^/# perf stat: /' $OUT
ent=$(awk -F, -v e="probe:$F" '$3 == e { print $1 }' $OUT)
ret=$(awk -F, -v e="probe:${F}__return" '$3 == e { print $1 }' $OUT)
[ "$ent" = $N ]; result "perf stat -a: $N entries counted (got ${ent:-none})" $?
[ "$ret" = $N ]; result "perf stat -a: $N returns counted (got ${ret:-none})" $?
perf probe -q -d "probe:*" > /dev/null 2>&1
[ -z "$(cat $T/kprobe_events)" ]; result "perf probe -d: kprobe_events empty again" $?

# --- bpftrace kprobe / kretprobe ------------------------------------------
bt "kprobe:$F /comm == \"kpt_workload\"/ { @entries = count(); }
    kretprobe:$F /comm == \"kpt_workload\"/ { @returns = count(); }"
st=$?
[ $st -ne 0 ] && sed 's/^/# /' $OUT
e=$(map entries) r=$(map returns)
diag "bpftrace: $F entries ${e:-none}, returns ${r:-none}"
[ "$e" = $N ] && [ "$r" = $N ]
result "bpftrace kprobe + kretprobe: $N entries == $N returns" $?

# close(-1) returns -EBADF (-9) N times; the one good close returns 0
bt "kretprobe:__x64_sys_close /comm == \"kpt_workload\" && retval == -9/ { @ebadf = count(); }
    kretprobe:__x64_sys_close /comm == \"kpt_workload\"/ { @all = count(); }"
st=$?
[ $st -ne 0 ] && sed 's/^/# /' $OUT
e=$(map ebadf) a=$(map all)
diag "bpftrace: close returns -9 ${e:-none} times, of ${a:-none}"
[ "$e" = $N ] && [ "$a" = $((N + 1)) ]
result "bpftrace retval filter: exactly the $N failing closes" $?

bt "kprobe:do_sys_openat2 /comm == \"kpt_workload\"/ { printf(\"open %s\\n\", str(uptr(arg1))); }"
st=$?
[ $st -ne 0 ] && sed 's/^/# /' $OUT
grep "^open " $OUT | sed 's/^/# bpftrace: /'
grep -qx "open $P" $OUT
result "bpftrace str(uptr(arg1)): the path the workload opened" $?

# --- the four BPF kprobe kinds at once on one function ---------------------
# kprobe, kretprobe, and the wildcard forms bpftrace attaches through
# kprobe_multi and kretprobe_multi (fprobe: rethook's trampoline beside
# the kretprobe's), in both orders, on close(): N failing and one good
# call (__x64_sys_clos* also matches close_range, which the workload does
# not call; getppid is not in available_filter_functions, which bpftrace
# needs for a wildcard).  Each counts every call; on the return side
# func and kstack (bpf_get_stackid()) are what a kretprobe alone gives
# (bpftrace 0.17's func is the return address's function, later ones'
# bpf_get_func_ip()), and no trampoline is in the stack.
FC=__x64_sys_close
W1=${FC%?}*	# __x64_sys_clos*
mixed_prog() {	# mixed_prog ORDER: the program, single kinds first or last
	_c="/comm == \"kpt_workload\"/"
	_s="kprobe:$FC $_c { @k = count(); }
	    kretprobe:$FC $_c { @kr = count();
		@krfunc[func] = count(); @krstack[kstack(3)] = count(); }"
	_m="kprobe:$W1 $_c { @km = count(); }
	    kretprobe:$W1 $_c { @krm = count();
		@krmfunc[func] = count(); @krmstack[kstack(3)] = count(); }"
	if [ "$1" = single ]; then echo "$_s $_m"; else echo "$_m $_s"; fi
}
# stack MAP: the frames of bpftrace's @MAP[kstack] keys, one line each
stack() { sed -n "/^@$1\[/,/^]/p" $OUT | sed -n 's/^ *\([a-zA-Z_][a-zA-Z0-9_.]*\)+.*/\1/p'; }
bt "kretprobe:$FC /comm == \"kpt_workload\"/ { @krfunc[func] = count();
	@krstack[kstack(3)] = count(); }"
f0=$(sed -n 's/^@krfunc\[\(.*\)\]: .*/\1/p' $OUT)
s0=$(stack krstack | tr '\n' ' ')
diag "kretprobe alone: func ${f0:-none}, kstack ${s0:-none}"
for order in single multi; do
	bt "$(mixed_prog $order)"
	st=$?
	k=$(map k) kr=$(map kr) km=$(map km) krm=$(map krm)
	diag "bpftrace, $order first: kprobe ${k:-none}, kretprobe ${kr:-none}," \
		"kprobe.multi ${km:-none}, kretprobe.multi ${krm:-none}"
	n1=$((N + 1))
	[ $st -eq 0 ] && [ "$k" = $n1 ] && [ "$kr" = $n1 ] && [ "$km" = $n1 ] &&
		[ "$krm" = $n1 ] || grep -v '^$' $OUT | sed 's/^/# bpftrace: /' | head -40
	[ $st -eq 0 ] && [ "$k" = $n1 ] && [ "$kr" = $n1 ] && [ "$km" = $n1 ] &&
		[ "$krm" = $n1 ]
	result "bpftrace kprobe, kretprobe, kprobe.multi, kretprobe.multi on $FC" \
		"($order first): each counts all $n1 calls" $?
	s1=$(stack krstack | tr '\n' ' ') s2=$(stack krmstack | tr '\n' ' ')
	f1=$(sed -n 's/^@krfunc\[\(.*\)\]: .*/\1/p' $OUT)
	f2=$(sed -n 's/^@krmfunc\[\(.*\)\]: .*/\1/p' $OUT)
	diag "kretprobe: func ${f1:-none}, kstack: ${s1:-none}"
	diag "kretprobe.multi: func ${f2:-none}, kstack: ${s2:-none}"
	# the stacks start at the syscall dispatcher (do_syscall_64, or
	# x64_sys_call where sibling calls are off)
	[ -n "$f0" ] && [ "$f1" = "$f0" ] && [ "$f2" = "$f0" ] &&
		[ "$s1" = "$s0" ] && [ "$s2" = "$s0" ] &&
		echo "$s0" | grep -Eq '^(do_syscall_64|x64_sys_call) ' &&
		! echo "$s0 $f0 $s1 $s2" | grep -Eq 'trampoline|return_to_handler'
	result "bpftrace ($order first): both return sides' func and kstack as for a" \
		"kretprobe alone (${f0:-none}; ${s0:-none})" $?
done

# --- a wildcard: as bpftrace attaches it, and one kprobe per function -------
# The functions kprobe:vfs_* matches (bpftrace reads the same list).
funcs=$(grep -o '^vfs_[a-z0-9_]*' $T/available_filter_functions | sort -u)
n=0 prog=
for f in $funcs; do
	grep -q "	$f\$" $D/blacklist && continue
	prog="$prog${prog:+,}kprobe:$f"
	n=$((n + 1))
done
attach() {	# attach PROGRAM: run it (it exits at once); sets st, t, na
	t0=$(now)
	bpftrace -e "$1 { @hits = count(); } BEGIN { exit(); }" > $OUT 2>&1
	st=$? t=$(since "$t0")
	na=$(sed -n 's/^Attaching \([0-9]*\) probes.*/\1/p' $OUT)
	[ $st -ne 0 ] && sed 's/^/# /' $OUT | head -20
}
attach kprobe:vfs_read
t1=$t
diag "bpftrace kprobe:vfs_read alone: run took $t1 s (compile, start-up, one kprobe)"
result "bpftrace: one kprobe attaches and exits" $st
# a wildcard goes through kprobe_multi (fprobe) where the kernel has it:
# then bpftrace counts it as one probe
attach 'kprobe:vfs_*'
diag "bpftrace kprobe:vfs_* ($n functions): ${na:-no} probes attached (BEGIN included), run took" \
	"$t s, $(awk -v a="$t" -v b="$t1" 'BEGIN { printf "%.2f", a - b }') s more than one kprobe"
[ $st -eq 0 ] && [ "${na:-0}" -gt 1 ]
result "bpftrace wildcard kprobe:vfs_* attaches and exits" $?
# the same functions named one by one: one perf kprobe each, i.e. kprobes
attach "$prog"
diag "bpftrace $n vfs_* functions named: ${na:-no} probes attached (BEGIN included), run took $t" \
	"s, $(awk -v a="$t" -v b="$t1" 'BEGIN { printf "%.2f", a - b }') s more than one kprobe"
[ $st -eq 0 ] && [ "${na:-0}" -eq $((n + 1)) ]
result "bpftrace: $n vfs_* kprobes attached one by one" $?

# --- uprobe -----------------------------------------------------------------
bt "uprobe:$W:kpt_uprobe_target { @calls = count(); }"
st=$?
[ $st -ne 0 ] && sed 's/^/# /' $OUT
u=$(map calls)
diag "bpftrace uprobe: kpt_uprobe_target ${u:-no} calls"
[ "$u" = $N ]; result "bpftrace uprobe: exactly $N calls of a static binary's function" $?

# --- a per-process probe (register_uprobe()) beside perf and bpftrace ------
# kpt_utarget serves calls on a FIFO; kpt_uprobes.ko puts a seed probe on
# its ut_lea; perf and bpftrace probe the same instruction of the same file.
UC=/sys/kernel/debug/kpt_uprobes/ctl
UB=/kselftest/kprobes/kpt_utarget
if insmod $M/kpt_uprobes.ko 2> /dev/null; then
	rm -f /tmp/cu.in /tmp/cu.out && mkfifo /tmp/cu.in /tmp/cu.out
	$UB serve < /tmp/cu.in > /tmp/cu.out &
	exec 3> /tmp/cu.in 4< /tmp/cu.out
	read -r R <&4; PA=${R#ready }
	lea=$($UB addrs | sed -n 's/^lea //p')
	seedhits() { grep "^0 " $UC | tr ' ' '\n' | sed -n 's/^hits=//p'; }
	# calls N: the target makes N calls of ut_lea (a command perf and
	# bpftrace can run: the FIFO's descriptors are inherited)
	echo "call lea 0" >&3; read -r R <&4
	cat > /tmp/calls <<-'EOS'
	echo "call lea $1" >&3; read -r R <&4; echo "$R"
	EOS
	echo "set 0 $PA $lea count" > $UC; echo "reg 0" > $UC

	perf probe -q -x $UB -a ut_lea > /tmp/perf-probe.out 2>&1
	perf stat -a -x, -e probe_kpt_utarget:ut_lea -- sh /tmp/calls 200 > $OUT 2>&1
	c=$(awk -F, '$3 == "probe_kpt_utarget:ut_lea" { print $1 }' $OUT)
	h1=$(seedhits)
	perf probe -q -d "probe_kpt_utarget:*" > /dev/null 2>&1
	sh /tmp/calls 50 > /dev/null
	h2=$(seedhits)
	diag "perf stat counted ${c:-none}; seed probe hits $h1, then $h2 after perf probe -d"
	[ "$c" = 200 ] && [ "$h1" = 200 ] && [ "$h2" = 250 ]
	result "perf probe -x and a register_uprobe() probe on one instruction: both count all" \
		"200 hits, the seed probe outlives perf's" $?

	bpftrace -e "uprobe:$UB:ut_lea { @calls = count(); }" -c "sh /tmp/calls 100" > $OUT 2>&1
	u=$(map calls)
	h3=$(seedhits)
	diag "bpftrace counted ${u:-none}; seed probe hits $h3"
	[ "$u" = 100 ] && [ "$h3" = 350 ]
	result "bpftrace uprobe and a register_uprobe() probe on one instruction: both count all" \
		"100 hits" $?

	# a P: event on a JIT copy of ut_lea: perf counts it like any event
	echo "jit rx" >&3; read -r R <&4; jb=${R#addr }
	jbeg=$($UB addrs | sed -n 's/^jit_begin //p')
	jl=$($UB addrs | sed -n 's/^jlea //p')
	ja=$(printf '0x%x' $((jb + jl - jbeg)))
	echo "P:kptc/jlea $PA:$ja" >> $T/dynamic_events
	cat > /tmp/jcalls <<-'EOS'
	echo "call jlea $1" >&3; read -r R <&4; echo "$R"
	EOS
	perf stat -a -x, -e kptc:jlea -- sh /tmp/jcalls 200 > $OUT 2>&1
	c=$(awk -F, '$3 == "kptc:jlea" { print $1 }' $OUT)
	echo "-:kptc/jlea" >> $T/dynamic_events
	diag "perf stat counted ${c:-none} on a P: event in JIT code"
	[ "$c" = 200 ]
	result "perf stat -e on a P: event in anonymous (JIT) memory: all 200 hits" $?

	echo "unreg 0" > $UC
	perf probe -q -x $UB -a ut_lea > /dev/null 2>&1
	perf stat -a -x, -e probe_kpt_utarget:ut_lea -- sh /tmp/calls 30 > $OUT 2>&1
	c=$(awk -F, '$3 == "probe_kpt_utarget:ut_lea" { print $1 }' $OUT)
	perf probe -q -d "probe_kpt_utarget:*" > /dev/null 2>&1
	echo exit >&3; exec 3>&- 4<&-; wait
	diag "perf stat counted ${c:-none} after the seed probe left; seed hits $(seedhits)"
	[ "$c" = 30 ] && [ "$(seedhits)" = 350 ] &&
		[ -z "$(cat /sys/kernel/debug/uprobes/list)" ] &&
		rmmod kpt_uprobes
	result "the seed probe unregistered: perf's probe on the same instruction still counts" \
		"all 30" $?
else
	for w in "perf probe -x beside a seed probe" "bpftrace uprobe beside a seed probe" \
		"perf after the seed probe left" "perf stat -e on a P: event"; do
		skip "$w" "stock 6.12 has no register_uprobe()"
	done
fi

# --- watchpoint probes: a w: event under perf, and perf's mem: yielding ------
# kpt_wprobes.ko's "store N V" makes N 32-bit stores to kpt_wp_var from the
# writing task (wprobes/kpt_wprobes_targets.S).
WC=/sys/kernel/debug/kpt_wprobes/ctl
if insmod $M/kpt_wprobes.ko 2> /dev/null; then
	echo 'w:wpc w@kpt_wp_var:4 $value' >> $T/wprobe_events
	perf stat -a -x, -e wprobes:wpc -- sh -c "echo 'store 200 9' > $WC" > $OUT 2>&1
	c=$(awk -F, '$3 == "wprobes:wpc" { print $1 }' $OUT)
	perf record -q -a -e wprobes:wpc -o /tmp/perf.data -- \
		sh -c "echo 'store 50 7' > $WC" > /dev/null 2>&1
	perf script -i /tmp/perf.data > $OUT 2>&1
	# the ip perf shows raw: the instruction after the store
	sa=$(sed -n '1s/.* store_after=0x\([0-9a-f]*\).*/\1/p' $WC)
	r=$(grep -c "wprobes:wpc: ($sa) value=7$" $OUT)
	diag "perf stat counted ${c:-none}; perf script shows ${r:-none} samples of 50"
	[ "$c" = 200 ]; result "perf stat -a -e wprobes:wpc: all 200 stores counted" $?
	[ "$r" = 50 ] || head -5 $OUT | sed 's/^/# perf script: /'
	[ "$r" = 50 ]; result "perf record -e wprobes:wpc: 50 samples, each at the instruction" \
		"after the store, value=7" $?

	# three wprobes and the w: event hold all four debug registers
	echo "set 1 kpt_wp_more 8 w" > $WC; echo "set 2 kpt_wp_more+8 8 w" > $WC
	echo "set 3 kpt_wp_more+16 8 w" > $WC; echo "regn 1 3" > $WC
	# perf watches the newest wprobe's word (TCG reports one register
	# per access, so not a word another register watches)
	var=$(sed -n '1s/.* var=\(0x[0-9a-f]*\).*/\1/p' $WC)
	var=$(printf '0x%x' $((var + 24)))
	perf stat -x, -e "mem:$var/8:w" -- sh -c "echo 'storeall 30 1' > $WC" > $OUT 2>&1
	c=$(awk -F, '$3 ~ /^mem:/ { print $1 }' $OUT)
	y=$(grep "^3 " $WC | tr ' ' '\n' | sed -n 's/^yielded=//p')
	ye=$(awk '$1 == "wpc" { print $4 }' $T/wprobe_profile)
	sed 's/^/# perf stat: /' $OUT
	diag "perf stat mem: counted ${c:-none}; the newest wprobe yielded ${y:-none} time(s)," \
		"the w: event ${ye:-none}"
	echo "unregn 1 3" > $WC
	echo '-:wprobes/wpc' >> $T/wprobe_events
	[ "$c" = 30 ] && [ "$y" = 1 ] && [ "$ye" = 0 ] && rmmod kpt_wprobes
	result "perf stat -e mem: with every debug register held by wprobes: the newest yields," \
		"perf counts all 30" $?
else
	for w in "perf stat on a w: event" "perf record on a w: event" \
		 "perf mem: beside wprobes"; do
		skip "$w" "stock 6.12 has no wprobes"
	done
fi

# --- nothing left behind ----------------------------------------------------
left=$(cat $D/list)
[ -n "$left" ] && echo "$left" | sed 's/^/# left: /'
[ -z "$left" ]; result "kprobes/list empty afterwards" $?
[ -z "$(cat $T/kprobe_events)" ] && [ -z "$(cat $T/uprobe_events)" ]
result "kprobe_events and uprobe_events empty afterwards" $?
[ -z "$(cat $T/dynamic_events)" ]; result "dynamic_events empty afterwards" $?
