/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the memory engine of per-process uprobes shares between its files:
 * uprobes_mem.c (sites, hits, fork, unmap) and uprobes_mem_slots.c (the
 * pages of slots where probed instructions run out of line).
 */
#ifndef _KERNEL_UPROBES_MEM_H
#define _KERNEL_UPROBES_MEM_H

#include <linux/atomic.h>
#include <linux/build_bug.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/uprobes.h>
#include <linux/uprobes_mem.h>

/* struct uprobe_mem_site.flags */
#define UPROBE_MEM_GONE		0	/* its code went: rewritten or unmapped */
#define UPROBE_MEM_EXITED	1	/* its mm exited */
#define UPROBE_MEM_FRONT	2	/* in front of an inode point */
#define UPROBE_MEM_FRONT_GONE	3	/* a front whose memory went */

/* What runs in place of a site's breakpoint. */
struct uprobe_mem_insn {
	struct arch_uprobe_mem_insn arch; /* the arch's decode and emulation */
	u8 insn[MAX_UINSN_BYTES];	/* the instruction as it was */
	u8 len;
	unsigned long slot;		/* its slot, or 0: emulated only */
};

/*
 * The breakpoint is the arch's uprobes one, UPROBE_SWBP_INSN, over the
 * first UPROBE_SWBP_INSN_SIZE bytes of the instruction.
 */
static_assert(sizeof(uprobe_opcode_t) == UPROBE_SWBP_INSN_SIZE);

/* the opcode in the first UPROBE_SWBP_INSN_SIZE bytes at @p */
static inline uprobe_opcode_t uprobe_mem_opcode(const u8 *p)
{
	uprobe_opcode_t op;

	memcpy(&op, p, sizeof(op));
	return op;
}

/* is the breakpoint at @p? */
static inline bool uprobe_mem_is_bp(const u8 *p)
{
	return uprobe_mem_opcode(p) == UPROBE_SWBP_INSN;
}

/* the sites and the slot pages: the lists, and the hash table's writers */
extern spinlock_t uprobe_mem_lock;
extern struct list_head uprobe_mem_sites;

struct uprobe_mem_site;
bool uprobe_mem_site_lost(struct uprobe_mem_site *s);
void uprobe_mem_site_list(struct uprobe_mem_site *s, struct list_head *list);
void uprobe_mem_site_unlist(struct uprobe_mem_site *s);
int uprobe_mem_insn_analyze(struct uprobe_mem_insn *mi, struct mm_struct *mm,
			    unsigned long vaddr, int n);

/* the fronts (uprobes_mem_front.c) */
bool uprobe_mem_front_takes(struct uprobe_mem_site *s, struct pt_regs *regs,
			    bool same);
void uprobe_mem_fronts_lost(struct mm_struct *mm, unsigned long start,
			    unsigned long end, bool slots);

unsigned long uprobe_mem_slot_get(struct mm_struct *mm,
				  struct uprobe_mem_insn *mi,
				  unsigned long vaddr);
bool uprobe_mem_slot_trap(struct pt_regs *regs);
void uprobe_mem_slot_enter(struct pt_regs *regs, unsigned long slot);
void uprobe_mem_slots_exit(struct mm_struct *mm);
unsigned long uprobe_mem_ret_tramp(struct mm_struct *mm);
bool uprobe_mem_is_ret_tramp(struct mm_struct *mm, unsigned long addr);
unsigned int uprobe_mem_tramp_gen_read(void);

/* return probes (uprobes_ret.c) */
extern atomic_t uprobe_ret_threads;

/* may a user breakpoint be a return trampoline's?  (threads with records) */
static inline bool uprobe_ret_trap_possible(void)
{
	return atomic_read(&uprobe_ret_threads);
}

bool uprobe_ret_trap(struct pt_regs *regs, unsigned long bp);
void uprobe_ret_fork(struct task_struct *t, unsigned long flags);

#endif /* _KERNEL_UPROBES_MEM_H */
