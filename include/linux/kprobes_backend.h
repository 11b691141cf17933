/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef _LINUX_KPROBES_BACKEND_H
#define _LINUX_KPROBES_BACKEND_H
/*
 * The contract between the kprobes core (kernel/kprobes*.c) and an arch
 * backend written for its probe sites (x86: arch/x86/kernel/kprobes/):
 * the probe site, the arch_*() hooks the core calls, and the core API a
 * backend calls, the hit path's inline helpers among them.  Each
 * declaration here is used by a backend (and most by the core too);
 * what only the core's files share is in kernel/kprobes_internal.h.  Not for probe modules, whose
 * API is <linux/kprobes.h>.
 */
#include <linux/kprobes.h>

#ifdef CONFIG_KPROBES
/*
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

/*
 * Each feature's state of a site is a struct of its own, written by that
 * feature's file alone (the hit paths' shortcuts: by the core proper,
 * kprobes.c and kprobes_register.c); the others, and the arch backend,
 * read it through the accessors that follow struct kprobe_site.
 */

/* the hit paths' shortcuts (kprobe_site_sync(), registration) */
struct kprobe_site_fast {
	/*
	 * The site's one probe when a hit has nothing to run but its
	 * pre_handler (enabled, no post_handler, not a jprobe, alone at the
	 * address, site armed); else NULL and hits walk the probes.
	 */
	struct kprobe *solo;
	/*
	 * The int3 path's second shortcut: the site's one probe when it has
	 * a post_handler (enabled, not a jprobe, alone, site armed, not an
	 * ftrace site); else NULL.  Never set together with solo.
	 */
	struct kprobe *solo_post;
	/*
	 * For a site of several probes on the no-step paths (ftrace hook,
	 * detour): each has a pre_handler and nothing else to run, and the
	 * site is armed; the hit walks the list in one frame
	 * (kprobe_pre_only()).  Never set with solo.
	 */
	bool pre_only;
	bool has_post;			/* a probe has a post_handler: no boost */
	bool has_jprobe;		/* a jprobe: ftrace must let ip change */
};

/* an fentry site on ftrace's hook (kprobes_ftrace.c) */
struct kprobe_site_ftrace {
	struct list_head node;		/* a batch's ftrace filter changes */
	bool armed_ipmodify;		/* armed on the IPMODIFY ops */
	bool dual;			/* moving, hooked on both ops */
};

/* jump optimization of an int3 site (kprobes_opt.c) */
enum {
	KPROBE_OPT_NONE,	/* a plain int3 */
	KPROBE_OPT_QUEUED,	/* waiting for the optimizer */
	KPROBE_OPT_READY,	/* detour built: int3 hits leave through it */
	KPROBE_OPT_DONE,	/* the jump to the detour is in place */
	KPROBE_OPT_UNDOING,	/* retired: its jump goes with its batch */
};

struct kprobe_site_opt {
	u8 state;			/* KPROBE_OPT_* */
	/* the optimizer's queues; arch_unoptimize_finish()'s list of sites */
	struct list_head node;
};

/*
 * Carriers (kprobes_carriers.c): an fentry site armed, instead of by an
 * ftrace hook, by an int3 site on the instruction after its nop, which
 * nothing else reaches.
 */
struct kprobe_site_carry {
	/* on the fentry site: the int3 site carrying it (NULL: hooked, disarmed) */
	struct kprobe_site *carrier;
	/* on the int3 site, for its whole life: the fentry site it carries */
	struct kprobe_site *carried;
	/*
	 * While the fentry site is being hooked on ftrace: its carrier, past
	 * which the callback sends calls (kprobe_carrier_resume()).  One load
	 * for the callback; the carrier outlives it by a grace period.
	 */
	struct kprobe_site *moving;
	/* the ftrace update (kprobe_hook_seq) that hooked it, 0 before */
	unsigned long hooked;
	bool slow;			/* no jump: for the background mover */
	/*
	 * A diverting ftrace user came while it was carried, so a
	 * trampoline may call into its carrier after the hook ran its
	 * probes; sticky, it keeps the site off the fast paths
	 * (kprobe_carrier_called()).
	 */
	bool diverted;
};

/*
 * The hit paths read hash, addr and fast first: they share a cache line
 * (static_assert below), and a lone probe's hit reads little else.
 */
