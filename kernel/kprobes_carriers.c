// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Kprobes' carriers: an fentry site armed by an int3 on the instruction
 * after its fentry call rather than by an ftrace update.  Making and
 * dropping carriers as batches arm fentry sites, moving a site onto its
 * hook (when a probe needs it there, in the background, or before a
 * diverting ftrace user comes), and debug.kprobes-carriers.  Every change
 * is made under kprobe_mutex; the waits for tasks run without it.  The
 * arch decides whether a function may be carried and runs a carrier's
 * hits (CONFIG_KPROBE_CARRIERS: x86_64, with the jump optimizer).
 */

#include <linux/kprobes.h>
#include <linux/kprobes_backend.h>
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
	return READ_ONCE(kprobes_carriers) && !kprobe_site_has_jprobe(s) &&
	       !s->carry.moving && !kprobe_error_injectable(s->addr);
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
	kprobe_assert_locked();
	c->carry.carried->carry.slow = true;
	schedule_delayed_work(&kprobe_mover_work, KPROBE_MOVE_DELAY);
}

/*
 * Arm fentry site s by a carrier rather than by its hook: 0 if done.
 *
 * Hooking one fentry site on ftrace is one filter update, in which ftrace
 * walks every record it has (kprobe_batch_ftrace()): what a tool
 * attaching entry probes one by one pays per probe, 4.7 M instructions.
 * But the fentry nop changes no register, so the instruction right after
 * it sees the registers a hook at the entry would: an int3 there (a
 * carrier, an ordinary int3 site whose ->carry.carried is s) costs one
 * text poke and stands for the hook, as long as every call of the
 * function, and nothing else, reaches that instruction
 * (arch_prepare_carrier() checks the function's code).  Its hits run s's
 * probes with the registers, ip included, that the hook shows them.  The
 * optimizer makes it a jump as any int3 site (the detour runs s's probes
 * too: cheaper than the hook); a carrier it cannot make a jump is moved
 * onto the hook in the background, with the others
 * (kprobe_carrier_slow()): one update for all, none in the registration's
 * path.
 *
 * Never on a function whose calls may not all reach the carrier: one an
 * ftrace user diverts (an IPMODIFY ops such as livepatch's, a direct
 * trampoline such as BPF's, which may skip the body or call it from
 * elsewhere; see kprobe_ftrace_divert()), one on the error-injection
 * list, whose calls an fprobe may return from at the entry, or one a
 * sleepable BPF program may attach to; nor for a jprobe, whose hit
 * returns to the entry (site_carriable()).
 */
