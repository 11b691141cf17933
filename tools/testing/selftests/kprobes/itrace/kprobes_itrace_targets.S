/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Targets of `make itrace`, the same shapes as the benchmark's
 * (bench/kprobes_bench_targets.S): kit_short has no room for a jump
 * after its first instruction, kit_long has.
 */
#include <linux/linkage.h>
#include <asm/asm.h>

	.text
SYM_FUNC_START(kit_short)
	leaq	(%rdi), %rax
	RET
SYM_FUNC_END(kit_short)

SYM_FUNC_START(kit_mov)
	movq	%rdi, %rax
	RET
SYM_FUNC_END(kit_mov)

SYM_FUNC_START(kit_long)
	movq	%rdi, %rax
	addq	$1, %rax
	addq	$2, %rax
	RET
SYM_FUNC_END(kit_long)