struct kprobe_site {
	struct hlist_node hash;		/* kprobe_table bucket (RCU) */
	unsigned long addr;
	struct kprobe_site_fast fast;
	struct list_head probes;	/* struct kprobe.list (RCU) */
	struct list_head all;		/* kprobe_sites; kprobe_mutex */
	struct list_head free_list;	/* a batch's to_free */
	unsigned int flags;		/* KPROBE_SITE_*; kprobe_mutex */
	struct kprobe_site_ftrace ftrace;
	struct kprobe_site_opt opt;
	struct kprobe_site_carry carry;
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

#if defined(CONFIG_64BIT) && !defined(CONFIG_KPROBES_CLASSIC)
static_assert(offsetof(struct kprobe_site, fast) +
	      sizeof(struct kprobe_site_fast) <= 64);
/* kzalloc()'s kmalloc-256: one byte more would double every site */
static_assert(sizeof(struct kprobe_site) <= 256);
#endif

/* ---- Reading a site's state: lock-free on the hit paths ---- */
static nokprobe_inline bool kprobe_site_is_ftrace(struct kprobe_site *s)
{
	return READ_ONCE(s->flags) & KPROBE_SITE_FTRACE;
}

static nokprobe_inline bool kprobe_site_is_armed(struct kprobe_site *s)
{
	return READ_ONCE(s->flags) & KPROBE_SITE_ARMED;
}

/* its int3 hits leave through the detour (the optimizer built one) */
static nokprobe_inline bool kprobe_site_detoured(struct kprobe_site *s)
{
	return READ_ONCE(s->opt.state) >= KPROBE_OPT_READY;
}

static nokprobe_inline bool kprobe_site_has_post(struct kprobe_site *s)
{
	return READ_ONCE(s->fast.has_post);
}

static nokprobe_inline struct kprobe *kprobe_site_solo(struct kprobe_site *s)
{
	return READ_ONCE(s->fast.solo);
}

static nokprobe_inline struct kprobe *kprobe_site_solo_post(struct kprobe_site *s)
{
	return READ_ONCE(s->fast.solo_post);
}

static nokprobe_inline bool kprobe_site_ftrace_dual(struct kprobe_site *s)
{
	return READ_ONCE(s->ftrace.dual);
}

static nokprobe_inline struct kprobe_site *kprobe_site_carried(struct kprobe_site *s)
{
	return s->carry.carried;	/* set before the site is hashed */
}

static nokprobe_inline struct kprobe_site *kprobe_site_carrier_moving(struct kprobe_site *s)
{
	return READ_ONCE(s->carry.moving);
}

static nokprobe_inline bool kprobe_site_carrier_diverted(struct kprobe_site *s)
{
	return READ_ONCE(s->carry.diverted);
}

/* kprobe_mutex: held across registration and every change to a site */
extern struct mutex kprobe_mutex;

static inline void kprobe_assert_locked(void)
{
	lockdep_assert_held(&kprobe_mutex);
}

/* the placeholder probe kprobe_busy_begin() runs under; never registered */
extern struct kprobe kprobe_busy;

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
	struct kprobe *kp = kprobe_site_solo(s);

	/* solo first: a site without one then costs no depth test */
	return kp && !__this_cpu_read(kprobe_ctlblk.depth) ? kp : NULL;
}

