// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Kprobes' classic backend interface: the twelve arches other than x86
 * (arc, arm, arm64, csky, loongarch, mips, parisc, powerpc, riscv, s390,
 * sh, sparc) keep their kprobes backends unchanged, and this file serves
 * the interface those were written against on top of the core's probe
 * sites.  Not served: jprobes and fault handlers (registering one returns
 * -EOPNOTSUPP), and jump optimization (arm's and powerpc's optimizers are
 * written for struct optimized_kprobe): their probes stay breakpoints.
 */

#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/kprobes.h>
#include <linux/cpu.h>
#include <linux/memory.h>
#include <linux/ftrace.h>
#include <linux/notifier.h>
#include <linux/kdebug.h>
#include <linux/rethook.h>

#include <asm/sections.h>

#include "kprobes_internal.h"

/* ---- the site's probe, as the backend sees it ----------------------------- */

static nokprobe_inline struct kprobe_site *classic_site(struct kprobe *hkp)
{
	return container_of(hkp, struct kprobe_site, kp);
}

/*
 * The backend's pre_handler call: the site's pre_handlers, in
 * registration order, until one returns non-zero (it moved the PC; the
 * backend then skips the single-step).  classic_site_post() runs the
 * post_handlers after the single-step.  current_kprobe names the probe
 * whose handler runs, so bpf sees the probe it is attached to, and goes
 * back to the site's probe afterwards, which the backend's state machine
 * expects.  A miss the backend counts on the site's probe
 * (kprobes_inc_nmissed_count()) is charged to every enabled probe of the
 * site.
 */
static int classic_site_pre(struct kprobe *hkp, struct pt_regs *regs)
{
	struct kprobe_site *s = classic_site(hkp);
	struct kprobe *kp;
	int ret = 0;

	list_for_each_entry_rcu(kp, &s->probes, list) {
		if (kprobe_disabled(kp) || !kp->pre_handler)
			continue;
		__this_cpu_write(current_kprobe, kp);
		if (kp->pre_handler(kp, regs)) {
			/* the PC moved: the backend resets current_kprobe */
			ret = 1;
			break;
		}
	}
	__this_cpu_write(current_kprobe, hkp);
	return ret;
}

NOKPROBE_SYMBOL(classic_site_pre);

static nokprobe_inline void classic_running(struct kprobe *kp, void *unused)
{
	__this_cpu_write(current_kprobe, kp);
}

/* the backend's post_handler call, after the single-step */
static void classic_site_post(struct kprobe *hkp, struct pt_regs *regs,
			      unsigned long flags)
{
	kprobe_site_run_posts(classic_site(hkp), regs, flags, classic_running,
			      NULL);
	__this_cpu_write(current_kprobe, hkp);
}

NOKPROBE_SYMBOL(classic_site_post);

/**
 * get_kprobe() - the probe a backend handles at an address
 * @addr: a probed address
 *
 * For classic backends only (their trap handlers, and their
 * arch_prepare_kprobe(), which may look at neighbouring sites).  Called
 * with preemption disabled, or under kprobe_mutex.
 *
 * Return: the site's probe, or NULL if @addr is not probed.
 */
struct kprobe *get_kprobe(void *addr)
{
	struct kprobe_site *s = __kprobe_site_lookup((unsigned long)addr);

	return s ? &s->kp : NULL;
}

NOKPROBE_SYMBOL(get_kprobe);

/* ---- the core's site hooks ----------------------------------------------- */

/* the backends check the instruction in arch_prepare_kprobe() */
int arch_check_insn_boundary(unsigned long addr)
{
	return 0;
}

kprobe_opcode_t arch_site_opcode(struct kprobe_site *s)
{
	return s->kp.opcode;
}

/* what an arch's backend refuses to probe, it says in arch_prepare_kprobe() */
bool arch_kprobe_text_patched(unsigned long start, unsigned long end)
{
	return false;
}

/*
 * Each site holds one struct kprobe for its backend (kprobe_site.kp): the
 * probe that backend prepares here (arch_prepare_kprobe()), arms and
 * disarms (arch_arm_kprobe(), arch_disarm_kprobe()) and removes
 * (arch_remove_kprobe(), a grace period after it was disarmed), whose
 * handlers run the site's probes.  The backend owns its opcode and ainsn;
 * the registered probes are never handed to it.  The hooks run under
 * kprobe_mutex, and call the backend under cpus_read_lock() and
 * text_mutex, as it always was: several backends call
 * stop_machine_cpuslocked() or assert text_mutex.
 */
