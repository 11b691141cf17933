// SPDX-License-Identifier: GPL-2.0
/*
 * kpt_rcu: lets a shell suite wait for RCU instead of sleeping (a helper,
 * not a suite).  Writing anything to /sys/module/kpt_rcu/parameters/barrier
 * returns once every CPU has passed a grace period started after the
 * write and every RCU callback queued before it has run: an exited,
 * reaped task has then been freed, and what kprobes recycles from a freed
 * task (kprobe_flush_task(), rethook_flush_task()) is back.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/rcupdate.h>

static int barrier_set(const char *val, const struct kernel_param *kp)
{
	/*
	 * The grace period first: a dead task queues its last RCU callback
	 * from the context switch away from it, which may come just after
	 * its parent reaped it; that switch is a quiescent state of its CPU.
	 */
	synchronize_rcu();
	rcu_barrier();
	return 0;
}

static const struct kernel_param_ops barrier_ops = { .set = barrier_set };
module_param_cb(barrier, &barrier_ops, NULL, 0200);

MODULE_DESCRIPTION("kprobes selftests: wait for RCU callbacks from a shell");
MODULE_LICENSE("GPL");
