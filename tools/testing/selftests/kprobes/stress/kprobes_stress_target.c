// SPDX-License-Identifier: GPL-2.0
/*
 * kprobes_stress_target: the module `make stress` loads and unloads in a
 * loop (stress.sh, module churn) while kprobes_stress phase=modprobe
 * holds probes in its text.  Two threads call tgt_work() (an ftrace
 * site) and tgt_leaf() (notrace: an int3 site) for as long as it is
 * loaded, sleeping inside tgt_leaf(), so that kretprobe instances are
 * live in both when rmmod starts; module_exit stops the threads, and
 * those instances return while the module is going.
 */
#include <linux/module.h>
#include <linux/kthread.h>
#include <linux/delay.h>

static noinline notrace long tgt_leaf(long x)
{
	usleep_range(200, 400);
	return x + 1;
}

static noinline long tgt_work(long x)
{
	return tgt_leaf(x) * 2;
}

long (*tgt_work_p)(long) = tgt_work;
static struct task_struct *workers[2];

static int worker(void *data)
{
	long n = 0;

	while (!kthread_should_stop()) {
		if (tgt_work_p(n) != (n + 1) * 2)
			pr_err("kprobes_stress_target: tgt_work(%ld) went wrong\n", n);
		n++;
	}
	return 0;
}

static int __init tgt_init(void)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(workers); i++) {
		workers[i] = kthread_run(worker, NULL, "kps_tgt%d", i);
		if (IS_ERR(workers[i])) {
			int ret = PTR_ERR(workers[i]);

			while (i--)
				kthread_stop(workers[i]);
			return ret;
		}
	}
	return 0;
}

static void __exit tgt_exit(void)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(workers); i++)
		kthread_stop(workers[i]);
}

module_init(tgt_init);
module_exit(tgt_exit);
MODULE_DESCRIPTION("target module for the module churn of make stress");
MODULE_LICENSE("GPL");
