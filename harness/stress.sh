#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# stress.sh: the `make stress` pipeline for $IMPL (built already): build
# kprobes_stress.ko against the kernel, boot at SMP (default 4) running
# tools/testing/selftests/kprobes/stress/stress.sh alone, judged like a
# test run (KTAP, and any kernel report fails it).
#   STRESS_S       seconds of hammering (default 20)
#   STRESS_BUDGET  seconds probe-everything may spend registering (150)
#   STRESS_MODS    load/unload cycles of the module churn (20)
#   STRESS_SWEEP   functions the instruction sweep covers (300)
. "$(dirname "$0")/common.sh"

src=$REPO/tools/testing/selftests/kprobes/stress
mod=$(extmod "$src" stress)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir/mod"
cp "$mod/kprobes_stress.ko" "$mod/kprobes_stress_target.ko" "$dir/mod/"
cp "$src/stress.sh" "$dir/"
printf 'STRESS_S=%s\nSTRESS_BUDGET=%s\nSTRESS_MODS=%s\nSTRESS_SWEEP=%s\n' \
	"${STRESS_S:-20}" "${STRESS_BUDGET:-150}" "${STRESS_MODS:-20}" \
	"${STRESS_SWEEP:-300}" > "$dir/params"
say "stress ($IMPL, SMP=${SMP:-4})"
SMP=${SMP:-4} SUITES=none EXTRA=$dir RUN_NAME=stress \
	KERNEL_ARGS="${KERNEL_ARGS:-} kunit.enable=0" "$H/boot.sh" test
