/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __X86_KERNEL_KPROBES_COMMON_H
#define __X86_KERNEL_KPROBES_COMMON_H
/*
 * Building a struct pt_regs on the stack in trampolines (these, and
 * arch/x86/kernel/rethook.c, which includes this file).
 *
 * SAVE_REGS_STRING runs with regs->flags just pushed: it reserves
 * regs->cs, regs->ip and regs->orig_ax (to be filled by the C side if it
 * cares) and pushes the general registers in struct pt_regs order, so
 * that the stack pointer then points at a struct pt_regs whose
 * flags/sp/ss slots are the ones above.  RESTORE_REGS_STRING is its
 * mirror image and leaves the stack pointer at regs->flags.
 *
 * SAVE_REGS_STRING_AT(ip) is SAVE_REGS_STRING for our own trampolines:
 * it pushes regs->cs (the kernel's), regs->ip (@ip, a symbol: the
 * trampoline's own address until the C side knows better) and
 * regs->orig_ax (no syscall) instead of reserving them.  With frame
 * pointers, ENCODE_FRAME_POINTER publishes the pt_regs to unwinders the
 * moment it runs, and an NMI's unwind (perf's callchains) may read them
 * from then on: they must not hold stale stack words then.
 */
#include <asm/asm.h>
#include <asm/frame.h>
#include <asm/insn.h>
#include <asm/ptrace.h>
#include <asm/segment.h>
#include <linux/stringify.h>

#ifdef CONFIG_X86_64
#define SAVE_REGS_STRING			\
	"	subq $24, %rsp\n"		\
	SAVE_GPRS_STRING			\
	ENCODE_FRAME_POINTER

#define SAVE_REGS_STRING_AT(ip)			\
	"	pushq $" __stringify(__KERNEL_CS) "\n"	\
	"	pushq $" ip "\n"		\
	"	pushq $-1\n"			\
	SAVE_GPRS_STRING			\
	ENCODE_FRAME_POINTER

#define SAVE_GPRS_STRING			\
	"	pushq %rdi\n"			\
	"	pushq %rsi\n"			\
	"	pushq %rdx\n"			\
	"	pushq %rcx\n"			\
	"	pushq %rax\n"			\
	"	pushq %r8\n"			\
	"	pushq %r9\n"			\
	"	pushq %r10\n"			\
	"	pushq %r11\n"			\
	"	pushq %rbx\n"			\
	"	pushq %rbp\n"			\
	"	pushq %r12\n"			\
	"	pushq %r13\n"			\
	"	pushq %r14\n"			\
	"	pushq %r15\n"

#define RESTORE_REGS_STRING			\
	"	popq %r15\n"			\
	"	popq %r14\n"			\
	"	popq %r13\n"			\
	"	popq %r12\n"			\
	"	popq %rbp\n"			\
	"	popq %rbx\n"			\
	"	popq %r11\n"			\
	"	popq %r10\n"			\
	"	popq %r9\n"			\
	"	popq %r8\n"			\
	"	popq %rax\n"			\
	"	popq %rcx\n"			\
	"	popq %rdx\n"			\
	"	popq %rsi\n"			\
	"	popq %rdi\n"			\
	"	addq $24, %rsp\n"
#else
/*
 * i386: the segment registers sit between ax and orig_ax.  The trap
 * entry's layout (entry_32.S SAVE_ALL): gs is not saved (0), fs is the
 * kernel's per-CPU segment; none is reloaded on the way out.
 */
#define SAVE_REGS_STRING			\
	"	subl $12, %esp\n"		\
	SAVE_GPRS_STRING			\
	ENCODE_FRAME_POINTER

#define SAVE_REGS_STRING_AT(ip)			\
	"	pushl $" __stringify(__KERNEL_CS) "\n"	\
	"	pushl $" ip "\n"		\
	"	pushl $-1\n"			\
	SAVE_GPRS_STRING			\
	ENCODE_FRAME_POINTER

#define SAVE_GPRS_STRING			\
	"	pushl $0\n"			\
	"	pushl %fs\n"			\
	"	pushl %es\n"			\
	"	pushl %ds\n"			\
	"	pushl %eax\n"			\
	"	pushl %ebp\n"			\
	"	pushl %edi\n"			\
	"	pushl %esi\n"			\
	"	pushl %edx\n"			\
	"	pushl %ecx\n"			\
	"	pushl %ebx\n"

