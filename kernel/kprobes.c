// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Kernel Probes (kprobes): the arch-neutral core.
 *
 * What lives here
 * ---------------
 *  - The probe site (struct kprobe_site), the aggregate probe: one per
 *    probed address, owning the arch state (copied instruction, slot,
 *    original bytes) and an RCU list of the kprobes registered there, in
 *    registration order.  Every probe belongs to a site, even a lone one:
 *    there is no "become an aggregate on the second probe" transition, so
 *    adding or removing a probe never swaps the object the hit path finds.
 *  - The site hash table (kprobe_table): RCU hlist buckets keyed by
 *    address.  The hit path (int3, ftrace) looks a site up without locks.
 *  - Registration: arming and disarming in batches (one text_poke_sync()
 *    for a whole register_kprobes()/unregister_kprobes() call, whose IPI
 *    round also waits out the hits under way; retired sites are freed
 *    after a grace period, in the background).
 *
 * Elsewhere: where a probe may go (the blacklist, address resolution,
 * the checks of register) in kprobes_blacklist.c; fentry sites on
 * ftrace's hook in kprobes_ftrace.c, and armed by a carrier past the
 * fentry call in kprobes_carriers.c; module load/unload and init-memory
 * freeing in kprobes_module.c; kretprobes and their instance pools in
 * kprobes_kretprobes.c, the debugfs files in kprobes_debugfs.c, the slot
 * cache and the freeing of retired sites in kprobes_slots.c, jprobes in
 * kprobes_jprobes.c, the jump optimizer in kprobes_opt.c, the other
 * arches' interface in kprobes_classic.c; what these share in
 * kprobes_internal.h.  The x86 backend is arch/x86/kernel/kprobes/.
 *
 * Locking
 * -------
 *  kprobe_mutex serialises every change to sites, the hash table, the
 *  all-sites list and the blacklist.  The arch takes text_mutex around
 *  each poke (inside kprobe_mutex); ftrace sites change ftrace filters,
 *  which take text_mutex themselves, so the core holds it only for the
 *  reserved-text checks at register (outside kprobe_mutex).  The hit path
 *  takes no lock: it relies on
 *   (1) a site is in the hash table before its int3 is written, and stays
 *       there until after its int3 is removed and a grace period passed;
 *       its memory (and slot) is freed only after that grace period;
 *   (2) a probe is on its site's list before the site is armed for it,
 *       and its memory is not given back to the caller until every hit
 *       that might have seen it on the list has ended.  Hits run with
 *       interrupts off from the lookup to the last handler, so one IPI
 *       round to all CPUs (text_poke_sync()) waits them out; it is much
 *       cheaper than a grace period, which unregister_kprobe() would
 *       otherwise pay per call.  Kretprobes still wait a grace period:
 *       their trampoline runs with interrupts on.
 */

#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/kprobes.h>
#include <linux/kprobes_core.h>
#include <linux/export.h>
#include <linux/hash.h>
#include <linux/init.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "kprobes_internal.h"

/* ---- the site hash table ------------------------------------------------- */

/* KPROBE_HASH_BITS is in <linux/kprobes.h>: the hit path inlines lookups */
struct hlist_head kprobe_table[1 << KPROBE_HASH_BITS];

/* every site, live or gone, for debugfs and module walks; kprobe_mutex */
LIST_HEAD(kprobe_sites);
/* serialises registration, sites, the hash table and the blacklist */
DEFINE_MUTEX(kprobe_mutex);

/* sites on kprobe_sites that are out of the hash table (gone code) */
static unsigned int kprobe_nr_gone;

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

/* a placeholder kprobe for kprobe_busy_begin(); never registered */
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
 * An ftrace site goes on the IPMODIFY ops when a hit may move regs->ip:
 * a post_handler (it sees ip past the fentry call, and is what
 * fail_function-style redirection uses) or a jprobe (ip goes to its
 * handler).
 */
