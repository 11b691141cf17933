/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Targets of the kprobes benchmark, in assembly so that both
 * implementations see the same bytes and no fentry call.  On 32-bit x86
 * the same instructions in 32-bit form (the argument in %eax, the
 * kernel's regparm convention).
 */
#include <linux/linkage.h>
#include <asm/asm.h>

/* the argument, and whether functions begin with an IBT landing pad */
#ifdef CONFIG_X86_64
#define KPB_ARG		%rdi
#define KPB_ENDBR	endbr64
#else
#define KPB_ARG		%eax
#define KPB_ENDBR
#endif

	.text
/*
 * kpb_short: lea (%rdi),%rax; ret.  The probe's instruction is followed
 * by less than a jump's 5 bytes of function (lea is 2 bytes on i386,
 * still short of a jump), so no implementation can jump-optimize it:
 * int3 + single-step, or boosted when the probe has no post_handler.
 */
SYM_FUNC_START(kpb_short)
	lea	(KPB_ARG), %_ASM_AX		/* 3 bytes (2 on i386): stepped */
	RET
SYM_FUNC_END(kpb_short)

/*
 * kpb_mov: mov %rdi,%rax; ret: the same, on an instruction that ours
 * emulates (one trap even with a post_handler).
 */
SYM_FUNC_START(kpb_mov)
	mov	KPB_ARG, %_ASM_AX		/* ours emulates it */
	RET
SYM_FUNC_END(kpb_mov)

/*
 * kpb_long: mov, add, add, ret: 11 bytes of plain instructions (8 on
 * i386), so an optimizer may put a jump over the first two.
 */
SYM_FUNC_START(kpb_long)
	mov	KPB_ARG, %_ASM_AX
	add	$1, %_ASM_AX
	add	$2, %_ASM_AX
	RET
SYM_FUNC_END(kpb_long)

/*
 * kpb_fn_N: KPB_NFUNCS small functions (N = 0..KPB_NFUNCS-1) for the
 * registration-cost figures, with their addresses in kpb_fn_table[]:
 * distinct functions, as a tool attaching to a family of functions sees
 * them.
 */
#define KPB_NFUNCS 10000

	.altmacro
	.macro kpb_fn n
	.pushsection .text
	.p2align 4
	.globl	kpb_fn_\n
	.type	kpb_fn_\n, @function
kpb_fn_\n:
	KPB_ENDBR
	mov	KPB_ARG, %_ASM_AX
	add	$\n, %_ASM_AX
	RET
	.size	kpb_fn_\n, . - kpb_fn_\n
	.popsection
	_ASM_PTR	kpb_fn_\n
	.endm

	.section .rodata
	.p2align 3
SYM_DATA_START(kpb_fn_table)
	.set	kpb_i, 0
	.rept	KPB_NFUNCS
	kpb_fn	%kpb_i
	.set	kpb_i, kpb_i + 1
	.endr
SYM_DATA_END(kpb_fn_table)
	.noaltmacro
SYM_DATA(kpb_nfuncs, .long KPB_NFUNCS)
