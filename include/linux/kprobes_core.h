/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef _LINUX_KPROBES_CORE_H
#define _LINUX_KPROBES_CORE_H
/*
 * Kprobes' internals: the interface between the arch-neutral core
 * (kernel/kprobes*.c) and an arch backend written for it (x86:
 * arch/x86/kernel/kprobes/).  Probe sites (the aggregate probe), the
 * hash table, the per-CPU stack of hit frames and the hit path's inline
 * helpers live here, apart from <linux/kprobes.h>, which is the API that
 * probe modules and the rest of the kernel use.  Not for probe modules.
 */
#include <linux/kprobes.h>
#include <linux/kallsyms.h>
#include <linux/seq_file.h>
#include <linux/fs.h>

#ifdef CONFIG_KPROBES
/*
 * ---- Internal: the interface between the core (kernel/kprobes*.c) and
 * the arch backend.  Not for probe modules. ----
 *
 * A probe site is the aggregate probe of an address: every kprobe
 * registered at that address hangs on its probes list (registration
 * order), and the site owns what is per-address: the saved original
 * instruction, its slot, and whether the int3 (or ftrace hook) is in.
 */
#define KPROBE_SITE_ARMED	0x01	/* int3 written / ftrace filter set */
#define KPROBE_SITE_FTRACE	0x02	/* an fentry site: reached via ftrace */
#define KPROBE_SITE_GONE	0x04	/* its code went away */
#define KPROBE_SITE_UNHASHED	0x08	/* no longer found by address */
#define KPROBE_SITE_ON_ENTRY	0x10	/* a function's entry */

/* jump optimization of an int3 site (kernel/kprobes_opt.c) */
enum {
	KPROBE_OPT_NONE,	/* a plain int3 */
	KPROBE_OPT_QUEUED,	/* waiting for the optimizer */
	KPROBE_OPT_READY,	/* detour built: int3 hits leave through it */
	KPROBE_OPT_DONE,	/* the jump to the detour is in place */
	KPROBE_OPT_UNDOING,	/* retired: its jump goes with its batch */
};

struct kprobe_site {
	struct hlist_node hash;		/* kprobe_table bucket (RCU) */
	unsigned long addr;
	/*
	 * The hit paths' shortcut: the site's one probe when a hit has
	 * nothing to run but its pre_handler (enabled, no post_handler,
	 * not a jprobe, alone at the address, site armed); else NULL and
	 * hits walk probes.  Written by kprobe_site_sync() under kprobe_mutex.
	 */
	struct kprobe *solo;
	/*
	 * The int3 path's second shortcut: the site's one probe when it has
	 * a post_handler (enabled, not a jprobe, alone, site armed, not an
	 * ftrace site); else NULL.  Never set together with solo.
	 */
	struct kprobe *solo_post;
	/*
	 * The no-step paths' (ftrace hook, detour) shortcut for a site of
	 * several probes: true when each has a pre_handler and nothing else
	 * to run (no post_handler, not a jprobe) and the site is armed; the
	 * hit then walks the list in one frame (kprobe_pre_only()).  Written
	 * by kprobe_site_sync() under kprobe_mutex; never set with solo.
	 */
	bool pre_only;
	struct list_head probes;	/* struct kprobe.list (RCU) */
	struct list_head all;		/* kprobe_sites; kprobe_mutex */
	struct list_head free_list;	/* a batch's to_free */
	struct list_head ftrace_node;	/* a batch's ftrace filter changes */
	unsigned int flags;		/* KPROBE_SITE_*; kprobe_mutex */
	bool armed_ipmodify;		/* ftrace: armed on the IPMODIFY ops */
	bool ftrace_dual;		/* ftrace: moving, hooked on both ops */
	u8 opt_state;			/* KPROBE_OPT_* (kernel/kprobes_opt.c) */
	struct list_head opt_node;	/* the optimizer's queue */
	bool has_post;			/* a probe has a post_handler: no boost */
	bool has_jprobe;		/* a jprobe: ftrace must let ip change */
	/*
	 * Carriers (kernel/kprobes_carriers.c): an fentry site armed,
	 * instead of by an ftrace hook, by an int3 site on the instruction
	 * after its nop, which nothing else reaches.  On the fentry site, carrier is that
	 * int3 site (kprobe_mutex; NULL: hooked or disarmed); on the int3
	 * site, carried is the fentry site whose probes its hits run (set
	 * for the int3 site's whole life; it has no probes of its own).
	 * carrier_moving: while the fentry site is being hooked on ftrace,
	 * its carrier, past which the callback sends calls
	 * (kprobe_carrier_resume()); one load for the callback, and the
	 * carrier's memory outlives it by a grace period.  carrier_hooked:
	 * the ftrace update (kprobe_hook_seq) that hooked it, 0 before.
	 * carrier_diverted: a diverting ftrace user came while it was
	 * carried, so a trampoline may call into its carrier (one that is
	 * going, too) after the hook ran its probes; sticky, and it keeps
	 * the site off the fast paths (kprobe_carrier_called()).  No
	 * sleepable BPF program can be on such a function
	 * (kprobe_bpf_sleepable_target()), so none sleeps holding a copy.
	 */
	struct kprobe_site *carrier;
	struct kprobe_site *carried;
	struct kprobe_site *carrier_moving;
	unsigned long carrier_hooked;
	bool carrier_slow;		/* no jump: for the background mover */
	bool carrier_diverted;
#ifdef CONFIG_KPROBES_CLASSIC
	/*
	 * What a classic backend sees of the site (get_kprobe()): the
	 * probe it prepares, arms and single-steps, whose handlers run the
	 * site's probes (kernel/kprobes_classic.c).
	 */
	struct kprobe kp;
#else
	struct arch_specific_insn ainsn;
#endif
};

