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
struct task_struct;
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

struct uretprobe_instance;
struct uretprobe_pool;

/**
 * struct uretprobe - a probe on the returns of one function of one process
 * @up: @up.pid and @up.vaddr name the process and the function's first
 *	instruction; @up.registration_callback, if set, is called as for a
 *	delayed register_uprobe(); the other fields of @up are the layer's
 * @handler: run in the probed thread each time the function returns, with
 *	@regs as the return left them (the return value in the arch's
 *	return register, ip at the address returned to); it may sleep
 * @maxactive: how many calls of the function may be in flight at once in
 *	the process, each holding an instance; 0 asks for a default.  A call
 *	made when all are taken is not probed and counts in @nmissed
 * @nmissed: calls whose return was not probed (no instance free, or the
 *	return address could not be read or written)
 *
 * The caller sets @up.pid, @up.vaddr, @handler and, if it likes,
 * @maxactive and @up.registration_callback, and leaves the rest zeroed.
 */
struct uretprobe {
	struct process_uprobe up;
	void (*handler)(struct uretprobe_instance *ri, struct pt_regs *regs);
	int maxactive;
	unsigned long nmissed;

	/* private: reserved for the uprobes layer */
	struct uretprobe_pool *pool;
	void (*user_callback)(struct process_uprobe *u, int reg, int result);
};

/**
 * struct uretprobe_instance - one call in flight of a uretprobe's function
 * @rp: the probe (valid while the handler runs)
 * @ret_addr: where the function returns to
 */
struct uretprobe_instance {
	struct uretprobe *rp;
	unsigned long ret_addr;

	/* private: reserved for the uprobes layer */
	struct uretprobe_pool *pool;
	unsigned long stack;		/* where the return address was */
	struct uretprobe_instance *next; /* the thread's, or the free list */
	bool chained;			/* found our trampoline in its word */
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

/* return probes need the memory engine's trampoline page */
#ifdef CONFIG_UPROBES_MEM
int register_uretprobe(struct uretprobe *rp);
void unregister_uretprobe(struct uretprobe *rp);
void uprobe_ret_task_exit(struct task_struct *t);
#else
static inline int register_uretprobe(struct uretprobe *rp)
{
	return -EOPNOTSUPP;
}

static inline void unregister_uretprobe(struct uretprobe *rp)
{
}

static inline void uprobe_ret_task_exit(struct task_struct *t)
{
}
#endif

#endif /* _LINUX_UPROBES_PROCESS_H */
