// SPDX-License-Identifier: GPL-2.0
/*
 * kpt_init_probe: probes its own __init function from its init, hits it
 * once (parameter "hits"), and keeps the probe registered until unload.
 * Once the init text is freed, the probe must show as [GONE] and never
 * touch that memory again.
 */
#include <linux/module.h>
#include <linux/kprobes.h>

static int hits;
module_param(hits, int, 0444);

static noinline int __init kpt_init_func(int x)
{
	return x + 100;
}

int (*kpt_init_call)(int) __initdata = kpt_init_func;

static int kpt_init_pre(struct kprobe *p, struct pt_regs *regs)
{
	hits++;
	return 0;
}

static struct kprobe kpt_init_kp = {
	.pre_handler = kpt_init_pre,
};

static int __init kpt_init_probe_init(void)
{
	int ret;

	kpt_init_kp.addr = (kprobe_opcode_t *)kpt_init_call;
	ret = register_kprobe(&kpt_init_kp);
	if (ret)
		return ret;
	if (kpt_init_call(1) != 101)
		hits = -1000;
	return 0;
}

static void __exit kpt_init_probe_exit(void)
{
	unregister_kprobe(&kpt_init_kp);
}

module_init(kpt_init_probe_init);
module_exit(kpt_init_probe_exit);
MODULE_DESCRIPTION("kprobes selftest helper: a probe in module init text");
MODULE_LICENSE("GPL");