bool kprobe_site_ipmodify(struct kprobe_site *s)
{
	/* a classic backend's site stays on its ops (kprobes_classic.c) */
	if (IS_ENABLED(CONFIG_KPROBES_CLASSIC) && (s->flags & KPROBE_SITE_ARMED))
		return s->armed_ipmodify;
	return READ_ONCE(s->has_post) || s->has_jprobe;
}

/*
 * A site should be armed iff it is live, some probe on it is enabled, and
 * kprobes are not globally disarmed.
 */
bool kprobe_site_wants_armed(struct kprobe_site *s)
{
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
 * kprobe_site.solo): one probe, enabled, with a pre_handler and nothing
 * else to run, on a site that is armed or about to be (want_armed, what
 * kprobe_site_wants_armed() said).
 */
struct kprobe *kprobe_site_solo(struct kprobe_site *s, bool want_armed)
{
	struct kprobe *kp;

	/* a trampoline's call to its carrier: told apart on the slow path */
	if (!want_armed || !list_is_singular(&s->probes) || s->carrier_diverted)
		return NULL;
	kp = list_first_entry(&s->probes, struct kprobe, list);
	return probe_pre_only(kp) ? kp : NULL;
}

/* the probe for struct kprobe_site.solo_post, or NULL */
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

/* struct kprobe_site.pre_only: several probes, each with a pre_handler only */
bool kprobe_site_pre_only(struct kprobe_site *s, bool want_armed)
{
	struct kprobe *kp;

	if (!want_armed || list_empty(&s->probes) ||
	    list_is_singular(&s->probes) || s->carrier_diverted)
		return false;
	list_for_each_entry(kp, &s->probes, list) {
		if (!probe_pre_only(kp))
			return false;
	}
	return true;
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

	lockdep_assert_held(&kprobe_mutex);
	/* a carrier follows the fentry site it carries (kprobe_carriers_sync()) */
	if (s->carried)
		return 0;
	s->has_jprobe = site_has_jprobe(s);
	/* an optimized site has no int3 to run a post_handler from, or to remove */
	if (!(s->flags & KPROBE_SITE_FTRACE) && (!want || post || s->has_jprobe))
		kprobe_unoptimize(s);
	/* read by the hit path: a post_handler rules out boosting */
	WRITE_ONCE(s->has_post, post);
	/* a site moving off its carrier: every hook hit redirects (general path) */
	WRITE_ONCE(s->solo, s->carrier_moving ? NULL : kprobe_site_solo(s, want));
	WRITE_ONCE(s->solo_post, site_solo_post(s, want));
	WRITE_ONCE(s->pre_only, !s->carrier_moving && kprobe_site_pre_only(s, want));
	if (s->flags & KPROBE_SITE_FTRACE) {
		/* its filter changes with the batch's (kprobe_batch_ftrace()) */
		if (list_empty(&s->ftrace_node))
			list_add_tail(&s->ftrace_node, &b->ftrace);
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
 * Finish a batch:
 *  - make its pokes visible to every CPU (one text_poke_sync());
 *  - KPROBE_WAIT_HITS: wait until no CPU is still running a hit that
 *    may have seen a probe taken off its site.  Every hit runs with
 *    interrupts off from its site lookup to its last use of a struct
 *    kprobe (the int3 path by the gate, the single-step with IF cleared,
 *    the ftrace handler by local_irq_save()), so the IPI round of
 *    text_poke_sync() returns only after each such hit ended, and later
 *    hits see the lists without the probe.  That is one IPI per
 *    unregister_kprobe(), not a grace period: a tool removing probes
 *    one by one does not wait for 10000 grace periods.
 *  - KPROBE_WAIT_GP: synchronize_rcu(), for readers that run with
 *    interrupts on (the kretprobe trampoline's instance recycling).
 *  - retired sites are freed after a grace period, asynchronously
 *    (kprobe_free_sites_later(), in kprobes_slots.c).
 */
static void __kprobe_batch_commit(struct kprobe_batch *b, enum kprobe_wait wait)
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

struct kprobe_site *kprobe_site_create(unsigned long addr, bool ftrace,
				       bool on_entry, int *err)
{
	struct kprobe_site *s;

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s) {
		*err = -ENOMEM;
		return NULL;
	}
	s->addr = addr;
	INIT_LIST_HEAD(&s->probes);
	INIT_LIST_HEAD(&s->free_list);
	INIT_LIST_HEAD(&s->ftrace_node);
	INIT_LIST_HEAD(&s->opt_node);
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

/* take a site out of use; it is freed by the batch after a grace period */
void kprobe_site_retire(struct kprobe_site *s, struct kprobe_batch *b)
{
	lockdep_assert_held(&kprobe_mutex);
	WRITE_ONCE(s->solo, NULL);
	WRITE_ONCE(s->solo_post, NULL);
	WRITE_ONCE(s->pre_only, false);
	list_del(&s->all);
	list_add_tail(&s->free_list, &b->to_free);
	if (!(s->flags & KPROBE_SITE_FTRACE)) {
		/* an optimized site's jump may go with its batch's others */
		if (kprobe_opt_undo_begin(s, b))
			return;		/* kprobe_opt_undo_jumps() goes on */
		kprobe_unoptimize(s);
	} else if (list_empty(&s->ftrace_node)) {
		/* no probes left: kprobe_batch_ftrace() unhooks it */
		list_add_tail(&s->ftrace_node, &b->ftrace);
	}
	kprobe_site_retired(s, b);
}

/*
 * The end of kprobe_site_retire(): the original byte back (the batch
 * syncs it) and the site out of the hash table.  A CPU that trapped on
 * the int3 before and looks the site up after finds none, and the byte
 * is no longer an int3: it runs the original instruction.
 */
void kprobe_site_retired(struct kprobe_site *s, struct kprobe_batch *b)
{
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

static bool site_has_probe(struct kprobe_site *s, struct kprobe *p)
{
	struct kprobe *kp;

	list_for_each_entry(kp, &s->probes, list) {
		if (kp == p)
			return true;
	}
	return false;
}

/*
 * Is p registered (at address a, its resolved address)?  Nothing in *p is
 * trusted but addresses: the caller may pass a never-registered, even
 * uninitialised, struct.  Found through the hash table, or among the gone
 * sites (unhashed), which are few.
 */
static bool probe_is_registered_at(struct kprobe *p, unsigned long a)
{
	struct kprobe_site *s;

	lockdep_assert_held(&kprobe_mutex);
	s = kprobe_site_lookup(a);
	if (s && site_has_probe(s, p))
		return true;
	if (!kprobe_nr_gone)	/* the usual case: no walk over every site */
		return false;
	list_for_each_entry(s, &kprobe_sites, all) {
		if ((s->flags & KPROBE_SITE_UNHASHED) && s->addr == a &&
		    site_has_probe(s, p))
			return true;
	}
	return false;
}

static bool probe_is_registered(struct kprobe *p)
{
	return probe_is_registered_at(p, (unsigned long)p->addr);
}

/* ---- registration ------------------------------------------------------------ */

static int __register_kprobe(struct kprobe *p, unsigned int flags,
			     struct kprobe_batch *b)
{
	struct kprobe_site *s;
	struct module *mod = NULL;
	kprobe_opcode_t *addr;
	bool on_entry, ftrace;
	unsigned long a;
	int ret;

	/* a classic backend's fault path never calls one: not accepted */
	if (IS_ENABLED(CONFIG_KPROBES_CLASSIC) && p->fault_handler)
		return -EOPNOTSUPP;
	addr = kprobe_resolve(p->addr, p->symbol_name, p->offset, &on_entry);
	if (IS_ERR(addr))
		return PTR_ERR(addr);
	a = (unsigned long)addr;

	ret = kprobe_check_ftrace(a, &ftrace);
	if (ret)
		return ret;
	ret = kprobe_check_text(a, &mod);
	if (ret)
		return ret;

	mutex_lock(&kprobe_mutex);
again:
	if (probe_is_registered_at(p, a) || probe_is_registered(p)) {
		ret = -EINVAL;		/* the same struct twice */
		goto out;
	}
	/*
	 * A function's entry (after its ENDBR) is a boundary: no decode,
	 * and no second symbol lookup (linear in a module's symbols).
	 */
	if (!ftrace && !on_entry) {
		ret = arch_check_insn_boundary(a);
		if (ret)
			goto out;
	}

	s = kprobe_site_lookup(a);
	if (s && (s->carried || (s->carrier && (flags & KPROBE_FLAG_JPROBE)))) {
		/*
		 * A probe at a carrier's address, or a jprobe (whose hit
		 * returns to the entry), needs the fentry site hooked: move
		 * it, outside kprobe_mutex, then look again.  The batch's
		 * ftrace changes so far go in first (the site may be one).
		 */
		unsigned long fentry = (s->carried ?: s)->addr;

		ret = kprobe_batch_ftrace(b);
		mutex_unlock(&kprobe_mutex);
		kprobe_batch_commit(b);
		ret = ret ?: kprobe_carrier_move(fentry);
		if (ret)
			goto out_unlocked;
		mutex_lock(&kprobe_mutex);
		goto again;
	}
	if (!s) {
		/* no optimized probe's jump may cover the new site's bytes */
		if (!ftrace)
			kprobe_opt_break(a);
		s = kprobe_site_create(a, ftrace, on_entry, &ret);
		if (!s)
			goto out;
		list_add_tail(&s->all, &kprobe_sites);
	}

	/* publish the probe on its site, then make the text match */
	p->addr = addr;
	p->nmissed = 0;
	p->site = s;
	p->flags = (p->flags & KPROBE_FLAG_DISABLED) | flags;
	if (ftrace)
		p->flags |= KPROBE_FLAG_FTRACE;
	if (on_entry)
		p->flags |= KPROBE_FLAG_ON_FUNC_ENTRY;
	if (p->post_handler)
		p->flags |= KPROBE_FLAG_POST;
#ifdef CONFIG_KPROBES_CLASSIC
	p->opcode = s->kp.opcode;
#else
	p->opcode = s->ainsn.orig[0];
#endif
	/* no hit may boost past p's post_handler once p is on the list */
	if (p->post_handler || kprobe_is_jprobe(p))
		kprobe_unoptimize(s);
	if (p->post_handler)
		WRITE_ONCE(s->has_post, true);
	/* hits walk the list, p included, until kprobe_site_sync() decides */
	WRITE_ONCE(s->solo, NULL);
	WRITE_ONCE(s->solo_post, NULL);
	WRITE_ONCE(s->pre_only, false);
	list_add_tail_rcu(&p->list, &s->probes);
	if (hlist_unhashed(&s->hash) && !(s->flags & KPROBE_SITE_UNHASHED))
		hlist_add_head_rcu(&s->hash, kprobe_bucket(a));

	ret = kprobe_site_sync(s, b);
	if (ret) {
		list_del_rcu(&p->list);
		if (list_empty(&s->probes))
			kprobe_site_retire(s, b);
		INIT_LIST_HEAD(&p->list);
		p->site = NULL;
	}
out:
	mutex_unlock(&kprobe_mutex);
out_unlocked:
	if (mod)
		module_put(mod);
	return ret;
}

/*
 * Take p off its site; retire the site if p was its last probe.
 * Returns false if p was not registered.
 */
static bool __unregister_kprobe_top(struct kprobe *p, struct kprobe_batch *b)
{
	struct kprobe_site *s;

	lockdep_assert_held(&kprobe_mutex);
	if (!p || !probe_is_registered(p))
		return false;
	s = p->site;
	p->flags |= KPROBE_FLAG_LEAVING;
	list_del_rcu(&p->list);
	if (list_empty(&s->probes))
		kprobe_site_retire(s, b);
	else
		kprobe_site_sync(s, b);
	return true;
}

/*
 * After the grace period: the probe's memory is the caller's again.  Only
 * a probe the top half took off (a probe that was not registered stays
 * untouched; p->site must stay valid while hits may still read it).
 */
static void __unregister_kprobe_bottom(struct kprobe *p)
{
	if (!p || !(p->flags & KPROBE_FLAG_LEAVING))
		return;
	p->flags &= ~KPROBE_FLAG_LEAVING;
	INIT_LIST_HEAD(&p->list);
	p->site = NULL;
}

/**
 * kprobe_is_registered() - is @p registered now?
 * @p: a kprobe, registered or not (only its address is trusted)
 *
 * For the wrappers (kretprobes, jprobes), which must not touch a
 * registered probe's handlers or pool before the core refuses to register
 * it a second time.
 *
 * Return: true if @p is on a site.
 */
bool kprobe_is_registered(struct kprobe *p)
{
	bool ret;

	mutex_lock(&kprobe_mutex);
	ret = probe_is_registered(p);
	mutex_unlock(&kprobe_mutex);
	return ret;
}

/*
 * register_kprobes() for an array of kprobes or of the structures that
 * hold them (kretprobes, jprobes): see struct kprobe_array.
 */
int kprobe_register_array(const struct kprobe_array *a)
{
	struct kprobe_batch b;
	int i, ret = 0;

	kprobe_batch_init(&b);
	for (i = 0; i < a->num; i++) {
		struct kprobe *p = kprobe_array_at(a, i);

		ret = p ? __register_kprobe(p, a->flags, &b) : -EINVAL;
		if (ret)
			break;
	}
	if (!ret) {
		/* all ftrace sites of the batch in one update */
		mutex_lock(&kprobe_mutex);
		ret = kprobe_batch_ftrace(&b);
		mutex_unlock(&kprobe_mutex);
	}
	if (ret) {
		int n = i;

		mutex_lock(&kprobe_mutex);
		while (--i >= 0)
			__unregister_kprobe_top(kprobe_array_at(a, i), &b);
		kprobe_batch_ftrace(&b);
		mutex_unlock(&kprobe_mutex);
		/* their handlers may have run already: wait them out */
		__kprobe_batch_commit(&b, KPROBE_WAIT_HITS);
		for (i = 0; i < n; i++)
			__unregister_kprobe_bottom(kprobe_array_at(a, i));
		return ret;
	}
	kprobe_batch_commit(&b);
	return 0;
}

/**
 * register_kprobes() - register an array of kprobes
 * @kps: the probes
 * @num: how many
 *
 * All are armed with one text-patch batch, unless one of them must first
 * move an entry probe off its carrier (a probe at the carrier's address,
 * a jprobe on the entry): the batch so far is then committed, the move
 * waited for, and the rest goes on in the same batch.  On error, the
 * probes of the array registered so far are unregistered again (same
 * batch), and none is left registered.
 *
 * Return: 0, or the first error: -EINVAL (bad arguments, not probeable,
 * registered already), -ENOENT (unknown symbol or module), -EILSEQ (not an
 * instruction boundary), -EBUSY (text owned by another patcher), -ENOMEM,
 * -EOPNOTSUPP (a fault_handler, on a backend that cannot call it).
 */
int register_kprobes(struct kprobe **kps, int num)
{
	struct kprobe_array a = { .objs = (void *const *)kps, .num = num };

	if (!kps || num <= 0)
		return -EINVAL;
	return kprobe_register_array(&a);
}
EXPORT_SYMBOL_GPL(register_kprobes);

/**
 * register_kprobe() - plant a probe
 * @p: the probe: addr or symbol_name (+offset), handlers, flags
 *
 * Return: 0, or a negative errno as for register_kprobes().
 */
int register_kprobe(struct kprobe *p)
{
	if (!p)
		return -EINVAL;
	return register_kprobes(&p, 1);
}
EXPORT_SYMBOL_GPL(register_kprobe);

/*
 * unregister_kprobes() for an array of kprobes or of the structures that
 * hold them, with the wait the caller needs before their memory is its own.
 */
void kprobe_unregister_array(const struct kprobe_array *a,
			     enum kprobe_wait wait)
{
	struct kprobe_batch b;
	int i;

	kprobe_batch_init(&b);
	b.undo_jumps = true;
	mutex_lock(&kprobe_mutex);
	for (i = 0; i < a->num; i++)
		__unregister_kprobe_top(kprobe_array_at(a, i), &b);
	kprobe_batch_ftrace(&b);
	/* the jumps of the optimized sites that went: two IPI rounds in all */
	kprobe_opt_undo_jumps(&b);
	mutex_unlock(&kprobe_mutex);
	/* one wait for everything: no hit still uses any of these probes */
	__kprobe_batch_commit(&b, wait);
	for (i = 0; i < a->num; i++)
		__unregister_kprobe_bottom(kprobe_array_at(a, i));
}

/**
 * unregister_kprobes() - remove an array of kprobes
 * @kps: the probes
 * @num: how many
 *
 * One text-patch batch and one wait for the hits under way for all of
 * them.  When this returns, no handler of these probes runs on any CPU
 * and their memory is the caller's.  Entries that are not registered are
 * skipped and left untouched.
 */
void unregister_kprobes(struct kprobe **kps, int num)
{
	struct kprobe_array a = { .objs = (void *const *)kps, .num = num };

	if (kps && num > 0)
		kprobe_unregister_array(&a, KPROBE_WAIT_HITS);
}
EXPORT_SYMBOL_GPL(unregister_kprobes);

/**
 * unregister_kprobe() - remove a probe
 * @p: the probe; a probe that is not registered is left untouched
 */
void unregister_kprobe(struct kprobe *p)
{
	unregister_kprobes(&p, 1);
}
EXPORT_SYMBOL_GPL(unregister_kprobe);

static int kprobe_set_disabled(struct kprobe *p, bool disable)
{
	struct kprobe_batch b;
	int ret = 0;

	if (!p)
		return -EINVAL;
	kprobe_batch_init(&b);
	mutex_lock(&kprobe_mutex);
	if (!probe_is_registered(p)) {
		ret = -EINVAL;
		goto out;
	}
	if (kprobe_gone(p)) {
		ret = disable ? 0 : -EINVAL;
		goto out;
	}
	if (disable)
		p->flags |= KPROBE_FLAG_DISABLED;
	else
		p->flags &= ~KPROBE_FLAG_DISABLED;
	ret = kprobe_site_sync(p->site, &b);
	if (!ret)
		ret = kprobe_batch_ftrace(&b);
	if (ret && !disable)
		p->flags |= KPROBE_FLAG_DISABLED;
out:
	mutex_unlock(&kprobe_mutex);
	kprobe_batch_commit(&b);
	return ret;
}

/**
 * disable_kprobe() - stop a registered probe from firing, keeping it
 * @kp: the probe
 *
 * Return: 0, or -EINVAL if @kp is not registered.
 */
int disable_kprobe(struct kprobe *kp)
{
	return kprobe_set_disabled(kp, true);
}
EXPORT_SYMBOL_GPL(disable_kprobe);

/**
 * enable_kprobe() - let a disabled probe fire again
 * @kp: the probe
 *
 * Return: 0, or -EINVAL if @kp is not registered or its code is gone.
 */
int enable_kprobe(struct kprobe *kp)
{
	return kprobe_set_disabled(kp, false);
}
EXPORT_SYMBOL_GPL(enable_kprobe);

/**
 * dump_kprobe() - print a probe's identity (for handlers reporting trouble)
 * @kp: the probe
 */
void dump_kprobe(struct kprobe *kp)
{
	pr_err("Dump kprobe:\n.symbol_name = %s, .offset = %x, .addr = %pS\n",
	       kp->symbol_name, kp->offset, kp->addr);
}

NOKPROBE_SYMBOL(dump_kprobe);

/* ---- gone code: module unload, init memory -------------------------------------- */

/*
 * The code under the site is going away: disarm it while the text is still
 * there, take it out of the hash table (a later module may load at the
 * same address), and mark its probes gone.  They stay registered until
 * their owners unregister them.
 */
void kprobe_site_kill(struct kprobe_site *s, struct kprobe_batch *b)
{
	struct kprobe *kp;

	lockdep_assert_held(&kprobe_mutex);
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
