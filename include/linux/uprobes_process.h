/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-process user-space probes: register_uprobe(pid, vaddr), the API of
 * the original Uprobes, kept as a layer over the inode probes of
 * <linux/uprobes.h> (kernel/uprobes_process.c).
 *
 * The original called its probe struct uprobe.  6.12's engine took that
 * name for its probe on an inode and offset, which uprobe_register()
 * returns to modules (LTTng, SystemTap), so the per-process probe is a
 * struct process_uprobe, and lives in this header, which also declares
 * the engine's hooks for the layer: SystemTap takes a register_uprobe()
 * in <linux/uprobes.h> for the 3.5-era inode API, and that header, which
 * <linux/mm_types.h> brings into most of the kernel, stays as it was.
 */
#ifndef _LINUX_UPROBES_PROCESS_H
#define _LINUX_UPROBES_PROCESS_H

#include <linux/errno.h>
#include <linux/types.h>

struct inode;
struct mm_struct;
struct pt_regs;
struct uprobe_point;

/**
 * struct process_uprobe - a probe on one instruction of one process
 * @pid: the process to probe (any of its thread IDs names it)
 * @vaddr: address of the probed instruction in that process
 * @handler: run in the probed thread each time it reaches @vaddr, before
 *	the instruction; it may sleep and may change @regs (a changed ip
 *	skips the instruction)
 * @registration_callback: for a register_uprobe() or unregister_uprobe()
 *	called from a uprobe handler, and so delayed: called once the
 *	operation is done, with @reg 1 or 0 and the result register_uprobe()
 *	would have returned (always 0 for unregister)
 *
 * The caller sets @pid, @vaddr, @handler and, if needed,
 * @registration_callback, and leaves the rest zeroed.
 */
struct process_uprobe {
	pid_t pid;
	unsigned long vaddr;
	void (*handler)(struct process_uprobe *u, struct pt_regs *regs);
	void (*registration_callback)(struct process_uprobe *u, int reg,
				      int result);

	/* private: reserved for the uprobes layer */
	struct uprobe_point *point;	/* the probepoint it is on */
	struct list_head list;		/* on point->probes, in order */
	int state;			/* enum uprobe_state, uprobes_process.c */
};

#ifdef CONFIG_UPROBES
int register_uprobe(struct process_uprobe *u);
void unregister_uprobe(struct process_uprobe *u);

/* the inode engine's hooks for this layer (kernel/events/uprobes.c) */
bool uprobe_inode_registered(struct inode *inode, loff_t offset);
void uprobe_process_mm_exit(struct mm_struct *mm);
#else
static inline int register_uprobe(struct process_uprobe *u)
{
	return -EOPNOTSUPP;
}

static inline void unregister_uprobe(struct process_uprobe *u)
{
}
#endif

#endif /* _LINUX_UPROBES_PROCESS_H */
