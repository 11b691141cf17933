// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * x86 kprobes on ftrace sites.  A function's fentry call (a 5-byte nop
 * while untraced) belongs to ftrace, and kprobes never writes an int3
 * over it: a probe there (KPROBE_FLAG_FTRACE) is hooked as an ftrace
 * callback instead, which costs no trap.  Here are that callback and
 * the two ftrace_ops it is registered with.
 */
#include <linux/kprobes.h>
#include <linux/kprobes_backend.h>
#include <linux/ftrace.h>
#include <linux/ptrace.h>
#include <linux/workqueue.h>

/* one call's pass through the ops list, per CPU and context level */
struct kprobe_ftrace_walk {
	unsigned long ip;
	struct pt_regs *regs;
	struct ftrace_ops *ops;		/* whose callback noted it */
};

static DEFINE_PER_CPU(struct kprobe_ftrace_walk, kprobe_ftrace_walks[4]);

/* of our two ops, the one ahead in ftrace's list (registered last) */
static struct ftrace_ops *kprobe_ftrace_first;

/*
 * A call to a site hooked on both ops: is this its second callback?
 *
 * A site moving between the two ops (a post_handler or jprobe comes or
 * goes) is hooked on the new ops before it is unhooked from the old
 * (make-before-break), so no call finds it unhooked.  Meanwhile a call
 * runs our callback twice, once per ops, in the order of ftrace's ops
 * list, within one preemption-disabled walk of that list.  Only the
 * first of the two acts:
 *
 *  1. The first to run, the ops ahead in the list, notes (ip, regs) in a
 *     per-CPU, per-context record, and goes on with the hit.
 *  2. The second, finding that note of its own call, steps aside.
 *  3. A record can go stale (the first callback ran, the ops list changed
 *     before the second could), so every step of a move ends in
 *     arch_ftrace_sites_sync(), which waits for each CPU to leave any
 *     walk and clears its records.
 *
 * Only the other ops' record counts: when kprobe_ftrace_first changes
 * (an ops is registered), a CPU may still hold the record its own last
 * call left while it was first, and must not mistake it for this one's.
 */
static nokprobe_inline bool kprobe_ftrace_second(struct ftrace_ops *ops,
						 unsigned long ip,
						 struct pt_regs *regs)
{
	struct kprobe_ftrace_walk *w;

	w = this_cpu_ptr(&kprobe_ftrace_walks[interrupt_context_level()]);
	if (ops == READ_ONCE(kprobe_ftrace_first)) {
		w->ip = ip;
		w->regs = regs;
		w->ops = ops;
		return false;
	}
	if (w->ip != ip || w->regs != regs || w->ops == ops)
		return false;
	w->ip = 0;
	return true;
}

static void kprobe_ftrace_walk_clear(struct work_struct *unused)
{
	memset(this_cpu_ptr(&kprobe_ftrace_walks), 0,
	       sizeof(kprobe_ftrace_walks));
}

/**
 * arch_ftrace_sites_sync() - wait out every ops-list walk in progress
 *
 * The list walk runs with preemption disabled, so a work item run on each
 * CPU finds no walk there in progress, in any context; it clears that
 * CPU's records, which no callback still needs.
 */
void arch_ftrace_sites_sync(void)
{
	kprobe_assert_locked();
	WARN_ON_ONCE(schedule_on_each_cpu(kprobe_ftrace_walk_clear));
}

/*
 * A hit the fast path leaves: several probes or a post_handler or jprobe
 * on the site, a hit already under way on this CPU, or a site not armed.
 * Returns true when
 * a jprobe's handler runs next, reached by ftrace's return to regs->ip:
 * its frame stays, and interrupts stay off (ftrace restores the flags
 * from regs, IF cleared) until its jprobe_return() traps.
 */
