// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Kernel Probes (kprobes): the arch-neutral core.
 *
 * Kprobes' probe sites, one per probed address, and the hash table the
 * hit paths find them in without a lock; the batches that arm and disarm
 * sites with one text sync for a whole register_kprobes() or
 * unregister_kprobes() (kprobes_register.c); sites whose code goes away;
 * and the per-CPU state that keeps one probe handler from nesting into
 * another.
 */

#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/kprobes.h>
#include <linux/kprobes_backend.h>
#include <linux/export.h>
#include <linux/hash.h>
#include <linux/init.h>
#include <linux/kallsyms.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "kprobes_internal.h"

/* ---- the site hash table ------------------------------------------------- */

/*
 * The site hash table: RCU hlist buckets keyed by address (KPROBE_HASH_BITS
 * is in <linux/kprobes_backend.h>: the hit paths inline the lookup).  The
 * hit paths (int3, ftrace) take no lock; they rely on two rules:
 *
 *  1. A site is hashed before its int3 is written, and unhashed only once
 *     its int3 is removed (kprobe_site_retire_finish() says why a CPU that
 *     trapped on it and then finds no site is fine); its memory and slot
 *     are freed only a grace period after that.
 *  2. A probe is on its site's list before the site is armed for it, and
 *     its memory is the caller's again only once every hit that may have
 *     seen it on the list has ended (__kprobe_batch_commit()).
 */
struct hlist_head kprobe_table[1 << KPROBE_HASH_BITS];

/* every site, live or gone, for debugfs and module walks; kprobe_mutex */
LIST_HEAD(kprobe_sites);
/*
 * Serialises registration and every change to sites, the hash table,
 * kprobe_sites and the blacklist.  Lock order: kprobe_mutex, then what is
 * taken under it: jump_label_mutex (the optimizer's and the carriers'
 * reserved-text checks), cpus_read_lock() (a classic backend's arming),
 * ftrace's locks (filter updates), then text_mutex (each poke; inside all
 * of those), and kprobe_index_mutex innermost.  Registration's own text
 * checks (kprobe_check_text()) take jump_label_mutex and text_mutex, and
 * drop them, before it takes kprobe_mutex.
 */
DEFINE_MUTEX(kprobe_mutex);

/* sites on kprobe_sites that are out of the hash table (gone code) */
unsigned int kprobe_nr_gone;

/* debugfs kprobes/enabled: 0 disarms every site, keeping their state */
bool kprobes_all_disarmed;

bool kprobes_initialized;

#ifdef CONFIG_HAVE_KPROBE_SITES
/* (a classic backend defines its own, with its own struct kprobe_ctlblk) */
DEFINE_PER_CPU(struct kprobe *, current_kprobe);
DEFINE_PER_CPU(struct kprobe_ctlblk, kprobe_ctlblk);
#endif

/**
 * kprobe_site_lookup() - find the live site at an address
 * @addr: the probed address
 *
 * Lock-free; the caller is in an RCU read-side section, or runs with
 * preemption disabled (the int3 and ftrace paths), or holds kprobe_mutex.
 *
 * Return: the site, or NULL.
 */
struct kprobe_site *kprobe_site_lookup(unsigned long addr)
{
	return __kprobe_site_lookup(addr);
}

NOKPROBE_SYMBOL(kprobe_site_lookup);

/* ---- counting misses ----------------------------------------------------- */

/**
 * kprobes_inc_nmissed_count() - count a hit that ran no handler
 * @p: the probe that was hit; every enabled probe of its site is charged
 */
void kprobes_inc_nmissed_count(struct kprobe *p)
{
	struct kprobe_site *s = p->site;
	struct kprobe *kp;

	if (!s) {
		kprobe_count_miss(&p->nmissed);
		return;
	}
	list_for_each_entry_rcu(kp, &s->probes, list) {
		if (!kprobe_disabled(kp))
			kprobe_count_miss(&kp->nmissed);
	}
}

