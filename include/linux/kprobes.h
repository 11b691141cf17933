/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef _LINUX_KPROBES_H
#define _LINUX_KPROBES_H
/*
 * Kernel Probes (kprobes): the public API.
 *
 * Kprobes' API for the rest of the kernel and for probe modules: a kprobe
 * plants a breakpoint at a kernel instruction and calls the probe's
 * handlers when it is hit, pre_handler before the instruction and
 * post_handler after it; a kretprobe calls its handler when a function
 * returns; a jprobe calls a handler with the probed function's arguments.
 */
#include <linux/compiler.h>
#include <linux/linkage.h>
#include <linux/list.h>
#include <linux/notifier.h>
#include <linux/smp.h>
#include <linux/bug.h>
#include <linux/percpu.h>
#include <linux/spinlock.h>
#include <linux/rcupdate.h>
#include <linux/rculist.h>
#include <linux/hash.h>
#include <linux/mutex.h>
#include <linux/ftrace.h>
#include <linux/objpool.h>
#include <linux/rethook.h>
#include <asm/kprobes.h>

/*
 * Defined where the API promises more than kprobes always did (kernel-doc
 * below): test modules check for it.
 */
#define KPROBES_ANEW 1

#ifdef CONFIG_KPROBES

/* kprobe_status values: where the per-CPU hit state machine is */
#define KPROBE_HIT_ACTIVE	0x00000001	/* pre_handler running */
#define KPROBE_HIT_SS		0x00000002	/* copied insn single-stepping */
#define KPROBE_REENTER		0x00000004	/* a probe hit inside a handler */
#define KPROBE_HIT_SSDONE	0x00000008	/* post_handler running */
#define KPROBE_HIT_JPROBE	0x00000010	/* a jprobe's handler running */

#else /* !CONFIG_KPROBES */
#include <asm-generic/kprobes.h>
typedef int kprobe_opcode_t;
struct arch_specific_insn {
	int dummy;
};
#endif /* CONFIG_KPROBES */

struct kprobe;
struct pt_regs;
struct kretprobe;
struct kretprobe_instance;
struct kprobe_site;

typedef int (*kprobe_pre_handler_t) (struct kprobe *, struct pt_regs *);
typedef void (*kprobe_post_handler_t) (struct kprobe *, struct pt_regs *,
	      unsigned long flags);
typedef int (*kprobe_fault_handler_t) (struct kprobe *, struct pt_regs *,
	     int trapnr);
typedef int (*kretprobe_handler_t) (struct kretprobe_instance *,
	     struct pt_regs *);

/*
 * The handlers run with preemption disabled, from an int3 trap (NMI-like:
 * no sleeping, no locks that non-NMI code may hold), from the ftrace
 * callback (function entries), or from the kretprobe trampoline.  A
 * handler that hits another probe does not run that probe's handlers:
 * that probe's nmissed is incremented instead.
 */
struct kprobe {
	/*
	 * hlist: hashed only transiently by the core; list: the probe's
	 * place among the probes sharing its address (its site).
	 */
	struct hlist_node hlist;
	struct list_head list;

	/* hits that ran no handler because a probe was already running */
	unsigned long nmissed;

	/* where: addr, or symbol_name + offset (not both) */
	kprobe_opcode_t *addr;
	const char *symbol_name;
	unsigned int offset;

	/* called before the probed instruction; return 1 if regs->ip changed */
	kprobe_pre_handler_t pre_handler;
	/* called after the probed instruction (not when pre_handler returned 1) */
	kprobe_post_handler_t post_handler;
	/*
	 * called first when a fault hits while this probe's handler or its
	 * copied instruction runs; return 1 if it handled the fault (and
	 * fixed regs so execution can go on)
	 */
	kprobe_fault_handler_t fault_handler;

	/* the first byte of the original instruction (the one int3 replaces) */
	kprobe_opcode_t opcode;

	/* the site (shared by every probe at this address); core-private */
	struct kprobe_site *site;

	/* arch-specific copy of the original instruction */
	struct arch_specific_insn ainsn;

	/* KPROBE_FLAG_*; the core owns these after registration */
	u32 flags;
};

#define KPROBE_FLAG_GONE	BIT(0)	/* its code is gone (module unloaded) */
#define KPROBE_FLAG_DISABLED	BIT(1)	/* registered but not firing */
/* kept for source compatibility; never set: kprobe_optimized() asks the site */
#define KPROBE_FLAG_OPTIMIZED	BIT(2)
#define KPROBE_FLAG_FTRACE	BIT(3)	/* reached through ftrace at an fentry site */
#define KPROBE_FLAG_ON_FUNC_ENTRY BIT(4) /* sits on a function's entry */

