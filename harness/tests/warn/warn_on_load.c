// SPDX-License-Identifier: GPL-2.0
/*
 * Harness self-test: a module whose init fires WARN_ON().  The test runner
 * must fail a run whose console shows this warning, and name the suite that
 * was running (harness/test.sh checks both).
 */
#include <linux/module.h>
#include <linux/bug.h>

static int __init warn_on_load_init(void)
{
	WARN_ON(1);	/* deliberate: the harness must catch this */
	return 0;
}

static void __exit warn_on_load_exit(void)
{
}

module_init(warn_on_load_init);
module_exit(warn_on_load_exit);
MODULE_DESCRIPTION("Harness self-test: WARN_ON at load");
MODULE_LICENSE("GPL");
