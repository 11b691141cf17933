// SPDX-License-Identifier: GPL-2.0
/*
 * kpt_ucons: 6.12's uprobe consumer API as LTTng-modules and SystemTap's
 * runtime use it, for uprobes.sh (a helper, not a suite): a struct
 * uprobe * from uprobe_register() on a file and offset, a consumer with
 * handler, ret_handler and filter, and at unload
 * uprobe_unregister_nosync() then uprobe_unregister_sync().  Built from
 * one source against ours and stock 6.12.
 *
 *   insmod kpt_ucons.ko path=FILE offset=OFF [pid=P] [remove=1]
 *
 * pid: the filter accepts only that process (the breakpoint goes into no
 * other).  remove: the handler asks for its removal from the process it
 * hit (UPROBE_HANDLER_REMOVE), which the filter, from the first hit on,
 * confirms.
 */
#include <linux/module.h>
#include <linux/namei.h>
#include <linux/pid.h>
#include <linux/ptrace.h>
#include <linux/sched/mm.h>
#include <linux/uprobes.h>
#include <linux/err.h>

static char *path;
module_param(path, charp, 0);
MODULE_PARM_DESC(path, "the probed file");

static unsigned long offset;
module_param(offset, ulong, 0);
MODULE_PARM_DESC(offset, "offset of the probed function's entry in it");

static int pid;
module_param(pid, int, 0);
MODULE_PARM_DESC(pid, "if set, the only process the filter accepts");

static bool remove;
module_param(remove, bool, 0);
MODULE_PARM_DESC(remove, "the handler returns UPROBE_HANDLER_REMOVE");

/* what the consumer saw (one probed thread at a time: plain counters) */
static unsigned long hits, rets, filtered, bad_ip, bad_ret;
module_param(hits, ulong, 0444);
module_param(rets, ulong, 0444);
module_param(filtered, ulong, 0444);
module_param(bad_ip, ulong, 0444);
module_param(bad_ret, ulong, 0444);
static long last_arg, last_ax;
module_param(last_arg, long, 0444);
module_param(last_ax, long, 0444);

static struct path fpath;
static struct uprobe *probe;	/* 6.12's type, as its users keep it */
static struct mm_struct *only_mm;
static unsigned long vaddr;	/* where the handler saw the probe */

static bool ucons_filter(struct uprobe_consumer *self, struct mm_struct *mm)
{
	filtered++;
	/* after a hit that asked for removal: confirm it */
	if (remove && READ_ONCE(hits))
		return false;
	return !only_mm || mm == only_mm;
}

static int ucons_handler(struct uprobe_consumer *self, struct pt_regs *regs)
{
	hits++;
	/* the breakpoint's address, the same in every hit */
	if (!vaddr)
		vaddr = instruction_pointer(regs);
	else if (instruction_pointer(regs) != vaddr)
		bad_ip++;
	last_arg = regs_get_kernel_argument(regs, 0);
	return remove ? UPROBE_HANDLER_REMOVE : 0;
}

static int ucons_ret(struct uprobe_consumer *self, unsigned long func,
		     struct pt_regs *regs)
{
	rets++;
	/* func: the probed function's address, where the entry hit was */
	if (func != vaddr)
		bad_ret++;
	last_ax = regs_return_value(regs);
	return 0;
}

static struct uprobe_consumer uc = {
	.handler = ucons_handler,
	.ret_handler = ucons_ret,
	.filter = ucons_filter,
};

/* 6.12's uprobe_apply() is not exported: its type only, as a build check */
static_assert(__same_type(&uprobe_apply,
			  int (*)(struct uprobe *, struct uprobe_consumer *, bool)));

static int __init kpt_ucons_init(void)
{
	int ret;

	if (!path)
		return -EINVAL;
	if (pid) {
		struct pid *p = find_get_pid(pid);
		struct task_struct *t = get_pid_task(p, PIDTYPE_PID);
		struct mm_struct *mm;

		put_pid(p);
		if (!t)
			return -ESRCH;
		mm = get_task_mm(t);
		put_task_struct(t);
		if (!mm)
			return -ESRCH;
		/* the mm_struct, to compare with: not its address space */
		mmgrab(mm);
		mmput(mm);
		only_mm = mm;
	}
	ret = kern_path(path, LOOKUP_FOLLOW, &fpath);
	if (ret)
		goto out_mm;
	probe = uprobe_register(d_inode(fpath.dentry), offset, 0, &uc);
	if (IS_ERR(probe)) {
		ret = PTR_ERR(probe);
		path_put(&fpath);
		goto out_mm;
	}
	return 0;
out_mm:
	if (only_mm)
		mmdrop(only_mm);
	return ret;
}

static void __exit kpt_ucons_exit(void)
{
	uprobe_unregister_nosync(probe, &uc);
	uprobe_unregister_sync();
	path_put(&fpath);
	if (only_mm)
		mmdrop(only_mm);
}

module_init(kpt_ucons_init);
module_exit(kpt_ucons_exit);
MODULE_DESCRIPTION("kprobes selftest helper: 6.12's uprobe consumer API");
MODULE_LICENSE("GPL");