NOKPROBE_SYMBOL(kprobes_inc_nmissed_count);

/* ---- running the handlers of a site -------------------------------------- */

struct kprobe kprobe_busy;

/**
 * kprobe_busy_begin() - mark this CPU busy in a probe handler
 *
 * Used where handlers run outside the int3 path (fprobe, the kretprobe
 * trampoline): a probe hit meanwhile counts nmissed and runs nothing.
 */
void kprobe_busy_begin(void)
{
	preempt_disable();
#ifdef CONFIG_HAVE_KPROBE_SITES
	kprobe_frame_push(get_kprobe_ctlblk(), NULL, &kprobe_busy,
			  KPROBE_HIT_ACTIVE);
#else
	/* a classic backend's state is one level: nothing runs under this */
	__this_cpu_write(current_kprobe, &kprobe_busy);
	get_kprobe_ctlblk()->kprobe_status = KPROBE_HIT_ACTIVE;
#endif
}

NOKPROBE_SYMBOL(kprobe_busy_begin);

/**
 * kprobe_busy_end() - end a kprobe_busy_begin() section
 */
void kprobe_busy_end(void)
{
#ifdef CONFIG_HAVE_KPROBE_SITES
	kprobe_frame_pop(get_kprobe_ctlblk());
#else
	__this_cpu_write(current_kprobe, NULL);
#endif
	preempt_enable();
}

NOKPROBE_SYMBOL(kprobe_busy_end);

/* ---- other kinds of probe in debugfs kprobes/list ------------------------ */

/* the other kinds of probe whose lines kprobes/list shows after ours */
static LIST_HEAD(list_sources);
static DEFINE_MUTEX(list_sources_lock);

/**
 * kprobe_list_add_source() - show another kind of probe in kprobes/list
 * @src: its show(), called after the kprobes' lines at each read
 *
 * For probe kinds built into the kernel: a source is never removed.
 */
void kprobe_list_add_source(struct kprobe_list_source *src)
{
	guard(mutex)(&list_sources_lock);
	list_add_tail(&src->node, &list_sources);
}

/**
 * kprobe_shown_addr() - an address as kprobes/list shows it to this reader
 * @m: the seq_file being read
 * @addr: the address
 *
 * Raw only to readers allowed to see it, as /proc/kallsyms decides
 * (kptr_restrict included); others read zeros.
 *
 * Return: @addr or 0.
 */
unsigned long kprobe_shown_addr(struct seq_file *m, const void *addr)
{
	return kallsyms_show_value(m->file->f_cred) ? (unsigned long)addr : 0;
}

/* kprobes/list: the lines of the other kinds of probe, after ours */
void kprobe_list_show_sources(struct seq_file *m)
{
	struct kprobe_list_source *src;

	guard(mutex)(&list_sources_lock);
	list_for_each_entry(src, &list_sources, node)
		src->show(m);
}

/* ---- sites: create, arm, disarm, free ---------------------------------------- */

static bool site_enabled(struct kprobe_site *s)
{
	struct kprobe *kp;

	list_for_each_entry(kp, &s->probes, list) {
		if (!kprobe_disabled(kp))
			return true;
	}
	return false;
}

static bool site_has_post(struct kprobe_site *s)
{
	struct kprobe *kp;

	list_for_each_entry(kp, &s->probes, list) {
		if (kp->post_handler)
			return true;
	}
	return false;
}

static bool site_has_jprobe(struct kprobe_site *s)
{
	struct kprobe *kp;

	list_for_each_entry(kp, &s->probes, list) {
		if (kprobe_is_jprobe(kp))
			return true;
	}
	return false;
}

/*
 * A site should be armed iff it is live, some probe on it is enabled, and
 * kprobes are not globally disarmed.
 */
bool kprobe_site_wants_armed(struct kprobe_site *s)
{
	kprobe_assert_locked();
	return !(s->flags & KPROBE_SITE_GONE) && !kprobes_all_disarmed &&
	       site_enabled(s);
}

