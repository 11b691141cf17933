// SPDX-License-Identifier: GPL-2.0
/*
 * kpt_mixed: a module's kprobe and kretprobe among the other tracers, for
 * mixed_tracers.sh (a helper, not a suite).  Public API only, so it runs
 * on IMPL=upstream too.  "insmod kpt_mixed.ko symbol=FUNC" registers, on
 * FUNC's entry, a kprobe with a pre_handler and a post_handler, then a
 * kretprobe; rmmod unregisters them.  What they saw is read back from
 * /sys/module/kpt_mixed/parameters.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/kprobes.h>
#include <linux/atomic.h>
#include <linux/kernel.h>
#include <linux/percpu.h>
#include <asm/ibt.h>

static char *symbol;
module_param(symbol, charp, 0444);
MODULE_PARM_DESC(symbol, "the function to probe");

static atomic_long_t pre, post, ret, ret_other, ip_other, func_other;
static atomic_long_t ret_first, ip_first;

static int get_count(char *buf, const struct kernel_param *kp)
{
	return scnprintf(buf, PAGE_SIZE, "%ld\n",
			 atomic_long_read((atomic_long_t *)kp->arg));
}

static int get_sym(char *buf, const struct kernel_param *kp)
{
	unsigned long a = atomic_long_read((atomic_long_t *)kp->arg);

	return scnprintf(buf, PAGE_SIZE, "%pS\n", (void *)a);
}

static const struct kernel_param_ops count_ops = { .get = get_count };
static const struct kernel_param_ops sym_ops = { .get = get_sym };
module_param_cb(pre, &count_ops, &pre, 0444);
module_param_cb(post, &count_ops, &post, 0444);
module_param_cb(ret, &count_ops, &ret, 0444);
module_param_cb(ret_other, &count_ops, &ret_other, 0444);
module_param_cb(ip_other, &count_ops, &ip_other, 0444);
module_param_cb(func_other, &count_ops, &func_other, 0444);
module_param_cb(ret_first, &sym_ops, &ret_first, 0444);
module_param_cb(ip_first, &sym_ops, &ip_first, 0444);

static int pre_handler(struct kprobe *p, struct pt_regs *regs)
{
	atomic_long_inc(&pre);
	return 0;
}

static void post_handler(struct kprobe *p, struct pt_regs *regs,
			 unsigned long flags)
{
	atomic_long_inc(&post);
}

static struct kretprobe krp;

/*
 * kprobe_running() reads the per-CPU current_kprobe, which is not
 * exported: its address comes from kallsyms_lookup_name(), itself found
 * through a probe on it (neither kernel exports it either).
 */
static struct kprobe * __percpu *kpt_current_kprobe;

static int find_current_kprobe(void)
{
	unsigned long (*kln)(const char *name);
	struct kprobe k = { .symbol_name = "kallsyms_lookup_name" };
	int err = register_kprobe(&k);

	if (err)
		return err;
	unregister_kprobe(&k);
	kln = (void *)k.addr;
#ifdef CONFIG_X86_KERNEL_IBT
	if (is_endbr(*(u32 *)((unsigned long)kln - ENDBR_INSN_SIZE)))
		kln = (void *)((unsigned long)kln - ENDBR_INSN_SIZE);
#endif
	kpt_current_kprobe = (struct kprobe * __percpu *)kln("current_kprobe");
	return kpt_current_kprobe ? 0 : -ENOENT;
}

/*
 * The kretprobe's handler.  With the other two it keeps what
 * /sys/module/kpt_mixed/parameters shows:
 *
 *   pre, post, ret   calls of the kprobe's two handlers and of the
 *                    kretprobe's handler
 *   missed           the kprobe's and the kretprobe's nmissed, summed
 *   ret_first        get_kretprobe_retaddr() at the first return (%pS):
 *                    the caller the kretprobe names
 *   ret_other        returns whose get_kretprobe_retaddr() was not
 *                    ret_first's
 *   ip_first         regs->ip at the first return (%pS)
 *   ip_other         returns whose regs->ip was not their
 *                    get_kretprobe_retaddr(): the handler sees the real
 *                    return address in regs->ip, so a retaddr that is some
 *                    return trampoline differs from it
 *   func_other       returns whose kprobe_running() was not the
 *                    kretprobe's entry probe, flagged on a function entry:
 *                    what bpf_get_func_ip() of a kretprobe program reads,
 *                    which must name the probed function
 */
static int ret_handler(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	unsigned long ra = get_kretprobe_retaddr(ri);
	unsigned long ip = instruction_pointer(regs);
	long first = atomic_long_cmpxchg(&ret_first, 0, ra);
	struct kprobe *running = __this_cpu_read(*kpt_current_kprobe);

	/* bpf_get_func_ip_kprobe()'s reading of the running probe */
	if (running != &krp.kp || !(running->flags & KPROBE_FLAG_ON_FUNC_ENTRY))
		atomic_long_inc(&func_other);

	if (first && first != ra)
		atomic_long_inc(&ret_other);
	atomic_long_cmpxchg(&ip_first, 0, ip);
	if (ip != ra)
		atomic_long_inc(&ip_other);
	atomic_long_inc(&ret);
	return 0;
}

static struct kprobe kp = {
	.pre_handler = pre_handler,
	.post_handler = post_handler,
};

static struct kretprobe krp = {
	.handler = ret_handler,
};

static int get_missed(char *buf, const struct kernel_param *kp_)
{
	return scnprintf(buf, PAGE_SIZE, "%lu\n",
			 kp.nmissed + krp.kp.nmissed + krp.nmissed);
}

static const struct kernel_param_ops missed_ops = { .get = get_missed };
module_param_cb(missed, &missed_ops, NULL, 0444);

static int __init kpt_mixed_init(void)
{
	int err;

	if (!symbol)
		return -EINVAL;
	err = find_current_kprobe();
	if (err) {
		pr_err("kpt_mixed: current_kprobe not found: %d\n", err);
		return err;
	}
	kp.symbol_name = symbol;
	krp.kp.symbol_name = symbol;
	err = register_kprobe(&kp);
	if (err) {
		pr_err("kpt_mixed: register_kprobe(%s): %d\n", symbol, err);
		return err;
	}
	err = register_kretprobe(&krp);
	if (err) {
		pr_err("kpt_mixed: register_kretprobe(%s): %d\n", symbol, err);
		unregister_kprobe(&kp);
	}
	return err;
}

static void __exit kpt_mixed_exit(void)
{
	unregister_kretprobe(&krp);
	unregister_kprobe(&kp);
}

module_init(kpt_mixed_init);
module_exit(kpt_mixed_exit);
MODULE_DESCRIPTION("kprobes selftest helper: a kprobe and a kretprobe among other tracers");
MODULE_LICENSE("GPL");
