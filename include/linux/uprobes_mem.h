/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _LINUX_UPROBES_MEM_H
#define _LINUX_UPROBES_MEM_H
/*
 * The hooks of the per-process layer's memory engine (kernel/uprobes_mem.c),
 * which writes its own breakpoints in anonymous and writable memory of one
 * process: the arch's breakpoint exception asks it first about a user
 * breakpoint, and the inode engine calls it on an unmap, a signal, a fork
 * and an mm's teardown.  They live here rather than in <linux/uprobes.h>,
 * which <linux/mm_types.h> brings into most of the kernel: only their
 * callers include this header.  So does the arch's part of the engine,
 * for the interface it implements (arch_uprobe_mem_*, below).
 */
#include <linux/types.h>
#ifdef CONFIG_UPROBES_MEM
#include <asm/uprobes_mem.h>	/* the arch's part of the engine, below */
#endif

struct uprobe;
struct mm_struct;
struct pt_regs;
struct task_struct;
struct uprobe_consumer;
struct uprobe_task;
struct vm_area_struct;

#ifdef CONFIG_UPROBES
/* current's uprobe_task, allocated on first use (kernel/events/uprobes.c) */
struct uprobe_task *uprobe_get_utask(void);
/* is @uc the inode probe's only consumer? (kernel/events/uprobes.c) */
bool uprobe_sole_consumer(struct uprobe *uprobe,
			  struct uprobe_consumer *uc);
#endif

#ifdef CONFIG_UPROBES_MEM
bool uprobe_mem_int3(struct pt_regs *regs);
void uprobe_mem_munmap(struct vm_area_struct *vma, unsigned long start,
		       unsigned long end);
bool uprobe_mem_signal(void);
unsigned long uprobe_mem_trap_addr(struct pt_regs *regs);
bool uprobe_mem_has_sites(struct mm_struct *mm);
void uprobe_mem_dup_mmap(struct mm_struct *oldmm, struct mm_struct *newmm);
void uprobe_mem_fork(struct task_struct *t, unsigned long flags);
void uprobe_mem_mm_exit(struct mm_struct *mm);

/*
 * The arch's part of the engine (arch/ARCH/kernel/uprobes_mem.c and
 * <asm/uprobes_mem.h>), which kernel/uprobes_mem*.c call.  An arch gets
 * CONFIG_UPROBES_MEM (arch/Kconfig: UPROBES && X86_64 for now) by
 * providing both; the engine is arch-neutral otherwise.
 *
 * Its breakpoint is the arch's uprobes one (<asm/uprobes.h>):
 * UPROBE_SWBP_INSN, a uprobe_opcode_t of UPROBE_SWBP_INSN_SIZE bytes,
 * written over the first bytes of the probed instruction; the arch's
 * breakpoint trap asks uprobe_mem_int3() first, and
 * uprobe_get_swbp_addr() gives its address from the trap's registers.
 *
 * <asm/uprobes_mem.h> defines:
 *
 * struct arch_uprobe_mem_insn - what the arch decoded of one probed
 *	instruction and how it runs it; it has a member
 *	``struct arch_uprobe auprobe``, to which the engine points
 *	utask->auprobe while the handlers run, as handler_chain() does.
 * UPROBE_MEM_SLOT_SIZE - bytes of a slot: a divisor of PAGE_SIZE, and
 *	twice UPROBE_MEM_SLOT_TRAP.
 * UPROBE_MEM_SLOT_TRAP - offset in a slot of its second copy: each copy
 *	is followed, in the UPROBE_MEM_SLOT_TRAP bytes it has, by the
 *	first copy's way back to the next instruction and the second
 *	copy's breakpoint (an ip there means the copy has run).
 * UPROBE_MEM_REACH - how far from the probed instruction its slot may be.
 * UPROBE_MEM_MAP_TOP - the highest end of a page of slots.
 * UPROBE_MEM_TRAP_NR, UPROBE_MEM_HELD_NR - values of the thread's trap
 *	number (arch_uprobe_mem_trap_nr()) that no trap writes: on its way
 *	to a slot, and waiting for the second copy's breakpoint.
 * UPROBE_MEM_NEW_TRAP_NR - a new thread's trap number.
 *
 * and these, inline, for the hit path:
 *
 * unsigned long arch_uprobe_mem_trap_nr(void) - current's trap number:
 *	a word of the thread that every trap and fault it takes sets.
 * void arch_uprobe_mem_set_trap_nr(unsigned long nr) - sets it.
 * bool arch_uprobe_mem_regs_ok(struct pt_regs *regs) - may a hit with
 *	@regs run a site's instruction (the mode it was decoded for)?
 * bool arch_uprobe_mem_emulate(struct arch_uprobe_mem_insn *ai,
 *	unsigned int len, struct pt_regs *regs) - after the handlers, run
 *	the instruction of @len bytes at the breakpoint's address by
 *	changing @regs (and memory) as the CPU would; false if it was not.
 */

