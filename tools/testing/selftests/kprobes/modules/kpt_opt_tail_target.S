/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kpt_opt_tail's one function in .text, so the last of the module's text:
 * kallsyms sizes it up to the end of that text, next to the guard page
 * after it, and an optimizer that decodes the whole function reads there.
 * A region a jump can replace sits at kpot_target + 0 (or after an ENDBR).
 */
#include <linux/linkage.h>
#include <asm/asm.h>

	.text
SYM_FUNC_START(kpot_target)
	movq	%rdi, %rax
	addq	$1, %rax
	addq	$2, %rax
	RET
SYM_FUNC_END(kpot_target)
