#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make arches: cross-build every architecture that has kprobes in Linux
# 6.12, for both implementations, with kprobes, kretprobes and kprobe
# events on (tinyconfig plus the fewest options that allow them: see
# arch_config below), and print a table arch x (ours, upstream).
#
# Each build is `make vmlinux` in build/arches/<arch>-<impl> (O=), its log
# in build/logs/arches/<arch>-<impl>.log.  A cell says:
#   ok          vmlinux linked, kernel/kprobes.o (and ours: the classic
#               layer or x86's backend) built in it
#   FAIL        the build failed; the first error follows in the log
#   kp-only     vmlinux failed, but only in objects outside kprobes (the
#               notes name them), and kernel/kprobes.o was built: the
#               arch's tree is broken for this config, not its kprobes
#   no-kprobes  Kconfig did not give CONFIG_KPROBES/KRETPROBES/
#               KPROBE_EVENTS (the arch refuses them in this config)
#   no-cc       no Debian cross compiler (csky, loongarch)
# ARCHES='arm64 riscv' limits the list; ARCH_JOBS sets make -j;
# ARCH_IMPLS=ours builds ours only (the upstream cell says not-run: the
# base does not change, so its last cells stand).
# The last line is "N passed, N failed": a pass is a cell of ours that is
# ok wherever upstream's is ok (or refused exactly as the docs say).
. "$(dirname "$0")/common.sh"

jobs=${ARCH_JOBS:-$(nproc)}
out=$BUILD/arches
logs=$BUILD/logs/arches
mkdir -p "$out" "$logs"

# arch  ARCH=  CROSS_COMPILE  (Debian package; "host": the host's gcc)
table="
arm64     arm64     aarch64-linux-gnu-       gcc-aarch64-linux-gnu
arm       arm       arm-linux-gnueabihf-     gcc-arm-linux-gnueabihf
powerpc   powerpc   powerpc64le-linux-gnu-   gcc-powerpc64le-linux-gnu
s390      s390      s390x-linux-gnu-         gcc-s390x-linux-gnu
riscv     riscv     riscv64-linux-gnu-       gcc-riscv64-linux-gnu
mips      mips      mips64el-linux-gnuabi64- gcc-mips64el-linux-gnuabi64
sh        sh        sh4-linux-gnu-           gcc-sh4-linux-gnu
sparc     sparc     sparc64-linux-gnu-       gcc-sparc64-linux-gnu
parisc    parisc    hppa-linux-gnu-          gcc-hppa-linux-gnu
arc       arc       arc-linux-gnu-           gcc-arc-linux-gnu
i386      i386      -                        host
x86_64    x86_64    -                        host
csky      csky      -                        -
loongarch loongarch -                        -
"

# the options beyond tinyconfig each arch needs for kprobes (and a build)
arch_config() {
	local c=(-e MODULES -e PRINTK -e SMP -e KPROBES -e FTRACE
		 -e KPROBE_EVENTS -e PERF_EVENTS -e KALLSYMS)
	case $1 in
	powerpc) c+=(-e PPC64 -e PPC_BOOK3S_64 -e CPU_LITTLE_ENDIAN
		     -e PPC_PSERIES) ;;
	sparc)	c+=(-e 64BIT) ;;
	mips)	c+=(-e CPU_LITTLE_ENDIAN) ;;
	sh)	c+=(-e CPU_SUBTYPE_SH7751R -e MMU) ;;
	riscv)	c+=(-e MMU) ;;
	arm)	c+=(-e ARCH_MULTI_V7 -e ARCH_VIRT -e MMU) ;;
	esac
	printf '%s\n' "${c[@]}"
}