/*
 * nmissed (kprobe: unsigned long, kretprobe: int) is bumped from any CPU,
 * NMI-like context included: a lock-free increment that never loses a
 * count, so a miss count can be checked exactly.
 */
#define kprobe_count_miss(n)						\
	do {								\
		typeof(n) __n = (n);					\
		typeof(*__n) __old = READ_ONCE(*__n);			\
									\
		while (!try_cmpxchg(__n, &__old, __old + 1))		\
			;						\
	} while (0)

extern struct mutex kprobe_mutex;
extern unsigned long __start_kprobe_blacklist[];
extern unsigned long __stop_kprobe_blacklist[];
extern struct list_head kprobe_sites;
extern struct list_head kprobe_blacklist;
extern struct kprobe kprobe_busy;
extern bool kprobes_all_disarmed;

#ifdef CONFIG_HAVE_KPROBE_SITES
/*
 * Per-CPU hit state is a small stack of frames: a hit pushes one, and a
 * nested hit (a handler hitting a probe, an NMI during a single-step)
 * pushes another above it.  current_kprobe mirrors the top frame's kp.
 */
/* f is the top frame: it now stands for kp (current_kprobe follows) */
static nokprobe_inline void kprobe_frame_set_kp(struct kprobe_frame *f,
						struct kprobe *kp)
{
	f->kp = kp;
	__this_cpu_write(current_kprobe, kp);
}

static nokprobe_inline struct kprobe_frame *kprobe_frame_push(struct kprobe_ctlblk *kcb,
							      struct kprobe_site *s,
							      struct kprobe *kp,
							      unsigned int status)
{
	struct kprobe_frame *f;

	/* levels: task, irq, NMI, #MC; a fifth is a kprobes bug */
	if (unlikely(kcb->depth >= KPROBE_NEST_MAX))
		panic("kprobes: hits nested deeper than %d\n", KPROBE_NEST_MAX);
	f = &kcb->frame[kcb->depth++];
	f->site = s;
	f->status = status;
	kprobe_frame_set_kp(f, kp);
	return f;
}

static nokprobe_inline struct kprobe_frame *kprobe_frame_top(struct kprobe_ctlblk *kcb)
{
	return kcb->depth ? &kcb->frame[kcb->depth - 1] : NULL;
}

/*
 * Is a probe handler running on this CPU (as opposed to no hit, or a hit
 * only single-stepping its instruction)?  Other kinds of probe (wprobes)
 * count a hit as missed then, as a nested kprobe hit is.
 */
