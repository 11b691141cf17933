// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Per-process uprobes: return probes, register_uretprobe() (the seed's
 * TODO "b. Support return probes").  A uretprobe is a per-process probe
 * on the function's first instruction whose handler (uret_entry()) takes
 * an instance from the probe's pool and puts the address of a trampoline
 * in place of the return address on the user stack.  The trampoline is a
 * page of breakpoints the memory engine maps into the process
 * (uprobe_mem_ret_tramp()); the return traps there, and the breakpoint
 * exception, in one pass (uprobe_ret_trap()), runs the handler and sends
 * the thread on to the real return address.  Both engines' entry hits
 * work the same way: the entry is an ordinary process_uprobe.
 *
 * Each thread keeps its instances in flight as a stack (struct
 * uret_thread), innermost first, found by task in a hash table; only the
 * thread itself pushes or pops it.  An instance records where the return
 * address was (the stack word), which is how frames a longjmp() skipped
 * are told apart from the one returning: every instance below the stack
 * pointer at the trampoline has been returned from or abandoned, the
 * highest of them is the one returning now (a "ret $n" pops more, and is
 * still found), the ones below it are reclaimed without their handler.
 * A call that enters the probed function again at the same stack word (a
 * tail call from a probed function) finds the trampoline there already:
 * its instance takes the real return address of the one it shares the
 * word with, and both handlers run, innermost first.
 *
 * Pools outlive their probe: a thread may be deep in a probed call when
 * the probe goes, and its return must still reach the real address.  An
 * instance holds a reference on its pool; unregister_uretprobe() clears
 * pool->rp, after which no handler runs and no instance is taken, and
 * drops the registration's reference.
 *
 * Locks: uret_lock (a spinlock) guards the hash table's writers; the hit
 * paths find their thread under RCU.  A pool's free list and its probe's
 * nmissed are under pool->lock.  Return handlers run under the memory
 * engine's SRCU (uprobe_mem_int3()), which uprobe_site_sync() waits for.
 */
#include <linux/hashtable.h>
#include <linux/ptrace.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/sched/task_stack.h>
#include <linux/slab.h>
#include <linux/task_work.h>
#include <linux/uprobes_mem.h>
#include <linux/workqueue.h>

#include "uprobes_process.h"
#include "uprobes_mem.h"

#define URET_DEFAULT_ACTIVE	64
#define URET_MAX_ACTIVE		4096

/* A uretprobe's instances, and what outlives the probe of them. */
struct uretprobe_pool {
	spinlock_t lock;			/* @free, and rp->nmissed */
	struct uretprobe_instance *free;	/* under @lock */
	struct uretprobe *rp;		/* NULL once unregistration began */
	refcount_t ref;			/* registration + instances out */
	unsigned long tramp;		/* the process's trampoline, or 0 */
	unsigned int tramp_gen;		/* uprobe_mem_tramp_gen it was seen at */
	bool unreg_delayed;		/* put by the callback, not the caller */
	struct work_struct put_work;	/* a put that must wait for handlers */
	struct uretprobe_instance ri[];
};

/* One thread's instances in flight, innermost first. */
struct uret_thread {
	struct hlist_node hnode;	/* in uret_threads, RCU */
	struct task_struct *task;
	struct uretprobe_instance *top;	/* only the thread changes it */
	unsigned long tramp;		/* its process's trampoline */
	struct rcu_head rcu;
};

/*
 * utask->auprobe while a return handler runs: uprobe_site_in_handler()
 * then delays what the handler asks of the layer, as in an entry
 * handler.  Zeroed: perf's is_uprobe_at_func_entry() reads its insn and
 * finds the thread not at a function's entry, which it is not.
 */
static struct arch_uprobe uret_auprobe;

static DEFINE_SPINLOCK(uret_lock);
static DEFINE_HASHTABLE(uret_threads, 7);
atomic_t uprobe_ret_threads;		/* records: the trap's quick way out */

static struct uret_thread *uret_thread_find(struct task_struct *t)
{
	struct uret_thread *th;