int arch_prepare_site(struct kprobe_site *s)
{
	struct kprobe *hkp = &s->kp;
	int ret;

	kprobe_assert_locked();
	hkp->addr = (kprobe_opcode_t *)s->addr;
	hkp->site = s;
	hkp->pre_handler = classic_site_pre;
	hkp->post_handler = classic_site_post;
	INIT_LIST_HEAD(&hkp->list);
	INIT_HLIST_NODE(&hkp->hlist);
	if (s->flags & KPROBE_SITE_FTRACE)
		hkp->flags |= KPROBE_FLAG_FTRACE;
	if (s->flags & KPROBE_SITE_ON_ENTRY)
		hkp->flags |= KPROBE_FLAG_ON_FUNC_ENTRY;

	/* the backends' context: some patch a slot with stop_machine */
	cpus_read_lock();
	mutex_lock(&text_mutex);
	if (s->flags & KPROBE_SITE_FTRACE)
		ret = arch_prepare_kprobe_ftrace(hkp);
	else
		ret = arch_prepare_kprobe(hkp);
	mutex_unlock(&text_mutex);
	cpus_read_unlock();
	return ret;
}

/* after a grace period since the site was disarmed; no locks held */
void arch_release_site(struct kprobe_site *s)
{
	arch_remove_kprobe(&s->kp);
}

void arch_arm_site(struct kprobe_site *s)
{
	kprobe_assert_locked();
	cpus_read_lock();
	mutex_lock(&text_mutex);
	arch_arm_kprobe(&s->kp);
	mutex_unlock(&text_mutex);
	cpus_read_unlock();
}

void arch_disarm_site(struct kprobe_site *s)
{
	kprobe_assert_locked();
	cpus_read_lock();
	mutex_lock(&text_mutex);
	arch_disarm_kprobe(&s->kp);
	mutex_unlock(&text_mutex);
	cpus_read_unlock();
}

/*
 * The backends' arming is done when it returns (stop_machine, or a store
 * and a cache flush).  Hits under way run with preemption disabled from
 * the trap to the end of the single-step (whose interrupts are masked),
 * so a grace period waits them out.
 */
void arch_kprobe_poke_sync(bool wait_hits)
{
	if (wait_hits)
		synchronize_rcu();
}

/* ---- the defaults for what a backend may override ----------------------- */

/*
 * addr is the symbol's address, offset the probe's offset from it, as
 * 6.12 passes them: a function's entry is its first byte (powerpc's
 * override knows its ELFv2 entry points).
 */
kprobe_opcode_t * __weak arch_adjust_kprobe_addr(unsigned long addr,
						 unsigned long offset,
						 bool *on_func_entry)
{
	*on_func_entry = !offset;
	return (kprobe_opcode_t *)(addr + offset);
}

/* .kprobes.text is on the core's blacklist already */
bool __weak arch_within_kprobe_blacklist(unsigned long addr)
{
	return false;
}

int __weak arch_populate_kprobe_blacklist(void)
{
	return 0;
}

/*
 * The five arches that take their traps through the die chain (arc, mips,
 * s390, sh, sparc) override it.
 */
int __weak kprobe_exceptions_notify(struct notifier_block *self,
				    unsigned long val, void *data)
{
	return NOTIFY_DONE;
}

NOKPROBE_SYMBOL(kprobe_exceptions_notify);

/* first in the die chain: a kprobe's trap is no oops */
static struct notifier_block kprobe_exceptions_nb = {
	.notifier_call = kprobe_exceptions_notify,
	.priority = 0x7fffffff,
};

/**
 * kprobes_classic_init() - what the core does at init for a classic backend
 *
 * After arch_init_kprobes() (which may have registered its trampoline's
 * probe): the die notifier.
 *
 * Return: 0, or the notifier's error.
 */
int __init kprobes_classic_init(void)
{
	return register_die_notifier(&kprobe_exceptions_nb);
}

/* ---- kprobes on ftrace ---------------------------------------------------- */

#ifdef CONFIG_KPROBES_ON_FTRACE
bool kprobe_ftrace_disabled __read_mostly;

/*
 * Kprobes on ftrace (csky, loongarch, parisc, powerpc, s390): the
 * backend's kprobe_ftrace_handler() is the callback of two ops, as in
 * 6.12.  A site whose probes have a post_handler when it is hooked goes
 * on the IPMODIFY one (the backend's handler moves the IP to emulate the
 * step), the others on the plain one, so that an entry probe and a
 * livepatch of the same function can be on it together.  A site
 * stays on the ops it was hooked on until it is unhooked
 * (kprobe_site_ipmodify()): the backend's handler runs the site's probes
 * once per callback and could not tell the two callbacks of one call
 * apart while a site moved.
 */
static struct ftrace_ops kprobe_ftrace_ops __read_mostly = {
	.func = kprobe_ftrace_handler,
	.flags = FTRACE_OPS_FL_SAVE_REGS,
};

static struct ftrace_ops kprobe_ipmodify_ops __read_mostly = {
	.func = kprobe_ftrace_handler,
	.flags = FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY,
};

static int kprobe_ftrace_users[2];

/**
 * arch_ftrace_sites_update() - hook and unhook ftrace sites
 * @ipmodify: on the IPMODIFY ops (kprobe_site_ipmodify())
 * @add: sites to hook
 * @nadd: how many
 * @del: sites to unhook
 * @ndel: how many
 *
 * Called under kprobe_mutex; see kprobe_ftrace_ops_update().
 *
 * Return: 0, or ftrace's error for @add (then none of @add is hooked).
 */