build_one() {	# arch ARCH cross impl -> prints the cell
	local a=$1 karch=$2 cross=$3 impl=$4
	local o=$out/$a-$impl log=$logs/$a-$impl.log src=$BUILD/tree-$impl
	local mk=(make -s -C "$src" O="$o" ARCH="$karch")
	[ "$cross" != - ] && mk+=(CROSS_COMPILE="$cross")
	command -v ccache >/dev/null && [ "$cross" != - ] &&
		mk+=(CC="ccache ${cross}gcc")
	mkdir -p "$o"
	{
		"${mk[@]}" tinyconfig &&
		mapfile -t opts < <(arch_config "$a") &&
		"$src/scripts/config" --file "$o/.config" "${opts[@]}" &&
		"${mk[@]}" olddefconfig
	} > "$log" 2>&1 || { echo FAIL; return; }
	for sym in KPROBES KRETPROBES KPROBE_EVENTS; do
		grep -q "^CONFIG_$sym=y" "$o/.config" || { echo no-kprobes; return; }
	done
	rm -f "$o/.failed-objs"
	if ! "${mk[@]}" -j"$jobs" -k vmlinux >> "$log" 2>&1; then
		# -k built what it could: if nothing of kprobes is among the
		# objects that failed and kprobes' own objects were built, the
		# arch's vmlinux is broken elsewhere (the cell says where)
		sed -n 's/.*Makefile\.build:[0-9]*: \([^]]*\.o\)\] Error.*/\1/p' "$log" |
			sort -u > "$o/.failed-objs"
		if [ -s "$o/.failed-objs" ] && ! grep -q probe "$o/.failed-objs" &&
		   [ -f "$o/kernel/kprobes.o" ]; then
			echo kp-only
		else
			echo FAIL
		fi
		return
	fi
	[ -f "$o/kernel/kprobes.o" ] || { echo FAIL; return; }
	echo ok
}

want=${ARCHES:-}
# the cross compilers (not fatal: an arch without one shows no-cc)
pairs=()
while read -r a karch cross pkg; do
	[ -n "$a" ] && [ "$pkg" != - ] && [ "$pkg" != host ] || continue
	if [ -n "$want" ] && ! [[ " $want " == *" $a "* ]]; then continue; fi
	pairs+=("$pkg:${cross}gcc")
done <<< "$table"
[ ${#pairs[@]} -eq 0 ] || "$H/deps.sh" "${pairs[@]}" || true

rows=() pass=0 fail=0
t0=$(date +%s)
while read -r a karch cross pkg; do
	[ -n "$a" ] || continue
	if [ -n "$want" ] && ! [[ " $want " == *" $a "* ]]; then continue; fi
	if [ "$cross" = - ] && [ "$pkg" != host ]; then
		rows+=("$a no-cc no-cc (Debian ships no cross compiler)")
		continue
	fi
	if [ "$cross" != - ] && ! command -v "${cross}gcc" >/dev/null; then
		rows+=("$a no-cc no-cc (apt-get install $pkg)")
		continue
	fi
	t=$(date +%s)
	ours=$(build_one "$a" "$karch" "$cross" ours)
	up=not-run
	[[ " ${ARCH_IMPLS:-ours upstream} " == *" upstream "* ]] &&
		up=$(build_one "$a" "$karch" "$cross" upstream)
	note="$(( $(date +%s) - t ))s"
	if [ "$ours" = ok ] || [ "$up" != ok ]; then
		pass=$((pass + 1))
		if [ "$ours" = kp-only ]; then
			note="$note; vmlinux fails outside kprobes, in"
			note="$note $(xargs < "$out/$a-ours/.failed-objs")"
			[ "$up" = kp-only ] && note="$note (upstream's too)"
		fi
	else
		fail=$((fail + 1))
		note="$note; see build/logs/arches/$a-ours.log"
	fi
	rows+=("$a $ours $up ($note)")
	say "$a: ours $ours, upstream $up"
done <<< "$table"

echo
# the table, also in build/logs/arches/table.txt (results/arches.txt is a
# copy of the last full run, which make series puts in the cover letter)
{
	printf '%-10s %-11s %-11s %s\n' arch ours upstream notes
	for r in "${rows[@]}"; do
		read -r a o u n <<< "$r"
		printf '%-10s %-11s %-11s %s\n' "$a" "$o" "$u" "$n"
	done
} | tee "$logs/table.txt"
echo "(all in $(( $(date +%s) - t0 ))s)"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