static inline bool kprobe_gone(struct kprobe *p)
{
	return p->flags & KPROBE_FLAG_GONE;
}

static inline bool kprobe_disabled(struct kprobe *p)
{
	return p->flags & (KPROBE_FLAG_DISABLED | KPROBE_FLAG_GONE);
}

#ifdef CONFIG_OPTPROBES
bool kprobe_optimized(struct kprobe *p);
#else
static inline bool kprobe_optimized(struct kprobe *p)
{
	return false;
}
#endif

static inline bool kprobe_ftrace(struct kprobe *p)
{
	return p->flags & KPROBE_FLAG_FTRACE;
}

/*
 * Function-return probes.  register_kretprobe() plants a kprobe at the
 * function's entry; each activation takes an instance from the probe's
 * pool (maxactive of them, preallocated), saves the real return address
 * in it and diverts the return through kretprobe_trampoline.  When the
 * pool is empty the activation takes a spare instance (x86_64 and the
 * arches without rethook: spare pools grown outside the hit path, within
 * a bound, see kernel/kprobes_kretprobe_pool.c); when there is none either,
 * it is counted in nmissed instead.
 *
 * An instance may outlive its kretprobe (unregistered while the function
 * is still running): it then reaches its kretprobe through the holder,
 * whose pointer is cleared at unregister.  get_kretprobe() returns NULL
 * for such an orphan.
 */
/*
 * The return is diverted by the core itself on x86_64 and on the arches
 * whose backend has arch_prepare_kretprobe() (arc, arm, arm64, csky, mips,
 * parisc, sh, sparc); on the others (loongarch, powerpc, riscv, s390) by
 * the kernel's rethook library, which their backends implement: there
 * the pool is the rethook's, and an instance is a rethook node.
 */
#if defined(CONFIG_KPROBES_CLASSIC) && defined(CONFIG_KRETPROBE_ON_RETHOOK)
#define KRETPROBE_VIA_RETHOOK	1
#endif

struct kretprobe_spares;

/*
 * One instance pool: the reserved one (maxactive instances) or one of
 * its spare pools (kernel/kprobes_kretprobe_pool.c), chained by next.
 */
struct kretprobe_holder {
	struct kretprobe __rcu	*rp;
	struct objpool_head	pool;
	struct kretprobe_holder	*next;		/* the next spare pool */
	struct kretprobe_spares	*spares;	/* the reserved pool's only */
	/* the reserved pool's: an instance per CPU kept out of the pool */
	struct kretprobe_instance * __percpu *hot;
};

struct kretprobe {
	struct kprobe kp;
	kretprobe_handler_t handler;
	kretprobe_handler_t entry_handler;
	int maxactive;
	int nmissed;
	size_t data_size;
#ifdef KRETPROBE_VIA_RETHOOK
	struct rethook *rh;
#else
	struct kretprobe_holder *rph;
#endif
};

#define KRETPROBE_MAX_DATA_SIZE	4096
/* more instances than this is a mistake, not a workload */
#define KRETPROBE_MAXACTIVE_LIMIT	BIT(20)

struct kretprobe_instance {
#ifdef KRETPROBE_VIA_RETHOOK
	struct rethook_node node;		/* first: rethook's pool object */
#else
	struct llist_node llist;		/* on the task's list */
	struct kretprobe_holder *rph;
	kprobe_opcode_t *ret_addr;		/* the real return address */
	void *fp;				/* where it sat on the stack */
	struct task_struct *task;
	struct rcu_head rcu;			/* dropping an orphan */
#endif
	char data[];
};

/*
 * Jump probes (jprobes): a probe on a function's entry whose handler,
 * @entry, has the probed function's prototype and is called with the
 * function's own arguments (registers, and up to JPROBE_MAX_STACK_SIZE
 * bytes of stack from the return address up, see <asm/kprobes.h>).  The
 * handler ends with jprobe_return(); the probed function then runs with
 * its registers and stack as they were at the hit.  The handler runs with
 * interrupts and preemption disabled, and must not sleep.
 */
struct jprobe {
	struct kprobe kp;
	void *entry;	/* the handler: same prototype as the probed function */
};

/* what older modules wrote as .entry = JPROBE_ENTRY(handler) */
#define JPROBE_ENTRY(pentry)	((kprobe_opcode_t *)(pentry))

