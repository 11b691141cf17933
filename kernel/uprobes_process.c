// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Per-process uprobes: register_uprobe(pid, vaddr) and its kin
 * (Documentation/trace/uprobes-process.rst), over two breakpoint
 * engines: the inode-based uprobes for file text, and the memory engine
 * for anonymous and writable memory (JIT code).  Here are the processes
 * and probepoints, the hit's walk of a point's probes, operations asked
 * from a handler, and the reaping of an exited process's probes.
 */
#include <linux/uprobes.h>
#include <linux/uprobes_process.h>
#include <linux/sched/mm.h>
#include <linux/sched/task.h>
#include <linux/task_work.h>
#include <linux/workqueue.h>
#include <linux/slab.h>
#include <linux/mutex.h>
#include <linux/rculist.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/init.h>

#include "uprobes_process.h"

/* u->state; FREE is the zeroed state the caller hands in */
enum uprobe_state {
	UPROBE_FREE = 0,	/* not registered */
	UPROBE_REGISTERING,	/* being registered, maybe delayed */
	UPROBE_ACTIVE,		/* on its point's list, handler runs */
	UPROBE_UNREGISTERING,	/* being unregistered, maybe delayed */
};

static const char * const uprobe_state_name[] = {
	[UPROBE_FREE]		= "FREE",
	[UPROBE_REGISTERING]	= "REGISTERING",
	[UPROBE_ACTIVE]		= "ACTIVE",
	[UPROBE_UNREGISTERING]	= "UNREGISTERING",
};

/* A [un]registration asked from a handler, waiting to run. */
struct uprobe_delayed_op {
	struct callback_head twork;	/* task work of the probed thread */
	struct work_struct work;	/* ... or this, if it is exiting */
	struct list_head node;		/* on uprobes_delayed, uprobes_lock */
	struct process_uprobe *u;		/* NULL once cancelled */
	bool reg;
};

/*
 * uprobes_mutex: structure (processes, points, probe lists) and every
 * call into the engine.  Sleeping paths only.  Never taken on a hit, nor
 * from uprobe_process_mm_exit(), which the engine can reach from under
 * its own locks (an mmput() of the last user of an mm).  No handler
 * takes it (calls from a handler are delayed), so an attach that fails
 * may wait for its engine's handlers under it as it undoes itself.
 *
 * uprobes_lock: u->state, the list of pending delayed operations and the
 * list of processes as the mm-exit hook reads it.  Taken from handlers
 * too.
 */
static DEFINE_MUTEX(uprobes_mutex);
static DEFINE_SPINLOCK(uprobes_lock);
static LIST_HEAD(uprobe_processes);	/* both locks to change, either to read */
static LIST_HEAD(uprobes_delayed);

static void uprobes_reap(struct work_struct *work);
static DECLARE_WORK(uprobes_reap_work, uprobes_reap);

/* Changes u->state from @old to @new; false if it was not @old. */
static bool uprobe_set_state(struct process_uprobe *u, int old, int new)
{
	bool ok;

	spin_lock(&uprobes_lock);
	ok = u->state == old;
	if (ok)
		WRITE_ONCE(u->state, new);
	spin_unlock(&uprobes_lock);
	return ok;
}

/**
 * uprobe_point_hit - run the handlers of a probepoint
 * @pp: the point the probed thread has reached
 * @regs: its user registers, ip at the probed instruction
 *
 * Called by the engine binding in the probed thread, under its sleepable
 * RCU read side; handlers may sleep and change @regs.  They run in
 * registration order, and no lock is taken.
 *
 * Handlers run in task context: the inode engine's on the way back to
 * user space, the memory engine's in the int3 exception of a task that
 * was in user mode, with interrupts on, as in a system call.  So kprobes
 * may probe this file freely: nothing here runs from a kernel-mode trap.
 */
void uprobe_point_hit(struct uprobe_point *pp, struct pt_regs *regs)
{
	struct process_uprobe *u;

	/*
	 * The engines run handlers under a sleepable RCU flavour (tasks
	 * trace, or the memory engine's SRCU); the probe list is read in it
	 * and unregistration waits for both (uprobe_site_sync()).  That read
	 * side is the engine's to assert, hence "true".
	 */
	list_for_each_entry_rcu(u, &pp->probes, list, true)
		if (READ_ONCE(u->state) == UPROBE_ACTIVE)
			u->handler(u, regs);
}

