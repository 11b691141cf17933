/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * jprobe_return(): the end of every jprobe handler (see jprobes.c).
 *
 * It tells lockdep the interrupt state the probed function gets back
 * (jprobe_return_prepare()), then executes the int3 at
 * jprobe_return_break, which kprobe_int3_handler() hands to
 * jprobe_longjmp() (through jprobe_return_trap()): that never
 * returns here while a handler is under way.  Called outside one,
 * the int3 is stepped over with a warning and this returns.  In
 * .kprobes.text, so never probed.
 */
#include <linux/linkage.h>
#include <linux/objtool.h>
#include <asm/asm.h>

	.pushsection .kprobes.text, "ax"
SYM_FUNC_START(jprobe_return)
	push	%_ASM_BP
	mov	%_ASM_SP, %_ASM_BP
	call	jprobe_return_prepare
SYM_INNER_LABEL(jprobe_return_break, SYM_L_GLOBAL)
	ANNOTATE_NOENDBR	/* compared with, never jumped to */
	int3
	pop	%_ASM_BP
	RET
SYM_FUNC_END(jprobe_return)
	.popsection