	hash_for_each_possible_rcu(uret_threads, th, hnode, (unsigned long)t)
		if (th->task == t)
			return th;
	return NULL;
}

static void pool_put(struct uretprobe_pool *pool)
{
	if (refcount_dec_and_test(&pool->ref))
		kvfree(pool);
}

/* the registration's reference, once no handler can be using the pool */
static void pool_put_work(struct work_struct *work)
{
	uprobe_site_sync();
	pool_put(container_of(work, struct uretprobe_pool, put_work));
}

/* An instance back to its pool: a thread's that returned or went away. */
static void ri_recycle(struct uretprobe_instance *ri)
{
	struct uretprobe_pool *pool = ri->pool;

	if (!pool) {		/* a copy for a vfork child: its own */
		kfree(ri);
		return;
	}
	spin_lock(&pool->lock);
	ri->next = pool->free;
	pool->free = ri;
	spin_unlock(&pool->lock);
	pool_put(pool);
}

static struct uretprobe_instance *ri_get(struct uretprobe_pool *pool,
					 struct uretprobe *rp)
{
	struct uretprobe_instance *ri;

	spin_lock(&pool->lock);
	ri = pool->free;
	if (ri) {
		pool->free = ri->next;
		refcount_inc(&pool->ref);
	} else {
		rp->nmissed++;
	}
	spin_unlock(&pool->lock);
	return ri;
}

static void uret_missed(struct uretprobe_pool *pool, struct uretprobe *rp)
{
	spin_lock(&pool->lock);
	rp->nmissed++;
	spin_unlock(&pool->lock);
}

/* current's thread record, made on its first probed call */
static struct uret_thread *uret_thread_get(unsigned long tramp)
{
	struct uret_thread *th;

	rcu_read_lock();
	th = uret_thread_find(current);
	rcu_read_unlock();
	if (th)
		return th;
	/* a return handler marks utask->auprobe: have one */
	if (!uprobe_get_utask())
		return NULL;
	th = kzalloc(sizeof(*th), GFP_KERNEL);
	if (!th)
		return NULL;
	th->task = current;
	th->tramp = tramp;
	spin_lock(&uret_lock);
	hash_add_rcu(uret_threads, &th->hnode, (unsigned long)current);
	spin_unlock(&uret_lock);
	atomic_inc(&uprobe_ret_threads);
	return th;
}

/* Instances below @stack were abandoned (longjmp()): back to the pools. */
static void uret_reclaim_below(struct uret_thread *th, unsigned long stack)
{
	struct uretprobe_instance *ri;

	while ((ri = th->top) && ri->stack < stack) {
		th->top = ri->next;
		ri_recycle(ri);
	}
}

/*
 * The process's trampoline for @pool: the cached one while no trampoline
 * page went away since (uprobe_mem_tramp_gen), else looked up again or
 * mapped anew.  0 if there is none to be had.
 */
static unsigned long uret_tramp(struct uretprobe_pool *pool)
{
	unsigned int gen = uprobe_mem_tramp_gen_read();
	unsigned long tramp = READ_ONCE(pool->tramp);

	if (tramp && READ_ONCE(pool->tramp_gen) == gen)
		return tramp;
	tramp = uprobe_mem_ret_tramp(current->mm);
	WRITE_ONCE(pool->tramp_gen, gen);
	WRITE_ONCE(pool->tramp, tramp);
	return tramp;
}

/*
 * The entry's handler, in the probed thread at the function's first
 * instruction (either engine's hit, task context):
 *
 * 1. Only at the first instruction: a handler before this one that moved
 *    ip (an emulated return, say) left no return address at sp.
 * 2. The process's trampoline (uret_tramp(); mapped on the first call,
 *    which may sleep).  A thread whose instances point at a trampoline
 *    page that went away takes no new ones.
 * 3. Instances of frames below this one were abandoned: reclaimed.
 * 4. An instance from the pool, or the call counts in nmissed.
 * 5. The arch swaps the return address for the trampoline's
 *    (arch_uprobe_ret_hijack()).  Our trampoline there already (a tail
 *    call at the same stack word): the real address is the instance's
 *    beneath, and this one is chained to it.  A real return address
 *    there: instances left at this word were abandoned, and go.  6.12's
 *    own uretprobe trampoline there: another tracer's hijack, whose
 *    return comes back through ours; nothing is reclaimed.
 * 6. Pushed on the thread's stack of instances.
 */