static nokprobe_inline bool kprobe_handler_running(void)
{
	struct kprobe_frame *f = kprobe_frame_top(get_kprobe_ctlblk());

	return f && f->status != KPROBE_HIT_SS && f->status != KPROBE_REENTER;
}

static nokprobe_inline void kprobe_frame_pop(struct kprobe_ctlblk *kcb)
{
	struct kprobe *kp;

	kcb->depth--;
	/* not a ?: inside the percpu macro, which would not parenthesise it */
	kp = kcb->depth ? kcb->frame[kcb->depth - 1].kp : NULL;
	__this_cpu_write(current_kprobe, kp);
}

/*
 * The fast paths' frame: with no hit under way on this CPU (kcb->depth
 * 0), a hit's frame is the first, and pushing and popping it needs no
 * arithmetic.  s is NULL for a handler that runs outside a probe site
 * (the kretprobe trampoline's).
 */
/*
 * These write this CPU's kprobe_ctlblk through %gs-relative accesses, not
 * through kcb (which is this CPU's, interrupts being off): a hit then
 * needs no per-CPU base in a register, kept across the handler's call.
 */
static nokprobe_inline void kprobe_solo_begin(struct kprobe_ctlblk *kcb,
					      struct kprobe_site *s,
					      struct kprobe *kp)
{
	__this_cpu_write(kprobe_ctlblk.depth, 1);
	__this_cpu_write(kprobe_ctlblk.frame[0].site, s);
	__this_cpu_write(kprobe_ctlblk.frame[0].status, KPROBE_HIT_ACTIVE);
	__this_cpu_write(kprobe_ctlblk.frame[0].kp, kp);
	__this_cpu_write(current_kprobe, kp);
}

static nokprobe_inline void kprobe_solo_done(struct kprobe_ctlblk *kcb)
{
	__this_cpu_write(kprobe_ctlblk.depth, 0);
	__this_cpu_write(current_kprobe, NULL);
}

/* s's solo probe if a hit may take the shortcut: no hit under way here */
static nokprobe_inline struct kprobe *kprobe_solo_now(struct kprobe_site *s,
						      struct kprobe_ctlblk *kcb)
{
	struct kprobe *kp = READ_ONCE(s->solo);

	/* solo first: a site without one then costs no depth test */
	return kp && !__this_cpu_read(kprobe_ctlblk.depth) ? kp : NULL;
}

/*
 * A fast path's hit (struct kprobe_site.solo): no hit is under way on this
 * CPU, and kp's pre_handler is all it runs.  Returns what it returned.
 */
static nokprobe_inline int kprobe_solo_pre(struct kprobe_ctlblk *kcb,
					   struct kprobe_site *s,
					   struct kprobe *kp,
					   struct pt_regs *regs)
{
	int ret;

	kprobe_solo_begin(kcb, s, kp);
	ret = kp->pre_handler(kp, regs);
	kprobe_solo_done(kcb);
	return ret;
}

#else /* CONFIG_KPROBES_CLASSIC */
/*
 * A classic backend keeps its own per-CPU state: a handler runs while
 * current_kprobe is set and the status is not that of a single-step.
 */
static nokprobe_inline bool kprobe_handler_running(void)
{
	unsigned int status;

	if (!kprobe_running())
		return false;
	status = get_kprobe_ctlblk()->kprobe_status;
	return status != KPROBE_HIT_SS && status != KPROBE_REENTER;
}
#endif /* CONFIG_HAVE_KPROBE_SITES */

/*
 * The hit path's helpers, inline: a hit is a few hundred instructions,
 * and calls into kprobes.c were a visible part of them.
 */
#define KPROBE_HASH_BITS 12
extern struct hlist_head kprobe_table[1 << KPROBE_HASH_BITS];

static nokprobe_inline struct hlist_head *kprobe_bucket(unsigned long addr)
{
	return &kprobe_table[hash_ptr((void *)addr, KPROBE_HASH_BITS)];
}

