#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Builds $KOBJ/initramfs.cpio: static BusyBox, the guest scripts
# (harness/guest), the kprobes samples built with the kernel, the kselftest
# target tools/testing/selftests/kprobes, and the KUnit suites of
# kernel/kprobes_kunit as modules (/tests), both built against this IMPL's
# kernel.  Per-boot settings (mode, exec
# command, host folder) go in a second archive appended by boot.sh.
. "$(dirname "$0")/common.sh"

T=$REPO/tools/testing/selftests/kprobes

# stock_module SRC NAME: SRC built as module NAME against stock 6.12's
# headers and symbol versions, on this build's config, in
# $KOBJ/ext/modver_stock: what a distribution's users built before the
# series.  Stock's tree is prepared in tree-upstream/_build_modver (no
# kernel build): kernel/kprobes.o alone gives the versions of the
# kprobes exports (genksyms' #SYMVER lines), and every other symbol's
# is this build's, which the series leaves as they were.  On IMPL=upstream
# it is this kernel's own build.
stock_module() {
	local src=$1 name=$2 d=$KOBJ/ext/modver_stock
	local s=$BUILD/tree-upstream o=$BUILD/tree-upstream/_build_modver cc=gcc
	command -v ccache >/dev/null && cc="ccache gcc"
	rm -rf "$d" && mkdir -p "$d"
	cp "$src" "$d/$name.c" && echo "obj-m += $name.o" > "$d/Kbuild"
	if [ "$IMPL" = upstream ]; then
		make -s -C "$KOBJ" M="$d" CC="$cc" -j"$JOBS" modules >&2 ||
			die "building $name against upstream failed"
		return
	fi
	[ -f "$s/Makefile" ] || env IMPL=upstream KSRC="$s" KOBJ="$s/_build" "$H/tree.sh" >&2
	mkdir -p "$o"
	# configured from this build's .config (olddefconfig rewrites the copy)
	if ! cmp -s "$KOBJ/.config" "$o/.config.from"; then
		cp "$KOBJ/.config" "$o/.config" && cp "$KOBJ/.config" "$o/.config.from"
		make -s -C "$s" O="$o" CC="$cc" HOSTCC="$cc" -j"$JOBS" olddefconfig >&2 ||
			die "configuring stock 6.12 for $name failed"
	fi
	make -s -C "$s" O="$o" CC="$cc" HOSTCC="$cc" -j"$JOBS" modules_prepare >&2 &&
		make -s -C "$s" O="$o" CC="$cc" HOSTCC="$cc" -j"$JOBS" kernel/kprobes.o >&2 ||
		die "preparing stock 6.12 for $name failed"
	awk -F'\t' -v OFS='\t' '
		FNR == NR { if (split($0, w, " ") == 3 && w[1] == "#SYMVER") crc[w[2]] = w[3]; next }
		$2 in crc { $1 = crc[$2]; n++ }
		{ print }
		END { if (!n) exit 1 }' "$o/kernel/.kprobes.o.cmd" "$KOBJ/Module.symvers" \
		> "$o/Module.symvers" || die "no symbol versions in stock's kernel/kprobes.o"
	make -s -C "$o" M="$d" CC="$cc" -j"$JOBS" modules >&2 ||
		die "building $name against stock 6.12 failed"
}
root=$KOBJ/initramfs
rm -rf "$root" && mkdir -p "$root"/{bin,sbin,etc,proc,sys,dev,tmp,root,mnt/host,harness,tests,lib/modules/kprobes}

cp /bin/busybox "$root/bin/busybox"
# /bin/sh is a shell binary of its own, as on a distribution, not a link
# to busybox: what runs it then maps /bin/sh (ftracetest's uprobe case
# probes the shell it finds in /proc/PID/maps)
cp /bin/busybox "$root/bin/sh"
cp "$H"/guest/* "$root/harness/"
mv "$root/harness/init" "$root/init"
echo "root:x:0:0:root:/root:/bin/sh" > "$root/etc/passwd"

# samples built with the kernel (CONFIG_SAMPLE_KPROBES=m)
find "$KOBJ/samples/kprobes" "$KOBJ/samples/uprobes" -name '*.ko' -exec cp {} "$root/lib/modules/kprobes/" \; 2>/dev/null || true
# every in-tree module where modprobe finds it (/lib/modules/$(uname -r),
# with modules.dep): ftracetest loads the trace-printk and
# trace-events-sample samples by name
kmake INSTALL_MOD_PATH="$root" INSTALL_MOD_STRIP=1 modules_install > /dev/null

# The kprobes selftests, built and installed by kselftest's own Makefiles
# (TARGETS=kprobes, KDIR=this build) into /kselftest, as a distribution
# installs them: run_kselftest.sh, kselftest-list.txt, kselftest/ (the
# runner and ktap_helpers.sh), kprobes/ (suites, programs, modules/).
# They build in a scratch copy (kselftest's module build writes into its
# source): the base's selftests framework, and our target.  Beside them,
# ftrace/: the base tree's ftracetest, unmodified, which the peer suites
# run.
if [ -d "$T" ]; then
	w=$KOBJ/ksft-src
	cc=gcc
	command -v ccache > /dev/null && cc="ccache gcc"
	rm -rf "$w" && mkdir -p "$w/tools/testing/selftests" "$w/scripts"
	cp "$SRC/scripts/subarch.include" "$w/scripts/"
	for f in Makefile lib.mk kselftest kselftest.h kselftest_harness.h \
		 run_kselftest.sh; do
		cp -a "$SRC/tools/testing/selftests/$f" "$w/tools/testing/selftests/"
	done
	cp -a "$T" "$w/tools/testing/selftests/kprobes"
	make -s -C "$w/tools/testing/selftests" TARGETS=kprobes KDIR="$KOBJ" \
		CC="$cc" -j"$JOBS" KSFT_INSTALL_PATH="$root/kselftest" install \
		> "$KOBJ/ksft-install.log" 2>&1 ||
		{ tail -30 "$KOBJ/ksft-install.log" >&2; die "kselftest install of kprobes failed"; }
	cp -a "$SRC/tools/testing/selftests/ftrace" "$root/kselftest/ftrace"
	# the modversions suite's kpt_modver_stock, built against stock 6.12
	# on a MODVERSIONS config (stock_module)
	if grep -q '^CONFIG_MODVERSIONS=y' "$KOBJ/.config"; then
		stock_module "$T/modules/kpt_modver.c" kpt_modver_stock
		cp "$KOBJ/ext/modver_stock/kpt_modver_stock.ko" "$root/kselftest/kprobes/modules/"
	fi
fi

# The KUnit suites of kernel/kprobes_kunit, as modules built out of tree
# against this IMPL's kernel (stock 6.12's tree has no Kconfig for them):
# the guest's runner loads each, KUnit runs its suites as it loads.
syms=$(kunit_syms "$KOBJ/.config")
if [ -n "$syms" ]; then
	# shellcheck disable=SC2086
	k=$(extmod "$REPO/kernel/kprobes_kunit" kprobes_kunit $syms)
	cp "$k"/*.ko "$root/tests/"
fi

(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0) > "$KOBJ/initramfs.cpio"
say "initramfs: $(ls "$root/tests" | wc -l) module suite(s), $(grep -c . "$root/kselftest/kselftest-list.txt" 2>/dev/null) kselftest(s), $(du -h "$KOBJ/initramfs.cpio" | cut -f1)"
