/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the kprobes core's files (kernel/kprobes*.c) share and nothing
 * else uses; an arch backend sees <linux/kprobes_backend.h> only.  A
 * function here that runs under kprobe_mutex asserts it
 * (kprobe_assert_locked()); one that runs without it says so.
 */
#ifndef _KERNEL_KPROBES_INTERNAL_H
#define _KERNEL_KPROBES_INTERNAL_H

#include <linux/kprobes_backend.h>

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

extern unsigned long __start_kprobe_blacklist[];
extern unsigned long __stop_kprobe_blacklist[];
extern struct list_head kprobe_sites;
extern struct list_head kprobe_blacklist;
extern bool kprobes_all_disarmed;
/* sites on kprobe_sites that are out of the hash table (gone code) */
extern unsigned int kprobe_nr_gone;

/* the core's own reads of other features' site state */
static nokprobe_inline bool kprobe_site_has_jprobe(struct kprobe_site *s)
{
	return READ_ONCE(s->fast.has_jprobe);
}

static nokprobe_inline struct kprobe_site *kprobe_site_carrier(struct kprobe_site *s)
{
	return READ_ONCE(s->carry.carrier);
}

/*
 * Core-internal probe kinds: a jprobe's and a kretprobe's entry probe
 * (see KPROBE_FLAG_JPROBE).
 */
static inline bool kprobe_is_jprobe(struct kprobe *p)
{
	return p->flags & KPROBE_FLAG_JPROBE;
}

#ifdef CONFIG_KRETPROBES
int kretprobe_entry(struct kprobe *p, struct pt_regs *regs);

static inline bool kprobe_is_kretprobe(struct kprobe *p)
{
	return p->pre_handler == kretprobe_entry;
}

/*
 * A kretprobe's instance pool: the core's own
 * (kernel/kprobes_kretprobe_pool.c), or a rethook's
 * (kernel/kprobes_classic.c).  Without kprobe_mutex: registration
 * creates it before taking the mutex, unregistration orphans and
 * releases it around its wait.
 */
int kretprobe_pool_create(struct kretprobe *rp);
void kretprobe_orphan(struct kretprobe *rp);
void kretprobe_release(struct kretprobe *rp);
#else
static inline bool kprobe_is_kretprobe(struct kprobe *p)
{
	return false;
}
#endif

/*
 * A batch of text changes: sites to arm or disarm are patched by
 * kprobe_batch_commit() with one text_poke_sync() for all of them; ftrace
 * sites are collected and their filters changed by kprobe_batch_ftrace()
 * with one ftrace update per direction; sites to free wait for one grace
 * period together.
 */
struct kprobe_batch {
	struct list_head to_free;	/* sites, via ->free_list */
	struct list_head ftrace;	/* ftrace sites to re-sync, ->ftrace.node */
	struct list_head undo;		/* jumps to undo together, ->opt.node */
	bool undo_jumps;		/* retired sites' jumps go on ->undo */
	bool poked;			/* text_poke() done, sync owed */
};

/* the ftrace sites whose hooks a batch changes (kprobe_ftrace_queue()) */
#define kprobe_batch_for_each_ftrace(s, b)				\
	list_for_each_entry(s, &(b)->ftrace, ftrace.node)
#define kprobe_batch_for_each_ftrace_safe(s, t, b)			\
	list_for_each_entry_safe(s, t, &(b)->ftrace, ftrace.node)

static inline void kprobe_batch_init(struct kprobe_batch *b)
{
	INIT_LIST_HEAD(&b->to_free);
	INIT_LIST_HEAD(&b->ftrace);
	INIT_LIST_HEAD(&b->undo);
	b->undo_jumps = false;
	b->poked = false;
}

/* kprobes_slots.c: both sleep, without kprobe_mutex */
void kprobe_sync_tasks(void);
void kprobe_free_sites_later(struct list_head *sites);

/* kprobes.c */
/* what a batch waits for besides its pokes (see __kprobe_batch_commit()) */
enum kprobe_wait {
	KPROBE_WAIT_NONE,	/* nothing: only arming, or sites to free */
	KPROBE_WAIT_HITS,	/* hits under way: probes were taken off sites */
	KPROBE_WAIT_GP,		/* a full RCU grace period (kretprobe instances) */
};

extern bool kprobes_initialized;
/* without kprobe_mutex: registration resolves an address before taking it */
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

/* these three take kprobe_mutex themselves */
int kprobe_register_array(const struct kprobe_array *a);
bool kprobe_is_registered(struct kprobe *p);
void kprobe_unregister_array(const struct kprobe_array *a,
			     enum kprobe_wait wait);