static void uret_entry(struct process_uprobe *u, struct pt_regs *regs)
{
	struct uretprobe *rp = container_of(u, struct uretprobe, up);
	struct uretprobe_pool *pool = READ_ONCE(rp->pool);
	unsigned long tramp, ret, stack = user_stack_pointer(regs);
	struct uretprobe_instance *ri;
	struct uret_thread *th;

	if (!pool || !READ_ONCE(pool->rp) ||
	    instruction_pointer(regs) != u->vaddr)
		return;
	tramp = uret_tramp(pool);
	th = tramp ? uret_thread_get(tramp) : NULL;
	if (th && th->tramp != tramp && !th->top)
		th->tramp = tramp;	/* nothing of the old page in flight */
	if (!th || th->tramp != tramp) {
		uret_missed(pool, rp);
		return;
	}
	uret_reclaim_below(th, stack);
	ri = ri_get(pool, rp);
	if (!ri)
		return;
	if (arch_uprobe_ret_hijack(regs, tramp, &ret)) {
		ri_recycle(ri);
		uret_missed(pool, rp);
		return;
	}
	ri->chained = ret == tramp;
	if (ri->chained) {
		if (!th->top || th->top->stack != stack) {
			/* the trampoline, but no instance of ours there */
			ri_recycle(ri);
			uret_missed(pool, rp);
			return;
		}
		ret = th->top->ret_addr;
	} else if (ret != uprobe_get_trampoline_vaddr()) {
		/* a new call wrote this word: instances at it were abandoned */
		uret_reclaim_below(th, stack + 1);
	}
	ri->rp = rp;
	ri->ret_addr = ret;
	ri->stack = stack;
	ri->next = th->top;
	th->top = ri;
}

/*
 * Not one of current's instances: the trampoline with nothing to return
 * to (a thread that was not probed jumped there).  What the CPU would do
 * with no code there, since there is none: SIGILL, as 6.12's uretprobes
 * send.
 */
static bool uret_stray(struct pt_regs *regs, unsigned long bp)
{
	if (!uprobe_mem_is_ret_tramp(current->mm, bp))
		return false;
	force_sig(SIGILL);
	return true;
}

/**
 * uprobe_ret_trap - a user breakpoint: the return trampoline?
 * @regs: the trap's registers
 * @bp: the breakpoint's address
 *
 * Called by uprobe_mem_int3() with interrupts on, under the memory
 * engine's SRCU.  The steps:
 *
 * 1. current's instances: none, or another address, and the breakpoint is
 *    not ours unless it is in a trampoline page (uret_stray()).
 * 2. The one returning is the highest below the stack pointer; those
 *    below it were abandoned and are reclaimed.
 * 3. ip goes to its real return address; its handler runs while its
 *    probe is registered, then those of the instances it was chained to
 *    (tail calls at the same word), innermost first; the instances go
 *    back to their pools.  An instance that found another tracer's
 *    trampoline in its word is not chained: that tracer's return comes
 *    back here for the instance beneath.
 *
 * Context: the breakpoint exception from user mode, interrupts on; may
 * sleep (in the handlers).
 * Return: true if the breakpoint was a trampoline's.
 */
