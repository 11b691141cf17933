/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Probe targets with a known instruction layout, so the tests can name an
 * instruction boundary, a point inside an instruction, and what each
 * instruction does to the registers.  No fentry call: probes here always
 * take the int3 path.
 *
 *   long kpt_asm(long x) { return 0x1122334455667788 + x; }
 *
 * The offsets of its instructions are exported as data (the C side adds
 * them to the function's address at run time), so no code relocation
 * points into the middle of a function.
 */
#include <linux/linkage.h>
#include <asm/asm.h>
#include <asm/alternative.h>
#include <asm/nospec-branch.h>

#ifdef CONFIG_X86_64
	.text
SYM_FUNC_START(kpt_asm)
.Lmov:	movabs	$0x1122334455667788, %rax	/* 10 bytes */
.Ladd:	add	%rdi, %rax			/* 3 bytes */
.Lret:	RET
SYM_FUNC_END(kpt_asm)

/*
 * long kpt_asm_load(long *p): *p, or -EFAULT (-14) if the load faults;
 * the load has an exception-table fixup, like a uaccess.
 */
SYM_FUNC_START(kpt_asm_load)
.Lload:	movq	(%rdi), %rax
	RET
.Lfault:
	movq	$-14, %rax
	RET
	_ASM_EXTABLE(.Lload, .Lfault)
SYM_FUNC_END(kpt_asm_load)

/*
 * long kpt_asm_branch(long x, long (*fn)(void)), fn == kpt_asm_helper:
 * x + 3 for x != 0 (three calls of the helper: direct, through a
 * register, through memory), 100 for x == 0.  Every probe point here is
 * an IP-changing instruction, emulated by kprobes.
 */
SYM_FUNC_START(kpt_asm_branch)
	movq	%rdi, %rax
	testq	%rdi, %rdi
.Lb_jz:	jz	.Lb_zero			/* jcc rel8 */
.Lb_call:
	call	kpt_asm_helper			/* call rel32 */
/*
 * Plain indirect calls on purpose, also in a retpoline build: these are
 * the instructions kprobes must emulate (ANNOTATE_RETPOLINE_SAFE tells
 * objtool so; it emits no code).
 */
.Lb_icr:
	ANNOTATE_RETPOLINE_SAFE
	call	*%rsi				/* call *reg */
.Lb_icm:
	ANNOTATE_RETPOLINE_SAFE
	call	*kpt_helper_ptr(%rip)		/* call *mem, rip-relative */
.Lb_jmp:
	jmp	.Lb_out				/* jmp rel8 */
.Lb_zero:
	movq	$100, %rax
.Lb_out:
	RET
SYM_FUNC_END(kpt_asm_branch)

SYM_FUNC_START(kpt_asm_helper)
	addq	$1, %rax
.Lh_ret:
	RET
SYM_FUNC_END(kpt_asm_helper)

/*
 * void kpt_asm_lock(long *p): atomically ++*p.  The lock prefix is listed
 * in .smp_locks: on a uniprocessor boot alternatives turn it into a nop,
 * and back into lock when a second CPU comes up, so it is a patched site.
 */
SYM_FUNC_START(kpt_asm_lock)
.Llock:	LOCK_PREFIX
	incq	(%rdi)
	RET
SYM_FUNC_END(kpt_asm_lock)

/* long kpt_asm_riprel(long x): kpt_riprel_val + x, the load RIP-relative */
SYM_FUNC_START(kpt_asm_riprel)
	movq	kpt_riprel_val(%rip), %rax
	addq	%rdi, %rax
	RET
SYM_FUNC_END(kpt_asm_riprel)

/*
 * long kpt_asm_xfer(long x): (u32)x + 1, through a register push and
 * register moves of each encoding (89 /r, 8b /r, 32-bit, REX.R/B), all
 * emulated by kprobes.
 */
SYM_FUNC_START(kpt_asm_xfer)
.Lx_push:
	pushq	%rbp
.Lx_mov89:
	movq	%rdi, %rbp			/* 48 89 fd */
.Lx_mov8b:
	.byte	0x48, 0x8b, 0xc5		/* movq %rbp, %rax (8b /r) */
.Lx_mov32:
	movl	%eax, %ecx			/* 89 c1: zero-extends */
.Lx_movr8:
	movq	%rcx, %r8			/* 49 89 c8 */
	leaq	1(%r8), %rax
	popq	%rbp
	RET
SYM_FUNC_END(kpt_asm_xfer)

	.data
SYM_DATA(kpt_riprel_val, .quad 0x5a5a5a5a5a)
SYM_DATA(kpt_helper_ptr, .quad kpt_asm_helper)

#else
	.text
/*
 * i386 (-mregparm=3: arguments in %eax, %edx, %ecx): the same functions
 * and probe points, in 32-bit form.  kpt_asm returns 0x11223344 + x, the
 * constant's mov 5 bytes; there is no RIP-relative addressing, so
 * kpt_asm_riprel's load is absolute (its copy needs no fixup).
 */
SYM_FUNC_START(kpt_asm)
	movl	%eax, %edx
.Lmov:	movl	$0x11223344, %eax		/* 5 bytes */
.Ladd:	addl	%edx, %eax			/* 2 bytes */
.Lret:	RET
SYM_FUNC_END(kpt_asm)

SYM_FUNC_START(kpt_asm_load)
.Lload:	movl	(%eax), %eax
	RET
.Lfault:
	movl	$-14, %eax
	RET
	_ASM_EXTABLE(.Lload, .Lfault)
SYM_FUNC_END(kpt_asm_load)

SYM_FUNC_START(kpt_asm_branch)
	testl	%eax, %eax
.Lb_jz:	jz	.Lb_zero			/* jcc rel8 */
.Lb_call:
	call	kpt_asm_helper			/* call rel32 */
.Lb_icr:
	ANNOTATE_RETPOLINE_SAFE
	call	*%edx				/* call *reg */
.Lb_icm:
	ANNOTATE_RETPOLINE_SAFE
	call	*kpt_helper_ptr			/* call *mem, absolute */
.Lb_jmp:
	jmp	.Lb_out				/* jmp rel8 */
.Lb_zero:
	movl	$100, %eax
.Lb_out:
	RET
SYM_FUNC_END(kpt_asm_branch)

SYM_FUNC_START(kpt_asm_helper)
	addl	$1, %eax
.Lh_ret:
	RET
SYM_FUNC_END(kpt_asm_helper)

SYM_FUNC_START(kpt_asm_lock)
.Llock:	LOCK_PREFIX
	incl	(%eax)
	RET
SYM_FUNC_END(kpt_asm_lock)

SYM_FUNC_START(kpt_asm_riprel)
	movl	kpt_riprel_val, %edx		/* the load, into %edx */
	addl	%edx, %eax
	RET
SYM_FUNC_END(kpt_asm_riprel)

/*
 * (x & 0xffff) + 1 through push %ebp and register moves of each
 * encoding (89 /r, 8b /r, 16-bit; then a plain move in place of
 * x86_64's REX one): the 16-bit one is single-stepped.
 */
SYM_FUNC_START(kpt_asm_xfer)
.Lx_push:
	pushl	%ebp
.Lx_mov89:
	movl	%eax, %ebp			/* 89 c5 */
.Lx_mov8b:
	.byte	0x8b, 0xc5			/* movl %ebp, %eax (8b /r) */
.Lx_mov32:
	movzwl	%ax, %ecx			/* 0f b7 c8 */
.Lx_movr8:
	movl	%ecx, %edx			/* 89 ca */
	leal	1(%edx), %eax
	popl	%ebp
	RET
SYM_FUNC_END(kpt_asm_xfer)

	.data
SYM_DATA(kpt_riprel_val, .long 0x5a5a5a5a)
SYM_DATA(kpt_helper_ptr, .long kpt_asm_helper)

#endif

/*
 * void kpt_asm_ss(void): reloads %ss with itself, never called: only
 * registered at.  mov to %ss holds interrupts and traps off for one
 * instruction, so a single-step of it out of line would trap past the
 * jump back: registration refuses it.
 */
	.text
SYM_FUNC_START(kpt_asm_ss)
	movl	%ss, %eax			/* 8c d0 */
.Lss:	movl	%eax, %ss			/* 8e d0 */
	RET
SYM_FUNC_END(kpt_asm_ss)

	.section .rodata
SYM_DATA(kpt_asm_ss_off, .long .Lss - kpt_asm_ss)
SYM_DATA(kpt_branch_off, .long .Lb_jz - kpt_asm_branch, .Lb_call - kpt_asm_branch,
	 .Lb_icr - kpt_asm_branch, .Lb_icm - kpt_asm_branch,
	 .Lb_jmp - kpt_asm_branch, .Lb_zero - kpt_asm_branch,
	 .Lb_out - kpt_asm_branch, .Lh_ret - kpt_asm_helper)
SYM_DATA(kpt_asm_load_off, .long .Lload - kpt_asm_load)
SYM_DATA(kpt_asm_off_mov, .long .Lmov - kpt_asm)
SYM_DATA(kpt_asm_off_add, .long .Ladd - kpt_asm)
SYM_DATA(kpt_asm_off_ret, .long .Lret - kpt_asm)
SYM_DATA(kpt_asm_lock_off, .long .Llock - kpt_asm_lock)
SYM_DATA(kpt_xfer_off, .long .Lx_push - kpt_asm_xfer, .Lx_mov89 - kpt_asm_xfer,
	 .Lx_mov8b - kpt_asm_xfer, .Lx_mov32 - kpt_asm_xfer,
	 .Lx_movr8 - kpt_asm_xfer)
