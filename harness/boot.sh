#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot.sh MODE: boot this IMPL's kernel under QEMU (TCG) with the initramfs
# plus a per-boot archive that carries the mode, and
#   test:  the suites to run ($SUITES) and extra suites from $EXTRA
#   exec:  $CMD and the contents of $DIR (at /mnt/host)
# shell is interactive (QEMU's serial on this terminal; Ctrl-A X quits);
# the other modes go through console.py, which logs, times out by phase,
# and judges the run.
. "$(dirname "$0")/common.sh"

mode=$1
if [ "$mode" = exec ] && [ -z "${CMD:-}" ]; then
	die "make exec: CMD='<command>' is required (DIR=<host dir> optional)"
fi
: "${SMP:=2}" "${MEM:=1G}" "${QEMU_OPTS:=}" "${TIMEOUT:=1200}" "${SUITES:=all}"
: "${BOOT_TIMEOUT:=300}"
kernel=$KOBJ/arch/x86/boot/bzImage
[ -f "$kernel" ] && [ -f "$KOBJ/initramfs.cpio" ] || die "build first: make IMPL=$IMPL"
mkdir -p "$LOGS"

# Per-boot archive, appended to the base one (the kernel unpacks both).
boot=$(mktemp -d)
trap 'rm -rf "$boot"' EXIT
mkdir -p "$boot/harness" "$boot/mnt/host"
echo "$mode" > "$boot/harness/mode"
echo "$SUITES" > "$boot/harness/suites"
echo "$IMPL" > "$boot/harness/impl"
case "$mode" in
exec)
	printf '%s\n' "$CMD" > "$boot/harness/exec.cmd"
	if [ -n "${DIR:-}" ]; then
		[ -d "$DIR" ] || die "DIR=$DIR is not a folder"
		cp -a "$DIR"/. "$boot/mnt/host/"
	fi
	;;
test)
	if [ -n "${EXTRA:-}" ]; then
		[ -d "$EXTRA" ] || die "EXTRA=$EXTRA is not a folder"
		cp -a "$EXTRA"/. "$boot/mnt/host/"
	fi
	;;
esac
initrd=$boot/initrd.cpio
(cd "$boot" && find harness mnt | cpio -o -H newc --quiet -R 0:0) > "$boot/extra.cpio"
# EXTRA_CPIO: a prepared archive laid over both (make test-clients' clients)
cat "$KOBJ/initramfs.cpio" "$boot/extra.cpio" ${EXTRA_CPIO:+"$EXTRA_CPIO"} > "$initrd"

append="console=ttyS0 panic=-1 oops=panic printk.devkmsg=on"
append+=" ${KERNEL_ARGS:-}"
# Single-threaded TCG: multi-threaded TCG invalidates other vCPUs'
# translated code asynchronously, so a vCPU can go on executing an int3
# (or the bytes under it) after text_poke() + text_poke_sync() changed
# them.  Real CPUs honour the serializing IPI; MTTCG does not (seen here:
# both upstream's kprobes and ours then jump through stale code).
# TCG_THREAD=multi gets the faster, unfaithful mode back.
qemu=(qemu-system-x86_64 -accel "tcg,thread=${TCG_THREAD:-single}"
      -cpu max -m "$MEM" -smp "$SMP"
      -kernel "$kernel" -initrd "$initrd" -append "$append"
      -no-reboot -display none -vga none -nodefaults)
# shellcheck disable=SC2206
extra_opts=($QEMU_OPTS)

if [ "$mode" = shell ]; then
	"${qemu[@]}" -serial mon:stdio "${extra_opts[@]}"
	exit $?
fi

log=$LOGS/${RUN_NAME:-$mode}-$IMPL.log
args=(--mode "$mode" --log "$log" --timeout "$TIMEOUT" --boot-timeout "$BOOT_TIMEOUT")
[ "$mode" = test ] && args+=(--results "$LOGS/results-${RUN_NAME:-test}-$IMPL.json")
# the built-in KUnit suites must report, unless KUnit is off or filtered
boot_kunit=1
case " ${KERNEL_ARGS:-} " in
*" kunit.enable=0 "* | *" kunit.filter_glob="*) boot_kunit= ;;
esac
if [ "$mode" = test ] && [ -n "$boot_kunit" ] &&
   grep -q '^CONFIG_KPROBES_SANITY_TEST=y' "$KOBJ/.config"; then
	args+=(--expect-kunit kprobes_test)
fi
if [ "$mode" = test ] && [ -n "$boot_kunit" ] &&
   grep -q '^CONFIG_HW_BREAKPOINT_KUNIT_TEST=y' "$KOBJ/.config"; then
	args+=(--expect-kunit hw_breakpoint)
fi
# On our kernel every case must run: a skip is accepted only where the case
# cannot run in this boot and says so ("this boot: ...").  Stock 6.12 skips
# what it lacks (jprobes, fault_handler) or where it is known to differ.
[ "$mode" = test ] && [ "$IMPL" != upstream ] && args+=(--strict-skips)
[ "$mode" = exec ] || say "booting $IMPL: -smp $SMP ${QEMU_OPTS:+$QEMU_OPTS }(console: ${log#"$REPO"/})"
python3 "$H/console.py" "${args[@]}" -- "${qemu[@]}" -serial stdio "${extra_opts[@]}"
