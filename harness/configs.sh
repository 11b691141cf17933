#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make configs: our kernel in the configs beside the project's own, each
# the project config (tinyconfig + config/kprobes.config + series.config)
# with one fragment of config/matrix/ over it:
#   nokprobes  CONFIG_KPROBES=n: every user of <linux/kprobes.h> builds
#   noftrace   kprobes without FUNCTION_TRACER (no kprobes on ftrace)
#   nomodules  CONFIG_MODULES=n
#   up         CONFIG_SMP=n
#   noopt      CONFIG_OPTPROBES=n
# (KRETPROBES cannot be turned off on x86_64: arch/Kconfig makes it
# def_bool y whenever KPROBES is on, so there is no such row.)
#
# For each: the kernel builds (bzImage, and modules where there are any)
# in build/tree-ours/_build_<name>, its build log has no warning, and our
# own objects rebuilt with W=1 have none either.  Under nokprobes the
# header's users are rebuilt with W=1 too, and a warning there counts when
# it names a kprobe symbol or our headers.  The configs that can run the
# suites (CONFIGS_BOOT: noftrace up noopt) then pass `make test-guest`.
#   CONFIGS='up noopt'  limits the list;  CONFIGS_BOOT=  builds only
# The last line is "N passed, N failed" over the checks.
. "$(dirname "$0")/common.sh"

all="nokprobes noftrace nomodules up noopt"
want=${CONFIGS:-$all}
boot=${CONFIGS_BOOT-noftrace up noopt}
logs=$LOGS/configs
mkdir -p "$logs"
pass=0 fail=0 rows=()
t_all=$(date +%s)

check() {	# check VARIANT WHAT STATUS
	if [ "$3" -eq 0 ]; then pass=$((pass + 1)); echo "  ok      configs $1: $2"
	else fail=$((fail + 1)); echo "  FAIL    configs $1: $2"; fi
}

# our own C files that this config compiled, as object paths
our_objects() {
	local f o
	git -C "$REPO" ls-files 'kernel/*.c' 'arch/*.c' | while read -r f; do
		o=${f%.c}.o
		[ -f "$1/$o" ] && echo "$o"
	done
}

# the objects of this build whose source includes <linux/kprobes.h>
header_users() {
	local c rel d b
	find "$1" -name '.*.o.cmd' | while read -r c; do
		grep -q 'include/linux/kprobes.h' "$c" || continue
		rel=${c#"$1"/} d=$(dirname "$rel") b=$(basename "$rel" .cmd)
		b=${b#.}
		[ -f "$KSRC/$d/${b%.o}.c" ] && echo "$d/$b"
	done
}

IMPL=ours make --no-print-directory -C "$REPO" tree > /dev/null ||
	die "make tree failed"
for v in $want; do
	[ -f "$REPO/config/matrix/$v.config" ] || die "no config/matrix/$v.config"
	export IMPL=ours VARIANT=$v
	kobj=$KSRC/_build_$v
	log=$logs/$v.log
	t0=$(date +%s)
	say "configs: $v (build/tree-ours/_build_$v, log ${log#"$REPO"/})"
	st=0
	make --no-print-directory -C "$REPO" VARIANT="$v" kernel > "$log" 2>&1 || st=$?
	check "$v" "builds" $st
	if [ $st -ne 0 ]; then
		grep -E 'error|Error' "$log" | head -10
		rows+=("$v FAIL - - $(( $(date +%s) - t0 ))s")
		continue
	fi
	nw=$(grep -c ': warning:' "$(kbuild_log "$kobj")" || true)
	check "$v" "no build warning ($nw)" "$nw"
	# W=1 over our objects (and, without kprobes, over the header's users)
	mapfile -t objs < <(our_objects "$kobj")
	[ "$v" = nokprobes ] && mapfile -t -O "${#objs[@]}" objs < <(header_users "$kobj")
	w1=$logs/$v-W1.log
	st=0
	KOBJ=$kobj kmake W=1 "${objs[@]}" > "$w1" 2>&1 || st=$?
	if [ "$v" = nokprobes ]; then
		nw1=$(grep ': warning:' "$w1" | grep -ciE 'kprobe|kretprobe|jprobe|wprobe' || true)
	else
		nw1=$(grep -c ': warning:' "$w1" || true)
	fi
	ok=1
	[ $st -eq 0 ] && [ "$nw1" -eq 0 ] && ok=0
	check "$v" "W=1 over ${#objs[@]} objects: $nw1 warnings (${w1#"$REPO"/})" $ok
	res=-
	if [[ " $boot " == *" $v "* ]]; then
		smp=2
		[ "$v" = up ] && smp=1
		st=0
		make --no-print-directory -C "$REPO" VARIANT="$v" SMP=$smp \
			test-guest > "$logs/$v-test.log" 2>&1 || st=$?
		res=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$logs/$v-test.log" | tail -1 || true)
		check "$v" "make test-guest: ${res:-no result}" $st
		res=${res// /_}
	fi
	rows+=("$v ok $nw1 ${res:--} $(( $(date +%s) - t0 ))s")
done

echo
# the table, also in build/logs/configs/table.txt (results/configs.txt is
# a copy of the last full run, which make series puts in the cover letter)
{
	printf '%-10s %-6s %-8s %-34s %s\n' config build W=1 'make test-guest' time
	for r in "${rows[@]}"; do
		read -r v b w t s <<< "$r"
		printf '%-10s %-6s %-8s %-34s %s\n' "$v" "$b" "$w" "${t//_/ }" "$s"
	done
} | tee "$logs/table.txt"
echo "(all in $(( $(date +%s) - t_all ))s)"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
