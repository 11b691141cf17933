#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench.sh: the `make bench` pipeline.  For IMPL=ours and IMPL=upstream
# (both built already), build the benchmark module against the kernel,
# boot it three times running tools/testing/selftests/kprobes/bench/bench.sh:
#   wall     plain TCG: guest nanoseconds follow the host clock
#   icount1  -icount shift=0: a guest nanosecond is one instruction
#   icount2  the same again, to show the instruction counts repeat
# then harness/bench.py prints the table (ours, upstream, ours/upstream)
# and writes build/bench/bench.{txt,csv,png}.
#   BENCH_RUNS   which of the runs (default "wall icount1 icount2")
#   BENCH_IMPLS  which kernels (default "ours upstream")
#   BENCH_N, BENCH_KN, BENCH_LOOPS, BENCH_ONLY, BENCH_SCALE_S: passed to
#                the guest (see bench.sh there)
. "$(dirname "$0")/common.sh"

out=$BUILD/bench
mkdir -p "$out" "$LOGS"
runs=${BENCH_RUNS:-wall icount1 icount2}
src=$REPO/tools/testing/selftests/kprobes/bench

for impl in ${BENCH_IMPLS:-ours upstream}; do
	export IMPL=$impl KSRC=$BUILD/tree-$impl
	export KOBJ=$KSRC/_build
	[ -f "$KOBJ/arch/x86/boot/bzImage" ] || die "build first: make IMPL=$impl"
	mod=$(extmod "$src" bench)
	dir=$(mktemp -d)
	cp "$mod/kprobes_bench.ko" "$mod/kpt_uconsumer.ko" "$src/bench.sh" "$dir/"
	for run in $runs; do
		opts=
		case $run in icount*) opts="-icount shift=0" ;; esac
		say "bench: $impl, $run${opts:+ ($opts)}"
		t0=$(date +%s)
		# shellcheck disable=SC2016
		RUN_NAME=bench-$run QEMU_OPTS="$opts ${QEMU_OPTS:-}" DIR=$dir \
			TIMEOUT=${TIMEOUT:-3600} \
			CMD="BENCH_N='${BENCH_N:-1000 10000}' BENCH_KN='${BENCH_KN:-1000}' BENCH_LOOPS=${BENCH_LOOPS:-20000} BENCH_ONLY=${BENCH_ONLY:-} BENCH_SCALE_S=${BENCH_SCALE_S:-120} sh bench.sh" \
			"$H/boot.sh" exec > "$out/console-$impl-$run.txt" 2>&1 ||
			echo "  (the $impl $run boot failed: see $out/console-$impl-$run.txt)"
		cp "$LOGS/bench-$run-$impl.log" "$out/log-$impl-$run.txt" 2>/dev/null || true
		say "bench: $impl, $run took $(( $(date +%s) - t0 ))s"
	done
	rm -rf "$dir"
done
python3 "$H/bench.py" "$out" $runs
