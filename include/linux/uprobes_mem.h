/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _LINUX_UPROBES_MEM_H
#define _LINUX_UPROBES_MEM_H
/*
 * The hooks of the per-process layer's memory engine (kernel/uprobes_mem.c),
 * which writes its own breakpoints in anonymous and writable memory of one
 * process: the int3 exception asks it first about a user breakpoint, and
 * the inode engine calls it on an unmap, a signal, a fork and an mm's
 * teardown.  They live here rather than in <linux/uprobes.h>, which
 * <linux/mm_types.h> brings into most of the kernel: only their callers
 * include this header.
 */
#include <linux/types.h>

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
