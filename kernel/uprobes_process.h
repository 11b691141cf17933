/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Per-process uprobes: what the API half (uprobes_process.c) and
 * the engine binding that places its probepoints (uprobes_inode.c) share.
 *
 * The API half knows processes, probepoints and the probes on
 * them; it never looks inside struct uprobe_site.  The engine binding
 * knows how a (process, address) pair becomes a breakpoint and calls
 * uprobe_point_hit() when the probed thread reaches it.  Another engine
 * (one that can probe anonymous or JIT memory, which the inode engine
 * cannot) would provide the same five functions and its own struct
 * uprobe_site.
 */
#ifndef _KERNEL_UPROBES_PROCESS_H
#define _KERNEL_UPROBES_PROCESS_H

#include <linux/uprobes.h>
#include <linux/list.h>
#include <linux/fs.h>

struct seq_file;

/* Where the engine keeps one probepoint: a consumer of an inode probe. */
struct uprobe_site {
	struct uprobe_consumer uc;	/* filter: only this point's mm */
	struct inode_uprobe *iu;	/* the probe at (inode, offset) */
	struct file *file;		/* keeps the inode and its mount */
	loff_t offset;			/* of the instruction in @file */
};

/* A probed address space: one per mm that has probepoints. */
struct uprobe_process {
	struct mm_struct *mm;		/* mmgrab()ed: never reused under us */
	pid_t tgid;			/* as register_uprobe() resolved it */
	bool dead;			/* the mm is gone; reaping is queued */
	struct list_head points;	/* struct uprobe_point, under the mutex */
	struct list_head node;		/* on uprobe_processes */
};

/* One probed instruction of one process; its probes run in order. */
struct uprobe_point {
	struct uprobe_process *proc;
	unsigned long vaddr;
	struct list_head probes;	/* struct uprobe, RCU-tasks-trace */
	struct list_head node;		/* on proc->points */
	struct uprobe_site site;	/* the engine's part */
};

/* The engine binding (uprobes_inode.c) */
int uprobe_site_attach(struct uprobe_point *pp, struct mm_struct *mm);
void uprobe_site_detach(struct uprobe_point *pp);
void uprobe_site_sync(void);
void uprobe_site_release(struct uprobe_point *pp);
void uprobe_site_show(struct seq_file *m, struct uprobe_point *pp);
bool uprobe_site_in_handler(void);

/* ... and what it calls back (uprobes_process.c) */
void uprobe_point_hit(struct uprobe_point *pp, struct pt_regs *regs);

#endif /* _KERNEL_UPROBES_PROCESS_H */