bool uprobe_ret_trap(struct pt_regs *regs, unsigned long bp)
{
	unsigned long sp = user_stack_pointer(regs), at = 0;
	struct uprobe_task *utask = current->utask;
	struct uretprobe_instance *ri;
	struct uret_thread *th;
	struct uretprobe *rp;
	bool chained;

	rcu_read_lock();
	th = uret_thread_find(current);
	rcu_read_unlock();
	/* the thread's own record: it alone frees it (uprobe_ret_task_exit()) */
	if (!th || bp != th->tramp)
		return uret_stray(regs, bp);
	for (ri = th->top; ri && ri->stack < sp; ri = ri->next)
		at = ri->stack;
	if (!at) {
		force_sig(SIGILL);
		return true;
	}
	uret_reclaim_below(th, at);
	instruction_pointer_set(regs, th->top->ret_addr);
	do {
		ri = th->top;
		th->top = ri->next;
		rp = ri->pool ? READ_ONCE(ri->pool->rp) : NULL;
		if (rp && utask) {
			ri->rp = rp;
			utask->auprobe = &uret_auprobe;
			rp->handler(ri, regs);
			utask->auprobe = NULL;
		}
		chained = ri->chained;
		ri_recycle(ri);
	} while (chained && th->top && th->top->stack == at);
	return true;
}

/**
 * uprobe_ret_handler - the return handler of a uretprobe's entry probe
 * @u: a per-process probe
 *
 * For uprobes/list, which names a uretprobe's handler, not its entry's.
 *
 * Return: @u's uretprobe's handler, or NULL if @u is not a uretprobe's.
 */
void *uprobe_ret_handler(struct process_uprobe *u)
{
	if (u->handler != uret_entry)
		return NULL;
	return container_of(u, struct uretprobe, up)->handler;
}

/**
 * uprobe_ret_task_exit - a thread exits or execs: its instances go
 * @t: the thread (current)
 *
 * Called from uprobe_free_utask().  Its stack and its return addresses go
 * with it (exit), or with the old image (exec).
 *
 * Context: process context, no locks held.
 */
void uprobe_ret_task_exit(struct task_struct *t)
{
	struct uret_thread *th;

	if (!atomic_read(&uprobe_ret_threads))
		return;
	rcu_read_lock();
	th = uret_thread_find(t);
	rcu_read_unlock();
	if (!th)
		return;
	spin_lock(&uret_lock);
	hash_del_rcu(&th->hnode);
	spin_unlock(&uret_lock);
	atomic_dec(&uprobe_ret_threads);
	uret_reclaim_below(th, ULONG_MAX);
	kfree_rcu(th, rcu);
}

/* A fork child's return addresses to put back: (stack word, address). */
struct uret_fixup {
	struct callback_head twork;
	unsigned long tramp;
	unsigned int nr;
	struct {
		unsigned long stack, ret_addr;
	} e[];
};

/*
 * In the child, before it first returns to user space: a word that
 * still holds the trampoline's address gets the real one back.
 */
static void uret_fixup_work(struct callback_head *head)
{
	struct uret_fixup *f = container_of(head, struct uret_fixup, twork);
	unsigned int i;

	for (i = 0; i < f->nr; i++)
		arch_uprobe_ret_restore(f->e[i].stack, f->tramp,
					f->e[i].ret_addr);
	kfree(f);
}

/*
 * A vfork child runs on its parent's stack, in the same mm, so it may
 * return through the parent's probed frames: it gets copies of the
 * instances, which send it to the real addresses and run no handler (the
 * parent's calls return in the parent).
 */
static void uret_fork_vfork(struct task_struct *t, struct uret_thread *pth)
{
	struct uretprobe_instance *ri, *c, **tail;
	struct uret_thread *th;

	th = kzalloc(sizeof(*th), GFP_KERNEL);
	if (!th)
		return;
	th->task = t;
	th->tramp = pth->tramp;
	tail = &th->top;
	for (ri = pth->top; ri; ri = ri->next) {
		c = kmemdup(ri, sizeof(*ri), GFP_KERNEL);
		if (!c)
			break;
		c->pool = NULL;
		c->next = NULL;
		*tail = c;
		tail = &c->next;
	}
	spin_lock(&uret_lock);
	hash_add_rcu(uret_threads, &th->hnode, (unsigned long)t);
	spin_unlock(&uret_lock);
	atomic_inc(&uprobe_ret_threads);
}