static noinline notrace bool kprobe_ftrace_slow(struct kprobe_site *s,
						struct pt_regs *regs,
						struct kprobe_ctlblk *kcb,
						unsigned long ip)
{
	unsigned long orig_ip = regs->ip;
	struct kprobe_site *carrier;
	struct kprobe_frame *f;

	/*
	 * An idle hook (kernel/kprobes_ftrace.c) on a site whose
	 * probes are all disabled, or one the IPMODIFY ops is taking over:
	 * nothing to run.  (An armed site's hits start once it is marked so.)
	 */
	if (unlikely(!kprobe_site_is_armed(s)))
		return false;
	f = kprobe_hit_begin(s);
	if (f) {
		regs->ip = ip + INT3_INSN_SIZE;
		if (!kprobe_site_pre(s, f, regs)) {
			if (unlikely(kprobe_site_has_post(s))) {
				/* the fentry nop "executed" */
				regs->ip = ip + MCOUNT_INSN_SIZE;
				f->status = KPROBE_HIT_SSDONE;
				kprobe_site_post(s, f, regs);
			}
			regs->ip = orig_ip;
		} else if (f->status == KPROBE_HIT_JPROBE) {
			return true;
		}
		kprobe_frame_pop(kcb);
	}
	/*
	 * Moving off its carrier (kernel/kprobes_carriers.c): this call has
	 * had its hit here (or its miss counted), so it must not meet the
	 * carrier's int3 too.  Unless a handler sent it elsewhere, it goes on in a
	 * copy of the carrier's instruction.  One load: the carrier, or
	 * NULL once the move is over (its memory outlives this hit).  A
	 * diverting user may be on the function meanwhile: if its callback
	 * ran first and moved ip, the call goes there; if it runs after
	 * this one, it moves ip again.  A direct trampoline returns to
	 * regs->ip, or calls the body at the carrier itself, where
	 * kprobe_carrier_called() tells the call apart.
	 */
	carrier = kprobe_site_carrier_moving(s);
	if (IS_ENABLED(CONFIG_KPROBE_CARRIERS) && unlikely(carrier) &&
	    regs->ip == ip + MCOUNT_INSN_SIZE)
		regs->ip = kprobe_carrier_resume(carrier);
	return false;
}

NOKPROBE_SYMBOL(kprobe_ftrace_slow);

/*
 * Several pre-only probes (a kprobe beside a kretprobe): kprobe_pre_only(),
 * out of line so that its loop's registers cost the solo path nothing.
 */
static noinline notrace void kprobe_ftrace_pre_only(struct kprobe_site *s,
						    struct pt_regs *regs,
						    unsigned long ip)
{
	unsigned long orig_ip = regs->ip;

	regs->ip = ip + INT3_INSN_SIZE;
	if (!kprobe_pre_only(s, regs))
		regs->ip = orig_ip;
}

NOKPROBE_SYMBOL(kprobe_ftrace_pre_only);

/**
 * kprobe_ftrace_handler() - the ftrace callback of kprobes
 * @ip: the fentry site
 * @parent_ip: the caller
 * @ops: our ftrace_ops
 * @fregs: the registers (full pt_regs: both ops save them)
 *
 * Handlers see what an int3 hit would show: regs->ip is the probe address
 * plus one for the pre_handlers, and the address after the 5-byte site
 * for the post_handlers.  A pre_handler that returns 1 leaves regs->ip
 * where it put it, and ftrace resumes there; a jprobe's handler is
 * reached that way (arch/x86/kernel/kprobes/jprobes.c).
 *
 * It runs in ftrace context with interrupts disabled, and shares the
 * per-CPU frames of the int3 path, so a hit inside any probe handler only
 * counts nmissed: that is its recursion guard (below).  It and its two
 * out-of-line paths are notrace, as fprobe's and every other callback in
 * kernel/trace/ (which that directory builds without -pg): an fentry call
 * there cost every hit an instruction.
 */
notrace void kprobe_ftrace_handler(unsigned long ip, unsigned long parent_ip,
				   struct ftrace_ops *ops,
				   struct ftrace_regs *fregs)
{
	struct pt_regs *regs = ftrace_get_regs(fregs);
	struct kprobe_ctlblk *kcb;
	struct kprobe_site *s;
	unsigned long orig_ip, flags;
	struct kprobe *kp;

	if (unlikely(!regs))
		return;
	/*
	 * Interrupts off for the whole hit, as on the int3 path: the IPI
	 * round of unregister_kprobe() then waits this hit out (see
	 * __kprobe_batch_commit()).
	 *
	 * No ftrace_test_recursion_trylock() (ops without
	 * FTRACE_OPS_FL_RECURSION guard themselves): we are only called for
	 * functions that hold a probe, and nothing this handler calls before
	 * a probe's handler can hold one (NOKPROBE_SYMBOL, the blacklist).
	 * A probe handler that reaches a probed function, or an NMI that
	 * does, finds this CPU's frame in use and counts nmissed, as on the
	 * int3 path.  The guard cost a sixth of a hit's instructions.
	 */
	local_irq_save(flags);

