// SPDX-License-Identifier: GPL-2.0
/*
 * kpt_target_mod: a module to probe and unload (not a suite: modules named
 * kpt_* are helpers, in the kselftest install's modules/).  Writing N to
 * /sys/module/kpt_target_mod/parameters/call calls kpt_mod_func(N), and
 * the result is readable in .../parameters/result.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>

static int result;
module_param(result, int, 0444);

static noinline int kpt_mod_func(int x)
{
	return x * 3 + 1;
}

int (*kpt_mod_call)(int) = kpt_mod_func;

static int call_set(const char *val, const struct kernel_param *kp)
{
	int x, ret = kstrtoint(val, 0, &x);

	if (ret)
		return ret;
	result = kpt_mod_call(x);
	return 0;
}

static const struct kernel_param_ops call_ops = {
	.set = call_set,
};
module_param_cb(call, &call_ops, NULL, 0200);

static int __init kpt_target_init(void)
{
	return 0;
}

static void __exit kpt_target_exit(void)
{
}

module_init(kpt_target_init);
module_exit(kpt_target_exit);
MODULE_DESCRIPTION("kprobes selftest helper: a module to probe and unload");
MODULE_LICENSE("GPL");