/**
 * uprobe_unregister_pending - is a delayed unregistration of @u queued?
 * @u: a probe
 *
 * For unregister_uretprobe() from a handler: when nothing was queued (the
 * probe was not registered), no callback will come.
 *
 * Return: true while @u is being unregistered.
 */
bool uprobe_unregister_pending(struct process_uprobe *u)
{
	return READ_ONCE(u->state) == UPROBE_UNREGISTERING;
}

static struct uprobe_process *find_process(struct mm_struct *mm)
{
	struct uprobe_process *proc;

	list_for_each_entry(proc, &uprobe_processes, node)
		if (proc->mm == mm && !proc->dead)
			return proc;
	return NULL;
}

static struct uprobe_point *find_point(struct uprobe_process *proc,
				       unsigned long vaddr)
{
	struct uprobe_point *pp;

	list_for_each_entry(pp, &proc->points, node)
		if (pp->vaddr == vaddr)
			return pp;
	return NULL;
}

/* The target's mm, with mm_users held; -errno if it has none. */
static struct mm_struct *target_mm(pid_t pid, pid_t *tgid)
{
	struct task_struct *task;
	struct mm_struct *mm;

	if (pid <= 0)
		return ERR_PTR(-EINVAL);
	task = find_get_task_by_vpid(pid);
	if (!task)
		return ERR_PTR(-ESRCH);
	if (task->flags & PF_KTHREAD) {
		put_task_struct(task);
		return ERR_PTR(-EINVAL);	/* no user address space */
	}
	mm = get_task_mm(task);		/* NULL once it has exited */
	*tgid = task_tgid_vnr(task);
	put_task_struct(task);
	return mm ?: ERR_PTR(-ESRCH);
}

/* Unlinks an empty process; the caller frees it after a sync. */
static void unlink_process(struct uprobe_process *proc)
{
	spin_lock(&uprobes_lock);
	list_del(&proc->node);
	spin_unlock(&uprobes_lock);
}

static void free_process(struct uprobe_process *proc)
{
	mmdrop(proc->mm);
	kfree(proc);
}

/*
 * Points and processes unlinked under the mutex, freed after a sync.
 * free_unlinked() waits for the handlers that may still walk them
 * (uprobe_site_sync(): both engines' grace periods) outside
 * uprobes_mutex, since a handler may sleep for long and every other
 * registration would wait with it.
 */
struct uprobe_unlinked {
	struct list_head points;
	struct list_head procs;
	bool sync;	/* a handler may be running on what was unlinked */
};

static void unlinked_init(struct uprobe_unlinked *g)
{
	INIT_LIST_HEAD(&g->points);
	INIT_LIST_HEAD(&g->procs);
	g->sync = false;
}

static void free_unlinked(struct uprobe_unlinked *g)
{
	struct uprobe_process *proc, *ptmp;
	struct uprobe_point *pp, *tmp;

	lockdep_assert_not_held(&uprobes_mutex);
	if (g->sync)
		uprobe_site_sync();
	list_for_each_entry_safe(pp, tmp, &g->points, node) {
		uprobe_site_release(pp);
		kfree(pp);
	}
	list_for_each_entry_safe(proc, ptmp, &g->procs, node)
		free_process(proc);
}

/* Takes @u off its point; an emptied point and process go to @g. */
static void remove_probe(struct process_uprobe *u, struct uprobe_unlinked *g)
{
	struct uprobe_point *pp = u->point;
	struct uprobe_process *proc = pp->proc;

	lockdep_assert_held(&uprobes_mutex);
	list_del_rcu(&u->list);
	u->point = NULL;
	g->sync = true;
	if (!list_empty(&pp->probes))
		return;
	uprobe_site_detach(pp);
	list_move(&pp->node, &g->points);
	if (list_empty(&proc->points)) {
		unlink_process(proc);
		list_add(&proc->node, &g->procs);
	}
}

/*
 * Registers @u, whose state is REGISTERING; ACTIVE or FREE after.
 *
 * A struct process_uprobe names a process and an address in it.  Probes
 * at the same (process, address) share one probepoint (struct
 * uprobe_point); the points of one address space hang off one struct
 * uprobe_process, keyed by its mm.  A new point is made a breakpoint by
 * uprobe_site_attach(), through one of the engines, which then calls
 * uprobe_point_hit() on a hit.
 */
