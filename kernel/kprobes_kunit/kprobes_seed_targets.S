/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprobes_seed's assembly: a load whose fault a fault_handler can resume
 * from, at an offset exported as data (no code relocation into the
 * middle of a function).
 *
 *   long kps_load(long *p) { return *p; }
 *
 * The load is at kps_load + kps_load_off (after an ENDBR, with IBT).  A
 * fault_handler that handles a fault of it sets regs->ip to
 * kps_load + kps_load_resume_off and regs->ax to what kps_load returns.
 */
#include <linux/linkage.h>
#include <asm/asm.h>

	.text
SYM_FUNC_START(kps_load)
#ifdef CONFIG_X86_64
.Lload:	movq	(%rdi), %rax			/* 3 bytes */
#else
.Lload:	movl	(%eax), %eax			/* 2 bytes; p in %eax */
#endif
.Lresume:
	RET
SYM_FUNC_END(kps_load)

	.section .rodata
SYM_DATA(kps_load_off, .long .Lload - kps_load)
SYM_DATA(kps_load_resume_off, .long .Lresume - kps_load)
