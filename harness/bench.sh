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
#   BENCH_CONFIGS which configs (default "default distro i386": each figure
#                also on the DISTRO=1 kernels, config/distro.config, booted
#                as make test-distro boots them: DISTRO_ARGS, DISTRO_CPU;
#                and the per-hit figures on 32-bit x86, the kernels of
#                make i386-test, through harness/archtest.sh i386 bench)
#   BENCH_TIMEOUT host seconds one boot may take (default 3600; the
#                Makefile's TIMEOUT, 1200, is for the suites)
#   BENCH_N, BENCH_KN, BENCH_LOOPS, BENCH_ONLY, BENCH_SCALE_S: passed to
#                the guest (see bench.sh there)
. "$(dirname "$0")/common.sh"

out=$BUILD/bench
mkdir -p "$out" "$LOGS"
runs=${BENCH_RUNS:-wall icount1 icount2}
src=$REPO/tools/testing/selftests/kprobes/bench

configs=${BENCH_CONFIGS:-default distro i386}
for cfg in $configs; do
for impl in ${BENCH_IMPLS:-ours upstream}; do
	if [ "$cfg" = i386 ]; then
		for run in $runs; do
			say "bench: $impl-i386, $run"
			t0=$(date +%s)
			# no earlier run's figures if this one dies early
			rm -f "$LOGS/i386-bench-$run-$impl.log" "$out/log-$impl-i386-$run.txt"
			IMPL=$impl KSRC=$BUILD/tree-$impl KOBJ= \
				"$H/archtest.sh" i386 bench "$run" \
				> "$out/console-$impl-i386-$run.txt" 2>&1 ||
				echo "  (the $impl-i386 $run boot failed: see $out/console-$impl-i386-$run.txt)"
			cp "$LOGS/i386-bench-$run-$impl.log" "$out/log-$impl-i386-$run.txt" \
				2>/dev/null || true
			say "bench: $impl-i386, $run took $(( $(date +%s) - t0 ))s"
		done
		continue
	fi
	export IMPL=$impl KSRC=$BUILD/tree-$impl
	export KOBJ=$KSRC/_build tag=$impl args=${KERNEL_ARGS:-} mk= qopts=
	if [ "$cfg" = distro ]; then
		KOBJ=$KSRC/_build_distro tag=$impl-distro mk=" DISTRO=1"
		args="$args $DISTRO_ARGS" qopts="$DISTRO_CPU"
	fi
	[ -f "$KOBJ/arch/x86/boot/bzImage" ] ||
		die "build first: make IMPL=$impl$mk"
	mod=$(extmod "$src" bench)
	dir=$(mktemp -d)
	cp "$mod/kprobes_bench.ko" "$mod/kpt_uconsumer.ko" "$src/bench.sh" "$dir/"
	for run in $runs; do
		opts= icount=0
		case $run in icount*) opts="-icount shift=0" icount=1 ;; esac
		say "bench: $tag, $run${opts:+ ($opts)}"
		t0=$(date +%s)
		# shellcheck disable=SC2016
		RUN_NAME=bench-$run QEMU_OPTS="$qopts $opts ${QEMU_OPTS:-}" DIR=$dir \
			TIMEOUT=${BENCH_TIMEOUT:-3600} KERNEL_ARGS=$args \
			CMD="BENCH_N='${BENCH_N:-1000 10000}' BENCH_KN='${BENCH_KN:-1000}' BENCH_LOOPS=${BENCH_LOOPS:-20000} BENCH_ONLY=${BENCH_ONLY:-} BENCH_SCALE_S=${BENCH_SCALE_S:-120} BENCH_ICOUNT=$icount sh bench.sh" \
			"$H/boot.sh" exec > "$out/console-$tag-$run.txt" 2>&1 ||
			echo "  (the $tag $run boot failed: see $out/console-$tag-$run.txt)"
		cp "$LOGS/bench-$run-$impl.log" "$out/log-$tag-$run.txt" 2>/dev/null || true
		say "bench: $tag, $run took $(( $(date +%s) - t0 ))s"
	done
	rm -rf "$dir"
done
done
BENCH_CONFIGS=$configs python3 "$H/bench.py" "$out" $runs