static int do_register(struct process_uprobe *u, struct uprobe_unlinked *g)
{
	struct uprobe_process *proc;
	struct uprobe_point *pp;
	struct mm_struct *mm;
	pid_t tgid = 0;
	int ret;

	lockdep_assert_held(&uprobes_mutex);
	mm = target_mm(u->pid, &tgid);
	if (IS_ERR(mm)) {
		ret = PTR_ERR(mm);
		goto out;
	}

	proc = find_process(mm);
	if (!proc) {
		proc = kzalloc(sizeof(*proc), GFP_KERNEL);
		ret = -ENOMEM;
		if (!proc)
			goto out_mmput;
		mmgrab(mm);
		proc->mm = mm;
		proc->tgid = tgid;
		INIT_LIST_HEAD(&proc->points);
		spin_lock(&uprobes_lock);
		list_add_tail(&proc->node, &uprobe_processes);
		spin_unlock(&uprobes_lock);
	}

	pp = find_point(proc, u->vaddr);
	if (!pp) {
		pp = kzalloc(sizeof(*pp), GFP_KERNEL);
		ret = -ENOMEM;
		if (pp) {
			pp->proc = proc;
			pp->vaddr = u->vaddr;
			INIT_LIST_HEAD(&pp->probes);
			ret = uprobe_site_attach(pp, mm);
			if (ret)
				kfree(pp);
			else
				list_add_tail(&pp->node, &proc->points);
		}
		if (ret) {
			if (list_empty(&proc->points)) {
				unlink_process(proc);
				list_add(&proc->node, &g->procs);
			}
			goto out_mmput;
		}
	}

	u->point = pp;
	list_add_tail_rcu(&u->list, &pp->probes);
	ret = 0;
out_mmput:
	/*
	 * The last mm_users reference of an exiting target may go here;
	 * uprobe_process_mm_exit() then only queues the reaper.
	 */
	mmput(mm);
out:
	uprobe_set_state(u, UPROBE_REGISTERING, ret ? UPROBE_FREE : UPROBE_ACTIVE);
	return ret;
}

/* Unregisters @u if it is on a point; a no-op otherwise. */
static void do_unregister(struct process_uprobe *u, struct uprobe_unlinked *g)
{
	lockdep_assert_held(&uprobes_mutex);
	if (u->point)
		remove_probe(u, g);
	spin_lock(&uprobes_lock);
	WRITE_ONCE(u->state, UPROBE_FREE);
	spin_unlock(&uprobes_lock);
}

static void delayed_run(struct uprobe_delayed_op *op)
{
	struct uprobe_unlinked g;
	struct process_uprobe *u;
	int ret = 0;

	unlinked_init(&g);
	mutex_lock(&uprobes_mutex);
	spin_lock(&uprobes_lock);
	u = op->u;
	list_del(&op->node);
	spin_unlock(&uprobes_lock);
	if (u) {
		if (op->reg)
			ret = do_register(u, &g);
		else
			do_unregister(u, &g);
	}
	mutex_unlock(&uprobes_mutex);
	free_unlinked(&g);

	if (u && u->registration_callback)
		u->registration_callback(u, op->reg, ret);
	kfree(op);
}

static void delayed_twork(struct callback_head *head)
{
	delayed_run(container_of(head, struct uprobe_delayed_op, twork));
}

static void delayed_work(struct work_struct *work)
{
	delayed_run(container_of(work, struct uprobe_delayed_op, work));
}

/*
 * From a handler: moves @u from @old to @new and queues the operation
 * to run when the thread leaves the trap.
 *
 * A handler runs with the engine's locks and RCU read side held (tasks
 * trace, or the memory engine's SRCU); registering or unregistering from
 * there would wait on them.  So:
 *
 *  1. register_uprobe() and unregister_uprobe() called from a handler
 *     check what they can at once (-EINVAL; -EBUSY here, on the state).
 *     The new state takes effect at once: a probe being unregistered
 *     stops running its handler (uprobe_point_hit() runs ACTIVE ones).
 *  2. The rest is queued as task work of the probed thread, and the
 *     caller returns -EINPROGRESS (or nothing).  If the thread is
 *     exiting, the work goes to a workqueue instead.
 *  3. The task work runs when the thread leaves the trap, after every
 *     handler of the point has run: delayed_run() performs the operation
 *     and then calls registration_callback exactly once (not at all if
 *     unregister_uprobe() cancelled it meanwhile).
 */
