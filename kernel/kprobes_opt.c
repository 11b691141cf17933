// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Kprobes' jump optimizer: which probe sites get a jump to a detour
 * instead of an int3, and when; the arch builds the detours and writes
 * the jumps.  The optimizer runs as a delayed work item, so that a batch
 * of registrations is optimized together; unoptimizing is synchronous.
 * A site's state (struct kprobe_site_opt, KPROBE_OPT_*) changes under
 * kprobe_mutex; debug.kprobes-optimization turns optimizing off.
 */
#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/kprobes.h>
#include <linux/kprobes_backend.h>
#include <linux/sysctl.h>
#include <linux/workqueue.h>
#include <linux/rcupdate_wait.h>
#include <linux/memory.h>

#include "kprobes_internal.h"

/* how long registrations may keep coming before one optimizer batch */
#define KPROBE_OPT_DELAY	(HZ / 20)

static int kprobes_optimization = 1;	/* debug.kprobes-optimization */
static LIST_HEAD(opt_queue);		/* KPROBE_OPT_QUEUED sites */
static LIST_HEAD(opt_ready);		/* KPROBE_OPT_READY sites */
static int opt_live;			/* sites READY or DONE */
/*
 * Some site was refused for another site inside its region (-EAGAIN):
 * only then may a site that goes unblock one (kprobe_opt_unblock()), so
 * that a registration of many sites far apart does not look at the
 * bytes before each of them when they go.  Never cleared: a guess that
 * stays on costs lookups, never a missed optimization.
 */
static bool opt_blocked;

static void kprobe_optimizer(struct work_struct *work);
static DECLARE_DELAYED_WORK(opt_work, kprobe_optimizer);

/*
 * kprobe_opt_settle() waits for the next optimizer run to end: opt_runs
 * counts the ends, opt_busy says one is under way.  A reader waits at
 * most KPROBE_OPT_SETTLE_MAX: on a PREEMPT kernel the run's
 * synchronize_rcu_tasks() lasts as long as some task keeps from switching
 * voluntarily (a kernel thread busy in a loop), and a reader of the list
 * must not hang behind it.
 */
#define KPROBE_OPT_SETTLE_MAX	(5 * HZ)
static atomic_t opt_runs;
static bool opt_busy;
static DECLARE_WAIT_QUEUE_HEAD(opt_runs_wq);

/*
 * A site qualifies while it is armed on an int3 (not ftrace) over code
 * that is not gone, none of its probes has a post_handler or is a jprobe,
 * and debug.kprobes-optimization is 1.
 */
static bool site_optimizable(struct kprobe_site *s)
{
	/* a preempted task inside a region can only be waited for by TASKS_RCU */
	if (IS_ENABLED(CONFIG_PREEMPTION) && !IS_ENABLED(CONFIG_TASKS_RCU))
		return false;
	return kprobes_optimization &&
	       (s->flags & (KPROBE_SITE_FTRACE | KPROBE_SITE_GONE |
			    KPROBE_SITE_ARMED)) == KPROBE_SITE_ARMED &&
	       !kprobe_site_has_post(s) && !kprobe_site_has_jprobe(s);
}

/* put the int3 and the region's bytes of a done site back, now */
static void opt_undo_one(struct kprobe_site *s)
{
	LIST_HEAD(one);

	/* a done site is on no list: arch_unoptimize_finish() takes a list */
	list_add(&s->opt.node, &one);
	arch_unoptimize_finish(&one, false);
	list_del_init(&s->opt.node);
}

/**
 * kprobe_unoptimize() - back to a plain int3, now
 * @s: the site (kprobe_mutex held)
 *
 * Synchronous, before anything that needs the int3: a post_handler or
 * jprobe joining the site, the site disarmed (disabled, unregistered,
 * module gone, kprobes/enabled = 0), a new probe inside its region
 * (kprobe_opt_break()), debug.kprobes-optimization set to 0.  The detour
 * stays allocated until the site is freed (a grace period after it was
 * retired), since a CPU may still run in it, and is reused if the site
 * qualifies again.
 */
