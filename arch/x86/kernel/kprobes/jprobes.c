// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * x86 jprobes: the excursion from a hit into a jprobe's handler, which
 * runs with the probed function's arguments on a mirror of its stack,
 * and the way back into the hit through the int3 of jprobe_return().
 */
#include <linux/kprobes.h>
#include <linux/kprobes_backend.h>
#include <linux/export.h>
#include <linux/irqflags.h>
#include <linux/kasan.h>
#include <linux/objtool.h>
#include <linux/preempt.h>
#include <linux/printk.h>
#include <linux/sched.h>
#include <asm/asm.h>
#include <asm/nospec-branch.h>
#include <asm/stacktrace.h>

#include "common.h"

/*
 * A jprobe's excursion under way on this CPU.  Only one per CPU can be:
 * handlers run only for a hit on a CPU running none.
 */
struct jprobe_excursion {
	struct pt_regs regs;	/* the probed function's, at the hit */
	void *entry;		/* the handler under way */
};

static DEFINE_PER_CPU(struct jprobe_excursion, jprobe_excursion);

/**
 * arch_jprobe_setjmp() - leave a hit for a jprobe's handler
 * @jp: the jprobe whose pre_handler runs
 * @regs: the probed function's registers at its entry
 *
 * Called as a pre_handler, from the top frame of this CPU (the hit), on
 * the int3 or the ftrace path, with interrupts off.  The excursion:
 *
 *  1. Here: save the probed function's registers in this CPU's
 *     excursion record, mark the hit's frame KPROBE_HIT_JPROBE and send
 *     the trap's return (or ftrace's, whose ftrace_ops has IPMODIFY) to
 *     jprobe_trampoline with interrupts still off.  The frame stays
 *     pushed: kprobe_running() is the jprobe until it returns, so a probe
 *     hit meanwhile, the same function's included, counts nmissed.
 *  2. jprobe_trampoline runs the handler on a mirror of the function's
 *     argument area, whose return address is jprobe_return.
 *  3. jprobe_return(), called by the handler or returned to, tells
 *     lockdep the interrupt state the function will have again
 *     (jprobe_return_prepare()) and executes an int3 we know;
 *     kprobe_int3_handler() hands it to jprobe_return_trap().
 *  4. jprobe_longjmp() puts the saved registers in the trap frame (stack
 *     pointer included: the handler's frames are dropped) and lets the
 *     hit go on from the jprobe on (kprobe_jprobe_resume()).
 *
 * Interrupts are off from the hit to the longjmp, which is what lets
 * unregister_jprobe() wait for handlers with one IPI round, as for every
 * hit.  Lockdep is told so on the way out (jprobe_trampoline_enter(): the
 * trap's exit restored its view from before the hit) and told the
 * function's state on the way back.
 *
 * Return: 1: regs->ip was changed, the frame is kept (KPROBE_HIT_JPROBE).
 */
int arch_jprobe_setjmp(struct jprobe *jp, struct pt_regs *regs)
{
	struct kprobe_frame *f = kprobe_frame_top(get_kprobe_ctlblk());
	struct jprobe_excursion *jx = this_cpu_ptr(&jprobe_excursion);

	jx->regs = *regs;
	jx->entry = jp->entry;
	f->status = KPROBE_HIT_JPROBE;
	/* handlers run with preemption off; balanced in the longjmp */
	preempt_disable_notrace();
	regs->flags &= ~X86_EFLAGS_IF;
	regs->ip = (unsigned long)jprobe_trampoline;
	return 1;
}

NOKPROBE_SYMBOL(arch_jprobe_setjmp);

/* which stack orig is on, and its end (32-bit x86 has no noinstr version) */
static nokprobe_inline bool jprobe_stack_info(unsigned long *orig,
					      struct stack_info *info)
{
#ifdef CONFIG_X86_64
	return get_stack_info_noinstr(orig, current, info);
#else
	return !get_stack_info(orig, current, info, NULL);
#endif
}