int arch_ftrace_sites_update(bool ipmodify, unsigned long *add, int nadd,
			     unsigned long *del, int ndel)
{
	kprobe_assert_locked();
	return kprobe_ftrace_ops_update(ipmodify ? &kprobe_ipmodify_ops :
					&kprobe_ftrace_ops,
					&kprobe_ftrace_users[ipmodify],
					add, nadd, del, ndel, NULL);
}

/* sites never move between ops here: nothing to wait for */
void arch_ftrace_sites_sync(void)
{
}

/**
 * kprobe_ftrace_kill() - ftrace is going down after an error: stop using it
 */
void kprobe_ftrace_kill(void)
{
	kprobe_ftrace_disabled = true;
}
#endif /* CONFIG_KPROBES_ON_FTRACE */

/* ---- kretprobes through rethook -------------------------------------------- */

#if defined(CONFIG_KRETPROBES) && defined(KRETPROBE_VIA_RETHOOK)
/*
 * The rethook's callback, from the arch's rethook trampoline with
 * preemption disabled: rp's handler, with this CPU busy (a probe hit in
 * it counts nmissed) and current_kprobe naming rp: step 2 of
 * kretprobe_entry().  data is NULL once rp was unregistered.
 *
 * powerpc's trampoline is itself a kprobe (on a nop, whose handler calls
 * the rethook): its hit is running then, and is no other probe's
 * handler; current_kprobe goes back to it for the backend to finish it.
 */
static void kretprobe_rethook_handler(struct rethook_node *rh, void *data,
				      unsigned long ret_addr,
				      struct pt_regs *regs)
{
	struct kretprobe *rp = data;
	struct kretprobe_instance *ri;
	struct kprobe *cur = kprobe_running();

	if (!rp || !rp->handler)
		return;
	if (unlikely(cur) && !is_rethook_trampoline((unsigned long)cur->addr)) {
		/* inside another probe's handler: rp's is a miss */
		kprobe_count_miss(&rp->nmissed);
		return;
	}
	ri = container_of(rh, struct kretprobe_instance, node);
	__this_cpu_write(current_kprobe, &rp->kp);
	get_kprobe_ctlblk()->kprobe_status = KPROBE_HIT_ACTIVE;
	rp->handler(ri, regs);
	__this_cpu_write(current_kprobe, cur);
}

NOKPROBE_SYMBOL(kretprobe_rethook_handler);

/*
 * The kretprobe's entry probe, on the arches whose backend moved to
 * rethook (loongarch, powerpc, riscv, s390): the rethook's node pool is
 * the kretprobe's instance pool (kretprobe_pool_create()).  A return:
 *
 *  1. Here, at the entry: take a node (none left: a miss), run the
 *     entry_handler (non-zero: the node goes back, no return is hooked),
 *     and hook the return (rethook_hook()).
 *  2. The function returns into the arch's rethook trampoline, which
 *     calls kretprobe_rethook_handler(): rp's handler.
 *  3. rethook recycles the node.
 */
int kretprobe_entry(struct kprobe *p, struct pt_regs *regs)
{
	struct kretprobe *rp = container_of(p, struct kretprobe, kp);
	struct kretprobe_instance *ri;
	struct rethook_node *rhn;

	rhn = rethook_try_get(rp->rh);
	if (!rhn) {
		kprobe_count_miss(&rp->nmissed);
		return 0;
	}
	ri = container_of(rhn, struct kretprobe_instance, node);
	if (rp->entry_handler && rp->entry_handler(ri, regs)) {
		rethook_recycle(rhn);
		return 0;
	}
	/* an fentry site is hooked from ftrace's callback, not a trap */
	rethook_hook(rhn, regs, kprobe_ftrace(p));
	return 0;
}

NOKPROBE_SYMBOL(kretprobe_entry);

int kretprobe_pool_create(struct kretprobe *rp)
{
	struct rethook *rh;

	rh = rethook_alloc(rp, kretprobe_rethook_handler,
			   sizeof(struct kretprobe_instance) + rp->data_size,
			   rp->maxactive);
	if (IS_ERR(rh))
		return PTR_ERR(rh);
	rp->rh = rh;
	return 0;
}

/* no handler for the instances under way; get_kretprobe() says so */
void kretprobe_orphan(struct kretprobe *rp)
{
	if (rp->rh) {
		rethook_stop(rp->rh);
		WRITE_ONCE(rp->rh->data, NULL);
	}
}

/* after the grace period: rethook frees the pool when its nodes are home */
void kretprobe_release(struct kretprobe *rp)
{
	if (rp->rh) {
		rethook_free(rp->rh);
		rp->rh = NULL;
	}
}
#endif /* CONFIG_KRETPROBES && KRETPROBE_VIA_RETHOOK */