/**
 * uprobe_ret_fork - a new task: what of current's probed calls it sees
 * @t: the new task
 * @flags: its clone flags
 *
 * A new thread starts on a stack of its own: nothing.  A fork child has
 * a copy of the stack with the trampoline's address in it, but not the
 * probes (they are per process) nor the trampoline (the memory engine's
 * pages are not copied): its return addresses are put back before it
 * runs (uret_fixup_work()).  A vfork child shares the stack: it gets
 * copies of the instances (uret_fork_vfork()).
 *
 * Context: copy_process(), in the parent.
 */
void uprobe_ret_fork(struct task_struct *t, unsigned long flags)
{
	struct uretprobe_instance *ri;
	struct uret_fixup *f;
	struct uret_thread *th;
	unsigned int n = 0;

	if (!atomic_read(&uprobe_ret_threads))
		return;
	rcu_read_lock();
	th = uret_thread_find(current);
	rcu_read_unlock();
	if (!th || !th->top)
		return;
	/* calls left by longjmp() since: their words hold other data now */
	uret_reclaim_below(th, user_stack_pointer(current_pt_regs()));
	if (!th->top)
		return;
	if (flags & CLONE_VM) {
		if (flags & CLONE_VFORK)
			uret_fork_vfork(t, th);
		return;
	}
	for (ri = th->top; ri; ri = ri->next)
		n++;
	f = kmalloc(struct_size(f, e, n), GFP_KERNEL);
	if (!f)
		return;
	f->nr = 0;
	f->tramp = th->tramp;
	for (ri = th->top; ri; ri = ri->next) {
		f->e[f->nr].stack = ri->stack;
		f->e[f->nr].ret_addr = ri->ret_addr;
		f->nr++;
	}
	init_task_work(&f->twork, uret_fixup_work);
	if (task_work_add(t, &f->twork, TWA_RESUME))
		kfree(f);
}

/* @rp's fields back as the caller handed it in; its pool is off it */
static void uret_restore(struct uretprobe *rp)
{
	rp->up.handler = NULL;
	rp->up.registration_callback = rp->user_callback;
	rp->user_callback = NULL;
}

/*
 * Takes @rp's pool off it, and hands @rp back (uret_restore()): the pool,
 * or NULL if another path took it first (xchg: one of them puts it).
 */
static struct uretprobe_pool *uret_take(struct uretprobe *rp)
{
	struct uretprobe_pool *pool = xchg(&rp->pool, NULL);

	if (pool)
		uret_restore(rp);
	return pool;
}

/*
 * Our registration callback, for operations delayed from a handler: a
 * registration that failed, or an unregistration done, lets the pool go
 * (the layer synced its handlers first) and hands @rp back before the
 * caller's own callback runs.
 */
static void uret_callback(struct process_uprobe *u, int reg, int result)
{
	struct uretprobe *rp = container_of(u, struct uretprobe, up);
	void (*cb)(struct process_uprobe *u, int reg, int result);
	struct uretprobe_pool *pool;

	cb = rp->user_callback;
	if (reg ? result : READ_ONCE(rp->pool) && rp->pool->unreg_delayed) {
		pool = uret_take(rp);
		/* its handlers may still run on other threads */
		if (pool)
			queue_work(system_unbound_wq, &pool->put_work);
	}
	if (cb)
		cb(u, reg, result);
}

/* -EOPNOTSUPP for a process the return probes do not serve (compat) */
static int uret_process_ok(pid_t pid)
{
	struct task_struct *t = pid > 0 ? find_get_task_by_vpid(pid) : NULL;
	struct mm_struct *mm;
	int ret = 0;

	if (!t)
		return 0;	/* register_uprobe() says what is wrong */
	mm = get_task_mm(t);
	put_task_struct(t);
	if (mm) {
		if (!arch_uprobe_mem_mm_ok(mm))
			ret = -EOPNOTSUPP;
		mmput(mm);
	}
	return ret;
}