/*
 * From jprobe_trampoline, on the probed function's stack with interrupts
 * off: fill the mirror (JPROBE_MAX_STACK_SIZE bytes just below the
 * function's stack pointer) and return the handler to jump to.  Words
 * beyond the end of the stack the function runs on are not read (zero).
 */
__used __visible void *jprobe_trampoline_enter(unsigned long *mirror)
{
	struct jprobe_excursion *jx = this_cpu_ptr(&jprobe_excursion);
	unsigned long *orig = (unsigned long *)jx->regs.sp;
	unsigned long n = JPROBE_MAX_STACK_SIZE / sizeof(long), avail = 1, i;
	struct stack_info info;

	/* the trap's exit told lockdep what it saw before the hit */
	trace_hardirqs_off();
	if (jprobe_stack_info(orig, &info))
		avail = min_t(unsigned long, n, (unsigned long *)info.end - orig);
	mirror[0] = (unsigned long)jprobe_return;
	/*
	 * Past the arguments is the caller's frame, redzones included:
	 * read it as the unwinders do, without KASAN's checks.
	 */
	for (i = 1; i < n; i++)
		mirror[i] = i < avail ? READ_ONCE_NOCHECK(orig[i]) : 0;
	return jx->entry;
}

NOKPROBE_SYMBOL(jprobe_trampoline_enter);

/*
 * jprobe_trampoline: entered by the trap's (or ftrace's) return with the
 * function's registers and stack pointer, interrupts off.  It does not
 * call the handler on that stack: it builds a mirror of the argument
 * area just below it, the first JPROBE_MAX_STACK_SIZE bytes from the
 * return address up, with the return address replaced by jprobe_return,
 * and jumps to the handler with the stack pointer at the mirror.  The
 * handler sees the arguments where the ABI puts them (registers, and
 * stack arguments up to the bound), may scribble over its stack
 * arguments as a callee may, and the original ones stay untouched, so
 * nothing is copied back.  A handler that simply returns ends up in
 * jprobe_return() too.
 *
 * The argument registers are kept around the C call: on x86_64 %rdi..%r9
 * and %rax (the vector count of a varargs call), with %r11 free at a
 * function's entry (call-clobbered, no argument) to carry the handler's
 * address; on i386 (-mregparm=3) %eax, %edx and %ecx, with %ebx carrying
 * it: every call-clobbered register is an argument there, and the
 * handler keeps %ebx for its caller, whose registers the longjmp reloads
 * anyway.
 */
#ifdef CONFIG_X86_64
asm(".pushsection .kprobes.text, \"ax\"\n"
	".type jprobe_trampoline, @function\n"
	"jprobe_trampoline:\n"
	ANNOTATE_NOENDBR	/* reached by iret or ret only */
	"	subq $" __stringify(JPROBE_MAX_STACK_SIZE) ", %rsp\n"
	"	pushq %rdi\n"
	"	pushq %rsi\n"
	"	pushq %rdx\n"
	"	pushq %rcx\n"
	"	pushq %r8\n"
	"	pushq %r9\n"
	"	pushq %rax\n"
	"	leaq 56(%rsp), %rdi\n"		/* the mirror */
	"	call jprobe_trampoline_enter\n"
	"	movq %rax, %r11\n"
	"	popq %rax\n"
	"	popq %r9\n"
	"	popq %r8\n"
	"	popq %rcx\n"
	"	popq %rdx\n"
	"	popq %rsi\n"
	"	popq %rdi\n"
#ifdef CONFIG_MITIGATION_RETPOLINE
	"	jmp __x86_indirect_thunk_r11\n"
#else
	ANNOTATE_RETPOLINE_SAFE
	"	jmp *%r11\n"
#endif
	".size jprobe_trampoline, .-jprobe_trampoline\n"
	".popsection\n"
);
#else
asm(".pushsection .kprobes.text, \"ax\"\n"
	".type jprobe_trampoline, @function\n"
	"jprobe_trampoline:\n"
	"	subl $" __stringify(JPROBE_MAX_STACK_SIZE) ", %esp\n"
	"	pushl %eax\n"
	"	pushl %edx\n"
	"	pushl %ecx\n"
	"	leal 12(%esp), %eax\n"		/* the mirror */
	"	call jprobe_trampoline_enter\n"
	"	movl %eax, %ebx\n"
	"	popl %ecx\n"
	"	popl %edx\n"
	"	popl %eax\n"
#ifdef CONFIG_MITIGATION_RETPOLINE
	"	jmp __x86_indirect_thunk_ebx\n"
#else
	"	jmp *%ebx\n"
#endif
	".size jprobe_trampoline, .-jprobe_trampoline\n"
	".popsection\n"
);
#endif
NOKPROBE_SYMBOL(jprobe_trampoline);
/* it jumps to the handler with the mirror below its own frame */
STACK_FRAME_NON_STANDARD(jprobe_trampoline);