static int kprobe_carry(struct kprobe_site *s, struct kprobe_batch *b)
{
	unsigned long addr = s->addr + MCOUNT_INSN_SIZE;
	struct kprobe_site *c;
	int ret;

	if (!site_carriable(s) || kprobe_idle_hook_at(s->addr) ||
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
	c->carry.carried = s;		/* its hit stub names s */
	ret = arch_prepare_carrier(c);
	if (ret) {
		arch_release_site(c);
		kfree(c);
		goto out;
	}
	s->carry.carrier = c;
	s->carry.slow = false;
	list_add_tail(&c->all, &kprobe_sites);
	hlist_add_head_rcu(&c->hash, kprobe_bucket(addr));
	arch_arm_site(c);
	c->flags |= KPROBE_SITE_ARMED;
	b->poked = true;
	kprobe_opt_sync(c);
	/* not queued for a jump (none configured, or not allowed now) */
	if (kprobe_site_opt_none(c))
		kprobe_carrier_slow(c);
	return 0;
out:
	atomic_dec(&kprobe_nr_carriers);
	return ret;
}

/*
 * s's carrier goes (disarmed, freed after the batch's grace period, so a
 * hook callback that read ->carry.moving may still use it).
 */
static void kprobe_uncarry(struct kprobe_site *s, struct kprobe_batch *b)
{
	kprobe_site_retire(s->carry.carrier, b);
	s->carry.carrier = NULL;
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
	s->carry.hooked = 0;
	WRITE_ONCE(s->carry.moving, s->carry.carrier);
	/* no shortcut while moving: the callback's general path redirects */
	kprobe_site_fast_sync(s);
	kprobe_ftrace_queue(s, b);
}

/* a batch hooked moving sites: the mover settles them, at the latest */
void kprobe_carriers_kick(void)
{
	kprobe_assert_locked();
	schedule_delayed_work(&kprobe_mover_work, KPROBE_MOVE_DELAY);
}

/* a move is over: no redirection, and the fast path may take s again */
static void kprobe_carrier_moved(struct kprobe_site *s)
{
	WRITE_ONCE(s->carry.moving, NULL);
	kprobe_site_fast_sync(s);
}

/**
 * kprobe_carrier_hooked() - the ftrace update hooked a moving site
 * @s: an ftrace site, armed on its hook now
 * @seq: the number of that update (kprobe_hook_seq + 1)
 *
 * Return: true if @s was moving off its carrier and is counted now.
 */
bool kprobe_carrier_hooked(struct kprobe_site *s, unsigned long seq)
{
	kprobe_assert_locked();
	if (!s->carry.moving || s->carry.hooked)
		return false;
	s->carry.hooked = seq;
	return true;
}

/*
 * After a batch's ftrace update: a move whose hook ftrace refused stays
 * carried (every move is hooked by the batch that starts it, under the
 * same hold of kprobe_mutex, so one still unhooked here was refused).
 */
void kprobe_carriers_refused(void)
{
	struct kprobe_site *s;

	kprobe_assert_locked();
	list_for_each_entry(s, &kprobe_sites, all) {
		if (s->carry.moving && s->carry.carrier && !s->carry.hooked)
			kprobe_carrier_moved(s);
	}
}

/*
 * Before a batch's ftrace update (kprobe_batch_ftrace()): carry what it
 * arms if it arms few (KPROBE_CARRY_MAX: a bigger batch shares one ftrace
 * update anyway), drop the carriers of sites no longer armed, and keep on
 * the list those that move onto the hook (and those hooked already, to be
 * unhooked).
 */
void kprobe_carriers_sync(struct kprobe_batch *b)
{
	struct kprobe_site *s, *t;
	int nadd = 0;

	kprobe_assert_locked();
	kprobe_batch_for_each_ftrace(s, b) {
		if (!s->carry.carrier && !(s->flags & KPROBE_SITE_ARMED) &&
		    kprobe_site_wants_armed(s))
			nadd++;
	}
	kprobe_batch_for_each_ftrace_safe(s, t, b) {
		if (s->carry.carrier) {
			if (!kprobe_site_wants_armed(s)) {
				WRITE_ONCE(s->carry.moving, NULL);
				kprobe_uncarry(s, b);
				if (s->flags & KPROBE_SITE_ARMED)
					continue;	/* hooked mid-move too */
			} else if (!site_carriable(s)) {
				if (!s->carry.moving)
					kprobe_carrier_start_move(s, b);
				continue;
			}
			kprobe_ftrace_dequeue(s);
		} else if (nadd <= KPROBE_CARRY_MAX &&
			   !(s->flags & KPROBE_SITE_ARMED) &&
			   kprobe_site_wants_armed(s) && !kprobe_carry(s, b)) {
			kprobe_ftrace_dequeue(s);
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

	kprobe_assert_locked();
	list_for_each_entry(s, &kprobe_sites, all) {
		if (!s->carry.moving || !(s->flags & KPROBE_SITE_ARMED) ||
		    !s->carry.hooked || s->carry.hooked > seen)
			continue;
		kprobe_uncarry(s, b);
	}
	if (b->poked) {
		arch_kprobe_poke_sync(false);
		b->poked = false;
	}
	list_for_each_entry(s, &kprobe_sites, all) {
		if (!s->carry.moving || (s->carry.carrier && s->carry.hooked))
			continue;
		/* carrier gone, or the hook refused: no redirection */
		kprobe_carrier_moved(s);
	}
}

/*
 * Wait for the moves hooked so far, then finish them: steps 2 and 3 of
 * kprobe_carriers_move().
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
 * (->carry.diverted).  Called without kprobe_mutex.  Returns how many
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
		if (!s->carry.carrier || !match(s, arg))
			continue;
		if (diverted)	/* before the hook; read by hits */
			WRITE_ONCE(s->carry.diverted, true);
		/* not moving, or its hook was refused: (again) onto the hook */
		if (!s->carry.moving || !s->carry.hooked)
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
 * carried).  A move sees each call of the function exactly once:
 *
 *  1. Under kprobe_mutex, each site is hooked with ->carry.moving set
 *     (kprobe_carriers_hook()): the callback runs its probes and sends
 *     the call past the carrier (kprobe_carrier_resume()); a call that
 *     passed the nop before the hook went in still meets the carrier,
 *     which runs them.  A hook ftrace refuses leaves its site carried
 *     (kprobe_carriers_refused()).
 *  2. Without kprobe_mutex, wait until every task has passed a voluntary
 *     switch since the hooks went in (kprobe_carriers_settle()): none is
 *     then between the nop and the carrier having passed the nop
 *     unhooked.  On a PREEMPT kernel a busy task may hold this off for
 *     long.
 *  3. Under kprobe_mutex, the carriers go, then, once every CPU sees the
 *     original bytes back, the redirection (kprobe_carriers_finish()).
 *
 * The background mover (kprobe_carrier_mover()) runs the same steps; a
 * diverting ftrace user that comes meanwhile is handled as
 * kprobe_ftrace_divert() says.
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
		if (s->carry.carrier && match(s, arg)) {
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
		if (s->carry.moving)
			n++;	/* hooked by a batch: settled here too */
		if (!s->carry.carrier || s->carry.moving ||
		    (!s->carry.slow && READ_ONCE(kprobes_carriers)))
			continue;
		s->carry.slow = false;
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
 *    ->carry.diverted, as a call may still be on its way into a
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
	if (arch_ftrace_ops_ours(ops))
		return;
	atomic_inc(&kprobe_diverting);
	smp_mb__after_atomic();		/* paired with kprobe_carry() */
	if (!atomic_read(&kprobe_nr_carriers))
		return;	/* and none is made until _end() */
	if (!kprobe_carriers_hook(kprobe_divert_covers, &d, true))
		return;
	mutex_lock(&kprobe_mutex);
	list_for_each_entry(s, &kprobe_sites, all) {
		if (s->carry.carrier && !s->carry.moving &&
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
	if (arch_ftrace_ops_ours(ops))
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