/* the live site at addr, or NULL; under RCU or preemption off, or kprobe_mutex */
static nokprobe_inline struct kprobe_site *__kprobe_site_lookup(unsigned long addr)
{
	struct kprobe_site *s;

	hlist_for_each_entry_rcu(s, kprobe_bucket(addr), hash,
				 lockdep_is_held(&kprobe_mutex)) {
		if (s->addr == addr)
			return s;
	}
	return NULL;
}

struct kprobe_site *kprobe_site_lookup(unsigned long addr);

/* does kp's post_handler run on a hit (both hit paths' walks)? */
static nokprobe_inline bool kprobe_runs_post(struct kprobe *kp)
{
	return !kprobe_disabled(kp) && kp->post_handler;
}

/*
 * The post_handlers of site s, in registration order: both backends' post
 * walk (under RCU, interrupts off).  running() tells the backend which
 * probe is running before each handler: its hit frame on x86, the
 * classic backends' current_kprobe.  Always inlined with a known
 * running(), so no indirect call is left on the hit path.
 */
static nokprobe_inline void
kprobe_site_run_posts(struct kprobe_site *s, struct pt_regs *regs,
		      unsigned long flags,
		      void (*running)(struct kprobe *kp, void *ctx), void *ctx)
{
	struct kprobe *kp;

	if (!READ_ONCE(s->has_post))
		return;
	list_for_each_entry_rcu(kp, &s->probes, list) {
		if (!kprobe_runs_post(kp))
			continue;
		running(kp, ctx);
		kp->post_handler(kp, regs, flags);
	}
}

#ifdef CONFIG_HAVE_KPROBE_SITES
/*
 * The probe that stands for a site while no handler runs (during the
 * single-step): what kprobe_running() returns then.  NULL if the site has
 * no probe left.
 */
static nokprobe_inline struct kprobe *kprobe_site_first(struct kprobe_site *s)
{
	return list_first_or_null_rcu(&s->probes, struct kprobe, list);
}

/*
 * Start a hit on site s on a path that never runs inside another hit's
 * single-step (ftrace's callback, an optimized probe's detour), interrupts
 * off: the frame for the site's handlers, or NULL if the site has no
 * probe left or a handler already runs on this CPU (counted in nmissed).
 */
static nokprobe_inline struct kprobe_frame *kprobe_hit_begin(struct kprobe_site *s)
{
	struct kprobe *first = kprobe_site_first(s);

	if (unlikely(!first))
		return NULL;
	if (kprobe_running()) {
		kprobes_inc_nmissed_count(first);
		return NULL;
	}
	return kprobe_frame_push(get_kprobe_ctlblk(), s, first,
				 KPROBE_HIT_ACTIVE);
}

/*
 * Run the pre_handlers of site s, in registration order, from probe kp
 * on, on the top frame f.  current_kprobe names the probe whose handler
 * runs, so a fault in it reaches that probe's fault_handler, and bpf sees
 * the right probe.  Returns 1 if a pre_handler changed regs->ip (and
 * returned 1): the probed instruction must then not be executed; the rest
 * of the site's pre_handlers are skipped too, as their view of the
 * registers is gone.  A jprobe's pre_handler returns 1 with f->status
 * KPROBE_HIT_JPROBE: its handler runs next, out of the trap, and the hit
 * goes on from the probe after it (kprobe_jprobe_resume()).
 */
static nokprobe_inline int kprobe_site_pre_from(struct kprobe_site *s,
						struct kprobe_frame *f,
						struct pt_regs *regs,
						struct kprobe *kp)
{
	list_for_each_entry_from_rcu(kp, &s->probes, list) {
		if (kprobe_disabled(kp) || !kp->pre_handler)
			continue;
		if (f->kp != kp)
			kprobe_frame_set_kp(f, kp);
		if (kp->pre_handler(kp, regs))
			return 1;
	}
	return 0;
}

static nokprobe_inline int kprobe_site_pre(struct kprobe_site *s,
					   struct kprobe_frame *f,
					   struct pt_regs *regs)
{
	return kprobe_site_pre_from(s, f, regs,
				    list_entry_rcu(s->probes.next, struct kprobe, list));
}

static nokprobe_inline void kprobe_frame_running(struct kprobe *kp, void *f)
{
	kprobe_frame_set_kp(f, kp);
}

