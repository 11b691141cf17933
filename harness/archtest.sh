#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make arm64-test: our core on another arch's backend, run.  Builds IMPL's
# kernel for arm64 (tinyconfig + config/arm64.config) in
# build/tree-$IMPL/_build_arm64, the arch-neutral test modules
# (kprobes_api: the cases on x86_64 asm targets report a skip), and an
# initramfs whose /init (harness/arm64/init.c, on the kernel's nolibc)
# loads them; boots it under qemu-system-aarch64 -M virt (TCG) and judges
# the console with harness/console.py: KUnit's kprobes_test must report,
# every case pass, and the kernel print no report.  Last line:
# "N passed, N failed, N skipped".
. "$(dirname "$0")/common.sh"

cross=aarch64-linux-gnu-
"$H/deps.sh" gcc-aarch64-linux-gnu:${cross}gcc \
	qemu-system-arm:qemu-system-aarch64 || exit 1
command -v "${cross}gcc" >/dev/null ||
	die "${cross}gcc missing (apt-get install gcc-aarch64-linux-gnu)"
command -v qemu-system-aarch64 >/dev/null ||
	die "qemu-system-aarch64 missing (apt-get install qemu-system-arm)"

o=$KSRC/_build_arm64
mods=$BUILD/arm64-mods-$IMPL
root=$BUILD/arm64-root-$IMPL
logs=$BUILD/logs
mkdir -p "$o" "$logs"
mk=(make -s -C "$KSRC" O="$o" ARCH=arm64 CROSS_COMPILE="$cross")
command -v ccache >/dev/null && mk+=(CC="ccache ${cross}gcc")
frag=$REPO/config/arm64.config

# config, when the fragment changed
stamp=$o/.config.frags
if [ ! -f "$o/.config" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$(md5sum < "$frag")" ]; then
	say "configuring arm64 ($IMPL): tinyconfig + arm64.config"
	"${mk[@]}" tinyconfig >/dev/null
	"$KSRC/scripts/kconfig/merge_config.sh" -m -O "$o" "$o/.config" "$frag" >/dev/null
	"${mk[@]}" olddefconfig
	while read -r line; do
		case "$line" in CONFIG_*=*) ;; *) continue ;; esac
		grep -qxF "$line" "$o/.config" ||
			die "config: arm64.config wants '$line'; it did not stick"
	done < "$frag"
	md5sum < "$frag" > "$stamp"
fi

t0=$(date +%s)
say "building arm64 Image ($IMPL) in ${o#"$REPO"/}"
"${mk[@]}" -j"$(nproc)" Image modules > "$logs/arm64-build-$IMPL.log" 2>&1 ||
	{ tail -30 "$logs/arm64-build-$IMPL.log"; die "arm64 build failed"; }
"${mk[@]}" headers > /dev/null

# the arch-neutral module suites
rm -rf "$mods" && mkdir -p "$mods"
src=$REPO/tools/testing/selftests/kprobes/modules
cp "$src"/kprobes_api_main.c "$src"/kprobes_api_targets.h "$src"/kpt_ktap.h "$mods/"
cat > "$mods/Kbuild" <<'KB'
obj-m += kprobes_api.o
kprobes_api-y := kprobes_api_main.o
KB
"${mk[@]}" M="$mods" modules > "$logs/arm64-mods-$IMPL.log" 2>&1 ||
	{ tail -30 "$logs/arm64-mods-$IMPL.log"; die "arm64 test modules failed"; }

# initramfs: /init, /suites, the modules
rm -rf "$root" && mkdir -p "$root/lib/modules/kprobes"
"${cross}gcc" -Os -Wall -static -nostdlib -fno-asynchronous-unwind-tables \
	-fno-stack-protector -I "$KSRC/tools/include/nolibc" -I "$o/usr/include" \
	-include nolibc.h -o "$root/init" "$H/arm64/init.c" -lgcc ||
	die "arm64 /init failed to build"
cp "$mods/kprobes_api.ko" "$root/lib/modules/kprobes/"
echo kprobes_api > "$root/suites"
(cd "$root" && find . | cpio -o -H newc --quiet) > "$o/initramfs.cpio"
say "arm64 kernel and initramfs built in $(( $(date +%s) - t0 ))s"

# No --strict-skips: the x86_64-only cases skip here on both kernels,
# each saying so.
t0=$(date +%s)
rm -f "$logs/results-arm64-$IMPL.json"
python3 "$H/console.py" --mode test --log "$logs/arm64-test-$IMPL.log" \
	--results "$logs/results-arm64-$IMPL.json" --timeout "${TIMEOUT:-1200}" \
	--expect-kunit kprobes_test -- \
	qemu-system-aarch64 -M virt -cpu cortex-a57 -smp "${SMP:-2}" -m 512M \
	-nographic -no-reboot -kernel "$o/arch/arm64/boot/Image" \
	-initrd "$o/initramfs.cpio" \
	-append "console=ttyAMA0 panic=-1 oops=panic loglevel=7 ${KERNEL_ARGS:-}"
rc=$?
say "make arm64-test ($IMPL) took $(( $(date +%s) - t0 ))s"
# the totals line CI adds up (.ci/run): a run without results is a failure
r=$logs/results-arm64-$IMPL.json
if [ -f "$r" ]; then
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print("%d passed, %d failed, %d skipped" % (d["passed"], d["failed"], d["skipped"]))' "$r"
else
	echo "0 passed, 1 failed (no results: see $logs/arm64-test-$IMPL.log)"
	rc=1
fi
exit $rc
