// SPDX-License-Identifier: GPL-2.0-only
/*
 * Per-process uprobes example: counts how many times the instruction at
 * one address of one process runs and, unless verbose=0, reports each
 * hit.  The counterpart of kprobe_example for user space.
 *
 * Usage: insmod uprobe_example.ko pid=<pid> vaddr=<address> [verbose=0]
 * where <pid> identifies the probed process and <address> is the virtual
 * address of the probed instruction (for a non-PIE executable, the
 * address nm(1) shows for a function; for anything else, see its start
 * in /proc/<pid>/maps).  The total is printed at rmmod.
 */
#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/init.h>
#include <linux/atomic.h>
#include <linux/uprobes.h>
#include <linux/uprobes_process.h>

static int pid;
module_param(pid, int, 0);
MODULE_PARM_DESC(pid, "pid of the process to probe");

static int verbose = 1;
module_param(verbose, int, 0);
MODULE_PARM_DESC(verbose, "report each hit (default 1)");

static unsigned long vaddr;
module_param(vaddr, ulong, 0);
MODULE_PARM_DESC(vaddr, "address of the instruction to probe");

/* all threads of the process share the probe: hits may be concurrent */
static atomic_t nhits;
static struct process_uprobe usp;

static void uprobe_handler(struct process_uprobe *u, struct pt_regs *regs)
{
	int n = atomic_inc_return(&nhits);

	if (verbose)
		pr_info("Hit #%d on probepoint at %#lx\n", n, u->vaddr);
}

static int __init uprobe_example_init(void)
{
	int ret;

	usp.pid = pid;
	usp.vaddr = vaddr;
	usp.handler = uprobe_handler;
	pr_info("Registering uprobe on pid %d, vaddr %#lx\n", usp.pid, usp.vaddr);
	ret = register_uprobe(&usp);
	if (ret != 0) {
		pr_err("register_uprobe() failed, returned %d\n", ret);
		return ret;
	}
	return 0;
}

static void __exit uprobe_example_exit(void)
{
	pr_info("Unregistering uprobe on pid %d, vaddr %#lx\n", usp.pid, usp.vaddr);
	/* a no-op if the process has exited or exec'd meanwhile */
	unregister_uprobe(&usp);
	pr_info("Probepoint was hit %d times\n", atomic_read(&nhits));
}

module_init(uprobe_example_init);
module_exit(uprobe_example_exit);
MODULE_DESCRIPTION("count the hits of one instruction of one process");
MODULE_LICENSE("GPL");