/* the post_handlers of site s, in registration order, on the top frame f */
static nokprobe_inline void kprobe_site_post(struct kprobe_site *s,
					     struct kprobe_frame *f,
					     struct pt_regs *regs)
{
	kprobe_site_run_posts(s, regs, 0, kprobe_frame_running, f);
}

int kprobe_jprobe_resume(struct pt_regs *regs, struct kprobe_ctlblk *kcb,
			 struct kprobe_frame *f);
int arch_jprobe_setjmp(struct jprobe *jp, struct pt_regs *regs);
#else
/* jprobes need a backend that implements them: register_jprobe() refuses */
static inline int arch_jprobe_setjmp(struct jprobe *jp, struct pt_regs *regs)
{
	return 0;
}
#endif /* CONFIG_HAVE_KPROBE_SITES */

/*
 * Core-internal flags, above the KPROBE_FLAG_*s of <linux/kprobes.h>.
 * Registration clears every flag but KPROBE_FLAG_DISABLED, then sets
 * KPROBE_FLAG_JPROBE for register_jprobes()'s probes alone, so the core
 * knows a jprobe without knowing its pre_handler, and KPROBE_FLAG_POST
 * for a probe with a post_handler, so that kprobe_pre_only() tells both
 * kinds it cannot run apart in one test.  KPROBE_FLAG_LEAVING marks a
 * probe an unregistration took off its site, until it hands the probe
 * back after the wait.
 */
#define KPROBE_FLAG_POST	BIT(13)
#define KPROBE_FLAG_LEAVING	BIT(14)
#define KPROBE_FLAG_JPROBE	BIT(15)
static_assert(!((KPROBE_FLAG_POST | KPROBE_FLAG_LEAVING | KPROBE_FLAG_JPROBE) &
		(KPROBE_FLAG_GONE | KPROBE_FLAG_DISABLED | KPROBE_FLAG_OPTIMIZED |
		 KPROBE_FLAG_FTRACE | KPROBE_FLAG_ON_FUNC_ENTRY)));

static inline bool kprobe_is_jprobe(struct kprobe *p)
{
	return p->flags & KPROBE_FLAG_JPROBE;
}

#ifdef CONFIG_HAVE_KPROBE_SITES
/*
 * The shortcut of a site whose probes are all pre-only (struct
 * kprobe_site.pre_only), when no hit is under way here: their
 * pre_handlers in registration order in one frame, as kprobe_solo_pre()
 * runs one, current_kprobe naming each in turn.  One that returns 1
 * moved ip: the rest are skipped, as on the general path.  Returns 1
 * then.  No step follows: for the ftrace hook and the detours only.
 */
static nokprobe_inline int kprobe_pre_only(struct kprobe_site *s,
					   struct pt_regs *regs)
{
	struct kprobe *kp;
	int ret = 0;

	__this_cpu_write(kprobe_ctlblk.depth, 1);
	__this_cpu_write(kprobe_ctlblk.frame[0].site, s);
	__this_cpu_write(kprobe_ctlblk.frame[0].status, KPROBE_HIT_ACTIVE);
	list_for_each_entry_rcu(kp, &s->probes, list) {
		/*
		 * Only pre-only probes when pre_only was read, but one may
		 * have joined the list since (__register_kprobe() clears
		 * pre_only first, then adds it, with no wait between): skip
		 * what this path cannot run whole, a probe with a
		 * post_handler or a jprobe.  This hit is then one that
		 * began before the probe joined, and runs none of its
		 * handlers, rather than its pre_handler without its
		 * post_handler.  One test for disabled, gone
		 * (kprobe_disabled()), post_handler and jprobes.
		 */
		if ((kp->flags & (KPROBE_FLAG_DISABLED | KPROBE_FLAG_GONE |
				  KPROBE_FLAG_POST | KPROBE_FLAG_JPROBE)) ||
		    !kp->pre_handler)
			continue;
		__this_cpu_write(kprobe_ctlblk.frame[0].kp, kp);
		__this_cpu_write(current_kprobe, kp);
		ret = kp->pre_handler(kp, regs);
		if (ret)
			break;
	}
	__this_cpu_write(kprobe_ctlblk.depth, 0);
	__this_cpu_write(current_kprobe, NULL);
	return ret;
}