void kprobe_unoptimize(struct kprobe_site *s)
{
	kprobe_assert_locked();
	switch (s->opt.state) {
	case KPROBE_OPT_QUEUED:
		list_del_init(&s->opt.node);
		break;
	case KPROBE_OPT_READY:
		/* the optimizer is waiting: it will not patch this one */
		list_del_init(&s->opt.node);
		opt_live--;
		break;
	case KPROBE_OPT_DONE:
		/* int3 hits go through the detour until the bytes are back */
		opt_undo_one(s);
		opt_live--;
		break;
	case KPROBE_OPT_UNDOING:
		/* retired: its batch owns it until kprobe_opt_undo_jumps() */
		WARN_ON_ONCE(1);
		return;
	}
	WRITE_ONCE(s->opt.state, KPROBE_OPT_NONE);
}

/**
 * kprobe_opt_sync() - queue the site for optimization, or unoptimize it
 * @s: a site whose probes or arming changed (kprobe_mutex held)
 */
void kprobe_opt_sync(struct kprobe_site *s)
{
	kprobe_assert_locked();
	if (!site_optimizable(s)) {
		kprobe_unoptimize(s);
		/* a carrier stays an int3: its entry goes onto ftrace */
		if (kprobe_site_carried(s) && (s->flags & KPROBE_SITE_ARMED))
			kprobe_carrier_slow(s);
		return;
	}
	if (s->opt.state != KPROBE_OPT_NONE)
		return;
	s->opt.state = KPROBE_OPT_QUEUED;
	list_add_tail(&s->opt.node, &opt_queue);
	schedule_delayed_work(&opt_work, KPROBE_OPT_DELAY);
}

/**
 * kprobe_opt_break() - a probe is coming at @addr: no jump may cover it
 * @addr: the new site's address (kprobe_mutex held)
 *
 * An optimized (or ready) site whose region holds @addr is unoptimized,
 * so that the new site's bytes are the original ones; it stays so while
 * the new site exists (arch_prepare_opt() refuses a region with a probe
 * inside).
 */
void kprobe_opt_break(unsigned long addr)
{
	struct kprobe_site *s;
	int i;

	kprobe_assert_locked();
	if (!opt_live)
		return;
	for (i = 1; i < KPROBE_OPT_MAX_LEN; i++) {
		s = kprobe_site_lookup(addr - i);
		if (s && s->opt.state >= KPROBE_OPT_READY &&
		    i < arch_opt_len(s)) {
			kprobe_unoptimize(s);
			opt_blocked = true;	/* until the new site goes */
			/* no jump while the new site is there: onto the hook */
			if (kprobe_site_carried(s) && (s->flags & KPROBE_SITE_ARMED))
				kprobe_carrier_slow(s);
		}
	}
}

/**
 * kprobe_opt_unblock() - the site at @addr is gone: requeue those it blocked
 * @addr: the retired site's address (kprobe_mutex held)
 *
 * Sites just before it may have been refused for holding it in their
 * region; they qualify again if nothing else stops them.
 */
void kprobe_opt_unblock(unsigned long addr)
{
	struct kprobe_site *s;
	int i;

	kprobe_assert_locked();
	if (!opt_blocked)
		return;
	for (i = 1; i < KPROBE_OPT_MAX_LEN; i++) {
		s = kprobe_site_lookup(addr - i);
		if (s && !(s->flags & KPROBE_SITE_FTRACE) &&
		    s->opt.state == KPROBE_OPT_NONE)
			kprobe_opt_sync(s);
	}
}

/**
 * kprobe_opt_fix_bytes() - undo optimized sites' jumps in text just read
 * @addr: where @buf was read from
 * @buf: the bytes
 * @n: how many (at most MAX_INSN_SIZE)
 */
void kprobe_opt_fix_bytes(unsigned long addr, u8 *buf, int n)
{
	struct kprobe_site *s;
	int i;

	if (!READ_ONCE(opt_live))
		return;
	for (i = -(JMP32_INSN_SIZE - 1); i < n; i++) {
		s = kprobe_site_lookup(addr + i);
		if (s && s->opt.state >= KPROBE_OPT_DONE)
			arch_opt_fix_bytes(s, addr, buf, n);
	}
}

/**
 * kprobe_opt_undo_begin() - a retired site's jump: undo it with its batch?
 * @s: a site being retired (kprobe_mutex held)
 * @b: the batch, whose undo_jumps says whether it undoes jumps together
 *
 * If so, the site keeps its jump and stays hashed, its hits (of no probe
 * now) going through the detour, until kprobe_opt_undo_jumps() puts its
 * bytes back with the batch's others and ends its retirement
 * (kprobe_site_retire_finish()).
 *
 * Return: true if @s is the batch's now.
 */
