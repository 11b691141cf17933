// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Kprobes' registration: register_kprobe(s)() and unregister_kprobe(s)()
 * add probes to sites and take them off in one batch per call (one text
 * sync, one wait for the hits under way), and the core's array form that
 * kretprobes and jprobes register through; enabling, disabling and
 * dump_kprobe().
 */

#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/kprobes.h>
#include <linux/export.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "kprobes_internal.h"

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

	kprobe_assert_locked();
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
	if (s && (kprobe_site_carried(s) ||
		  (kprobe_site_carrier(s) && (flags & KPROBE_FLAG_JPROBE)))) {
		/*
		 * A probe at a carrier's address, or a jprobe (whose hit
		 * returns to the entry), needs the fentry site hooked: move
		 * it, outside kprobe_mutex, then look again.  The batch's
		 * ftrace changes so far go in first (the site may be one).
		 */
		unsigned long fentry = (kprobe_site_carried(s) ?: s)->addr;

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
	p->opcode = arch_site_opcode(s);
	/* no hit may boost past p's post_handler once p is on the list */
	if (p->post_handler || kprobe_is_jprobe(p))
		kprobe_unoptimize(s);
	if (p->post_handler)
		WRITE_ONCE(s->fast.has_post, true);
	/* hits walk the list, p included, until kprobe_site_sync() decides */
	WRITE_ONCE(s->fast.solo, NULL);
	WRITE_ONCE(s->fast.solo_post, NULL);
	WRITE_ONCE(s->fast.pre_only, false);
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

	kprobe_assert_locked();
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
