/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kpt_opt's target: a function whose registers are all known at the
 * probe point, followed by a region a jump can replace.
 *
 *   long kpo_target(long x)
 *
 * At kpo_target + kpo_probe_off every general register but %rsp holds a
 * constant (kpo_regs_expected() in kpt_opt_main.c), %rdi holds x, and
 * the flags are those of cmp %rbx, %rax.  From there: two 4-byte
 * instructions (the optimized region; kpo_inner_off is the second), then
 * code that folds them into the result (from kpo_skip_off: a pre_handler
 * that sends execution there skips the region, and the result shows it).
 * No jump, call or exception-table entry anywhere in it, so the region
 * qualifies.
 */
#include <linux/linkage.h>
#include <asm/asm.h>

	.text
SYM_FUNC_START(kpo_target)
	pushq	%rbx
	pushq	%rbp
	pushq	%r12
	pushq	%r13
	pushq	%r14
	pushq	%r15
	movq	%rdi, %r15
	movabsq	$0x1111111111111111, %rax
	movabsq	$0x2222222222222222, %rbx
	movabsq	$0x3333333333333333, %rcx
	movabsq	$0x4444444444444444, %rdx
	movabsq	$0x5555555555555555, %rsi
	movabsq	$0x6666666666666666, %rbp
	movabsq	$0x7777777777777777, %r8
	movabsq	$0x0888888888888888, %r9
	movabsq	$0x0999999999999999, %r10
	movabsq	$0x0aaaaaaaaaaaaaaa, %r11
	movabsq	$0x0bbbbbbbbbbbbbbb, %r12
	movabsq	$0x0ccccccccccccccc, %r13
	movabsq	$0x0ddddddddddddddd, %r14
	cmpq	%rbx, %rax
.Lprobe:
	leaq	0x10(%rsi), %rax		/* 48 8d 46 10 */
.Linner:
	addq	$0x7, %rcx			/* 48 83 c1 07 */
.Lskip:
	addq	%rcx, %rax
	addq	%r15, %rax
	popq	%r15
	popq	%r14
	popq	%r13
	popq	%r12
	popq	%rbp
	popq	%rbx
	RET
SYM_FUNC_END(kpo_target)

	.section .rodata
SYM_DATA(kpo_probe_off, .long .Lprobe - kpo_target)
SYM_DATA(kpo_inner_off, .long .Linner - kpo_target)
SYM_DATA(kpo_skip_off, .long .Lskip - kpo_target)
