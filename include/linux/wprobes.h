/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef _LINUX_WPROBES_H
#define _LINUX_WPROBES_H
/*
 * Watchpoint probes (wprobes): kernel data watchpoints through the CPU's
 * debug registers, armed on every CPU, that give their register up when
 * a task (a debugger through ptrace, a per-task perf event) needs one.
 * The design lives in kernel/wprobes.c; Documentation/trace/wprobes.rst
 * is the user's guide.
 *
 * Rules for users:
 *  - register/unregister/enable/disable may sleep (process context only).
 *  - The handler runs from the debug exception (NMI-like: no sleeping, no
 *    locks that other code may hold), after the access for the data types
 *    (regs->ip is the instruction after it), before the instruction for
 *    WPROBE_X.
 *  - A hit while a kprobe or wprobe handler runs on that CPU does not run
 *    the handler; nmissed counts it.
 *  - A wprobe may be YIELDED: its register went to a task that asked for
 *    one; it runs no handler until it re-arms by itself (nyielded counts
 *    the times).  wprobe_yielded() tells, and kprobes/list shows it.
 */
#include <linux/types.h>
#include <linux/list.h>
#include <linux/errno.h>

struct pt_regs;
struct perf_event;

/* struct wprobe.type: what access hits */
#define WPROBE_W	1	/* a write */
#define WPROBE_RW	2	/* a read or a write (x86 has no read-only) */
#define WPROBE_X	3	/* an instruction fetch: execution */
#define WPROBE_R	4	/* a read only: not on x86 (-EINVAL there) */

/* struct wprobe.flags */
#define WPROBE_FLAG_DISABLED	0x1	/* registered, runs no handler */

/**
 * struct wprobe - a watchpoint on kernel memory
 * @symbol_name: the symbol to watch, or NULL to use @addr
 * @offset: added to @symbol_name's address
 * @addr: the address to watch; set by registration from @symbol_name
 * @len: bytes watched: 1, 2, 4 or 8, and @addr aligned to it (WPROBE_X:
 *	0, meaning one instruction)
 * @type: WPROBE_W, WPROBE_RW, WPROBE_X, or WPROBE_R where the CPU has it
 * @handler: called on each hit with the trapped registers
 * @nmissed: hits that ran no handler (a probe handler was running)
 * @nyielded: times the register went to a task's breakpoint
 * @flags: WPROBE_FLAG_DISABLED to register it disabled
 *
 * The caller fills the first six and @flags, and zeroes the rest.
 */
struct wprobe {
	const char *symbol_name;
	unsigned int offset;
	void *addr;
	unsigned int len;
	unsigned int type;
	void (*handler)(struct wprobe *wp, struct pt_regs *regs);
	unsigned long nmissed;
	unsigned long nyielded;
	u32 flags;

	/* private: kernel/wprobes.c, under wprobe_mutex */
	struct list_head list;		/* wprobe_list, registration order */
	struct perf_event * __percpu *events;	/* one per online CPU */
	unsigned int state;		/* WPROBE_STATE_* (kernel/wprobes.c) */
};

#ifdef CONFIG_WPROBES
int register_wprobe(struct wprobe *wp);
void unregister_wprobe(struct wprobe *wp);
int register_wprobes(struct wprobe **wps, int num);
void unregister_wprobes(struct wprobe **wps, int num);
int enable_wprobe(struct wprobe *wp);
int disable_wprobe(struct wprobe *wp);
bool wprobe_yielded(struct wprobe *wp);

/* hw_breakpoint's side of yielding (kernel/events/hw_breakpoint.c) */
int wprobe_yield(struct perf_event *bp, int (*retry)(struct perf_event *bp));
void wprobe_bp_released(struct perf_event *bp);
#else
static inline int register_wprobe(struct wprobe *wp)
{
	return -EOPNOTSUPP;
}

static inline void unregister_wprobe(struct wprobe *wp)
{
}

static inline int register_wprobes(struct wprobe **wps, int num)
{
	return -EOPNOTSUPP;
}

static inline void unregister_wprobes(struct wprobe **wps, int num)
{
}

static inline int enable_wprobe(struct wprobe *wp)
{
	return -EOPNOTSUPP;
}

static inline int disable_wprobe(struct wprobe *wp)
{
	return -EOPNOTSUPP;
}

static inline bool wprobe_yielded(struct wprobe *wp)
{
	return false;
}

static inline int wprobe_yield(struct perf_event *bp,
			       int (*retry)(struct perf_event *bp))
{
	return -ENOSPC;
}

static inline void wprobe_bp_released(struct perf_event *bp)
{
}
#endif /* CONFIG_WPROBES */
#endif /* _LINUX_WPROBES_H */
