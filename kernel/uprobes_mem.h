/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the memory engine of per-process uprobes shares between its files:
 * uprobes_mem.c (sites, hits, fork, unmap) and uprobes_mem_slots.c (the
 * pages of slots where probed instructions run out of line).
 */
#ifndef _KERNEL_UPROBES_MEM_H
#define _KERNEL_UPROBES_MEM_H

#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/uprobes.h>

/* struct uprobe_mem_site.flags */
#define UPROBE_MEM_LOST		0	/* the program took the code back */
#define UPROBE_MEM_DEAD		1	/* its mm is gone */

/* What runs in place of a site's int3. */
struct uprobe_mem_insn {
	struct arch_uprobe arch;	/* the arch's decode and emulation */
	u8 insn[MAX_UINSN_BYTES];	/* the instruction as it was */
	u8 len;
	u8 disp_off;			/* of a RIP-relative displacement, or 0 */
	u8 push;			/* 1 + pt_regs offset of push's reg, or 0 */
	bool emulated;			/* by the arch: a branch, a nop */
	unsigned long slot;		/* its slot, or 0: emulated only */
};

/* the sites and the slot pages: the lists, and the hash table's writers */
extern spinlock_t uprobe_mem_lock;
extern struct list_head uprobe_mem_sites;

struct uprobe_mem_site;
bool uprobe_mem_site_lost(struct uprobe_mem_site *s);

unsigned long uprobe_mem_slot_get(struct mm_struct *mm,
				  struct uprobe_mem_insn *mi,
				  unsigned long vaddr);
void uprobe_mem_slots_exit(struct mm_struct *mm);

#endif /* _KERNEL_UPROBES_MEM_H */
