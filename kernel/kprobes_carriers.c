// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Kprobes: carriers, fentry sites armed past the fentry call.
 *
 * Carriers.  Hooking one fentry site on ftrace is one filter update, and
 * ftrace walks every record it has for each (see kprobes_ftrace.c):
 * what a tool attaching entry probes one by one pays per probe, 4.7 M
 * instructions.  But the fentry nop changes no register, so the
 * instruction right after it sees the registers a hook at the entry
 * would: an int3 there (a "carrier", an ordinary int3 site whose
 * ->carried is the fentry site) costs one text poke and stands for the
 * hook, as long as every call of the function, and nothing else, reaches
 * that instruction (arch_prepare_carrier() checks the function's code).
 * Its hits run the fentry site's probes with the registers, ip included,
 * that the hook shows them.  The optimizer makes it a jump as any int3
 * site (the detour runs the fentry site's probes too: cheaper than the
 * hook); a carrier it cannot make a jump is moved onto the hook in the
 * background, with the others (kprobe_carrier_slow()): one update for
 * all, none in the registration's path.
 *
 * Used when a batch hooks few fentry sites (KPROBE_CARRY_MAX): a bigger
 * one shares one ftrace update anyway.  Never on a function whose calls
 * may not reach the carrier: one an ftrace user diverts (an IPMODIFY ops
 * such as livepatch's, a direct trampoline such as BPF's, which may skip
 * the body or call it from elsewhere), nor one on the error-injection
 * list, whose calls an fprobe may return from at the entry.  ftrace tells
 * kprobe_ftrace_divert() before such a user takes a function: its
 * carrier's site is hooked first, so the hook's callback, which ftrace
 * runs with the others on every call, sees each call as any probe on
 * the hook does; the rest of the move happens in the background, the
 * user waiting for none of it.  Nor for a jprobe, whose hit returns to
 * the entry.
 *
 * A move onto the hook sees each call exactly once: hooked with
 * ->carrier_moving set, the callback runs the probes and sends the call
 * past the carrier (kprobe_carrier_resume()); a call that passed the nop
 * before the hook still meets the carrier, which runs them.  Once every
 * task has passed a voluntary switch after the hook went in (none is
 * then between the nop and the carrier having passed the nop unhooked),
 * the carrier goes, then the redirection (kprobe_carriers_finish()).
 * That wait is never taken under kprobe_mutex (kprobe_carriers_settle()):
 * on a PREEMPT kernel a busy task may hold it off for long.  A diverting
 * user may come while a site moves (kprobe_ftrace_divert() says how each
 * call is still seen once).
 *
 * What lives here: making and dropping carriers as batches arm fentry
 * sites (kprobe_carriers_sync(), from kprobe_batch_ftrace()), moves onto
 * the hook (forced, in the background by the mover, or for a diverting
 * ftrace user: kprobe_ftrace_divert()), and debug.kprobes-carriers.  The
 * arch decides whether a function may be carried (arch_prepare_carrier())
 * and runs a carrier's hits (its hit stub).
 *
 * Locking: kprobe_mutex for every change; the waits for tasks
 * (kprobe_carriers_settle()) run without it.  Built with
 * CONFIG_KPROBE_CARRIERS: a carrier's hit goes through the optimizer's
 * trampoline.
 */

#include <linux/kprobes.h>
#include <linux/kprobes_core.h>
#include <linux/ftrace.h>
#include <linux/error-injection.h>
#include <linux/kallsyms.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysctl.h>
#include <linux/workqueue.h>

#include "kprobes_internal.h"

#define KPROBE_CARRY_MAX	8
#define KPROBE_MOVE_DELAY	(HZ / 4)

static int kprobes_carriers = 1;	/* debug.kprobes-carriers */
/*
 * Diverting ftrace users on their way in (kprobe_ftrace_divert()), and
 * carriers: each side counts itself, then reads the other's count, so
 * that either the user sees a carrier to move or the carrier is not made.
 */
static atomic_t kprobe_diverting, kprobe_nr_carriers;

static void kprobe_carrier_mover(struct work_struct *unused);
static DECLARE_DELAYED_WORK(kprobe_mover_work, kprobe_carrier_mover);

/*
 * Is the function at ip on the error-injection list?  A module's entries
 * reach the list from a module notifier that may run after a probe of
 * another notifier (trace_kprobe's) was registered: ask the module too.
 */
static bool kprobe_error_injectable(unsigned long ip)
{
#if defined(CONFIG_FUNCTION_ERROR_INJECTION) && defined(CONFIG_MODULES)
	unsigned long size, off;
	struct module *mod;
	unsigned int i;
	bool ret = false;

	if (within_error_injection_list(ip))
		return true;
	if (!kallsyms_lookup_size_offset(ip, &size, &off))
		return false;
	preempt_disable();
	mod = __module_text_address(ip);
	for (i = 0; mod && i < mod->num_ei_funcs; i++) {
		if (mod->ei_funcs[i].addr == ip - off) {
			ret = true;
			break;
		}
	}
	preempt_enable();
	return ret;
#else
	return within_error_injection_list(ip);
#endif
}

/*
 * May a sleepable BPF program attach to the function at ip?  Its
 * trampoline may then hold a carrier's copy, as the address to return
 * to, across a sleep, which no wait of ours covers (tasks RCU counts a
 * voluntary sleep as quiescent).  So such a function is never carried.
 * 6.12 lets sleepable tracing programs attach to the error-injection
 * list (kprobe_error_injectable()), the LSM hooks BPF provides
 * (bpf_lsm_*) and the sleepable fmod_ret kfuncs: bpf_fentry_test1 in
 * vmlinux; a module's own set (register_btf_fmodret_id_set()) is not
 * known here.  Asked once, before a carrier is made.
 */
static bool kprobe_bpf_sleepable_target(unsigned long ip)
{
	char name[KSYM_NAME_LEN];

	if (!IS_ENABLED(CONFIG_BPF_SYSCALL) || lookup_symbol_name(ip, name))
		return false;
	return str_has_prefix(name, "bpf_lsm_") ||
	       !strcmp(name, "bpf_fentry_test1");
}

/* may site s be carried (now, or go on being so)? */
static bool site_carriable(struct kprobe_site *s)
{
	return READ_ONCE(kprobes_carriers) && !s->has_jprobe &&
	       !s->carrier_moving && !kprobe_error_injectable(s->addr);
}

/**
 * kprobe_carrier_slow() - a carrier stays an int3: hook its site instead
 * @c: the carrier (kprobe_mutex held)
 *
 * The hook's hit costs half an int3's: the background mover hands the
 * fentry site to ftrace, with the other such sites in one update.
 */
void kprobe_carrier_slow(struct kprobe_site *c)
{
	lockdep_assert_held(&kprobe_mutex);
	c->carried->carrier_slow = true;
	schedule_delayed_work(&kprobe_mover_work, KPROBE_MOVE_DELAY);
}

/* arm fentry site s by a carrier rather than by its hook: 0 if done */
static int kprobe_carry(struct kprobe_site *s, struct kprobe_batch *b)
{
	unsigned long addr = s->addr + MCOUNT_INSN_SIZE;
	struct kprobe_site *c;
	int ret;

	if (!site_carriable(s) || kprobe_linger_has(s->addr) ||
	    kprobe_site_lookup(addr) || kprobe_bpf_sleepable_target(s->addr))
		return -EBUSY;
	/* no diverting ftrace user on its way in (paired), nor there */
	atomic_inc(&kprobe_nr_carriers);
	smp_mb__after_atomic();		/* paired with kprobe_ftrace_divert() */
	if (atomic_read(&kprobe_diverting) || ftrace_ip_diverted(s->addr)) {
		ret = -EBUSY;
		goto out;
	}
	kprobe_opt_break(addr);
	c = kprobe_site_create(addr, false, false, &ret);
	if (!c)
		goto out;
	c->carried = s;		/* its hit stub names s */
	ret = arch_prepare_carrier(c);
	if (ret) {
		arch_release_site(c);
		kfree(c);
		goto out;
	}
	s->carrier = c;
	s->carrier_slow = false;
	list_add_tail(&c->all, &kprobe_sites);
	hlist_add_head_rcu(&c->hash, kprobe_bucket(addr));
	arch_arm_site(c);
	c->flags |= KPROBE_SITE_ARMED;
	b->poked = true;
	kprobe_opt_sync(c);
	/* not queued for a jump (none configured, or not allowed now) */
	if (c->opt_state == KPROBE_OPT_NONE)
		kprobe_carrier_slow(c);
	return 0;
out:
	atomic_dec(&kprobe_nr_carriers);
	return ret;
}

/*
 * s's carrier goes (disarmed, freed after the batch's grace period, so a
 * hook callback that read ->carrier_moving may still use it).
 */
static void kprobe_uncarry(struct kprobe_site *s, struct kprobe_batch *b)
{
	kprobe_site_retire(s->carrier, b);
	s->carrier = NULL;
	atomic_dec(&kprobe_nr_carriers);
}

/*
 * s is to be hooked: its callback runs its probes, then skips the
 * carrier.  Once the hook is in, the mover settles the move if its maker
 * does not (kprobe_batch_ftrace()).
 */
static void kprobe_carrier_start_move(struct kprobe_site *s,
				      struct kprobe_batch *b)
{
	/* the callback's general path redirects */
	WRITE_ONCE(s->solo, NULL);
	WRITE_ONCE(s->pre_only, false);
	s->carrier_hooked = 0;
	WRITE_ONCE(s->carrier_moving, s->carrier);
	if (list_empty(&s->ftrace_node))
		list_add_tail(&s->ftrace_node, &b->ftrace);
}

/* a batch hooked moving sites: the mover settles them, at the latest */
void kprobe_carriers_kick(void)
{
	schedule_delayed_work(&kprobe_mover_work, KPROBE_MOVE_DELAY);
}

/* a move is over: no redirection, and the fast path may take s again */
static void kprobe_carrier_moved(struct kprobe_site *s)
{
	bool want = kprobe_site_wants_armed(s);

	WRITE_ONCE(s->carrier_moving, NULL);
	WRITE_ONCE(s->solo, kprobe_site_solo(s, want));
	WRITE_ONCE(s->pre_only, kprobe_site_pre_only(s, want));
}

/*
 * After a batch's ftrace update: a move whose hook ftrace refused stays
 * carried (every move is hooked by the batch that starts it, under the
 * same hold of kprobe_mutex, so one still unhooked here was refused).
 */
void kprobe_carriers_refused(void)
{
	struct kprobe_site *s;

	lockdep_assert_held(&kprobe_mutex);
	list_for_each_entry(s, &kprobe_sites, all) {
		if (s->carrier_moving && s->carrier && !s->carrier_hooked)
			kprobe_carrier_moved(s);
	}
}

/*
 * Before a batch's ftrace update: carry what it arms if it arms few,
 * drop the carriers of sites no longer armed, and keep on the list those
 * that move onto the hook (and those hooked already, to be unhooked).
 */
void kprobe_carriers_sync(struct kprobe_batch *b)
{
	struct kprobe_site *s, *t;
	int nadd = 0;

	list_for_each_entry(s, &b->ftrace, ftrace_node) {
		if (!s->carrier && !(s->flags & KPROBE_SITE_ARMED) &&
		    kprobe_site_wants_armed(s))
			nadd++;
	}
	list_for_each_entry_safe(s, t, &b->ftrace, ftrace_node) {
		if (s->carrier) {
			if (!kprobe_site_wants_armed(s)) {
				WRITE_ONCE(s->carrier_moving, NULL);
				kprobe_uncarry(s, b);
				if (s->flags & KPROBE_SITE_ARMED)
					continue;	/* hooked mid-move too */
			} else if (!site_carriable(s)) {
				if (!s->carrier_moving)
					kprobe_carrier_start_move(s, b);
				continue;
			}
			list_del_init(&s->ftrace_node);
		} else if (nadd <= KPROBE_CARRY_MAX &&
			   !(s->flags & KPROBE_SITE_ARMED) &&
			   kprobe_site_wants_armed(s) && !kprobe_carry(s, b)) {
			list_del_init(&s->ftrace_node);
		}
	}
}

/*
 * The moves whose hooks went in by update @seen (kprobe_hook_seq) and
 * have been waited for since: their carriers go, and once every CPU sees
 * the original bytes back, the redirection.  A move whose hook went in
 * later is left to the path that made it; one whose hook was refused
 * stays carried.
 */
static void kprobe_carriers_finish(struct kprobe_batch *b, unsigned long seen)
{
	struct kprobe_site *s;

	lockdep_assert_held(&kprobe_mutex);
	list_for_each_entry(s, &kprobe_sites, all) {
		if (!s->carrier_moving || !(s->flags & KPROBE_SITE_ARMED) ||
		    !s->carrier_hooked || s->carrier_hooked > seen)
			continue;
		kprobe_uncarry(s, b);
	}
	if (b->poked) {
		arch_kprobe_poke_sync(false);
		b->poked = false;
	}
	list_for_each_entry(s, &kprobe_sites, all) {
		if (!s->carrier_moving || (s->carrier && s->carrier_hooked))
			continue;
		/* carrier gone, or the hook refused: no redirection */
		kprobe_carrier_moved(s);
	}
}

/*
 * Wait for the moves hooked so far, then finish them.  Not under
 * kprobe_mutex: the wait may last as long as a busy task takes to switch.
 */
static void kprobe_carriers_settle(void)
{
	struct kprobe_batch b;
	unsigned long seen;

	mutex_lock(&kprobe_mutex);
	seen = kprobe_hook_seq;
	mutex_unlock(&kprobe_mutex);
	kprobe_sync_tasks();	/* none is left at a carrier unseen */
	kprobe_batch_init(&b);
	mutex_lock(&kprobe_mutex);
	kprobe_carriers_finish(&b, seen);
	mutex_unlock(&kprobe_mutex);
	kprobe_batch_commit(&b);
}

/*
 * Start moving the carried fentry sites match() picks onto their hooks:
 * when this returns, the hooks are in (those ftrace accepted), the
 * carriers still there, and the mover finishes the moves in the
 * background (kprobe_carriers_kick()).  @diverted: for a diverting
 * ftrace user, whose trampoline may call into the carriers from now on
 * (->carrier_diverted).  Called without kprobe_mutex.  Returns how many
 * carried sites match() picked.
 */
static int kprobe_carriers_hook(bool (*match)(struct kprobe_site *, void *),
				void *arg, bool diverted)
{
	struct kprobe_batch b;
	struct kprobe_site *s;
	int n = 0;

	kprobe_batch_init(&b);
	mutex_lock(&kprobe_mutex);
	list_for_each_entry(s, &kprobe_sites, all) {
		if (!s->carrier || !match(s, arg))
			continue;
		if (diverted)	/* before the hook; read by hits */
			WRITE_ONCE(s->carrier_diverted, true);
		/* not moving, or its hook was refused: (again) onto the hook */
		if (!s->carrier_moving || !s->carrier_hooked)
			kprobe_carrier_start_move(s, &b);
		n++;
	}
	if (n)
		kprobe_batch_ftrace(&b);
	mutex_unlock(&kprobe_mutex);
	kprobe_batch_commit(&b);
	return n;
}

/*
 * Move the carried fentry sites match() picks onto their hooks, and
 * return once their carriers are gone.  Called without kprobe_mutex.
 * Returns 0, or -EBUSY if one of them could not be hooked (it stays
 * carried).
 */
static int kprobe_carriers_move(bool (*match)(struct kprobe_site *, void *),
				void *arg)
{
	struct kprobe_site *s;
	int ret = 0;

	if (!kprobe_carriers_hook(match, arg, false))
		return 0;
	kprobe_carriers_settle();
	mutex_lock(&kprobe_mutex);
	list_for_each_entry(s, &kprobe_sites, all) {
		if (s->carrier && match(s, arg)) {
			ret = -EBUSY;
			break;
		}
	}
	mutex_unlock(&kprobe_mutex);
	return ret;
}

static bool kprobe_carrier_at(struct kprobe_site *s, void *arg)
{
	return s->addr == *(unsigned long *)arg &&
	       !(s->flags & KPROBE_SITE_UNHASHED);
}

/*
 * Move the fentry site at addr onto its hook before a probe that cannot
 * be carried joins it or comes to its carrier's address.  Called without
 * kprobe_mutex (so by address: the site may be gone meanwhile).  Returns
 * 0, or -EBUSY.
 */
int kprobe_carrier_move(unsigned long addr)
{
	return kprobe_carriers_move(kprobe_carrier_at, &addr);
}

/* in the background: the carriers kprobe_carrier_slow() named, hooked */
static void kprobe_carrier_mover(struct work_struct *unused)
{
	struct kprobe_batch b;
	struct kprobe_site *s;
	int n = 0;

	kprobe_batch_init(&b);
	mutex_lock(&kprobe_mutex);
	list_for_each_entry(s, &kprobe_sites, all) {
		if (s->carrier_moving)
			n++;	/* hooked by a batch: settled here too */
		if (!s->carrier || s->carrier_moving ||
		    (!s->carrier_slow && READ_ONCE(kprobes_carriers)))
			continue;
		s->carrier_slow = false;
		kprobe_carrier_start_move(s, &b);
		n++;
	}
	kprobe_batch_ftrace(&b);
	mutex_unlock(&kprobe_mutex);
	kprobe_batch_commit(&b);
	if (n)
		kprobe_carriers_settle();
}

/* what a diverting ftrace user is about to take (kprobe_ftrace_divert()) */
struct kprobe_divert {
	struct ftrace_ops *ops;
	unsigned long *ips;
	unsigned int cnt;
	bool any;
};

static bool kprobe_divert_covers(struct kprobe_site *s, void *arg)
{
	struct kprobe_divert *d = arg;
	unsigned int i;

	if (d->any)
		return true;
	if (!d->ips)
		return ftrace_ops_has_ip(d->ops, s->addr);
	/* ftrace takes an address in the function for its fentry site */
	for (i = 0; i < d->cnt; i++) {
		if (ftrace_location(d->ips[i]) == s->addr)
			return true;
	}
	return false;
}

/**
 * kprobe_ftrace_divert() - an ftrace user is about to divert calls
 * @ops: an ops with FTRACE_OPS_FL_IPMODIFY, or a direct trampoline's
 * @ips: the functions it takes (@cnt of them), or NULL: its filter's
 * @cnt: how many in @ips
 * @any: which functions is not known yet (a pattern): every one
 *
 * Called by ftrace, with no ftrace lock held, before @ops is registered
 * or its filter grows; kprobe_ftrace_divert_end() follows once that is
 * done.  Until then no entry probe is carried.  The steps, for the
 * carried ones on @ops's functions:
 *
 * 1. Their hooks go in before this returns, in the moving state: the
 *    callback runs the probes, then sends the call past the carrier
 *    (kprobe_carrier_resume()), unless a callback before it moved ip.
 * 2. @ops comes in.  A call it diverts has had its probes in the hook; a
 *    direct trampoline that calls the body at the carrier's address is
 *    told apart there (kprobe_carrier_called(), for good: the site is
 *    ->carrier_diverted, as a call may still be on its way into a
 *    carrier that has gone) and runs none again.  A call that passed the
 *    fentry nop before step 1 meets the carrier, which runs them: every
 *    call, once.
 * 3. The mover waits in the background for every task to pass a
 *    voluntary switch, so that none is left between a nop and its
 *    carrier, then removes the carriers and ends the moves.
 *
 * So @ops never waits for tasks, nor is it refused, as on a kernel
 * without carriers.  A hook ftrace refuses (for want of memory, or ftrace
 * disabled after an error) leaves its carrier, which then misses the
 * diverted calls: the log names the function.  If @ops's registration
 * then fails, its functions' probes stay hooked (slower hits, no other
 * difference).  With no carrier at all (the common case) this takes no
 * lock.
 */
void kprobe_ftrace_divert(struct ftrace_ops *ops, unsigned long *ips,
			  unsigned int cnt, bool any)
{
	struct kprobe_divert d = { ops, ips, cnt, any };
	struct kprobe_site *s;

	/* kprobes' own ops, changed under kprobe_mutex: nothing to move */
	if (kprobe_ftrace_ops_ours(ops))
		return;
	atomic_inc(&kprobe_diverting);
	smp_mb__after_atomic();		/* paired with kprobe_carry() */
	if (!atomic_read(&kprobe_nr_carriers))
		return;	/* and none is made until _end() */
	if (!kprobe_carriers_hook(kprobe_divert_covers, &d, true))
		return;
	mutex_lock(&kprobe_mutex);
	list_for_each_entry(s, &kprobe_sites, all) {
		if (s->carrier && !s->carrier_moving &&
		    kprobe_divert_covers(s, &d))
			pr_warn_ratelimited("the entry probe on %ps stays on its carrier: calls a diverting ftrace user sends elsewhere are not seen\n",
					    (void *)s->addr);
	}
	mutex_unlock(&kprobe_mutex);
}

/**
 * kprobe_ftrace_divert_end() - the diverting ftrace user is in (or failed)
 * @ops: the ops of kprobe_ftrace_divert()
 *
 * Entry probes may be carried again, on functions no user diverts.
 */
void kprobe_ftrace_divert_end(struct ftrace_ops *ops)
{
	if (kprobe_ftrace_ops_ours(ops))
		return;
	WARN_ON_ONCE(atomic_dec_return(&kprobe_diverting) < 0);
}

/* debug.kprobes-carriers=0 moves the carriers there are onto their hooks */
static int kprobe_carriers_sysctl(const struct ctl_table *table, int write,
				  void *buffer, size_t *lenp, loff_t *ppos)
{
	int ret = proc_dointvec_minmax(table, write, buffer, lenp, ppos);

	if (!ret && write && !READ_ONCE(kprobes_carriers))
		mod_delayed_work(system_wq, &kprobe_mover_work, 0);
	return ret;
}

static struct ctl_table kprobe_carrier_sysctls[] = {
	{
		.procname	= "kprobes-carriers",
		.data		= &kprobes_carriers,
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= kprobe_carriers_sysctl,
		.extra1		= SYSCTL_ZERO,
		.extra2		= SYSCTL_ONE,
	},
};

static int __init kprobe_carriers_init(void)
{
	register_sysctl_init("debug", kprobe_carrier_sysctls);
	return 0;
}
late_initcall(kprobe_carriers_init);
