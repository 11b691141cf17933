#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# itrace.sh: where the instructions of one probe hit go, per function.
#
# Boots this IMPL's kernel under QEMU with one instruction per translated
# block and block chaining off (so QEMU's exec log names every guest
# instruction), loads tools/testing/selftests/kprobes/itrace/ with
# what=$ITRACE (int3|mov|boost|opt|ftrace|kretprobe|kprobe_kretprobe), or
# for a user hit (ITRACE=ujpush|ujlea|upush|ulea) runs itrace/uitrace.sh,
# which has the uprobes suite's target hit a register_uprobe() probe in a
# loop (jpush, jlea: in anonymous memory, the memory engine; push, lea: in
# the file, 6.12's inode engine), switches the exec
# log on from the QEMU monitor for a moment while the module calls the
# probed function in a loop, and hands the log to itrace.py, which cuts
# it into iterations of that loop and prints the most common one's
# instructions by symbol (build/itrace/<impl>-<case>.txt).  A developer's
# tool: it reads where the time goes, `make bench` says how much.
#   ITRACE_S   guest seconds the module loops (default 2; under -icount
#              and one instruction per block that is about a minute)
#   ITRACE_MS  host milliseconds the log stays on (default 300)
. "$(dirname "$0")/common.sh"

: "${ITRACE:=boost}"
out=$BUILD/itrace
mkdir -p "$out"
tag=$IMPL-$ITRACE
mon=$out/$tag.mon
xlog=$out/$tag.exec
rm -f "$mon" "$xlog"

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
case $ITRACE in
u*)
	# a user hit: about 700 instructions each, ITRACE_S guest seconds
	cp "$REPO/tools/testing/selftests/kprobes/itrace/uitrace.sh" "$dir/"
	run="sh /mnt/host/uitrace.sh ${ITRACE#u} $(( ${ITRACE_S:-2} * 1000000000 / 1000 ))"
	;;
*)
	ko=$(extmod "$REPO/tools/testing/selftests/kprobes/itrace" itrace)/kprobes_itrace.ko
	cp "$ko" "$dir/"
	run="insmod /mnt/host/kprobes_itrace.ko what=$ITRACE secs=${ITRACE_S:-2} || true"
	;;
esac

console=$LOGS/itrace-$IMPL.log
rm -f "$console"
# the boost case is the int3 path: keep an optimizer off it (upstream's
# puts a jump over kit_short's lea, ret and int3 padding)
opt=
case $ITRACE in boost|int3|mov) opt="echo 0 > /proc/sys/debug/kprobes-optimization; " ;; esac
# the ftrace hook, not ours' carrier (an entry probe registered alone)
c=/proc/sys/debug/kprobes-carriers
case $ITRACE in ftrace|kretprobe|kprobe_kretprobe) opt="[ -e $c ] && echo 0 > $c; " ;; esac
RUN_NAME=itrace CMD="${opt}$run" \
DIR=$dir KERNEL_ARGS="${KERNEL_ARGS:-} nokaslr" SMP=${SMP:-1} \
QEMU_OPTS="${QEMU_OPTS:-} -icount shift=0 -singlestep -d nochain -D $xlog -monitor unix:$mon,server,nowait" \
	"$H/boot.sh" exec &
pid=$!

# wait for the loop, then log for ITRACE_MS of host time
for _ in $(seq 600); do
	grep -q 'itrace: loop' "$console" 2>/dev/null && break
	kill -0 $pid 2>/dev/null || die "the guest ended before the loop (see $console)"
	sleep 1
done
python3 - "$mon" "${ITRACE_MS:-300}" <<'PY'
import socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
def cmd(c):
    s.sendall((c + "\n").encode())
    time.sleep(0.05)
cmd("log exec,nochain")
time.sleep(int(sys.argv[2]) / 1000)
cmd("log nochain")
time.sleep(0.2)
s.close()
PY
wait $pid || true
nm -n "$KOBJ/vmlinux" > "$out/$IMPL.syms"
python3 "$H/itrace.py" "$out/$IMPL.syms" "$console" "$xlog" > "$out/$tag.txt"
sed '/^the iteration, one instruction a line/,$d' "$out/$tag.txt"
say "with every instruction: ${out#"$REPO"/}/$tag.txt"
rm -f "$xlog"
