// SPDX-License-Identifier: GPL-2.0
/*
 * kpt_modver: a module that registers a kprobe, for modversions.sh (a
 * helper, not a suite).  harness/mkinitramfs.sh builds it twice: against
 * the kernel under test (kpt_modver.ko) and, on a MODVERSIONS config,
 * against stock 6.12's headers and symbol versions (kpt_modver_stock.ko),
 * as a distribution's users would have built it before the series.  Its
 * struct kprobe is then stock's, 48 bytes smaller than ours: the kernel
 * must refuse it rather than let register_kprobe() write past it.
 */
#include <linux/module.h>
#include <linux/kprobes.h>

static unsigned long hits;
module_param(hits, ulong, 0444);
MODULE_PARM_DESC(hits, "pre_handler calls, of the 10 calls the init makes");

static noinline int kpt_modver_target(int x)
{
	return x + 1;
}

static int pre(struct kprobe *p, struct pt_regs *regs)
{
	hits++;
	return 0;
}

static int __init kpt_modver_init(void)
{
	int (*fn)(int) = kpt_modver_target;
	struct kprobe kp = {
		.addr = (kprobe_opcode_t *)kpt_modver_target,
		.pre_handler = pre,
	};
	int i, ret;

	ret = register_kprobe(&kp);
	if (ret)
		return ret;
	OPTIMIZER_HIDE_VAR(fn);
	for (i = 0; i < 10; i++)
		fn(i);
	unregister_kprobe(&kp);
	return 0;
}

static void __exit kpt_modver_exit(void)
{
}

module_init(kpt_modver_init);
module_exit(kpt_modver_exit);
MODULE_DESCRIPTION("kprobes selftest helper: a kprobe user, for symbol versions");
MODULE_LICENSE("GPL");
