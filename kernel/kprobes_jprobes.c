// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Jump probes (jprobes).
 *
 * Kprobes' jprobe API, arch-neutral: a jprobe is a kprobe on a function's
 * entry whose handler is called as if in place of the probed function,
 * with its arguments.  Registering and unregistering one is the core's
 * work, on the embedded kprobe; the arch leaves the hit into the handler
 * and comes back.
 */
#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/kprobes.h>
#include <linux/export.h>
#include <linux/slab.h>

#include "kprobes_internal.h"

/*
 * The pre_handler of every jprobe, which does not handle the hit itself.
 * A hit on a jprobe:
 *
 *  1. Here, the registers go to the arch (arch_jprobe_setjmp()), which
 *     saves them and leaves the trap (or the ftrace callback) into the
 *     jprobe's handler, called as if in place of the probed function.
 *  2. The handler ends in jprobe_return(), which traps back.
 *  3. The arch puts the saved registers back and the hit goes on where it
 *     stopped: the site's probes after the jprobe, then the probed
 *     instruction and the post_handlers, as for any hit
 *     (kprobe_jprobe_resume(), in the arch's hit path).
 *
 * A jprobe's kprobe registered again on its own (register_kprobe()) keeps
 * this handler but not the flag: the core may then arm it where no
 * jprobe can leave the hit, so it does nothing.
 */
static int jprobe_pre_handler(struct kprobe *p, struct pt_regs *regs)
{
	if (!kprobe_is_jprobe(p))
		return 0;
	return arch_jprobe_setjmp(container_of(p, struct jprobe, kp), regs);
}

NOKPROBE_SYMBOL(jprobe_pre_handler);

/*
 * Check a jprobe before it is handed to the core's registration: a handler,
 * and a function entry (where the arguments are where the ABI put them).
 */
static int jprobe_check(struct jprobe *jp)
{
	if (!jp || !jp->entry)
		return -EINVAL;
	return kprobe_on_func_entry(jp->kp.addr, jp->kp.symbol_name,
				    jp->kp.offset);
}

/**
 * register_jprobes() - register an array of jprobes
 * @jps: the jprobes: kp.addr or kp.symbol_name (a function's entry), entry
 * @num: how many
 *
 * All are armed with one text-patch batch.  On error none is left
 * registered, and the jprobes are as they were passed.  The core
 * registers the embedded kprobes, once they are checked to sit on
 * function entries (an ftrace'd entry included: the site then goes on the
 * IPMODIFY ftrace_ops, see kprobe_site_ipmodify()), with
 * KPROBE_FLAG_JPROBE, which is how it tells a jprobe.  Where jprobes once
 * allowed one per function, any number of them share a site with kprobes
 * and kretprobes, and every handler of the site runs in registration
 * order, jprobe handlers included.
 *
 * Return: 0; -EINVAL (NULL jprobe or entry, not a function's entry,
 * registered already, not probeable), -ENOENT (unknown symbol),
 * -EOPNOTSUPP (the arch's backend has no jprobes: all but x86_64), or as
 * register_kprobes().
 */
int register_jprobes(struct jprobe **jps, int num)
{
	struct kprobe_array a = {
		.objs = (void *const *)jps, .num = num,
		.kp_off = offsetof(struct jprobe, kp), .flags = KPROBE_FLAG_JPROBE,
	};
	struct jprobe_handlers {
		kprobe_pre_handler_t pre;
		kprobe_post_handler_t post;
	} *saved;
	int i, ret;

	if (!jps || num <= 0)
		return -EINVAL;
	/* the backend must leave a trap into the handler and back: x86's */
	if (!IS_ENABLED(CONFIG_HAVE_KPROBE_SITES))
		return -EOPNOTSUPP;
	for (i = 0; i < num; i++) {
		ret = jprobe_check(jps[i]);
		if (ret)
			return ret;
		/* registered already: its handlers are not ours to swap */
		if (kprobe_is_registered(&jps[i]->kp))
			return -EINVAL;
	}
	saved = kcalloc(num, sizeof(*saved), GFP_KERNEL);
	if (!saved)
		return -ENOMEM;
	/* a jprobe's kprobe is the jprobe's own: no caller handlers run there */
	for (i = 0; i < num; i++) {
		struct kprobe *kp = &jps[i]->kp;

		saved[i].pre = kp->pre_handler;
		saved[i].post = kp->post_handler;
		kp->pre_handler = jprobe_pre_handler;
		kp->post_handler = NULL;
	}
	ret = kprobe_register_array(&a);
	if (ret) {
		/* nothing of this call is registered now */
		for (i = 0; i < num; i++) {
			jps[i]->kp.pre_handler = saved[i].pre;
			jps[i]->kp.post_handler = saved[i].post;
		}
	}
	kfree(saved);
	return ret;
}
EXPORT_SYMBOL_GPL(register_jprobes);

/**
 * register_jprobe() - probe a function's entry with a mirror handler
 * @jp: the jprobe: kp.addr or kp.symbol_name at a function's entry, and
 *	entry, a handler with the function's prototype that ends in
 *	jprobe_return()
 *
 * Return: 0, or a negative errno as for register_jprobes().
 */
int register_jprobe(struct jprobe *jp)
{
	return register_jprobes(&jp, 1);
}
EXPORT_SYMBOL_GPL(register_jprobe);

/**
 * unregister_jprobes() - remove an array of jprobes
 * @jps: the jprobes
 * @num: how many
 *
 * When this returns, no handler of these jprobes runs on any CPU: a
 * jprobe's handler runs with interrupts off from the hit to
 * jprobe_return(), so the one IPI round of the core's unregistration
 * waits for every handler under way, as it does for any hit.  Entries
 * that are not registered are skipped and left untouched.
 */
void unregister_jprobes(struct jprobe **jps, int num)
{
	struct kprobe_array a = {
		.objs = (void *const *)jps, .num = num,
		.kp_off = offsetof(struct jprobe, kp),
	};

	if (jps && num > 0)
		kprobe_unregister_array(&a, KPROBE_WAIT_HITS);
}
EXPORT_SYMBOL_GPL(unregister_jprobes);

/**
 * unregister_jprobe() - remove a jprobe
 * @jp: the jprobe; one that is not registered is left untouched
 */
void unregister_jprobe(struct jprobe *jp)
{
	unregister_jprobes(&jp, 1);
}
EXPORT_SYMBOL_GPL(unregister_jprobe);

/**
 * disable_jprobe() - stop a registered jprobe from firing, keeping it
 * @jp: the jprobe
 *
 * Return: 0, or -EINVAL if @jp is not registered.
 */
int disable_jprobe(struct jprobe *jp)
{
	return jp ? disable_kprobe(&jp->kp) : -EINVAL;
}
EXPORT_SYMBOL_GPL(disable_jprobe);

/**
 * enable_jprobe() - let a disabled jprobe fire again
 * @jp: the jprobe
 *
 * Return: 0, or -EINVAL if @jp is not registered or its code is gone.
 */
int enable_jprobe(struct jprobe *jp)
{
	return jp ? enable_kprobe(&jp->kp) : -EINVAL;
}
EXPORT_SYMBOL_GPL(enable_jprobe);