static int defer_from_handler(struct process_uprobe *u, bool reg, int old, int new)
{
	struct uprobe_delayed_op *op;

	op = kzalloc(sizeof(*op), GFP_KERNEL);
	if (!op)
		return -ENOMEM;
	op->u = u;
	op->reg = reg;

	spin_lock(&uprobes_lock);
	if (u->state != old) {
		spin_unlock(&uprobes_lock);
		kfree(op);
		return -EBUSY;
	}
	WRITE_ONCE(u->state, new);
	list_add_tail(&op->node, &uprobes_delayed);
	spin_unlock(&uprobes_lock);

	init_task_work(&op->twork, delayed_twork);
	if (task_work_add(current, &op->twork, TWA_RESUME)) {
		INIT_WORK(&op->work, delayed_work);
		schedule_work(&op->work);
	}
	return 0;
}

/* Cancels the delayed operations of @u; called under the mutex. */
static void cancel_delayed(struct process_uprobe *u)
{
	struct uprobe_delayed_op *op;

	spin_lock(&uprobes_lock);
	list_for_each_entry(op, &uprobes_delayed, node)
		if (op->u == u)
			op->u = NULL;
	spin_unlock(&uprobes_lock);
}

/**
 * register_uprobe - probe an instruction of a process
 * @u: the probe; @u->pid, @u->vaddr and @u->handler set, the rest zeroed
 *
 * Writes a breakpoint at @u->vaddr in process @u->pid, if no probe of
 * this layer is there yet, and adds @u to the handlers run there, after
 * those registered before it.  Returns once the breakpoint is in memory.
 * No thread is stopped for that (utrace-based uprobes quiesced the
 * process): the engine writes the breakpoint with the mm's mmap_lock
 * held for writing, as ptrace does, so no system call ends early with
 * EINTR.  Called from a uprobe handler, the registration is delayed
 * until every handler of that probepoint has run (see defer_from_handler()), and
 * @u->registration_callback reports its result.
 *
 * Context: process context, may sleep.
 *
 * Return: 0 on success, -EINPROGRESS if delayed, or:
 * -EINVAL for a NULL @u or handler, a pid <= 0 or a kernel thread,
 * or an address that is not executable;
 * -ESRCH if there is no such process or it has exited;
 * -EFAULT if nothing is mapped at @u->vaddr;
 * -EOPNOTSUPP for shared or hugetlb executable memory, anonymous or
 * writable memory where no memory engine exists (all but x86-64), or an
 * instruction neither engine can run out of line;
 * -EBUSY if @u is already registered, or a breakpoint that Uprobes did not
 * place is already at @u->vaddr;
 * -EAGAIN if the program changed the instruction while the breakpoint was
 * being placed (anonymous or writable memory);
 * -ENOMEM.
 * On any error nothing changed.
 */
int register_uprobe(struct process_uprobe *u)
{
	struct uprobe_unlinked g;
	int ret;

	if (!u || !u->handler)
		return -EINVAL;
	might_sleep();
	unlinked_init(&g);

	if (uprobe_site_in_handler()) {
		ret = defer_from_handler(u, true, UPROBE_FREE, UPROBE_REGISTERING);
		return ret ?: -EINPROGRESS;
	}

	if (!uprobe_set_state(u, UPROBE_FREE, UPROBE_REGISTERING))
		return -EBUSY;
	mutex_lock(&uprobes_mutex);
	ret = do_register(u, &g);
	mutex_unlock(&uprobes_mutex);
	free_unlinked(&g);
	return ret;
}
EXPORT_SYMBOL_GPL(register_uprobe);

/**
 * unregister_uprobe - remove a probe
 * @u: a probe given to register_uprobe()
 *
 * When this returns, @u's handler is not running and will not run again,
 * and if @u was the last probe at its probepoint the original instruction
 * is back in memory.  Unregistering a probe that is not registered (never
 * was, or its process has exited or exec'd) does nothing.  Called from a
 * uprobe handler, @u stops running its handler at once, the rest is
 * delayed until every handler of that probepoint has run, and
 * @u->registration_callback is called with reg 0 and result 0.  A delayed
 * operation still pending on @u is cancelled (its callback not called).
 *
 * Context: process context, may sleep.
 */
void unregister_uprobe(struct process_uprobe *u)
{
	struct uprobe_unlinked g;

	if (!u)
		return;
	might_sleep();
	unlinked_init(&g);

	if (uprobe_site_in_handler()) {
		defer_from_handler(u, false, UPROBE_ACTIVE, UPROBE_UNREGISTERING);
		return;
	}

	mutex_lock(&uprobes_mutex);
	cancel_delayed(u);
	do_unregister(u, &g);
	mutex_unlock(&uprobes_mutex);
	free_unlinked(&g);
}
EXPORT_SYMBOL_GPL(unregister_uprobe);