/**
 * register_uretprobe - probe the returns of a function of one process
 * @rp: the probe: @rp->up.pid and @rp->up.vaddr (the function's first
 *	instruction), @rp->handler, and optionally @rp->maxactive and
 *	@rp->up.registration_callback; the rest zeroed
 *
 * From a uprobe handler the registration is delayed, as for
 * register_uprobe(): -EINPROGRESS, then the callback with the result.
 *
 * Context: process context, may sleep.
 * Return: 0 on success, -EINPROGRESS if delayed, or as register_uprobe(),
 * and: -EINVAL for a NULL @rp or handler, @rp->up.handler set, or
 * @rp->maxactive < 0 or > 4096; -EBUSY if @rp is registered;
 * -EOPNOTSUPP for a process whose code the memory engine does not run
 * (a 32-bit one); -ENOMEM.  On an error @rp is as it was.
 */
int register_uretprobe(struct uretprobe *rp)
{
	struct uretprobe_pool *pool;
	int n, i, ret;

	if (rp && READ_ONCE(rp->pool))
		return -EBUSY;
	if (!rp || !rp->handler || rp->up.handler || rp->maxactive < 0 ||
	    rp->maxactive > URET_MAX_ACTIVE)
		return -EINVAL;
	ret = uret_process_ok(rp->up.pid);
	if (ret)
		return ret;
	n = rp->maxactive ?: URET_DEFAULT_ACTIVE;
	pool = kvzalloc(struct_size(pool, ri, n), GFP_KERNEL);
	if (!pool)
		return -ENOMEM;
	spin_lock_init(&pool->lock);
	refcount_set(&pool->ref, 1);
	INIT_WORK(&pool->put_work, pool_put_work);
	for (i = 0; i < n; i++) {
		pool->ri[i].pool = pool;
		pool->ri[i].next = pool->free;
		pool->free = &pool->ri[i];
	}
	pool->rp = rp;
	/* nothing of @rp is written before it is ours */
	if (cmpxchg(&rp->pool, NULL, pool)) {
		kvfree(pool);
		return -EBUSY;
	}
	rp->user_callback = rp->up.registration_callback;
	rp->up.registration_callback = uret_callback;
	rp->up.handler = uret_entry;
	ret = register_uprobe(&rp->up);
	if (ret && ret != -EINPROGRESS) {
		uret_restore(rp);
		WRITE_ONCE(rp->pool, NULL);
		kvfree(pool);
	}
	return ret;
}
EXPORT_SYMBOL_GPL(register_uretprobe);

/**
 * unregister_uretprobe - stop probing the returns of a function
 * @rp: a probe registered by register_uretprobe(), or one that is not
 *	(a no-op)
 *
 * No handler of @rp runs once this returns, and no call takes an
 * instance; calls in flight still return to their real addresses.  From
 * a uprobe handler it is delayed, as unregister_uprobe() is: @rp may be
 * reused or freed once its registration_callback ran (at once if there
 * was nothing to unregister).
 *
 * Context: process context, may sleep.
 */
void unregister_uretprobe(struct uretprobe *rp)
{
	struct uretprobe_pool *pool;

	if (!rp || !READ_ONCE(rp->pool))
		return;
	pool = rp->pool;
	WRITE_ONCE(pool->rp, NULL);
	if (uprobe_site_in_handler()) {
		pool->unreg_delayed = true;
		unregister_uprobe(&rp->up);
		/* nothing was queued (not registered): no callback comes */
		if (!uprobe_unregister_pending(&rp->up)) {
			pool = uret_take(rp);
			if (pool)
				queue_work(system_unbound_wq, &pool->put_work);
		}
		return;
	}
	unregister_uprobe(&rp->up);
	/* return handlers that saw pool->rp before it was cleared */
	uprobe_site_sync();
	pool = uret_take(rp);
	if (pool)
		pool_put(pool);
}
EXPORT_SYMBOL_GPL(unregister_uretprobe);
