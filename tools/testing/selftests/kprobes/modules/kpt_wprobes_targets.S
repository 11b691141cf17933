/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the wprobes suite watches: a word of data and the instructions
 * that touch it, each followed by a global label, so the tests can say
 * which ip a data watchpoint reports (the instruction after the access).
 * The labels' offsets are data (kpt_wp_store_after_off, ...): the C side
 * adds them to the function's address, so no code relocation points into
 * the middle of a function.
 *
 *   kpt_wp_var    8 bytes, 8-aligned; the tests watch its first 4
 *   kpt_wp_more   3 more words, for tests that need a watchpoint each
 *                 (QEMU's TCG reports one debug register per access even
 *                 when several watch the same bytes)
 *   kpt_wp_store  void (u32 v): kpt_wp_var = v      (one 32-bit store)
 *   kpt_wp_load   u32 (void): return kpt_wp_var     (one 32-bit load)
 *   kpt_wp_adj    void (u8 v): the byte at kpt_wp_var + 4 = v
 *   kpt_wp_xfn    long (long x): x + 1; what execute watchpoints watch
 */
#include <linux/linkage.h>
#include <asm/asm.h>

	.data
	.balign 8
SYM_DATA_START(kpt_wp_var)
	.quad	0
SYM_DATA_END(kpt_wp_var)
SYM_DATA_START(kpt_wp_more)
	.quad	0, 0, 0
SYM_DATA_END(kpt_wp_more)

SYM_DATA(kpt_wp_store_after_off, .quad .Lstore_after - kpt_wp_store)
SYM_DATA(kpt_wp_load_after_off, .quad .Lload_after - kpt_wp_load)

	.text
SYM_FUNC_START(kpt_wp_store)
	movl	%edi, kpt_wp_var(%rip)
.Lstore_after:
	RET
SYM_FUNC_END(kpt_wp_store)

SYM_FUNC_START(kpt_wp_load)
	movl	kpt_wp_var(%rip), %eax
.Lload_after:
	RET
SYM_FUNC_END(kpt_wp_load)

SYM_FUNC_START(kpt_wp_adj)
	movb	%dil, kpt_wp_var+4(%rip)
	RET
SYM_FUNC_END(kpt_wp_adj)

SYM_FUNC_START(kpt_wp_xfn)
	leaq	1(%rdi), %rax
	RET
SYM_FUNC_END(kpt_wp_xfn)