	s = __kprobe_site_lookup(ip);
	if (unlikely(!s))
		goto out;
	/* moving between our ops: one of the two callbacks acts */
	if (unlikely(kprobe_site_ftrace_dual(s)) &&
	    kprobe_ftrace_second(ops, ip, regs))
		goto out;
	kcb = get_kprobe_ctlblk();
	kp = kprobe_solo_now(s, kcb);
	if (likely(kp)) {
		/* the common hit: one pre-only probe (kprobe_solo_pre()) */
		orig_ip = regs->ip;
		regs->ip = ip + INT3_INSN_SIZE;
		if (!kprobe_solo_pre(kcb, s, kp, regs))
			regs->ip = orig_ip;
	} else if (kprobe_pre_only_now(s)) {
		kprobe_ftrace_pre_only(s, regs, ip);
	} else if (kprobe_ftrace_slow(s, regs, kcb, ip)) {
		return;		/* to a jprobe's handler, interrupts off */
	}
out:
	local_irq_restore(flags);
}

NOKPROBE_SYMBOL(kprobe_ftrace_handler);

/*
 * Two ftrace_ops: sites whose probes have a post_handler or a jprobe go
 * on the one with FTRACE_OPS_FL_IPMODIFY (such probes are the ones that
 * redirect execution, as fail_function does); the others on the one
 * without it, so that they can coexist with livepatch and direct
 * trampolines, which claim IPMODIFY for themselves.  Both save full
 * registers.
 */
static struct ftrace_ops kprobe_ftrace_ops __read_mostly = {
	.func = kprobe_ftrace_handler,
	.flags = FTRACE_OPS_FL_SAVE_REGS,
};

static struct ftrace_ops kprobe_ipmodify_ops __read_mostly = {
	.func = kprobe_ftrace_handler,
	.flags = FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY,
};

/**
 * arch_ftrace_ops_ours() - is this ftrace_ops one of kprobes' own?
 * @ops: an ops ftrace is about to register or change
 *
 * Return: true for the two ops of this file, whose changes kprobes makes
 * itself, under kprobe_mutex (kprobe_ftrace_divert() must not wait then).
 */
bool arch_ftrace_ops_ours(struct ftrace_ops *ops)
{
	return ops == &kprobe_ftrace_ops || ops == &kprobe_ipmodify_ops;
}

/* sites on each ops; registered while non-zero (kprobe_mutex) */
static int kprobe_ftrace_users, kprobe_ipmodify_users;

/*
 * Registered, an ops goes ahead of the other ops in ftrace's list: its
 * callbacks come first.  Walks that believed otherwise are waited out
 * first.
 */
static void kprobe_ftrace_registering(struct ftrace_ops *ops)
{
	WRITE_ONCE(kprobe_ftrace_first, ops);
	if (kprobe_ftrace_users + kprobe_ipmodify_users)
		arch_ftrace_sites_sync();
}

/**
 * arch_ftrace_sites_update() - change the fentry sites hooked on one ops
 * @ipmodify: the IPMODIFY ops, or the plain one
 * @add: sites to hook
 * @nadd: how many
 * @del: sites to unhook (all hooked on this ops)
 * @ndel: how many
 *
 * A batch of probes on kernel functions costs one ftrace update, not one
 * per function (kprobe_ftrace_ops_update()).
 *
 * Return: 0, or ftrace's error for @add (then none of @add is hooked;
 * @del is done regardless).
 */
int arch_ftrace_sites_update(bool ipmodify, unsigned long *add, int nadd,
			     unsigned long *del, int ndel)
{
	if (ipmodify)
		return kprobe_ftrace_ops_update(&kprobe_ipmodify_ops,
						&kprobe_ipmodify_users, add, nadd,
						del, ndel, kprobe_ftrace_registering);
	return kprobe_ftrace_ops_update(&kprobe_ftrace_ops, &kprobe_ftrace_users,
					add, nadd, del, ndel,
					kprobe_ftrace_registering);
}

/**
 * kprobe_ftrace_kill() - ftrace is going down after an error: stop using it
 */
void kprobe_ftrace_kill(void)
{
	kprobe_ftrace_ops.func = ftrace_stub;
	kprobe_ipmodify_ops.func = ftrace_stub;
}
