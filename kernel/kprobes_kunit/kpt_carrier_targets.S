/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Functions with an fentry call whose first instruction after it is
 * reached by something other than the nop before it, which decoding the
 * function cannot see: a carrier there would take such a pass for a call
 * (see afar_case() in kprobes_api_ftrace.c): through a cold part, a
 * static branch, or (x86_64) a direct ftrace trampoline.
 */
#include <linux/linkage.h>
#include <asm/asm.h>
#include <asm/nops.h>
#include <asm/nospec-branch.h>

#ifdef CONFIG_FUNCTION_TRACER
/* an fentry call ftrace knows of: gcc's -mrecord-mcount lists C's */
.macro FENTRY
.Lfentry_\@:
	call	__fentry__
	.pushsection __mcount_loc, "a"
	_ASM_PTR .Lfentry_\@
	.popsection
.endm

	.text
/* the arguments: %edi, %esi on x86_64; %eax, %edx on i386 (regparm) */
#ifdef CONFIG_X86_64
#define A	%edi
#define B	%esi
#else
#define A	%eax
#define B	%edx
#endif

/*
 * int kpt_cold_target(int a, int b): a + b; its cold part,
 * "kpt_cold_target.cold", called directly, jumps to the instruction after
 * the fentry call, as gcc's cold parts jump back into their function (and
 * the function jumps to it on an overflow, which the tests' arguments
 * never cause).
 */
SYM_FUNC_START(kpt_cold_target)
	FENTRY
.Lcold_in:
	mov	A, %ecx
	add	B, %ecx
	/* the hot part reaches its cold part, as gcc's does (never here) */
	jo	kpt_cold_target.cold
	mov	%ecx, %eax
	RET
SYM_FUNC_END(kpt_cold_target)

SYM_FUNC_START(kpt_cold_target.cold)
	jmp	.Lcold_in
SYM_FUNC_END(kpt_cold_target.cold)

/*
 * int kpt_jl_target(int a, int b): a, through the instruction after the
 * fentry call twice when b != 0 and kpt_jl_key is on: the static branch
 * (a 5-byte nop while the key is off) jumps back to it.
 */
SYM_FUNC_START(kpt_jl_target)
	FENTRY
.Ljl_in:
	mov	A, %ecx
	test	B, B
	jz	.Ljl_out
	xor	B, B
.Ljl_nop:
	.byte	BYTES_NOP5
	.pushsection __jump_table, "aw"
	_ASM_ALIGN
	.long	.Ljl_nop - .
	.long	.Ljl_in - .
	_ASM_PTR kpt_jl_key - .
	.popsection
.Ljl_out:
	mov	%ecx, %eax
	RET
SYM_FUNC_END(kpt_jl_target)

#ifdef CONFIG_X86_64
/*
 * int kpt_body_target(int a, int b): a * 3 + b, whose instruction after
 * the fentry call only a direct ftrace trampoline reaches otherwise, as
 * BPF's do.
 */
SYM_FUNC_START(kpt_body_target)
	FENTRY
SYM_INNER_LABEL(kpt_body_target_body, SYM_L_GLOBAL)
	lea	(%rdi,%rdi,2), %eax
	add	%esi, %eax
	RET
SYM_FUNC_END(kpt_body_target)

/*
 * kpt_direct_body: a direct trampoline for kpt_body_target that runs its
 * body by a call to that instruction (as BPF's trampolines do for fexit
 * and fmod_ret programs), then returns to the function's caller.
 */
SYM_FUNC_START(kpt_direct_body)
	call	kpt_body_target_body
	/* drop the fentry call's return address: leave by the caller's frame */
	add	$8, %rsp
	UNWIND_HINT_FUNC
	RET
SYM_FUNC_END(kpt_direct_body)
#endif
#endif
