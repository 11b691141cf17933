/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A direct ftrace trampoline that returns from the function it is
 * attached to without running its body, as a BPF fmod_ret program that
 * returns non-zero does: it drops the fentry call's return address and
 * hands the function's caller KPT_DIRECT_RET (so it leaves by its
 * caller's frame: objtool is told).
 */
#include <linux/linkage.h>
#include <asm/asm.h>
#include <asm/nospec-branch.h>
#include <asm/unwind_hints.h>

	.text
SYM_FUNC_START(kpt_direct_skip)
	add	$__ASM_SEL(4, 8), %_ASM_SP
	UNWIND_HINT_FUNC
	movl	$4242, %eax
	RET
SYM_FUNC_END(kpt_direct_skip)