struct kretprobe_blackpoint {
	const char *name;
	void *addr;
};

struct kprobe_blacklist_entry {
	struct list_head list;
	unsigned long start_addr;
	unsigned long end_addr;
};

#ifdef CONFIG_KPROBES
DECLARE_PER_CPU(struct kprobe *, current_kprobe);
DECLARE_PER_CPU(struct kprobe_ctlblk, kprobe_ctlblk);

int arch_init_kprobes(void);
void kprobes_inc_nmissed_count(struct kprobe *p);
int arch_populate_kprobe_blacklist(void);
int kprobe_add_ksym_blacklist(unsigned long entry);
int kprobe_add_area_blacklist(unsigned long start, unsigned long end);
bool within_kprobe_blacklist(unsigned long addr);
kprobe_opcode_t *kprobe_lookup_name(const char *name, unsigned int offset);
kprobe_opcode_t *arch_adjust_kprobe_addr(unsigned long addr,
					 unsigned long offset,
					 bool *on_func_entry);
int kprobe_on_func_entry(kprobe_opcode_t *addr, const char *sym,
			 unsigned long offset);

/* The instruction-slot cache: executable memory for copied insns. */
kprobe_opcode_t *get_insn_slot(void);
void free_insn_slot(kprobe_opcode_t *slot, int dirty);
bool is_kprobe_insn_slot(unsigned long addr);
static inline bool is_kprobe_optinsn_slot(unsigned long addr)
{
	return false;
}

int kprobe_get_kallsym(unsigned int symnum, unsigned long *value,
		       char *type, char *sym);

#if defined(CONFIG_KRETPROBES) && defined(KRETPROBE_VIA_RETHOOK)
/* The kretprobe of an instance, or NULL once it was unregistered. */
static nokprobe_inline struct kretprobe *get_kretprobe(struct kretprobe_instance *ri)
{
	return (struct kretprobe *)rcu_dereference_check(ri->node.rethook->data,
							 rcu_read_lock_any_held());
}

static nokprobe_inline unsigned long get_kretprobe_retaddr(struct kretprobe_instance *ri)
{
	return ri->node.ret_addr;
}

/* the unwinders of these arches ask rethook (is_rethook_trampoline()) */
static inline bool is_kretprobe_trampoline(unsigned long addr)
{
	return false;
}

static inline unsigned long kretprobe_find_ret_addr(struct task_struct *tsk,
						    void *fp,
						    struct llist_node **cur)
{
	return 0;
}

/* rethook_flush_task() recycles a dead task's nodes */
static inline void kprobe_flush_task(struct task_struct *tk) { }
#elif defined(CONFIG_KRETPROBES)
#ifdef CONFIG_KPROBES_CLASSIC
/* the classic backends' trampoline and its entry points */
void __kretprobe_trampoline(void);
#define kretprobe_trampoline __kretprobe_trampoline
unsigned long __kretprobe_trampoline_handler(struct pt_regs *regs,
					     void *frame_pointer);
void arch_prepare_kretprobe(struct kretprobe_instance *ri,
			    struct pt_regs *regs);
void arch_kretprobe_fixup_return(struct pt_regs *regs,
				 kprobe_opcode_t *correct_ret_addr);
unsigned long kretprobe_trampoline_handler(struct pt_regs *regs,
					   void *frame_pointer);
#else
void kretprobe_trampoline(void);
#endif
unsigned long kretprobe_find_ret_addr(struct task_struct *tsk,
				      void *fp,
				      struct llist_node **cur);

static nokprobe_inline void *kretprobe_trampoline_addr(void)
{
	return dereference_kernel_function_descriptor(kretprobe_trampoline);
}

static nokprobe_inline bool is_kretprobe_trampoline(unsigned long addr)
{
	return (void *)addr == kretprobe_trampoline_addr();
}

/* The kretprobe of an instance, or NULL once it was unregistered. */
static nokprobe_inline struct kretprobe *get_kretprobe(struct kretprobe_instance *ri)
{
	return rcu_dereference_check(ri->rph->rp, rcu_read_lock_any_held());
}

static nokprobe_inline unsigned long get_kretprobe_retaddr(struct kretprobe_instance *ri)
{
	return (unsigned long)ri->ret_addr;
}

void kprobe_flush_task(struct task_struct *tk);
#else
static inline bool is_kretprobe_trampoline(unsigned long addr)
{
	return false;
}