/* a probe with a pre_handler and nothing else to run (solo, pre_only) */
static bool probe_pre_only(struct kprobe *kp)
{
	return kp->pre_handler && !kp->post_handler && !kprobe_is_jprobe(kp);
}

/*
 * The probe that may stand alone for the site on the hit paths (struct
 * kprobe_site_fast.solo): one probe, enabled, with a pre_handler and
 * nothing else to run, on a site that is armed or about to be (want_armed,
 * what kprobe_site_wants_armed() said).
 */
static struct kprobe *site_solo(struct kprobe_site *s, bool want_armed)
{
	struct kprobe *kp;

	/* a trampoline's call to its carrier: told apart on the slow path */
	if (!want_armed || !list_is_singular(&s->probes) ||
	    kprobe_site_carrier_diverted(s))
		return NULL;
	kp = list_first_entry(&s->probes, struct kprobe, list);
	return probe_pre_only(kp) ? kp : NULL;
}

/* the probe for struct kprobe_site_fast.solo_post, or NULL */
static struct kprobe *site_solo_post(struct kprobe_site *s, bool want_armed)
{
	struct kprobe *kp;

	if (!want_armed || (s->flags & KPROBE_SITE_FTRACE) ||
	    !list_is_singular(&s->probes))
		return NULL;
	kp = list_first_entry(&s->probes, struct kprobe, list);
	if (!kp->post_handler || kprobe_is_jprobe(kp))
		return NULL;
	return kp;
}

/* struct kprobe_site_fast.pre_only: several probes, each with a pre_handler only */
static bool site_pre_only(struct kprobe_site *s, bool want_armed)
{
	struct kprobe *kp;

	if (!want_armed || list_empty(&s->probes) ||
	    list_is_singular(&s->probes) || kprobe_site_carrier_diverted(s))
		return false;
	list_for_each_entry(kp, &s->probes, list) {
		if (!probe_pre_only(kp))
			return false;
	}
	return true;
}

/*
 * Publish the shortcuts of s for the hit paths.  None while the site moves
 * off its carrier: every hook hit then takes the general path, which
 * redirects past the carrier.
 */
static void site_fast_publish(struct kprobe_site *s, bool want)
{
	bool moving = kprobe_site_carrier_moving(s);

	WRITE_ONCE(s->fast.solo, moving ? NULL : site_solo(s, want));
	WRITE_ONCE(s->fast.solo_post, site_solo_post(s, want));
	WRITE_ONCE(s->fast.pre_only, !moving && site_pre_only(s, want));
}

/**
 * kprobe_site_fast_sync() - recompute the hit paths' shortcuts of a site
 * @s: the site, whose carrier move started or ended
 */
void kprobe_site_fast_sync(struct kprobe_site *s)
{
	kprobe_assert_locked();
	site_fast_publish(s, kprobe_site_wants_armed(s));
}

/*
 * Make the site's text state match what its probes want (int3 sites at
 * once, ftrace sites queued for kprobe_batch_ftrace()), and publish
 * has_post for the hit path.  Called with kprobe_mutex held.
 */
int kprobe_site_sync(struct kprobe_site *s, struct kprobe_batch *b)
{
	bool want = kprobe_site_wants_armed(s);
	bool post = site_has_post(s);

	kprobe_assert_locked();
	/* a carrier follows the fentry site it carries (kprobe_carriers_sync()) */
	if (kprobe_site_carried(s))
		return 0;
	s->fast.has_jprobe = site_has_jprobe(s);
	/* an optimized site has no int3 to run a post_handler from, or to remove */
	if (!(s->flags & KPROBE_SITE_FTRACE) && (!want || post || s->fast.has_jprobe))
		kprobe_unoptimize(s);
	/* read by the hit path: a post_handler rules out boosting */
	WRITE_ONCE(s->fast.has_post, post);
	site_fast_publish(s, want);
	if (s->flags & KPROBE_SITE_FTRACE) {
		/* its filter changes with the batch's (kprobe_batch_ftrace()) */
		kprobe_ftrace_queue(s, b);
		return 0;
	}
	if (want && !(s->flags & KPROBE_SITE_ARMED)) {
		arch_arm_site(s);
		s->flags |= KPROBE_SITE_ARMED;
		b->poked = true;
	} else if (!want && (s->flags & KPROBE_SITE_ARMED)) {
		arch_disarm_site(s);
		s->flags &= ~KPROBE_SITE_ARMED;
		b->poked = true;
	}
	/* queued for the optimizer if it qualifies now */
	kprobe_opt_sync(s);
	return 0;
}