bool kprobe_opt_undo_begin(struct kprobe_site *s, struct kprobe_batch *b)
{
	kprobe_assert_locked();
	if (!b->undo_jumps || s->opt.state != KPROBE_OPT_DONE ||
	    (s->flags & KPROBE_SITE_UNHASHED))
		return false;
	/* the jump stays until then: hits reach the detour, as before */
	WRITE_ONCE(s->opt.state, KPROBE_OPT_UNDOING);
	list_add_tail(&s->opt.node, &b->undo);
	return true;
}

/**
 * kprobe_opt_undo_jumps() - the batch's retired sites lose their jumps
 * @b: the batch (kprobe_mutex held, as when its sites were retired: no
 *     registration may find them still hashed)
 *
 * An unregistration of many probes undoes the jumps of their sites
 * together, in the steps of arch_unoptimize_finish(): two IPI rounds in
 * all, not two per site, and one text_poke() per page and step, not one
 * per site.  Until then a KPROBE_OPT_UNDOING site's jump, then its int3,
 * leads hits into the detour.
 */
void kprobe_opt_undo_jumps(struct kprobe_batch *b)
{
	struct kprobe_site *s, *t;

	kprobe_assert_locked();
	if (list_empty(&b->undo))
		return;
	/* the first bytes too: the batch's commit makes them visible */
	arch_unoptimize_finish(&b->undo, true);
	b->poked = true;
	list_for_each_entry_safe(s, t, &b->undo, opt.node) {
		list_del_init(&s->opt.node);
		s->flags &= ~KPROBE_SITE_ARMED;
		/* a plain int3 now: hits step its instruction again */
		WRITE_ONCE(s->opt.state, KPROBE_OPT_NONE);
		opt_live--;
		kprobe_site_retire_finish(s, b);
	}
}

/*
 * The optimizer, a delayed work item (KPROBE_OPT_DELAY after the last
 * kprobe_opt_sync()), so that a batch of registrations is optimized
 * together.  A probe hit before it runs still works: it is an int3.
 *
 *  1. Under kprobe_mutex, each site on opt_queue that still qualifies
 *     gets its detour built (arch_prepare_opt()) and goes from
 *     KPROBE_OPT_QUEUED to KPROBE_OPT_READY, onto opt_ready: its int3
 *     hits go through the detour's copy of the region from now on.  A
 *     site refused stays a plain int3 (KPROBE_OPT_NONE).
 *  2. Without kprobe_mutex, one wait for every task to leave the regions
 *     (kprobe_sync_tasks(), which also waits for tasks preempted inside
 *     one on a PREEMPT kernel).
 *  3. Under kprobe_mutex and text_mutex, the jumps of all sites still
 *     ready are written in one text_poke_bp batch (arch_optimize_queue(),
 *     arch_optimize_finish()): KPROBE_OPT_DONE.
 */
static void kprobe_optimizer(struct work_struct *work)
{
	struct kprobe_site *s, *t;

	WRITE_ONCE(opt_busy, true);
	mutex_lock(&kprobe_mutex);
	list_for_each_entry_safe(s, t, &opt_queue, opt.node) {
		int ret = site_optimizable(s) ? arch_prepare_opt(s) : -EINVAL;

		list_del_init(&s->opt.node);
		if (ret) {
			/* not this region: it stays an int3 */
			if (ret == -EAGAIN)
				opt_blocked = true;
			s->opt.state = KPROBE_OPT_NONE;
			if (kprobe_site_carried(s) && (s->flags & KPROBE_SITE_ARMED))
				kprobe_carrier_slow(s);
			continue;
		}
		WRITE_ONCE(s->opt.state, KPROBE_OPT_READY);
		list_add_tail(&s->opt.node, &opt_ready);
		opt_live++;
	}
	if (list_empty(&opt_ready))
		goto out;
	mutex_unlock(&kprobe_mutex);
	/*
	 * From now on int3 hits on the ready sites leave through their
	 * detours, past the regions.  Wait for every CPU or task that was
	 * inside a region, or in a boosted copy on its way back into one.
	 * Not under kprobe_mutex: on a PREEMPT kernel this waits for every
	 * task to switch voluntarily, which may take as long as a kernel
	 * thread busy in a loop; a site unoptimized meanwhile leaves
	 * opt_ready (kprobe_unoptimize()).
	 */
	kprobe_sync_tasks();
	mutex_lock(&kprobe_mutex);
	if (list_empty(&opt_ready))
		goto out;
	mutex_lock(&text_mutex);
	list_for_each_entry(s, &opt_ready, opt.node)
		arch_optimize_queue(s);
	arch_optimize_finish();
	mutex_unlock(&text_mutex);
	list_for_each_entry_safe(s, t, &opt_ready, opt.node) {
		list_del_init(&s->opt.node);
		WRITE_ONCE(s->opt.state, KPROBE_OPT_DONE);
	}
out:
	mutex_unlock(&kprobe_mutex);
	WRITE_ONCE(opt_busy, false);
	atomic_inc(&opt_runs);
	wake_up_all(&opt_runs_wq);
}