static inline unsigned long kretprobe_find_ret_addr(struct task_struct *tsk,
						    void *fp,
						    struct llist_node **cur)
{
	return 0;
}

static inline void kprobe_flush_task(struct task_struct *tk) { }
#endif /* CONFIG_KRETPROBES */

void kprobe_free_init_mem(void);

/* The probe whose handler (or copied instruction) this CPU is running. */
static inline struct kprobe *kprobe_running(void)
{
	return __this_cpu_read(current_kprobe);
}

static inline void reset_current_kprobe(void)
{
	__this_cpu_write(current_kprobe, NULL);
}

static inline struct kprobe_ctlblk *get_kprobe_ctlblk(void)
{
	return this_cpu_ptr(&kprobe_ctlblk);
}

/*
 * Whether a probe handler runs on this CPU: the state every kind of probe
 * shares, so that no handler nests into another.  kprobe_busy_begin/end
 * mark this CPU as running one (fprobe, the kretprobe trampoline and
 * wprobes run handlers outside the int3 path): a kprobe hit meanwhile
 * only counts nmissed.  kprobe_handler_running() tells another kind of
 * probe (wprobes) that one runs, so it counts its own hit as missed.
 */
void kprobe_busy_begin(void);
void kprobe_busy_end(void);

/*
 * As opposed to no hit, or a hit only single-stepping its instruction.
 * Inline: a wprobe hit asks it first, from the debug exception.  Call
 * with preemption off.
 */
static nokprobe_inline bool kprobe_handler_running(void)
{
	struct kprobe_ctlblk *kcb = get_kprobe_ctlblk();
	unsigned int status;

#ifdef CONFIG_HAVE_KPROBE_SITES
	/* the top of this CPU's stack of hit frames */
	if (!kcb->depth)
		return false;
	status = kcb->frame[kcb->depth - 1].status;
#else
	/* a classic backend's state: current_kprobe and one status */
	if (!kprobe_running())
		return false;
	status = kcb->kprobe_status;
#endif
	return status != KPROBE_HIT_SS && status != KPROBE_REENTER;
}

/*
 * debugfs kprobes/list shows the lines of other kinds of probe (wprobes)
 * after the kprobes': each registers a source whose show() prints them,
 * "ADDR  TYPE  SYM+OFF  [MOD] ...", ADDR as kprobe_shown_addr() gives it,
 * KPROBE_ADDR_WIDTH hex digits wide.
 */
struct seq_file;

struct kprobe_list_source {
	struct list_head node;
	void (*show)(struct seq_file *m);
};

void kprobe_list_add_source(struct kprobe_list_source *src);
unsigned long kprobe_shown_addr(struct seq_file *m, const void *addr);
#define KPROBE_ADDR_WIDTH	((int)(2 * sizeof(void *)))

/*
 * Registering, unregistering, enabling and disabling may sleep (process
 * context only).  Registration state, relied on by trace_kprobe: a caller
 * that initialised kp->list and kp->hlist before register_kprobe() finds
 * "!(list_empty(&kp->list) && hlist_unhashed(&kp->hlist))" true exactly
 * while the probe is registered, and a failed registration leaves both as
 * they were.
 */
int register_kprobe(struct kprobe *p);
void unregister_kprobe(struct kprobe *p);
int register_kprobes(struct kprobe **kps, int num);
void unregister_kprobes(struct kprobe **kps, int num);

int register_kretprobe(struct kretprobe *rp);
void unregister_kretprobe(struct kretprobe *rp);
int register_kretprobes(struct kretprobe **rps, int num);
void unregister_kretprobes(struct kretprobe **rps, int num);

int disable_kprobe(struct kprobe *kp);
int enable_kprobe(struct kprobe *kp);

int register_jprobe(struct jprobe *jp);
void unregister_jprobe(struct jprobe *jp);
int register_jprobes(struct jprobe **jps, int num);
void unregister_jprobes(struct jprobe **jps, int num);
int disable_jprobe(struct jprobe *jp);
int enable_jprobe(struct jprobe *jp);
void jprobe_return(void);

void dump_kprobe(struct kprobe *kp);

#ifdef CONFIG_OPTPROBES
void wait_for_kprobe_optimizer(void);
void kprobe_opt_settle(void);
#else
static inline void wait_for_kprobe_optimizer(void) { }
static inline void kprobe_opt_settle(void) { }
#endif