/**
 * uprobe_process_mm_exit - an address space is being torn down
 * @mm: the mm, its last user gone (exit, or the old mm of an exec)
 *
 * Called by the engine's uprobe_clear_state().  The API unregisters a
 * process's probes when it exits or execs; this marks the process dead
 * and lets a worker do it, since this runs from mmput(), which the engine
 * itself calls with its locks held.  Takes only a spinlock.
 *
 * This hook stands in for utrace's per-thread clone/exec/exit reports:
 * threads share the mm and so its breakpoints (later threads too), and
 * exec and exit both drop the mm.  A fork child never reaches a handler:
 * it is stripped of the inode engine's breakpoints on its first hit
 * (site_handler() in uprobes_file.c), of the memory engine's before it
 * first returns to user space (uprobe_mem_fork()).
 */
void uprobe_process_mm_exit(struct mm_struct *mm)
{
	struct uprobe_process *proc;
	bool found = false;

	if (list_empty_careful(&uprobe_processes))
		return;
	spin_lock(&uprobes_lock);
	list_for_each_entry(proc, &uprobe_processes, node) {
		if (proc->mm == mm && !proc->dead) {
			proc->dead = true;
			found = true;
		}
	}
	spin_unlock(&uprobes_lock);
	if (found)
		schedule_work(&uprobes_reap_work);
}

/*
 * Unregisters every probe of the dead processes.  Their owners'
 * unregister_uprobe() calls become no-ops; until this has run such a call
 * unregisters as usual, so no probe is left for the reaper once its
 * owner has called it.
 */
static void uprobes_reap(struct work_struct *work)
{
	struct uprobe_unlinked g;
	struct uprobe_process *proc, *ptmp;
	struct uprobe_point *pp, *tmp;
	struct process_uprobe *u, *utmp;

	unlinked_init(&g);
	mutex_lock(&uprobes_mutex);
	list_for_each_entry_safe(proc, ptmp, &uprobe_processes, node) {
		if (!READ_ONCE(proc->dead))
			continue;
		list_for_each_entry_safe(pp, tmp, &proc->points, node) {
			list_for_each_entry_safe(u, utmp, &pp->probes, list)
				do_unregister(u, &g);
		}
	}
	mutex_unlock(&uprobes_mutex);
	free_unlinked(&g);
}

#ifdef CONFIG_DEBUG_FS
/*
 * /sys/kernel/debug/uprobes/list: one line per registered probe, in
 * registration order within a point:
 *   "PID  VADDR  FILE+0xOFFSET  [STATE]  HANDLER"
 * with [EXITED] for a process whose probes are about to be reaped.
 * Opening it first lets a queued reaping finish, so an exited process's
 * probes are seen gone.
 */
static int uprobes_list_show(struct seq_file *m, void *v)
{
	struct uprobe_process *proc;
	struct uprobe_point *pp;
	struct process_uprobe *u;

	mutex_lock(&uprobes_mutex);
	list_for_each_entry(proc, &uprobe_processes, node) {
		list_for_each_entry(pp, &proc->points, node) {
			list_for_each_entry(u, &pp->probes, list) {
				int st = READ_ONCE(u->state);

				void *ret = uprobe_ret_handler(u);

				seq_printf(m, "%d  0x%lx  ", proc->tgid, pp->vaddr);
				uprobe_site_show(m, pp);
				seq_printf(m, "  [%s]%s  %s%ps\n",
					   st < ARRAY_SIZE(uprobe_state_name) ?
					   uprobe_state_name[st] : "?",
					   READ_ONCE(proc->dead) ? "[EXITED]" : "",
					   ret ? "return " : "",
					   ret ?: (void *)u->handler);
			}
		}
	}
	mutex_unlock(&uprobes_mutex);
	return 0;
}

static int uprobes_list_open(struct inode *inode, struct file *file)
{
	flush_work(&uprobes_reap_work);
	return single_open(file, uprobes_list_show, NULL);
}

static const struct file_operations uprobes_list_fops = {
	.owner		= THIS_MODULE,
	.open		= uprobes_list_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= single_release,
};

static int __init uprobes_process_debugfs_init(void)
{
	struct dentry *dir = debugfs_create_dir("uprobes", NULL);

	debugfs_create_file("list", 0400, dir, NULL, &uprobes_list_fops);
	return 0;
}
late_initcall(uprobes_process_debugfs_init);
#endif /* CONFIG_DEBUG_FS */