/**
 * kprobe_optimized() - is this probe reached through a jump now?
 * @p: a registered kprobe
 *
 * Return: true if its site's jump to the detour is in place (for an
 * entry probe armed by a carrier, the carrier's).
 */
bool kprobe_optimized(struct kprobe *p)
{
	struct kprobe_site *s;
	bool ret;

	rcu_read_lock();
	s = READ_ONCE(p->site);
	/* an entry probe's: its carrier's jump (kernel/kprobes.c) */
	if (s && (s->flags & KPROBE_SITE_FTRACE))
		s = kprobe_site_carrier(s);
	ret = s && !(s->flags & KPROBE_SITE_FTRACE) &&
	      READ_ONCE(s->opt.state) == KPROBE_OPT_DONE;
	rcu_read_unlock();
	return ret;
}
EXPORT_SYMBOL_GPL(kprobe_optimized);

/**
 * kprobe_opt_settle() - let queued optimizations finish, for a reader
 *
 * Runs the optimizer now if it is queued, and waits for that run (or the
 * one under way) to end: at most KPROBE_OPT_SETTLE_MAX, and not past a
 * signal.  Nothing to wait for when none is queued or running.
 */
void kprobe_opt_settle(void)
{
	int runs = atomic_read(&opt_runs);

	if (!delayed_work_pending(&opt_work) && !READ_ONCE(opt_busy))
		return;
	mod_delayed_work(system_wq, &opt_work, 0);
	wait_event_interruptible_timeout(opt_runs_wq,
					 atomic_read(&opt_runs) != runs,
					 KPROBE_OPT_SETTLE_MAX);
}

/**
 * wait_for_kprobe_optimizer() - let queued optimizations happen now
 *
 * Returns once the sites queued so far are optimized (or found not to
 * qualify).  Must not be called with kprobe_mutex held.
 */
void wait_for_kprobe_optimizer(void)
{
	flush_delayed_work(&opt_work);
}
EXPORT_SYMBOL_GPL(wait_for_kprobe_optimizer);

static int proc_kprobes_optimization(const struct ctl_table *table,
				     int write, void *buffer, size_t *lenp,
				     loff_t *ppos)
{
	struct kprobe_site *s;
	int ret, was;

	mutex_lock(&kprobe_mutex);
	was = kprobes_optimization;
	ret = proc_dointvec_minmax(table, write, buffer, lenp, ppos);
	if (!ret && write) {
		list_for_each_entry(s, &kprobe_sites, all)
			if (!(s->flags & KPROBE_SITE_FTRACE))
				kprobe_opt_sync(s);
		/* 6.12's words, which tools and admins grep for */
		if (kprobes_optimization && !was)
			pr_info("kprobe jump-optimization is enabled. All kprobes are optimized if possible.\n");
		else if (!kprobes_optimization && was)
			pr_info("kprobe jump-optimization is disabled. All kprobes are based on software breakpoint.\n");
	}
	mutex_unlock(&kprobe_mutex);
	return ret;
}

static struct ctl_table kprobe_opt_sysctls[] = {
	{
		.procname	= "kprobes-optimization",
		.data		= &kprobes_optimization,
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_kprobes_optimization,
		.extra1		= SYSCTL_ZERO,
		.extra2		= SYSCTL_ONE,
	},
};

static int __init kprobes_opt_init(void)
{
	register_sysctl_init("debug", kprobe_opt_sysctls);
	return 0;
}
late_initcall(kprobes_opt_init);