/* may a hit on s take kprobe_pre_only()? */
static nokprobe_inline bool kprobe_pre_only_now(struct kprobe_site *s)
{
	return READ_ONCE(s->pre_only) && !__this_cpu_read(kprobe_ctlblk.depth);
}
#endif /* CONFIG_HAVE_KPROBE_SITES */

/*
 * The backend, for the sites: x86's (arch/x86/kernel/kprobes/) or, on
 * the other arches, kernel/kprobes_classic.c over theirs.
 */
int arch_check_insn_boundary(unsigned long addr);
int arch_prepare_site(struct kprobe_site *s);
void arch_release_site(struct kprobe_site *s);
void arch_arm_site(struct kprobe_site *s);
void arch_disarm_site(struct kprobe_site *s);
void arch_kprobe_poke_sync(bool wait_hits);
int kprobe_text_reserved(unsigned long start, unsigned long end);
/* kernel/kprobes_index.c: registration's lookups */
void kprobe_index_prepare(void);
bool kprobe_patched_text(unsigned long start, unsigned long end);
bool kprobe_bug_site(unsigned long addr);
bool kprobe_jump_target(unsigned long addr);
int kprobe_cold_parts(unsigned long func, int (*fn)(void *, unsigned long),
		      void *data);
bool kprobe_sym_size_offset(unsigned long addr, unsigned long *size,
			    unsigned long *offset);
#ifdef CONFIG_MODULES
void kprobe_index_module_going(struct module *mod);
#endif
#ifdef CONFIG_OPTPROBES
void kprobe_opt_sync(struct kprobe_site *s);
void kprobe_unoptimize(struct kprobe_site *s);
void kprobe_opt_break(unsigned long addr);
void kprobe_opt_unblock(unsigned long addr);
void kprobe_opt_fix_bytes(unsigned long addr, u8 *buf, int n);
int arch_prepare_opt(struct kprobe_site *s);
void arch_optimize_queue(struct kprobe_site *s);
void arch_optimize_finish(void);
void arch_unoptimize(struct kprobe_site *s);
void arch_unoptimize_finish(struct list_head *sites, bool disarm);
void arch_opt_fix_bytes(struct kprobe_site *s, unsigned long addr, u8 *buf,
			int n);
void arch_release_opt(struct kprobe_site *s);
unsigned long kprobe_opt_copy(struct kprobe_site *s);
struct kprobe_batch;
bool kprobe_opt_undo_begin(struct kprobe_site *s, struct kprobe_batch *b);
void kprobe_opt_undo_jumps(struct kprobe_batch *b);
#else
static inline void kprobe_opt_sync(struct kprobe_site *s) { }
static inline void kprobe_unoptimize(struct kprobe_site *s) { }
static inline void kprobe_opt_break(unsigned long addr) { }
static inline void kprobe_opt_unblock(unsigned long addr) { }
static inline void kprobe_opt_fix_bytes(unsigned long addr, u8 *buf, int n) { }
static inline void arch_release_opt(struct kprobe_site *s) { }
static inline unsigned long kprobe_opt_copy(struct kprobe_site *s) { return 0; }
struct kprobe_batch;
static inline bool kprobe_opt_undo_begin(struct kprobe_site *s,
					 struct kprobe_batch *b)
{
	return false;
}

static inline void kprobe_opt_undo_jumps(struct kprobe_batch *b) { }
#endif
#ifdef CONFIG_KPROBES_CLASSIC
int kprobes_classic_init(void);
#else
static inline int kprobes_classic_init(void)
{
	return 0;
}
#endif
int kprobe_check_ftrace(unsigned long addr, bool *ftrace);
#ifdef CONFIG_KPROBE_CARRIERS
/* the x86 backend: may this new int3 site carry the fentry site before it? */
int arch_prepare_carrier(struct kprobe_site *c);
void kprobe_carrier_slow(struct kprobe_site *c);
#else
static inline void kprobe_carrier_slow(struct kprobe_site *c) { }

