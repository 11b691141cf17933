/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Probe targets of kpt_utarget, one per way the uprobes engine handles a
 * probed instruction.  Each is long f(long x) and its probed instruction
 * is at the global label of its name; kpt_utarget.c knows what each must
 * return, so a wrongly executed instruction shows in the results.
 */
	.text

	/* lea: single-stepped out of line; returns x + 1 */
	.globl ut_lea
	.type ut_lea, @function
ut_lea:
	lea 1(%rdi), %rax
	ret
	.size ut_lea, . - ut_lea

	/* push %rbp: emulated; returns x */
	.globl ut_push
	.type ut_push, @function
ut_push:
	push %rbp
	mov %rdi, %rax
	pop %rbp
	ret
	.size ut_push, . - ut_push

	/* a RIP-relative load: stepped with its displacement fixed up;
	   returns ut_data + x = x + 7 */
	.globl ut_riprel
	.type ut_riprel, @function
ut_riprel:
	mov ut_data(%rip), %rax
	add %rdi, %rax
	ret
	.size ut_riprel, . - ut_riprel

	/* call: emulated (pushes the return address); returns x + 2 */
	.globl ut_call
	.type ut_call, @function
ut_call:
	call ut_leaf
	ret
	.size ut_call, . - ut_call
ut_leaf:
	lea 2(%rdi), %rax
	ret

	/* jz: emulated; the probe is on the jcc itself;
	   returns -1 for x == 0, x + 3 otherwise */
	.globl ut_jcc
	.type ut_jcc, @function
ut_jcc:
	test %rdi, %rdi
	.globl ut_jcc_insn
ut_jcc_insn:
	jz 1f
	lea 3(%rdi), %rax
	ret
1:	mov $-1, %rax
	ret
	.size ut_jcc, . - ut_jcc

	/* returns 1, unless a handler moves ip to ut_skip_ret (and sets ax) */
	.globl ut_skip
	.type ut_skip, @function
ut_skip:
	mov $1, %eax
	.globl ut_skip_ret
ut_skip_ret:
	ret
	.size ut_skip, . - ut_skip

	/* a breakpoint in the program itself: never called, never probed */
	.globl ut_int3
	.type ut_int3, @function
ut_int3:
	int3
	ret
	.size ut_int3, . - ut_int3

	/* kpt_utarget writes an int3 here itself, as a debugger would */
	.globl ut_poke
	.type ut_poke, @function
ut_poke:
	nop
	ret
	.size ut_poke, . - ut_poke

	/*
	 * JIT code: kpt_utarget copies ut_jit_begin .. ut_jit_end into
	 * anonymous memory and calls the copies ("jit").  Position
	 * independent: the RIP-relative load reads jit_data in the copy.
	 * The functions return what their namesakes above return.
	 */
	.globl ut_jit_begin
ut_jit_begin:
	.globl jit_lea
	.type jit_lea, @function
jit_lea:
	lea 1(%rdi), %rax
	ret
	.size jit_lea, . - jit_lea

	.globl jit_push
	.type jit_push, @function
jit_push:
	push %rbp
	mov %rdi, %rax
	pop %rbp
	ret
	.size jit_push, . - jit_push

	/* push %r12 (a REX prefix) and push %rsp, probed at their labels */
	.globl jit_pushr
	.type jit_pushr, @function
jit_pushr:			/* returns x if the push stored %r12 */
	push %r12
	mov %rdi, %r12
	.globl jit_pushr_insn
jit_pushr_insn:
	push %r12
	pop %rax
	pop %r12
	ret
	.size jit_pushr, . - jit_pushr

	/*
	 * VEX instructions whose opcode byte is a jcc's (vpshufd: 0x70) and
	 * a push's (vxorps: 0x57); each returns x only if it ran as itself
	 */
	.globl jit_vexj
	.type jit_vexj, @function
jit_vexj:
	vmovq %rdi, %xmm0
	.globl jit_vexj_insn
jit_vexj_insn:
	vpshufd $0x44, %xmm0, %xmm0
	vpextrq $1, %xmm0, %rax
	ret
	.size jit_vexj, . - jit_vexj

	.globl jit_vexp
	.type jit_vexp, @function
jit_vexp:
	vxorps %xmm1, %xmm1, %xmm1
	mov %rdi, %rax
	ret
	.size jit_vexp, . - jit_vexp

	.globl jit_pushsp
	.type jit_pushsp, @function
jit_pushsp:			/* returns x if it stored the old %rsp */
	mov %rsp, %rcx
	.globl jit_pushsp_insn
jit_pushsp_insn:
	push %rsp
	pop %rdx
	sub %rcx, %rdx
	lea (%rdi,%rdx), %rax
	ret
	.size jit_pushsp, . - jit_pushsp

	.globl jit_riprel
	.type jit_riprel, @function
jit_riprel:
	mov jit_data(%rip), %rax
	add %rdi, %rax
	ret
	.size jit_riprel, . - jit_riprel

	.globl jit_call
	.type jit_call, @function
jit_call:
	call jit_leaf
	ret
	.size jit_call, . - jit_call
jit_leaf:
	lea 2(%rdi), %rax
	ret

	.globl jit_jcc
	.type jit_jcc, @function
jit_jcc:
	test %rdi, %rdi
	.globl jit_jcc_insn
jit_jcc_insn:
	jz 1f
	lea 3(%rdi), %rax
	ret
1:	mov $-1, %rax
	ret
	.size jit_jcc, . - jit_jcc

	/* a load through the argument: faults for a bad pointer */
	.globl jit_load
	.type jit_load, @function
jit_load:
	mov (%rdi), %rax
	ret
	.size jit_load, . - jit_load

	/* 84 divided by the argument + 1: SIGFPE for -1 */
	.globl jit_div
	.type jit_div, @function
jit_div:
	lea 1(%rdi), %rcx
	mov $84, %eax
	xor %edx, %edx
	.globl jit_div_insn
jit_div_insn:
	div %rcx
	ret
	.size jit_div, . - jit_div

	.align 8
jit_data:
	.quad 7
	.globl ut_jit_end
ut_jit_end:

	/* &ut_data, for the C side (which declares no extern data) */
	.globl ut_data_addr
	.type ut_data_addr, @function
ut_data_addr:
	lea ut_data(%rip), %rax
	ret
	.size ut_data_addr, . - ut_data_addr

	.data
	.globl ut_data
	.align 8
ut_data:
	.quad 7

	.section .note.GNU-stack, "", @progbits