/*
 * From jprobe_return() (jprobes_asm.S), before its int3: the trap's exit
 * will give lockdep back what it sees now, so make that the interrupt
 * state the probed function gets back.
 */
__used __visible void jprobe_return_prepare(void)
{
	struct kprobe_frame *f = kprobe_frame_top(get_kprobe_ctlblk());

	if (f && f->status == KPROBE_HIT_JPROBE &&
	    (this_cpu_ptr(&jprobe_excursion)->regs.flags & X86_EFLAGS_IF))
		trace_hardirqs_on();
}

NOKPROBE_SYMBOL(jprobe_return_prepare);

/*
 * jprobe_return() is jprobes_asm.S's, exported here: with MODVERSIONS
 * its version is a CRC of the C prototype (<linux/kprobes.h>), which an
 * export from assembly would not have.
 */
EXPORT_SYMBOL_GPL(jprobe_return);

/*
 * The int3 of jprobe_return() was hit (regs: the trap's, at the end of
 * the handler): the function's registers back, and the hit goes on.
 */
static int jprobe_longjmp(struct pt_regs *regs, struct kprobe_ctlblk *kcb)
{
	struct jprobe_excursion *jx = this_cpu_ptr(&jprobe_excursion);
	struct kprobe_frame *f = kprobe_frame_top(kcb);
	struct pt_regs trap;

	if (!f || f->status != KPROBE_HIT_JPROBE) {
		pr_warn_once("jprobe_return() called outside a jprobe handler, from %pS\n",
			     (void *)*(unsigned long *)(regs->sp + sizeof(long)));
		return 1;	/* regs->ip is past the int3 already */
	}
	/*
	 * The function's registers, flags and stack pointer; the trap's
	 * segments and orig_ax.  Whole words: i386's kernel-mode entry keeps
	 * its own state in the upper half of cs (CS_FROM_KERNEL, which makes
	 * its exit honour a changed sp), and the excursion may have begun on
	 * ftrace, whose frame has none.
	 */
	trap = *regs;
	*regs = jx->regs;
	regs->orig_ax = trap.orig_ax;
	regs->cs = trap.cs;
	regs->ss = trap.ss;
#ifdef CONFIG_X86_32
	regs->__csh = trap.__csh;
	regs->__ssh = trap.__ssh;
	regs->ds = trap.ds;
	regs->__dsh = trap.__dsh;
	regs->es = trap.es;
	regs->__esh = trap.__esh;
	regs->fs = trap.fs;
	regs->__fsh = trap.__fsh;
	regs->gs = trap.gs;
	regs->__gsh = trap.__gsh;
#endif
	preempt_enable_no_resched_notrace();
	/*
	 * The handler's frames are dropped without their epilogues: clear
	 * the KASAN redzones they left below the function's stack pointer.
	 */
	kasan_unpoison_task_stack_below((void *)regs->sp);
	return kprobe_jprobe_resume(regs, kcb, f);
}

NOKPROBE_SYMBOL(jprobe_longjmp);

/* core.c asks about each int3 of .kprobes.text that is not a site */
int jprobe_return_trap(struct pt_regs *regs, struct kprobe_ctlblk *kcb,
		       unsigned long addr)
{
	if (addr != (unsigned long)jprobe_return_break)
		return 0;
	return jprobe_longjmp(regs, kcb);
}

NOKPROBE_SYMBOL(jprobe_return_trap);
