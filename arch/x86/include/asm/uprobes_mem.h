/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef _ASM_X86_UPROBES_MEM_H
#define _ASM_X86_UPROBES_MEM_H
/*
 * x86's types, constants and hit-path inlines for the per-process uprobes
 * memory engine (kernel/uprobes_mem*.c), as the arch_uprobe_mem_*
 * interface of <linux/uprobes_mem.h> asks; the rest of x86's part is in
 * arch/x86/kernel/uprobes_mem.c.  64-bit processes only.
 */
#include <linux/sched.h>
#include <linux/sizes.h>
#include <linux/uaccess.h>
#include <linux/uprobes.h>
#include <asm/processor-flags.h>
#include <asm/ptrace.h>

/*
 * A slot: the instruction, "jmp *0(%rip)" and the address of the next
 * one (at most 16 + 6 + 8 bytes), and at UPROBE_MEM_SLOT_TRAP a second
 * copy followed by an int3 (arch_uprobe_mem_build_slot()).
 */
#define UPROBE_MEM_SLOT_SIZE	64
#define UPROBE_MEM_SLOT_TRAP	32
/* slot to probed code, at most: a RIP-relative disp32 is rebased */
#define UPROBE_MEM_REACH	(SZ_1G)
/* the top of slot pages: the default 47-bit window, even on 5-level paging */
#define UPROBE_MEM_MAP_TOP	DEFAULT_MAP_WINDOW

/*
 * thread.trap_nr, which every exception of the thread sets, of a thread
 * the handlers send to a slot, until it traps; of one whose signals wait
 * for the slot's second copy (its int3).  x86's own uprobes single-step
 * with UINT_MAX there too (UPROBE_TRAP_NR of arch/x86/kernel/uprobes.c).
 * A new thread's is 0.
 */
#define UPROBE_MEM_TRAP_NR	UINT_MAX
#define UPROBE_MEM_HELD_NR	(UINT_MAX - 1)
#define UPROBE_MEM_NEW_TRAP_NR	0

/* What x86 decoded of a probed instruction, and how it runs it. */
struct arch_uprobe_mem_insn {
	struct arch_uprobe auprobe;	/* uprobes' decode and emulation */
	u8 disp_off;		/* of a RIP-relative displacement, or 0 */
	u8 push;		/* 1 + pt_regs offset of push's reg, or 0 */
	bool emulated;		/* by uprobes' emulation: a branch, a nop */
};

static __always_inline unsigned long arch_uprobe_mem_trap_nr(void)
{
	return current->thread.trap_nr;
}

static __always_inline void arch_uprobe_mem_set_trap_nr(unsigned long nr)
{
	current->thread.trap_nr = nr;
}

/* the engine's sites are in 64-bit code: a hit in 32-bit mode is not run */
static inline bool arch_uprobe_mem_regs_ok(struct pt_regs *regs)
{
	return user_64bit_mode(regs);
}

/*
 * A push, as the CPU would run it, ip at the int3: false if it cannot
 * be done here (no push, a debugger single-stepping, the stack not
 * writable), and the slot runs it (where it traps or faults as the
 * program's own push would).
 */
static inline bool arch_uprobe_mem_push(struct arch_uprobe_mem_insn *ai,
					unsigned int len, struct pt_regs *regs)
{
	unsigned long sp = regs->sp - sizeof(long);

	if (!ai->push || (regs->flags & X86_EFLAGS_TF) ||
	    put_user(regs_get_register(regs, ai->push - 1),
		     (unsigned long __user *)sp))
		return false;
	regs->sp = sp;
	regs->ip += len;
	return true;
}

/*
 * On the hit path, after the handlers: a push of a register here, with
 * one put_user(); a branch or a nop by uprobes' emulation.
 */
static inline bool arch_uprobe_mem_emulate(struct arch_uprobe_mem_insn *ai,
					   unsigned int len,
					   struct pt_regs *regs)
{
	return arch_uprobe_mem_push(ai, len, regs) ||
	       (ai->emulated && arch_uprobe_skip_sstep(&ai->auprobe, regs));
}

#endif /* _ASM_X86_UPROBES_MEM_H */