#ifdef CONFIG_KPROBES_ON_FTRACE
void kprobe_ftrace_handler(unsigned long ip, unsigned long parent_ip,
			   struct ftrace_ops *ops, struct ftrace_regs *fregs);
int arch_prepare_kprobe_ftrace(struct kprobe *p);
void kprobe_ftrace_kill(void);
#else
static inline void kprobe_ftrace_kill(void) { }
static inline int arch_prepare_kprobe_ftrace(struct kprobe *p)
{
	return -EINVAL;
}
#endif

#ifdef CONFIG_KPROBES_CLASSIC
/*
 * The interface of the arch backends other than x86's, as it was
 * defined before probe sites (kernel/kprobes_classic.c serves it).
 * Every probe site has one struct kprobe the backend sees: get_kprobe()
 * returns it, its handlers run the site's probes, and the arch owns its
 * opcode and ainsn.
 * The arch defines current_kprobe and kprobe_ctlblk (whose kprobe_status
 * the core sets to KPROBE_HIT_ACTIVE around handlers it runs itself), and
 * declares arch_remove_kprobe() and kprobe_fault_handler().
 */
int arch_prepare_kprobe(struct kprobe *p);
void arch_arm_kprobe(struct kprobe *p);
void arch_disarm_kprobe(struct kprobe *p);
struct kprobe *get_kprobe(void *addr);
bool arch_within_kprobe_blacklist(unsigned long addr);
void *alloc_insn_page(void);
int kprobe_exceptions_notify(struct notifier_block *self, unsigned long val,
			     void *data);
#ifdef CONFIG_KRETPROBES
int arch_trampoline_kprobe(struct kprobe *p);
#endif
#ifdef CONFIG_KPROBES_ON_FTRACE
extern bool kprobe_ftrace_disabled __read_mostly;
#endif
#endif /* CONFIG_KPROBES_CLASSIC */

/*
 * kprobe_fault_handler() (called by kprobe_page_fault() below) and the
 * trap entry points are declared by each arch's <asm/kprobes.h>: their
 * signatures differ between arches.
 */

#else /* !CONFIG_KPROBES: */

static inline int kprobe_fault_handler(struct pt_regs *regs, int trapnr)
{
	return 0;
}

static inline struct kprobe *get_kprobe(void *addr)
{
	return NULL;
}

static inline struct kprobe *kprobe_running(void)
{
	return NULL;
}

#define kprobe_busy_begin()	do {} while (0)
#define kprobe_busy_end()	do {} while (0)

static inline bool kprobe_handler_running(void)
{
	return false;
}

static inline int register_kprobe(struct kprobe *p)
{
	return -EOPNOTSUPP;
}

static inline int register_kprobes(struct kprobe **kps, int num)
{
	return -EOPNOTSUPP;
}

static inline void unregister_kprobe(struct kprobe *p) { }
static inline void unregister_kprobes(struct kprobe **kps, int num) { }
static inline int register_kretprobe(struct kretprobe *rp)
{
	return -EOPNOTSUPP;
}

static inline int register_kretprobes(struct kretprobe **rps, int num)
{
	return -EOPNOTSUPP;
}

static inline void unregister_kretprobe(struct kretprobe *rp) { }
static inline void unregister_kretprobes(struct kretprobe **rps, int num) { }
static inline void kprobe_flush_task(struct task_struct *tk) { }
static inline void kprobe_free_init_mem(void) { }
static inline void kprobe_ftrace_kill(void) { }
static inline int disable_kprobe(struct kprobe *kp)
{
	return -EOPNOTSUPP;
}

static inline int enable_kprobe(struct kprobe *kp)
{
	return -EOPNOTSUPP;
}

static inline int register_jprobe(struct jprobe *jp)
{
	return -EOPNOTSUPP;
}

static inline int register_jprobes(struct jprobe **jps, int num)
{
	return -EOPNOTSUPP;
}

static inline void unregister_jprobe(struct jprobe *jp) { }
static inline void unregister_jprobes(struct jprobe **jps, int num) { }
static inline int disable_jprobe(struct jprobe *jp)
{
	return -EOPNOTSUPP;
}

static inline int enable_jprobe(struct jprobe *jp)
{
	return -EOPNOTSUPP;
}

static inline void jprobe_return(void) { }

static inline bool within_kprobe_blacklist(unsigned long addr)
{
	return true;
}

static inline int kprobe_get_kallsym(unsigned int symnum, unsigned long *value,
				     char *type, char *sym)
{
	return -ERANGE;
}