/* both without kprobe_mutex */
void __kprobe_batch_commit(struct kprobe_batch *b, enum kprobe_wait wait);
void kprobe_batch_commit(struct kprobe_batch *b);
struct kprobe_site *kprobe_site_create(unsigned long addr, bool ftrace,
				       bool on_entry, int *err);
void kprobe_site_retire(struct kprobe_site *s, struct kprobe_batch *b);
void kprobe_site_retire_finish(struct kprobe_site *s, struct kprobe_batch *b);
int kprobe_site_sync(struct kprobe_site *s, struct kprobe_batch *b);
bool kprobe_site_wants_armed(struct kprobe_site *s);
void kprobe_site_fast_sync(struct kprobe_site *s);
void kprobe_site_mark_gone(struct kprobe_site *s, struct kprobe_batch *b);

void kprobe_list_show_sources(struct seq_file *m);	/* takes its own lock */

/* kprobes_blacklist.c */
void kprobe_blacklist_init(void);		/* at boot */
void kprobe_blacklist_remove_range(unsigned long start, unsigned long end);
/* without kprobe_mutex: takes the text owners' locks (text_mutex) */
int kprobe_check_text(unsigned long addr, struct module **probed_mod);

/* without kprobe_mutex, as kprobe_resolve() */
int kprobe_check_ftrace(unsigned long addr, bool *ftrace);

/*
 * kprobes_index.c: kprobe_index_prepare() before registration's lookups
 * (may sleep; not under jump_label_lock() or text_mutex, which its
 * builders may take); a module's going drops its symbol index.
 */
void kprobe_index_prepare(void);
#ifdef CONFIG_MODULES
void kprobe_index_module_going(struct module *mod);
#endif

/* kprobes_opt.c */
/* not optimized, nor waiting to be */
static nokprobe_inline bool kprobe_site_opt_none(struct kprobe_site *s)
{
	return s->opt.state == KPROBE_OPT_NONE;
}

#ifdef CONFIG_OPTPROBES
void kprobe_opt_sync(struct kprobe_site *s);
void kprobe_unoptimize(struct kprobe_site *s);
void kprobe_opt_break(unsigned long addr);
void kprobe_opt_unblock(unsigned long addr);
bool kprobe_opt_undo_begin(struct kprobe_site *s, struct kprobe_batch *b);
void kprobe_opt_undo_jumps(struct kprobe_batch *b);
#else
static inline void kprobe_opt_sync(struct kprobe_site *s) { }
static inline void kprobe_unoptimize(struct kprobe_site *s) { }
static inline void kprobe_opt_break(unsigned long addr) { }
static inline void kprobe_opt_unblock(unsigned long addr) { }
static inline bool kprobe_opt_undo_begin(struct kprobe_site *s,
					 struct kprobe_batch *b)
{
	return false;
}

static inline void kprobe_opt_undo_jumps(struct kprobe_batch *b) { }
#endif

/* kprobes_classic.c */
#ifdef CONFIG_KPROBES_CLASSIC
int kprobes_classic_init(void);		/* at boot */
#else
static inline int kprobes_classic_init(void)
{
	return 0;
}
#endif

/* kprobes_module.c */
#ifdef CONFIG_MODULES
int kprobes_module_init(void);		/* at boot */
#else
static inline int kprobes_module_init(void)
{
	return 0;
}
#endif

/* kprobes_ftrace.c */
int kprobe_batch_ftrace(struct kprobe_batch *b);
void kprobe_ftrace_queue(struct kprobe_site *s, struct kprobe_batch *b);
void kprobe_ftrace_dequeue(struct kprobe_site *s);
void kprobe_idle_hooks_remove(bool (*in)(unsigned long, void *), void *arg);
bool kprobe_idle_hook_at(unsigned long ip);
/* ftrace updates that hooked a site moving off its carrier, so far */
extern unsigned long kprobe_hook_seq;

/* kprobes_carriers.c */
#ifdef CONFIG_KPROBE_CARRIERS
void kprobe_carriers_sync(struct kprobe_batch *b);
void kprobe_carrier_slow(struct kprobe_site *c);
bool kprobe_carrier_hooked(struct kprobe_site *s, unsigned long seq);
void kprobe_carriers_kick(void);
void kprobe_carriers_refused(void);
int kprobe_carrier_move(unsigned long addr);	/* without kprobe_mutex */
#else
static inline void kprobe_carriers_sync(struct kprobe_batch *b) { }
static inline void kprobe_carrier_slow(struct kprobe_site *c) { }

static inline bool kprobe_carrier_hooked(struct kprobe_site *s,
					 unsigned long seq)
{
	return false;
}

static inline void kprobe_carriers_kick(void) { }
static inline void kprobe_carriers_refused(void) { }
static inline int kprobe_carrier_move(unsigned long addr)
{
	return 0;
}
#endif

#endif /* _KERNEL_KPROBES_INTERNAL_H */
