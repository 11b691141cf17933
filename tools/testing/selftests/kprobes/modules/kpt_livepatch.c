// SPDX-License-Identifier: GPL-2.0
/*
 * kpt_livepatch: a livepatch for the divert suite (a helper, not a suite).
 * It replaces kpt_target_mod's kpt_mod_func(x), x * 3 + 1, with x * 3 + 2,
 * so a caller can tell which body ran.  livepatch redirects the calls
 * with an IPMODIFY ftrace_ops on the function's fentry site.
 */
#include <linux/module.h>
#include <linux/livepatch.h>

static noinline int kpt_mod_func_patched(int x)
{
	return x * 3 + 2;
}

static struct klp_func kpt_funcs[] = {
	{
		.old_name = "kpt_mod_func",
		.new_func = kpt_mod_func_patched,
	}, { }
};

static struct klp_object kpt_objs[] = {
	{
		.name = "kpt_target_mod",
		.funcs = kpt_funcs,
	}, { }
};

static struct klp_patch kpt_patch = {
	.mod = THIS_MODULE,
	.objs = kpt_objs,
};

static int __init kpt_livepatch_init(void)
{
	return klp_enable_patch(&kpt_patch);
}

static void __exit kpt_livepatch_exit(void)
{
}

module_init(kpt_livepatch_init);
module_exit(kpt_livepatch_exit);
MODULE_DESCRIPTION("kprobes selftest helper: livepatches kpt_target_mod");
MODULE_LICENSE("GPL");
MODULE_INFO(livepatch, "Y");