static inline int arch_prepare_carrier(struct kprobe_site *c)
{
	return -EOPNOTSUPP;
}
#endif
#ifdef CONFIG_KPROBES_ON_FTRACE
int kprobe_ftrace_update(bool ipmodify, unsigned long *add, int nadd,
			 unsigned long *del, int ndel);
int kprobe_ftrace_ops_update(struct ftrace_ops *ops, int *users,
			     unsigned long *add, int nadd,
			     unsigned long *del, int ndel,
			     void (*registering)(struct ftrace_ops *ops));
void kprobe_ftrace_walk_sync(void);
bool kprobe_ftrace_ops_ours(struct ftrace_ops *ops);
#else
/* no ftrace site is ever created (kprobe_check_ftrace() refuses them) */
static inline int kprobe_ftrace_update(bool ipmodify, unsigned long *add,
				       int nadd, unsigned long *del, int ndel)
{
	return nadd ? -EOPNOTSUPP : 0;
}

static inline void kprobe_ftrace_walk_sync(void) { }
#endif
/*
 * kernel/kprobes.c's registration, for kernel/kprobes_kretprobes.c: what a
 * batch waits for besides its pokes (see __kprobe_batch_commit()).
 */
enum kprobe_wait {
	KPROBE_WAIT_NONE,	/* nothing: only arming, or sites to free */
	KPROBE_WAIT_HITS,	/* hits under way: probes were taken off sites */
	KPROBE_WAIT_GP,		/* a full RCU grace period (kretprobe instances) */
};

extern bool kprobes_initialized;
kprobe_opcode_t *kprobe_resolve(kprobe_opcode_t *addr,
				const char *symbol_name, unsigned long offset,
				bool *on_entry);
/*
 * An array of probes for registration: num objects, each holding its
 * struct kprobe kp_off bytes in (0 for an array of kprobes; the offset of
 * kp in a kretprobe or jprobe), so the wrappers hand their own arrays over
 * with no copy.  flags are the core-internal flags the probes get.
 */
struct kprobe_array {
	void *const *objs;
	int num;
	size_t kp_off;
	unsigned int flags;
};

/* the kprobe of entry i, or NULL for a NULL entry */
static inline struct kprobe *kprobe_array_at(const struct kprobe_array *a,
					     int i)
{
	void *obj = a->objs[i];

	return obj ? obj + a->kp_off : NULL;
}

int kprobe_register_array(const struct kprobe_array *a);
bool kprobe_is_registered(struct kprobe *p);
void kprobe_unregister_array(const struct kprobe_array *a,
			     enum kprobe_wait wait);

#ifdef CONFIG_KRETPROBES
void kretprobe_trampoline_callback(struct pt_regs *regs);
#ifndef CONFIG_KPROBES_CLASSIC
/* the return, called by the x86 trampoline's callback */
void kretprobe_slot_return(struct pt_regs *regs, void *frame_pointer);
#endif
/*
 * A kretprobe's entry probe and instance pool: the core's own
 * (kernel/kprobes_kretprobes.c), or a rethook's (kernel/kprobes_classic.c).
 */
int kretprobe_entry(struct kprobe *p, struct pt_regs *regs);
int kretprobe_pool_create(struct kretprobe *rp);
void kretprobe_orphan(struct kretprobe *rp);
void kretprobe_release(struct kretprobe *rp);

static inline bool kprobe_is_kretprobe(struct kprobe *p)
{
	return p->pre_handler == kretprobe_entry;
}
#else
static inline bool kprobe_is_kretprobe(struct kprobe *p)
{
	return false;
}
#endif
#endif /* CONFIG_KPROBES */
/*
 * kprobes/list's addresses: raw only for readers allowed to see them (as
 * /proc/kallsyms decides, kptr_restrict included); others read zeros.
 * Kprobes' and wprobes' lines alike.
 */
static inline unsigned long kprobe_shown_addr(struct seq_file *m,
					      const void *addr)
{
	return kallsyms_show_value(m->file->f_cred) ? (unsigned long)addr : 0;
}

/* an address in those files: every hex digit, zero-padded (as %px prints) */
#define KPROBE_ADDR_WIDTH	((int)(2 * sizeof(void *)))

#endif /* _LINUX_KPROBES_CORE_H */