/*
 * A fast path's hit (struct kprobe_site.fast.solo): no hit is under way on this
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

	if (!kprobe_site_has_post(s))
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

/* kprobe_site_first(), or the busy placeholder once s has no probe left */
static nokprobe_inline struct kprobe *kprobe_site_standin(struct kprobe_site *s)
{
	return kprobe_site_first(s) ?: &kprobe_busy;
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

#ifdef CONFIG_HAVE_KPROBE_SITES
/*
 * The shortcut of a site whose probes are all pre-only (struct
 * kprobe_site.fast.pre_only), when no hit is under way here: their
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
	return READ_ONCE(s->fast.pre_only) && !__this_cpu_read(kprobe_ctlblk.depth);
}
#endif /* CONFIG_HAVE_KPROBE_SITES */

/*
 * ---- The arch hooks: what the core calls, implemented by x86's backend
 * (arch/x86/kernel/kprobes/) or, on the other arches, by
 * kernel/kprobes_classic.c over their 6.12 backends.  Each runs under
 * kprobe_mutex unless it says otherwise. ----
 */
int arch_check_insn_boundary(unsigned long addr);
int arch_prepare_site(struct kprobe_site *s);
/* no lock held: the deferred free, a grace period after the disarm */
void arch_release_site(struct kprobe_site *s);
void arch_arm_site(struct kprobe_site *s);
void arch_disarm_site(struct kprobe_site *s);
/* the byte a probe's opcode reports: the site's original first byte */
kprobe_opcode_t arch_site_opcode(struct kprobe_site *s);
/* with or without kprobe_mutex: complete the text pokes of a batch */
void arch_kprobe_poke_sync(bool wait_hits);
/*
 * Does the arch's own patching (x86: alternatives) own [start, end)?
 * text_mutex held, kprobe_mutex not necessarily.
 */
bool arch_kprobe_text_patched(unsigned long start, unsigned long end);
#ifdef CONFIG_HAVE_KPROBE_SITES
/* on the hit path: a jprobe's pre_handler */
int arch_jprobe_setjmp(struct jprobe *jp, struct pt_regs *regs);
#else
/* jprobes need a backend that implements them: register_jprobe() refuses */
static inline int arch_jprobe_setjmp(struct jprobe *jp, struct pt_regs *regs)
{
	return 0;
}
#endif
#ifdef CONFIG_OPTPROBES
int arch_prepare_opt(struct kprobe_site *s);
void arch_optimize_queue(struct kprobe_site *s);
void arch_optimize_finish(void);
void arch_unoptimize_finish(struct list_head *sites, bool disarm);
void arch_opt_fix_bytes(struct kprobe_site *s, unsigned long addr, u8 *buf,
			int n);
/* no lock held, as arch_release_site() */
void arch_release_opt(struct kprobe_site *s);
/* how many bytes from s->addr on its jump covers (0: no jump yet) */
int arch_opt_len(struct kprobe_site *s);
#else
static inline void arch_release_opt(struct kprobe_site *s) { }
#endif
#ifdef CONFIG_KPROBE_CARRIERS
/* may this new int3 site carry the fentry site before it? */
int arch_prepare_carrier(struct kprobe_site *c);
#else
static inline int arch_prepare_carrier(struct kprobe_site *c)
{
	return -EOPNOTSUPP;
}
#endif
#ifdef CONFIG_KPROBES_ON_FTRACE
/* hook (add) and unhook (del) fentry sites, on the IPMODIFY ops or not */
int arch_ftrace_sites_update(bool ipmodify, unsigned long *add, int nadd,
			     unsigned long *del, int ndel);
/* wait until no ftrace callback of ours still walks a site it was given */
void arch_ftrace_sites_sync(void);
/* is ops one of the backend's own?  Carriers ask (x86 only) */
bool arch_ftrace_ops_ours(struct ftrace_ops *ops);
#else
/* no ftrace site is ever created (kprobe_check_ftrace() refuses them) */
static inline int arch_ftrace_sites_update(bool ipmodify, unsigned long *add,
					   int nadd, unsigned long *del,
					   int ndel)
{
	return nadd ? -EOPNOTSUPP : 0;
}

static inline void arch_ftrace_sites_sync(void) { }
#endif

/* ---- The core API a backend calls (beside the inline helpers above) ---- */
int kprobe_text_reserved(unsigned long start, unsigned long end);
int kprobe_cold_parts(unsigned long func, int (*fn)(void *, unsigned long),
		      void *data);
bool kprobe_sym_size_offset(unsigned long addr, unsigned long *size,
			    unsigned long *offset);
#ifdef CONFIG_HAVE_KPROBE_SITES
int kprobe_jprobe_resume(struct pt_regs *regs, struct kprobe_ctlblk *kcb,
			 struct kprobe_frame *f);
#endif
#ifdef CONFIG_OPTPROBES
void kprobe_opt_fix_bytes(unsigned long addr, u8 *buf, int n);
#else
static inline void kprobe_opt_fix_bytes(unsigned long addr, u8 *buf, int n) { }
#endif
#ifdef CONFIG_KPROBES_ON_FTRACE
int kprobe_ftrace_ops_update(struct ftrace_ops *ops, int *users,
			     unsigned long *add, int nadd,
			     unsigned long *del, int ndel,
			     void (*registering)(struct ftrace_ops *ops));
#endif
#if defined(CONFIG_KRETPROBES) && !defined(CONFIG_KPROBES_CLASSIC)
/* the return, called by the x86 trampoline's callback */
void kretprobe_slot_return(struct pt_regs *regs, void *frame_pointer);
#endif
#endif /* CONFIG_KPROBES */
#endif /* _LINUX_KPROBES_BACKEND_H */