#define RESTORE_REGS_STRING			\
	"	popl %ebx\n"			\
	"	popl %ecx\n"			\
	"	popl %edx\n"			\
	"	popl %esi\n"			\
	"	popl %edi\n"			\
	"	popl %ebp\n"			\
	"	popl %eax\n"			\
	"	addl $28, %esp\n"
#endif

/*
 * What the trampolines' asm needs of the width: a word, the registers
 * that carry a C function's first two arguments (i386 builds with
 * -mregparm=3; the callbacks are not asmlinkage), and the pt_regs
 * offsets it writes (static_assert'ed in core.c and opt.c).
 */
#ifdef CONFIG_X86_64
#define KP_WORD		8
#define KP_ARG1		"%rdi"
#define KP_ARG2		"%rsi"
#define KP_REGS_IP	128
#define KP_REGS_SP	152
#define KP_REGS_SIZE	168
#else
#define KP_WORD		4
#define KP_ARG1		"%eax"
#define KP_ARG2		"%edx"
#define KP_REGS_IP	48
#define KP_REGS_SP	60
#define KP_REGS_SIZE	68
#endif
#define KP_SP		"%" _ASM_SP
#define KP_AX		"%" _ASM_AX

/*
 * The ends of a trampoline's pt_regs frame: KP_REGS_OPEN reserves
 * regs->ss and regs->sp and pushes regs->flags, leaving the flags as
 * they were (lea, not sub), for SAVE_REGS_STRING to go on from;
 * KP_REGS_CLOSE undoes SAVE_REGS_STRING and KP_REGS_OPEN, the flags
 * restored from regs->flags.
 */
#define KP_REGS_OPEN							\
	"	lea -" __stringify(2 * KP_WORD) "(" KP_SP "), " KP_SP "\n"	\
	"	pushf\n"

#define KP_REGS_CLOSE							\
	RESTORE_REGS_STRING						\
	"	popf\n"							\
	"	lea " __stringify(2 * KP_WORD) "(" KP_SP "), " KP_SP "\n"

/*
 * A detour stub (opt.c; a carrier's hit stub, carrier.c): at 0 the site
 * whose probes a hit runs, at OPT_CALL_OFFSET a call to
 * kprobe_opt_trampoline, at OPT_COPY_OFFSET the instructions it stands
 * for, then a jump back.
 * Literals: the trampoline's asm uses one.
 */
#define OPT_CALL_OFFSET	8
#define OPT_COPY_OFFSET	13

/* decode.c, for core.c, carrier.c and opt.c */
struct kprobe_site;
struct arch_specific_insn;
int kprobe_decode_at(unsigned long addr, struct insn *insn, u8 *buf);
int kprobe_copy_insn(struct kprobe_site *s, struct insn *insn,
		     kprobe_opcode_t *to, u8 *buf);
bool kprobe_insn_refused(struct insn *insn);
void kprobe_insn_classify(struct insn *insn, struct arch_specific_insn *ai);
bool kprobe_insn_jumps_into(struct insn *insn, unsigned long a,
			    unsigned long from, unsigned long to);
/* carrier.c */
struct kprobe_frame;
struct pt_regs;
void kprobe_carried_post(struct kprobe_site *s, struct kprobe_frame *f,
			 struct pt_regs *regs);
int kprobe_int3_carrier(struct pt_regs *regs, struct kprobe_site *c);
bool kprobe_carrier_called(struct kprobe_site *s, struct pt_regs *regs);
/* opt.c: where a detoured site's hit goes on (its copied instructions) */
#ifdef CONFIG_OPTPROBES
unsigned long kprobe_opt_copy(struct kprobe_site *s);
#else
static inline unsigned long kprobe_opt_copy(struct kprobe_site *s)
{
	return 0;
}
#endif
/* core.c: the kretprobe trampoline's C half */
void kretprobe_trampoline_callback(struct pt_regs *regs);
/* jprobes.c: jprobe_return()'s int3 at addr, handled (1) or not ours (0) */
int jprobe_return_trap(struct pt_regs *regs, struct kprobe_ctlblk *kcb,
		       unsigned long addr);

/*
 * A trampoline's pt_regs (built by SAVE_REGS_STRING_AT, which set cs, ip
 * and orig_ax) as a kernel trap frame would show them: the kernel's stack
 * segment, and on i386 the segment slot's upper half clear rather than
 * stack garbage.
 */
static __always_inline void kprobe_regs_fill(struct pt_regs *regs)
{
#ifdef CONFIG_X86_32
	regs->__ssh = 0;
#endif
	regs->ss = __KERNEL_DS;
}

#endif /* __X86_KERNEL_KPROBES_COMMON_H */