/*
 * Finish a batch, without kprobe_mutex.  However many sites a
 * register_kprobes() or unregister_kprobes() armed or disarmed:
 *
 *  1. Make the batch's pokes visible to every CPU: one
 *     arch_kprobe_poke_sync() (x86: one text_poke_sync()).
 *  2. KPROBE_WAIT_HITS: wait until no CPU is still running a hit that
 *     may have seen a probe taken off its site.  Every hit runs with
 *     interrupts off from its site lookup to its last use of a struct
 *     kprobe (the int3 path by the gate, the single-step with IF cleared,
 *     the ftrace handler by local_irq_save()), so the IPI round of
 *     text_poke_sync() returns only after each such hit ended, and later
 *     hits see the lists without the probe.  That is one IPI per
 *     unregister_kprobe(), not a grace period: a tool removing probes
 *     one by one does not wait for 10000 grace periods.
 *  3. KPROBE_WAIT_GP: synchronize_rcu(), for readers that run with
 *     interrupts on (the kretprobe trampoline's instance recycling).
 *  4. Hand the retired sites to kprobe_free_sites_later(), which frees
 *     them after a grace period, in the background.
 */
void __kprobe_batch_commit(struct kprobe_batch *b, enum kprobe_wait wait)
{
	if (b->poked || wait == KPROBE_WAIT_HITS) {
		arch_kprobe_poke_sync(wait == KPROBE_WAIT_HITS);
		b->poked = false;
	}
	if (wait == KPROBE_WAIT_GP)
		synchronize_rcu();
	if (!list_empty(&b->to_free))
		kprobe_free_sites_later(&b->to_free);
}

void kprobe_batch_commit(struct kprobe_batch *b)
{
	__kprobe_batch_commit(b, KPROBE_WAIT_NONE);
}

/*
 * A new site at addr, neither hashed nor armed yet; its probes go on
 * ->probes, an RCU list in registration order.  Every probe belongs to a
 * site, even a lone one: there is no "become an aggregate on the second
 * probe" transition, so adding or removing a probe never swaps the object
 * the hit path finds.
 */
struct kprobe_site *kprobe_site_create(unsigned long addr, bool ftrace,
				       bool on_entry, int *err)
{
	struct kprobe_site *s;

	kprobe_assert_locked();
	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s) {
		*err = -ENOMEM;
		return NULL;
	}
	s->addr = addr;
	INIT_LIST_HEAD(&s->probes);
	INIT_LIST_HEAD(&s->free_list);
	INIT_LIST_HEAD(&s->ftrace.node);
	INIT_LIST_HEAD(&s->opt.node);
	if (ftrace)
		s->flags |= KPROBE_SITE_FTRACE;
	if (on_entry)
		s->flags |= KPROBE_SITE_ON_ENTRY;
	/* a classic backend prepares ftrace sites too (its ftrace handler) */
	if (!ftrace || IS_ENABLED(CONFIG_KPROBES_CLASSIC)) {
		*err = arch_prepare_site(s);
		if (*err) {
			kfree(s);
			return NULL;
		}
	}
	return s;
}