static inline bool is_kprobe_insn_slot(unsigned long addr)
{
	return false;
}

static inline bool is_kprobe_optinsn_slot(unsigned long addr)
{
	return false;
}

static inline bool is_kretprobe_trampoline(unsigned long addr)
{
	return false;
}

static inline unsigned long kretprobe_find_ret_addr(struct task_struct *tsk,
						    void *fp,
						    struct llist_node **cur)
{
	return 0;
}

static inline void wait_for_kprobe_optimizer(void) { }
#endif /* CONFIG_KPROBES */

/*
 * Return hooks stacked on one frame.  On x86 three kinds of hook divert a
 * function's return: the kretprobe trampoline, rethook's (fprobe exits,
 * BPF kretprobe.multi) and function_graph's return_to_handler.  Each saves
 * the address it finds in the return slot and puts its own there, so on a
 * function carrying two kinds the later one saved the earlier one's
 * trampoline.  kretprobe_stacked_ret_addr() follows that chain for the
 * current task to the real caller, which the handlers of either hook are
 * told (the return itself still goes through every trampoline; the
 * x86 unwinders follow the same chain).  Without kretprobes (KPROBES=n)
 * rethook's handler tells the address it saved, as upstream's does;
 * kretprobe_note_return_hook() is how rethook and function_graph tell the
 * kretprobe return path that it may meet their trampolines.
 */
/* a guard only: each step of such a walk consumes one record of a list */
#define RET_HOOKS_STACKED_MAX	64

#if defined(CONFIG_KRETPROBES) && defined(CONFIG_HAVE_KPROBE_SITES)
unsigned long kretprobe_stacked_ret_addr(unsigned long tramp,
					 unsigned long *slot);
void kretprobe_note_return_hook(void);

/* is addr function_graph's return trampoline? */
static __always_inline bool kretprobe_fgraph_trampoline(unsigned long addr)
{
#ifdef CONFIG_FUNCTION_GRAPH_TRACER
	return addr == (unsigned long)
		dereference_kernel_function_descriptor(return_to_handler);
#else
	return false;
#endif
}

/*
 * Is addr a trampoline that rethook's handler may find saved under its
 * own: the kretprobe trampoline or function_graph's?  Only then does it
 * ask kretprobe_stacked_ret_addr() for the caller.
 */
static __always_inline bool kretprobe_is_stacked_trampoline(unsigned long addr)
{
	return is_kretprobe_trampoline(addr) || kretprobe_fgraph_trampoline(addr);
}
#else
static inline unsigned long kretprobe_stacked_ret_addr(unsigned long tramp,
						       unsigned long *slot)
{
	return 0;
}

static inline void kretprobe_note_return_hook(void) { }

static inline bool kretprobe_is_stacked_trampoline(unsigned long addr)
{
	return false;
}
#endif

/*
 * ftrace tells kprobes before an ops that diverts calls (IPMODIFY, a
 * direct trampoline) takes functions: an entry probe armed past the
 * fentry call (a carrier, kernel/kprobes_carriers.c) would miss them, so
 * it is hooked on ftrace first.
 */
struct ftrace_ops;
#ifdef CONFIG_KPROBE_CARRIERS
void kprobe_ftrace_divert(struct ftrace_ops *ops, unsigned long *ips,
			  unsigned int cnt, bool any);
void kprobe_ftrace_divert_end(struct ftrace_ops *ops);
#else
static inline void kprobe_ftrace_divert(struct ftrace_ops *ops,
					unsigned long *ips, unsigned int cnt,
					bool any)
{
}

static inline void kprobe_ftrace_divert_end(struct ftrace_ops *ops) { }
#endif

static inline int disable_kretprobe(struct kretprobe *rp)
{
	return disable_kprobe(&rp->kp);
}

static inline int enable_kretprobe(struct kretprobe *rp)
{
	return enable_kprobe(&rp->kp);
}

/*
 * The page-fault hook (arch/x86/mm/fault.c).  Only a kernel-mode fault
 * while a probe runs on this CPU concerns kprobes.
 */
static nokprobe_inline bool kprobe_page_fault(struct pt_regs *regs,
					      unsigned int trap)
{
	if (!IS_ENABLED(CONFIG_KPROBES))
		return false;
	if (user_mode(regs))
		return false;
	/* a preemptible task is not inside a probe */
	if (preemptible())
		return false;
	if (!kprobe_running())
		return false;
	return kprobe_fault_handler(regs, trap);
}

#endif /* _LINUX_KPROBES_H */
