#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Builds bzImage and modules for $IMPL in $KOBJ (incremental, via ccache).
. "$(dirname "$0")/common.sh"

mkdir -p "$LOGS"
log=$(kbuild_log "$KOBJ")
say "building Linux $(make -s -C "$KSRC" kernelversion) ($IMPL) in ${KOBJ#"$REPO"/}"
start=$(date +%s)
targets=(bzImage)
grep -q '^CONFIG_MODULES=y' "$KOBJ/.config" && targets+=(modules)
if ! kmake "${targets[@]}" > "$log" 2>&1; then
	grep -E 'error|Error|warning:' "$log" | head -40 >&2
	die "kernel build failed; full log: $log"
fi
grep -E ': warning:' "$log" | head -20 || true
say "kernel built in $(( $(date +%s) - start ))s: ${KOBJ#"$REPO"/}/arch/x86/boot/bzImage"