/*
 * Take a site out of use, its last probe gone:
 *
 *  1. No hit-path shortcut names it any more; it leaves kprobe_sites for
 *     the batch's to_free list.
 *  2. An int3 site is unoptimized, unless its jump is to be undone with
 *     the batch's others (kprobe_opt_undo_begin()): it then stays hashed
 *     and armed, and kprobe_opt_undo_jumps() does step 3.  An ftrace site
 *     is queued for kprobe_batch_ftrace(), which unhooks it.
 *  3. kprobe_site_retire_finish(): the int3 removed, the site unhashed.
 *  4. The batch's commit makes the text visible everywhere and frees the
 *     site, with its slot and detour, a grace period later
 *     (__kprobe_batch_commit()).
 */
void kprobe_site_retire(struct kprobe_site *s, struct kprobe_batch *b)
{
	kprobe_assert_locked();
	WRITE_ONCE(s->fast.solo, NULL);
	WRITE_ONCE(s->fast.solo_post, NULL);
	WRITE_ONCE(s->fast.pre_only, false);
	list_del(&s->all);
	list_add_tail(&s->free_list, &b->to_free);
	if (!(s->flags & KPROBE_SITE_FTRACE)) {
		/* an optimized site's jump may go with its batch's others */
		if (kprobe_opt_undo_begin(s, b))
			return;		/* kprobe_opt_undo_jumps() goes on */
		kprobe_unoptimize(s);
	} else {
		/* no probes left: kprobe_batch_ftrace() unhooks it */
		kprobe_ftrace_queue(s, b);
	}
	kprobe_site_retire_finish(s, b);
}

/*
 * Step 3 of kprobe_site_retire(): the original byte back (the batch
 * syncs it) and the site out of the hash table.  A CPU that trapped on
 * the int3 before and looks the site up after finds none, and the byte
 * is no longer an int3: it runs the original instruction.
 */
void kprobe_site_retire_finish(struct kprobe_site *s, struct kprobe_batch *b)
{
	kprobe_assert_locked();
	if (!(s->flags & KPROBE_SITE_FTRACE) &&
	    (s->flags & KPROBE_SITE_ARMED)) {
		arch_disarm_site(s);
		b->poked = true;
		s->flags &= ~KPROBE_SITE_ARMED;
	}
	if (!(s->flags & KPROBE_SITE_UNHASHED)) {
		hlist_del_rcu(&s->hash);
		s->flags |= KPROBE_SITE_UNHASHED;
	} else {
		kprobe_nr_gone--;	/* a gone site, off kprobe_sites now */
	}
	/* a site before it whose region it blocked may be optimized now */
	if (!(s->flags & KPROBE_SITE_FTRACE))
		kprobe_opt_unblock(s->addr);
}

/* ---- gone code: module unload, init memory -------------------------------------- */

/*
 * The code under the site is going away: disarm it while the text is still
 * there, take it out of the hash table (a later module may load at the
 * same address), and mark its probes gone.  They stay registered until
 * their owners unregister them.
 */
void kprobe_site_mark_gone(struct kprobe_site *s, struct kprobe_batch *b)
{
	struct kprobe *kp;

	kprobe_assert_locked();
	s->flags |= KPROBE_SITE_GONE;
	kprobe_site_sync(s, b);
	if (!(s->flags & KPROBE_SITE_UNHASHED)) {
		hlist_del_rcu(&s->hash);
		s->flags |= KPROBE_SITE_UNHASHED;
		kprobe_nr_gone++;
	}
	list_for_each_entry(kp, &s->probes, list)
		kp->flags |= KPROBE_FLAG_GONE;
}

/* ---- init -------------------------------------------------------------------------- */

static int __init init_kprobes(void)
{
	int err;

	kprobe_blacklist_init();
	/* a classic backend may register a probe (on its kretprobe trampoline) */
	err = arch_init_kprobes();
	if (!err)
		err = kprobes_classic_init();
	if (!err)
		err = kprobes_module_init();
	kprobes_initialized = !err;
	return err;
}
early_initcall(init_kprobes);
