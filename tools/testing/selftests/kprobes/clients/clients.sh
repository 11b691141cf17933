#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Real tracing clients on this kernel: Debian's perf and bpftrace, copied
# into the guest by `make test-clients` (harness/clients.sh), driven over
# a known workload (kpt_workload: N getppid(), N failing close(), N calls
# of a user function, one open of a known path).  Every count is exact, so
# both implementations must show the same ones.  Run from /mnt/host.
. /harness/ktap.sh
plan 14

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
diag "bpftrace kprobe:vfs_* ($n functions): ${na:-no} probes attached (BEGIN included), run took $t s, $(awk -v a="$t" -v b="$t1" 'BEGIN { printf "%.2f", a - b }') s more than one kprobe"
[ $st -eq 0 ] && [ "${na:-0}" -gt 1 ]
result "bpftrace wildcard kprobe:vfs_* attaches and exits" $?
# the same functions named one by one: one perf kprobe each, i.e. kprobes
attach "$prog"
diag "bpftrace $n vfs_* functions named: ${na:-no} probes attached (BEGIN included), run took $t s, $(awk -v a="$t" -v b="$t1" 'BEGIN { printf "%.2f", a - b }') s more than one kprobe"
[ $st -eq 0 ] && [ "${na:-0}" -eq $((n + 1)) ]
result "bpftrace: $n vfs_* kprobes attached one by one" $?

# --- uprobe -----------------------------------------------------------------
bt "uprobe:$W:kpt_uprobe_target { @calls = count(); }"
st=$?
[ $st -ne 0 ] && sed 's/^/# /' $OUT
u=$(map calls)
diag "bpftrace uprobe: kpt_uprobe_target ${u:-no} calls"
[ "$u" = $N ]; result "bpftrace uprobe: exactly $N calls of a static binary's function" $?

# --- nothing left behind ----------------------------------------------------
left=$(cat $D/list)
[ -n "$left" ] && echo "$left" | sed 's/^/# left: /'
[ -z "$left" ]; result "kprobes/list empty afterwards" $?
[ -z "$(cat $T/kprobe_events)" ] && [ -z "$(cat $T/uprobe_events)" ]
result "kprobe_events and uprobe_events empty afterwards" $?
[ -z "$(cat $T/dynamic_events)" ]; result "dynamic_events empty afterwards" $?