/**
 * arch_uprobe_mem_mm_ok - can the engine probe code of @mm?
 * @mm: the address space of a point being attached
 *
 * Return: true if its sites' instructions can be decoded and run.
 */
bool arch_uprobe_mem_mm_ok(struct mm_struct *mm);

/**
 * arch_uprobe_mem_analyze - decode an instruction, and say how it will run
 * @ai: its decode, zeroed; filled here
 * @bytes: MAX_UINSN_BYTES bytes from its address, @n of them the program's
 * @n: how many (the rest may be beyond the mapping's end)
 * @len: set to the instruction's length
 * @mm: the address space it is probed in
 * @vaddr: ... and its address there
 *
 * Context: process context, may sleep.
 * Return: 1 if it runs from a slot (arch_uprobe_mem_build_slot()), when
 * arch_uprobe_mem_emulate() does not run it; 0 if emulated only, with no
 * slot; -EOPNOTSUPP for one that can run neither way, -EFAULT for a
 * truncated one.
 */
int arch_uprobe_mem_analyze(struct arch_uprobe_mem_insn *ai, const u8 *bytes,
			    int n, u8 *len, struct mm_struct *mm,
			    unsigned long vaddr);

/**
 * arch_uprobe_mem_no_slot - an instruction with no slot was not emulated
 * @ai: its decode
 * @regs: the hit's registers, ip at the breakpoint's address
 *
 * arch_uprobe_mem_emulate() failed for an instruction that has no slot:
 * do what the CPU would have done running it (a signal).
 *
 * Context: the hit, interrupts on.
 */
void arch_uprobe_mem_no_slot(struct arch_uprobe_mem_insn *ai,
			     struct pt_regs *regs);

/**
 * arch_uprobe_mem_falls - does the instruction go on at the next one?
 * @bytes: the instruction
 * @len: its length
 *
 * Return: false for one that never does (a return, an indirect jump): a
 * thread whose signals would wait for it is not held.
 */
bool arch_uprobe_mem_falls(const u8 *bytes, unsigned int len);

/**
 * arch_uprobe_mem_build_slot - the bytes of a slot for an instruction
 * @ai: its decode
 * @bytes: the instruction as it was
 * @len: its length
 * @vaddr: its address
 * @slot: the slot's address
 * @b: UPROBE_MEM_SLOT_SIZE bytes to fill
 *
 * At offset 0 a copy of the instruction that runs at @slot as it would
 * at @vaddr, then the way back to @vaddr + @len, with no trap; at
 * UPROBE_MEM_SLOT_TRAP a second copy, followed by the breakpoint.  The
 * same arguments give the same bytes (a slot holding them is reused).
 *
 * Return: false if no copy at @slot can run as at @vaddr (out of reach).
 */
bool arch_uprobe_mem_build_slot(const struct arch_uprobe_mem_insn *ai,
				const u8 *bytes, unsigned int len,
				unsigned long vaddr, unsigned long slot, u8 *b);

/**
 * arch_uprobe_ret_hijack - at a function's first instruction, make its
 *	return go to a trampoline
 * @regs: the entry hit's registers
 * @tramp: the trampoline's address
 * @ret: set to the return address that was there
 *
 * Replaces the return address the call left (and its copy in a shadow
 * stack, if the thread has one) by @tramp; the word it was in is at
 * user_stack_pointer(@regs).
 *
 * Context: the probed thread, task context, may fault user pages in.
 * Return: 0, or -EFAULT with nothing changed.
 */
int arch_uprobe_ret_hijack(struct pt_regs *regs, unsigned long tramp,
			   unsigned long *ret);

/**
 * arch_uprobe_ret_restore - put a return address back on current's stack
 * @stack: the word it was in (as user_stack_pointer() at the entry)
 * @tramp: the trampoline's address, which the word should hold
 * @ret: the address
 *
 * For a fork child, whose copy of its parent's stack has the trampoline's
 * address where the parent's probed calls will return from.  A word that
 * does not hold @tramp, or cannot be written, is left alone.
 *
 * Context: current, task context, before it returns to user space.
 */
void arch_uprobe_ret_restore(unsigned long stack, unsigned long tramp,
			     unsigned long ret);

#else
static inline bool uprobe_mem_int3(struct pt_regs *regs)
{
	return false;
}

static inline void uprobe_mem_munmap(struct vm_area_struct *vma,
				     unsigned long start, unsigned long end)
{
}

static inline bool uprobe_mem_signal(void)
{
	return false;
}

/* as uprobe_get_trap_addr(): <asm/ptrace.h> may not be included here */
#define uprobe_mem_trap_addr(regs)	instruction_pointer(regs)

static inline bool uprobe_mem_has_sites(struct mm_struct *mm)
{
	return false;
}

static inline void uprobe_mem_dup_mmap(struct mm_struct *oldmm,
				       struct mm_struct *newmm)
{
}

static inline void uprobe_mem_fork(struct task_struct *t, unsigned long flags)
{
}

static inline void uprobe_mem_mm_exit(struct mm_struct *mm)
{
}
#endif

#endif /* _LINUX_UPROBES_MEM_H */
