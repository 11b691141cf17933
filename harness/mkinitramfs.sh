#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Builds $KOBJ/initramfs.cpio: static BusyBox, the guest scripts
# (harness/guest), the kprobes samples built with the kernel, and the test
# suites (tools/testing/selftests/kprobes: *.sh scripts, and modules/ built
# out of tree against this IMPL's kernel).  Per-boot settings (mode, exec
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

# the peer suites: upstream's ftrace selftests, unmodified, from the base
mkdir -p "$root/peer"
cp -a "$SRC/tools/testing/selftests/ftrace" "$root/peer/ftrace"

# test suites
if [ -d "$T" ]; then
	for s in "$T"/*.sh; do [ -e "$s" ] && cp "$s" "$root/tests/"; done
	[ -f "$T/lib.sh" ] && mv "$root/tests/lib.sh" "$root/harness/ktap.sh"
	if [ -d "$T/modules" ]; then
		d=$(extmod "$T/modules" selftests)
		# kpt_*.ko are helpers the suites load; the others are suites
		for ko in "$d"/*.ko; do
			case "$(basename "$ko")" in
			kpt_*) cp "$ko" "$root/lib/modules/kprobes/" ;;
			*) cp "$ko" "$root/tests/" ;;
			esac
		done
	fi
	# the uprobes suite: its target program (static, non-PIE: the same
	# addresses in every run) and, on a kernel with the per-process API,
	# its driver module
	if [ -d "$T/uprobes" ]; then
		gcc -O2 -static -no-pie -pthread -Wall -o "$root/bin/kpt_utarget" \
			"$T/uprobes/kpt_utarget.c" "$T/uprobes/kpt_utarget_insns.S" ||
			die "building kpt_utarget (static) failed"
		if grep -q "[[:space:]]register_uprobe[[:space:]]" "$KOBJ/Module.symvers"; then
			d=$(extmod "$T/uprobes" uprobes)
			cp "$d"/*.ko "$root/lib/modules/kprobes/"
		fi
	fi
	# the wprobes suite: the helper that takes a debug register (ptrace,
	# perf) and, on a kernel with register_wprobe(), the driver module
	if [ -d "$T/wprobes" ]; then
		gcc -O2 -static -Wall -o "$root/bin/kpt_wpuser" "$T/wprobes/kpt_wpuser.c" ||
			die "building kpt_wpuser (static) failed"
		if grep -q "[[:space:]]register_wprobe[[:space:]]" "$KOBJ/Module.symvers"; then
			d=$(extmod "$T/wprobes" wprobes)
			cp "$d"/*.ko "$root/lib/modules/kprobes/"
		fi
	fi
	# the divert suite: a BPF fmod_ret program and a BPF kprobe program,
	# loaded without libbpf
	if [ -d "$T/divert" ]; then
		gcc -O2 -static -Wall -o "$root/bin/kpt_fmodret" "$T/divert/kpt_fmodret.c" ||
			die "building kpt_fmodret (static) failed"
		gcc -O2 -static -Wall -o "$root/bin/kpt_bpfkprobe" "$T/divert/kpt_bpfkprobe.c" ||
			die "building kpt_bpfkprobe (static) failed"
	fi
	# the mixed_tracers suite: an exact number of getsid() calls
	if [ -d "$T/mixed" ]; then
		gcc -O2 -static -Wall -o "$root/bin/kpt_getsid" "$T/mixed/kpt_getsid.c" ||
			die "building kpt_getsid (static) failed"
	fi
	# the modversions suite: kpt_modver built against this kernel and, on
	# a MODVERSIONS config, against stock 6.12 (stock_module)
	if [ -d "$T/modver" ]; then
		d=$(extmod "$T/modver" modver)
		cp "$d"/*.ko "$root/lib/modules/kprobes/"
		if grep -q '^CONFIG_MODVERSIONS=y' "$KOBJ/.config"; then
			stock_module "$T/modver/kpt_modver.c" kpt_modver_stock
			cp "$KOBJ/ext/modver_stock/kpt_modver_stock.ko" "$root/lib/modules/kprobes/"
		fi
	fi
fi

(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0) > "$KOBJ/initramfs.cpio"
say "initramfs: $(ls "$root/tests" | wc -l) suite(s), $(ls "$root/lib/modules/kprobes" | wc -l) module(s) in /lib/modules/kprobes, $(du -h "$KOBJ/initramfs.cpio" | cut -f1)"
