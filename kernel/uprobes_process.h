/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Per-process uprobes: what the API half (uprobes_process.c) and
 * the engine binding that places its probepoints (uprobes_file.c) share.
 *
 * The API half knows processes, probepoints and the probes on
 * them; it never looks inside struct uprobe_site.  The engine binding
 * knows how a (process, address) pair becomes a breakpoint and calls
 * uprobe_point_hit() when the probed thread reaches it.  Two engines
 * place points: the kernel's inode engine (kernel/events/uprobes.c, for
 * read-only file text, shared with uprobe_events, perf and BPF) and the
 * memory engine (uprobes_mem.c, for anonymous and writable private
 * memory, which the inode engine cannot patch: JIT code).
 */
#ifndef _KERNEL_UPROBES_PROCESS_H
#define _KERNEL_UPROBES_PROCESS_H

#include <linux/uprobes.h>
#include <linux/uprobes_process.h>
#include <linux/list.h>
#include <linux/fs.h>
#include <linux/kconfig.h>

struct seq_file;

/* The inode engine's part of a probepoint: a consumer of an inode probe. */
struct uprobe_inode_site {
	struct uprobe_consumer uc;	/* filter: only this point's mm */
	struct uprobe *iu;		/* the probe at (inode, offset) */
	struct file *file;		/* keeps the inode and its mount */
	loff_t offset;			/* of the instruction in @file */
	struct uprobe_mem_site *front;	/* the memory engine's, or NULL */
};

struct uprobe_mem_insn;

/* The memory engine's part (uprobes_mem.c): a breakpoint of its own. */
struct uprobe_mem_site {
	struct hlist_node hnode;	/* in the hit table, RCU */
	struct list_head node;		/* on the engine's list of sites */
	struct uprobe_point *pp;	/* whose it is */
	struct mm_struct *mm;		/* the point's: with vaddr, the key */
	unsigned long vaddr;
	struct uprobe_mem_insn *mi;	/* what runs in place of the int3 */
	struct file *file;		/* a private file mapping's, or NULL */
	loff_t offset;			/* ... and the offset in it */
	unsigned long flags;		/* lost, dead (uprobes_mem.c) */
};

/* Where the engine keeps one probepoint; @mem says which engine. */
struct uprobe_site {
	bool mem;
	union {
		struct uprobe_inode_site ino;
		struct uprobe_mem_site m;
	};
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
	struct list_head probes;	/* struct process_uprobe, the engine's RCU */
	struct list_head node;		/* on proc->points */
	struct uprobe_site site;	/* the engine's part */
};

/*
 * The engine binding (uprobes_file.c): it places a point in the inode
 * engine when that engine can take the mapping (read-only private file
 * text) and hands the others to the memory engine.
 */
int uprobe_site_attach(struct uprobe_point *pp, struct mm_struct *mm);
void uprobe_site_detach(struct uprobe_point *pp);
void uprobe_site_sync(void);
void uprobe_site_release(struct uprobe_point *pp);
void uprobe_site_show(struct seq_file *m, struct uprobe_point *pp);
bool uprobe_site_in_handler(void);

/* ... and what it calls back (uprobes_process.c) */
void uprobe_point_hit(struct uprobe_point *pp, struct pt_regs *regs);
bool uprobe_unregister_pending(struct process_uprobe *u);

/*
 * The memory engine (uprobes_mem.c), for anonymous and writable private
 * executable memory of 64-bit x86 processes; elsewhere such memory gets
 * -EOPNOTSUPP.
 */
#ifdef CONFIG_UPROBES_MEM
int uprobe_mem_attach(struct uprobe_point *pp, struct mm_struct *mm,
		      struct file *file, loff_t offset);
void uprobe_mem_detach(struct uprobe_point *pp);
void uprobe_mem_release(struct uprobe_point *pp);
void uprobe_mem_show(struct seq_file *m, struct uprobe_point *pp);
void uprobe_mem_sync(void);
void uprobe_mem_front_attach(struct uprobe_point *pp, struct mm_struct *mm);
void uprobe_mem_front_detach(struct uprobe_point *pp);
void uprobe_mem_front_release(struct uprobe_point *pp);
void *uprobe_ret_handler(struct process_uprobe *u);
#else
static inline void *uprobe_ret_handler(struct process_uprobe *u)
{
	return NULL;
}

static inline int uprobe_mem_attach(struct uprobe_point *pp,
				    struct mm_struct *mm, struct file *file,
				    loff_t offset)
{
	return -EOPNOTSUPP;
}

static inline void uprobe_mem_detach(struct uprobe_point *pp) { }
static inline void uprobe_mem_release(struct uprobe_point *pp) { }
static inline void uprobe_mem_show(struct seq_file *m,
				   struct uprobe_point *pp) { }
static inline void uprobe_mem_sync(void) { }
static inline void uprobe_mem_front_attach(struct uprobe_point *pp,
					   struct mm_struct *mm) { }
static inline void uprobe_mem_front_detach(struct uprobe_point *pp) { }
static inline void uprobe_mem_front_release(struct uprobe_point *pp) { }
#endif

#endif /* _KERNEL_UPROBES_PROCESS_H */
