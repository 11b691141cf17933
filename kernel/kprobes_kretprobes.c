// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Kernel Probes (kprobes): kretprobes and their instance pools.
 *
 * What lives here
 * ---------------
 *  - Registration of kretprobes: a kretprobe is a kprobe on a function's
 *    entry whose pre_handler (kretprobe_entry()) takes an instance from
 *    the kretprobe's pool, saves the real return address in it and
 *    diverts the return to the arch's trampoline.  The probe itself goes
 *    through the core's registration (kernel/kprobes.c) like any other.
 *  - The instance pool: a per-kretprobe objpool of maxactive instances
 *    allocated at register time, popped and pushed lock-free (the int3
 *    path is NMI-like).  Live instances are chained on their task
 *    (kretprobe_instances), most recent first.
 *  - Spare pools: when the reserved pool is empty (deep recursion, more
 *    sleepers than maxactive) a hit takes an instance from a spare pool
 *    instead of missing.  The first spare pool is allocated with the
 *    reserved one; a hit that takes from the newest one asks for another
 *    through an irq_work, which allocates it (GFP_ATOMIC, or GFP_KERNEL
 *    from a work item if that fails) outside the hit path.  The bound:
 *    spare pools of max(maxactive, 4) instances each, at most
 *    KRETPROBE_SPARES_MAX(maxactive) instances in all, i.e. 4 x maxactive
 *    (at least 32, at most 4096).  Only a hit that finds every pool empty
 *    (a burst with interrupts off, or the bound reached) counts nmissed.
 *    An instance goes back to the pool it came from (ri->rph).
 *  - The hot instances (x86's backend): the trampoline's common return
 *    keeps the instance it recycles in a per-CPU slot of the reserved
 *    pool's (one per CPU, if the slot is empty), and an entry takes that
 *    one before asking the pool.  A call and its return on one CPU, the
 *    common case, then cost one exchange each instead of the pool's pop
 *    and push (which save and restore interrupts around theirs and look
 *    for a slot).  The slots are atomic xchg/cmpxchg, so an entry that
 *    finds the pool empty takes from another CPU's slot before the
 *    spares: every reserved instance stays within reach, and nmissed
 *    still counts only a hit that found none anywhere.
 *    kretprobe_release() puts what they hold back in the pool.
 *  - The return: kretprobe_slot_return() (x86), or the classic backends'
 *    kretprobe_trampoline_handler(), called by the arch's trampoline,
 *    runs the handlers of this frame's instances and gives them back;
 *    kretprobe_find_ret_addr() lets unwinders see through the
 *    trampoline; kprobe_flush_task() recycles a dead task's instances.
 *  - Other return hooks on the same frame (x86): rethook's and
 *    function_graph's trampolines may sit under or over ours; every
 *    handler is told the real caller (kretprobe_stacked_ret_addr(), which
 *    rethook's handler asks too), while the return goes through each.
 *  - For the classic backends (kernel/kprobes_classic.c): their
 *    entry points __kretprobe_trampoline_handler() and the frame-less
 *    walk; rethook-based ones use kprobes_classic.c's pools instead.
 *
 * Locking and context
 * -------------------
 *  Pools need no lock: objpool is lock-free.  Spare pools are only ever
 *  appended (under kretprobe_spares.lock, never taken on the hit path,
 *  which reads the chain with acquire loads) and go with the reserved
 *  one at unregister.  The trampoline runs with
 *  interrupts on, so an instance may be recycled after its kretprobe was
 *  unregistered: unregistering orphans the pool first (instances then
 *  get dropped, not pushed), waits a grace period, then drains it; the
 *  holder is freed with the last instance (see kretprobe_orphan()).
 */

#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/kprobes.h>
#include <linux/kprobes_core.h>
#include <linux/export.h>
#include <linux/kallsyms.h>
#include <linux/irq_work.h>
#include <linux/jump_label.h>
#include <linux/llist.h>
#include <linux/objpool.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

/*
 * Functions during which `current` changes: an instance pushed on one task
 * would be popped on another.
 */
static const char * const kretprobe_refused_syms[] = {
	"__switch_to",
	"__switch_to_asm",
};

#ifndef KRETPROBE_VIA_RETHOOK
static int kretprobe_pool_init(void *obj, void *context)
{
	struct kretprobe_instance *ri = obj;

	ri->rph = context;
	return 0;
}

/* the last instance came home after unregister: free the holder */
static int kretprobe_pool_release(struct objpool_head *head, void *context)
{
	kfree(context);
	return 0;
}

/* ---- spare pools ------------------------------------------------------ */

#define KRETPROBE_SPARE_POOL_MIN	4
#define KRETPROBE_SPARES_MAX(maxactive)	\
	clamp(4 * (maxactive), 32, 4096)

/* the growth state of a kretprobe's spare pools, hung off its reserved pool */
struct kretprobe_spares {
	struct kretprobe_holder *reserved;
	struct kretprobe_holder *newest;	/* the chain's last pool */
	raw_spinlock_t lock;			/* appending, orphaning */
	bool orphaned;				/* unregistered: grow no more */
	int pool_size;				/* instances per spare pool */
	int count;				/* spare instances in all */
	int limit;				/* KRETPROBE_SPARES_MAX() */
#ifdef CONFIG_IRQ_WORK
	struct irq_work grow_irq;
#endif
	struct work_struct grow_work;
};

static struct kretprobe_holder *
kretprobe_holder_alloc(int n, int obj_size, gfp_t gfp)
{
	struct kretprobe_holder *h = kzalloc(sizeof(*h), gfp);

	if (!h)
		return NULL;
	if (objpool_init(&h->pool, n, obj_size, gfp, h, kretprobe_pool_init,
			 kretprobe_pool_release)) {
		kfree(h);
		return NULL;
	}
	return h;
}

/* is there room under the bound for one more spare pool? */
static nokprobe_inline bool kretprobe_spares_room(struct kretprobe_spares *sp)
{
	return READ_ONCE(sp->count) + sp->pool_size <= sp->limit;
}

/*
 * Append one spare pool to the chain, unless the kretprobe is going or
 * the bound is reached.  Its instances are the size of the reserved
 * pool's.  Return: false if it could not be allocated.
 */
static bool kretprobe_spares_add(struct kretprobe_spares *sp, gfp_t gfp)
{
	struct kretprobe_holder *h;
	unsigned long flags;
	bool keep = false;

	if (!kretprobe_spares_room(sp))
		return true;
	h = kretprobe_holder_alloc(sp->pool_size, sp->reserved->pool.obj_size,
				   gfp);
	if (!h)
		return false;
	raw_spin_lock_irqsave(&sp->lock, flags);
	if (!sp->orphaned && kretprobe_spares_room(sp)) {
		RCU_INIT_POINTER(h->rp, rcu_dereference_protected(sp->reserved->rp, 1));
		/* the pool is whole before a hit can find it */
		smp_store_release(&sp->newest->next, h);
		WRITE_ONCE(sp->newest, h);
		WRITE_ONCE(sp->count, sp->count + sp->pool_size);
		keep = true;
	}
	raw_spin_unlock_irqrestore(&sp->lock, flags);
	if (!keep)
		objpool_fini(&h->pool);	/* frees h (kretprobe_pool_release) */
	return true;
}

static void kretprobe_spares_work(struct work_struct *work)
{
	kretprobe_spares_add(container_of(work, struct kretprobe_spares,
					  grow_work), GFP_KERNEL);
}

#ifdef CONFIG_IRQ_WORK
/* hard interrupt context, raised by a hit: try now, else from a worker */
static void kretprobe_spares_irq(struct irq_work *work)
{
	struct kretprobe_spares *sp =
		container_of(work, struct kretprobe_spares, grow_irq);

	if (!kretprobe_spares_add(sp, GFP_ATOMIC | __GFP_NOWARN))
		schedule_work(&sp->grow_work);
}

/* NMI-safe, and queues once while pending */
static nokprobe_inline void kretprobe_spares_ask(struct kretprobe_spares *sp)
{
	irq_work_queue(&sp->grow_irq);
}
#else
/* no irq_work (UP, no printk, no perf): the first spare pool only */
static nokprobe_inline void kretprobe_spares_ask(struct kretprobe_spares *sp)
{
}
#endif

/*
 * The reserved pool is empty: an instance from the oldest spare pool that
 * has one.  Taking from the newest asks for one more pool.
 */
static noinline struct kretprobe_instance *
kretprobe_spare_pop(struct kretprobe_holder *rph)
{
	struct kretprobe_spares *sp = rph->spares;
	struct kretprobe_instance *ri = NULL;
	struct kretprobe_holder *h;

	if (!sp)
		return NULL;
	/* pairs with kretprobe_spares_add()'s release */
	for (h = smp_load_acquire(&rph->next); h; h = smp_load_acquire(&h->next)) {
		ri = objpool_pop(&h->pool);
		if (ri)
			break;
	}
	if ((!ri || h == READ_ONCE(sp->newest)) && kretprobe_spares_room(sp))
		kretprobe_spares_ask(sp);
	return ri;
}

NOKPROBE_SYMBOL(kretprobe_spare_pop);

/*
 * The last orphan's drop frees the pool (vfree, which may sleep), and
 * the trampoline runs with preemption off: drop it from an RCU callback.
 */
static void kretprobe_drop_rcu(struct rcu_head *head)
{
	struct kretprobe_instance *ri =
		container_of(head, struct kretprobe_instance, rcu);

	objpool_drop(ri, &ri->rph->pool);
}

/*
 * Give ri back to its pool.  rp is its kretprobe as read in this same
 * RCU read-side section (get_kretprobe()): while a CPU is inside one that
 * saw it non-NULL, the grace period unregister waits for before draining
 * the pool has not ended, so the push is still safe.
 */
static nokprobe_inline void kretprobe_recycle_as(struct kretprobe_instance *ri,
						 struct kretprobe *rp)
{
	if (likely(rp))
		objpool_push(ri, &ri->rph->pool);
	else	/* orphan: the pool is draining */
		call_rcu(&ri->rcu, kretprobe_drop_rcu);
}

#ifndef CONFIG_KPROBES_CLASSIC
/*
 * The hot slots (see the top of this file).  Atomic exchanges, not
 * this_cpu ones: a CPU whose pool ran dry takes from the other CPUs'
 * slots (kretprobe_hot_steal()), so every reserved instance stays
 * reachable and maxactive means what it meant.
 */
static nokprobe_inline struct kretprobe_instance *
kretprobe_hot_pop(struct kretprobe_holder *rph)
{
	/* interrupts are off on every hit path: this CPU's slot */
	return xchg(this_cpu_ptr(rph->hot), NULL);
}

/*
 * The reserved pool is empty: an instance parked in another CPU's slot.
 * An empty pool is routine for a kretprobe on a function that blocks
 * (every instance out on a sleeper), and then so are most slots: each is
 * read first, and only one that holds an instance is exchanged, so such
 * an entry writes no other CPU's cache line for nothing.
 */
static noinline struct kretprobe_instance *
kretprobe_hot_steal(struct kretprobe_holder *rph)
{
	struct kretprobe_instance **slot, *ri;
	int cpu;

	for_each_possible_cpu(cpu) {
		slot = per_cpu_ptr(rph->hot, cpu);
		if (!READ_ONCE(*slot))
			continue;
		ri = xchg(slot, NULL);
		if (ri)
			return ri;
	}
	return NULL;
}

NOKPROBE_SYMBOL(kretprobe_hot_steal);

/*
 * The common return's recycling: into this CPU's hot slot if ri is of the
 * reserved pool and the slot is empty, else as kretprobe_recycle_as().
 * rp as read in this RCU read-side section: non-NULL, the pool is not
 * being released (kretprobe_release() drains the slots a grace period
 * after the orphaning).
 */
static nokprobe_inline void kretprobe_recycle_hot(struct kretprobe_instance *ri,
						  struct kretprobe *rp)
{
	struct kretprobe_holder *h = ri->rph;

	if (likely(rp) && h->hot && !cmpxchg(this_cpu_ptr(h->hot), NULL, ri))
		return;
	kretprobe_recycle_as(ri, rp);
}

static int kretprobe_hot_alloc(struct kretprobe_holder *rph)
{
	rph->hot = alloc_percpu(struct kretprobe_instance *);
	return rph->hot ? 0 : -ENOMEM;
}

/* after the grace period that followed the orphaning: nothing fills them */
static void kretprobe_hot_drain(struct kretprobe_holder *rph)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct kretprobe_instance *ri = *per_cpu_ptr(rph->hot, cpu);

		if (ri)
			objpool_push(ri, &rph->pool);
	}
	free_percpu(rph->hot);
	rph->hot = NULL;
}
#else
/* the classic backends' returns walk (kretprobe_walk_return()): no slots */
static nokprobe_inline struct kretprobe_instance *
kretprobe_hot_pop(struct kretprobe_holder *rph)
{
	return NULL;
}

static nokprobe_inline struct kretprobe_instance *
kretprobe_hot_steal(struct kretprobe_holder *rph)
{
	return NULL;
}

static int kretprobe_hot_alloc(struct kretprobe_holder *rph)
{
	return 0;
}

static void kretprobe_hot_drain(struct kretprobe_holder *rph)
{
}
#endif /* !CONFIG_KPROBES_CLASSIC */

static nokprobe_inline void kretprobe_recycle(struct kretprobe_instance *ri)
{
	kretprobe_recycle_as(ri, rcu_access_pointer(ri->rph->rp));
}

/* ri takes this activation: its task, and where it returns to */
static nokprobe_inline void kretprobe_take(struct kretprobe_instance *ri,
					   struct pt_regs *regs)
{
	ri->task = current;
#ifdef CONFIG_KPROBES_CLASSIC
	/* the backend finds the return address (and frame) when it diverts */
	ri->fp = NULL;
	ri->ret_addr = NULL;
#else
	ri->fp = arch_kretprobe_ret_slot(regs);
	ri->ret_addr = (kprobe_opcode_t *)*(unsigned long *)ri->fp;
#endif
}

/* the return goes to the trampoline; ri is the task's most recent */
static nokprobe_inline void kretprobe_divert(struct kretprobe_instance *ri,
					     struct pt_regs *regs)
{
#ifdef CONFIG_KPROBES_CLASSIC
	arch_prepare_kretprobe(ri, regs);
#else
	*(unsigned long *)ri->fp = (unsigned long)kretprobe_trampoline_addr();
#endif
	__llist_add(&ri->llist, &current->kretprobe_instances);
}

/*
 * kretprobe_entry() without a hot instance (ri NULL), or with an
 * entry_handler: the pool, the other CPUs' slots, the spares, then the
 * entry_handler, which may refuse the activation.  Out of line, so that
 * the common entry saves no register.
 */
static noinline notrace int kretprobe_entry_slow(struct kretprobe *rp,
						 struct pt_regs *regs,
						 struct kretprobe_instance *ri)
{
	struct kretprobe_holder *rph = rp->rph;

	if (!ri)
		ri = objpool_pop(&rph->pool);
	if (unlikely(!ri))
		ri = kretprobe_hot_steal(rph);
	if (unlikely(!ri)) {
		ri = kretprobe_spare_pop(rph);
		if (!ri) {
			kprobe_count_miss(&rp->nmissed);
			return 0;
		}
	}
	kretprobe_take(ri, regs);
	if (rp->entry_handler && rp->entry_handler(ri, regs)) {
		objpool_push(ri, &ri->rph->pool);	/* its own pool */
		return 0;
	}
	kretprobe_divert(ri, regs);
	return 0;
}

NOKPROBE_SYMBOL(kretprobe_entry_slow);

/*
 * the kretprobe's entry kprobe: take an instance, divert the return.  The
 * common case, this CPU's hot instance and no entry_handler, is done here.
 * notrace, as the return path below.
 */
notrace int kretprobe_entry(struct kprobe *p, struct pt_regs *regs)
{
	struct kretprobe *rp = container_of(p, struct kretprobe, kp);
	struct kretprobe_instance *ri;

	/*
	 * The return path reads the kretprobe and recycles the instance
	 * under RCU (preemption off), which is no protection where RCU is
	 * not watching.  Most code that runs so is noinstr, which the
	 * blacklist refuses; the rest is a CPU coming up before RCU
	 * watches it or going down after, a window that upstream's
	 * rethook_try_get() checks for on the same two configs as here
	 * (where notrace code may be probed, KPROBE_EVENTS_ON_NOTRACE, or
	 * ftrace checks it): such a hit takes no instance and counts a
	 * miss.  Compiled out otherwise, which keeps the common entry a
	 * test dearer on no config.
	 */
	if ((IS_ENABLED(CONFIG_FTRACE_VALIDATE_RCU_IS_WATCHING) ||
	     IS_ENABLED(CONFIG_KPROBE_EVENTS_ON_NOTRACE)) &&
	    unlikely(!rcu_is_watching())) {
		kprobe_count_miss(&rp->nmissed);
		return 0;
	}
	ri = kretprobe_hot_pop(rp->rph);
	if (unlikely(!ri || rp->entry_handler))
		return kretprobe_entry_slow(rp, regs, ri);
	kretprobe_take(ri, regs);
	kretprobe_divert(ri, regs);
	return 0;
}

NOKPROBE_SYMBOL(kretprobe_entry);

/*
 * Run rp's handler for ri, current_kprobe naming rp meanwhile (bpf and
 * fault handling look at it); the caller made this CPU busy.
 */
static nokprobe_inline void kretprobe_call(struct kretprobe *rp,
					   struct kretprobe_instance *ri,
					   struct pt_regs *regs)
{
#ifdef CONFIG_HAVE_KPROBE_SITES
	struct kprobe_frame *f = kprobe_frame_top(get_kprobe_ctlblk());
	struct kprobe *prev = f->kp;

	kprobe_frame_set_kp(f, &rp->kp);
	rp->handler(ri, regs);
	kprobe_frame_set_kp(f, prev);
#else
	struct kprobe *prev = kprobe_running();

	__this_cpu_write(current_kprobe, &rp->kp);
	rp->handler(ri, regs);
	__this_cpu_write(current_kprobe, prev);
#endif
}

/* ---- other return hooks on the same frame (x86) ---------------------- */

#ifdef CONFIG_HAVE_KPROBE_SITES
/*
 * rethook (fprobe exits, BPF kretprobe.multi) and function_graph divert
 * returns through trampolines of their own, on the same functions as
 * kretprobes.  Whichever hooks a return later saves the earlier one's
 * trampoline as the return address: the kretprobe return must then go
 * on through that trampoline, while its handlers are told the real
 * caller.  Telling the two cases apart costs the common return a test
 * against each foreign trampoline, which only kernels that ever used
 * rethook or function_graph pay: they turn this key on before their
 * first hook (kretprobe_note_return_hook()), and it stays on, since one
 * of their trampolines may sit in an instance for as long as a task
 * sleeps in a function.
 */
static DEFINE_STATIC_KEY_FALSE(kretprobe_stacked);

/**
 * kretprobe_note_return_hook() - another return hook is coming
 *
 * Called by rethook_alloc() and register_ftrace_graph(), before they can
 * divert a return; may sleep.
 */
void kretprobe_note_return_hook(void)
{
	static_branch_enable(&kretprobe_stacked);
}

/* is addr the trampoline of another kind of return hook? */
static nokprobe_inline bool kretprobe_foreign_trampoline(unsigned long addr)
{
	if (!static_branch_unlikely(&kretprobe_stacked))
		return false;
#ifdef CONFIG_RETHOOK
	if (is_rethook_trampoline(addr))
		return true;
#endif
	return kretprobe_fgraph_trampoline(addr);
}

/**
 * kretprobe_stacked_ret_addr() - the caller behind stacked return hooks
 * @tramp: the trampoline the current return came through: the slot's
 *	content when it was entered
 * @slot: the return slot, on the current task's stack
 *
 * Follows the chain of @slot's records, kretprobe instances, rethook
 * nodes and function_graph's return stack alike, from @tramp to the one
 * address that is none of theirs: the first hook saved it, each later
 * one saved a trampoline.  That is the unwinders' walk (asm/unwind.h),
 * from the slot's content as the returning trampoline found it: each list
 * is searched from its top with a cursor of its own, which only moves
 * down, so that a kind of hook met twice on the slot gives its next
 * record, and the walk ends.  For the current task, from a return hook's
 * handler (rethook's, the kretprobe trampoline's), whose records of
 * @slot are all still listed.
 *
 * Return: the real return address, or 0 if a record is missing.
 */
notrace unsigned long kretprobe_stacked_ret_addr(unsigned long tramp,
						 unsigned long *slot)
{
	struct llist_node *kr_cur = NULL;
#ifdef CONFIG_RETHOOK
	struct llist_node *rh_cur = NULL;
#endif
	unsigned long addr = tramp, next;
	int graph_idx = 0;
	int i;

	for (i = 0; i < RET_HOOKS_STACKED_MAX; i++) {
		if (is_kretprobe_trampoline(addr))
			next = kretprobe_find_ret_addr(current, slot, &kr_cur);
#ifdef CONFIG_RETHOOK
		else if (is_rethook_trampoline(addr))
			next = rethook_find_ret_addr(current,
						     (unsigned long)slot,
						     &rh_cur);
#endif
		else if (kretprobe_fgraph_trampoline(addr))
			next = ftrace_graph_ret_addr(current, &graph_idx, addr,
						     slot);
		else
			return addr;
		if (!next || next == addr)
			return 0;
		addr = next;
	}
	return 0;
}

NOKPROBE_SYMBOL(kretprobe_stacked_ret_addr);
#else
static nokprobe_inline bool kretprobe_foreign_trampoline(unsigned long addr)
{
	return false;
}
#endif /* CONFIG_HAVE_KPROBE_SITES */

/*
 * A return through the trampoline, in general: several kretprobes on the
 * function, instances of deeper frames left behind (their function never
 * returned) on the task's list, or another kind of return hook below
 * ours.  The caller made this CPU busy.
 * Classic backends give no frame (NULL): the most recent instances are
 * then this return's, up to the first that holds a real address.
 *
 * On x86 every handler of this frame is told the real caller, in
 * regs->ip and in its instance's ret_addr, though the return goes
 * through the slot to what the oldest instance saved there (another
 * hook's trampoline, if one came first).  The instances' ret_addr can
 * be rewritten so because the slot no longer holds our trampoline: no
 * unwind looks this frame up in our list any more.
 */
static notrace unsigned long kretprobe_walk_return(struct pt_regs *regs,
						   void *frame_pointer)
{
	struct llist_node **head = &current->kretprobe_instances.first;
	struct kretprobe_instance *ri;
	unsigned long real = 0, shown;
	struct llist_node *node;

	/*
	 * The list is LIFO: instances of deeper frames (below frame_pointer,
	 * whose functions never returned) first, then this frame's, most
	 * recent first; the oldest of this frame's holds the real address,
	 * the others point back at the trampoline.
	 */
	for (node = *head; node; node = node->next) {
		ri = container_of(node, struct kretprobe_instance, llist);
		if ((unsigned long)ri->fp > (unsigned long)frame_pointer)
			break;
		if (ri->fp == frame_pointer &&
		    !is_kretprobe_trampoline((unsigned long)ri->ret_addr)) {
			real = (unsigned long)ri->ret_addr;
			break;
		}
	}
	/* no instance for this frame: we cannot know where to return */
	if (unlikely(!real))
		panic("kretprobe: no instance for the return at %p\n",
		      frame_pointer);
	shown = real;
#ifdef CONFIG_HAVE_KPROBE_SITES
	if (kretprobe_foreign_trampoline(real))
		shown = kretprobe_stacked_ret_addr((unsigned long)
						   kretprobe_trampoline_addr(),
						   frame_pointer) ?: real;
	/* the slot, before any instance leaves the list (as the common return) */
	*(unsigned long *)frame_pointer = real;
#endif
	instruction_pointer_set(regs, shown);

	while ((node = *head)) {
		struct kretprobe *rp;
		bool last;

		ri = container_of(node, struct kretprobe_instance, llist);
		last = ri->fp == frame_pointer &&
		       (unsigned long)ri->ret_addr == real;
		if (ri->fp == frame_pointer) {
#ifdef CONFIG_HAVE_KPROBE_SITES
			/* kretprobe_find_ret_addr() may read it meanwhile */
			WRITE_ONCE(ri->ret_addr, (kprobe_opcode_t *)shown);
#endif
			rp = get_kretprobe(ri);
			if (rp && rp->handler)
				kretprobe_call(rp, ri, regs);
		}
		/* off the list only now: unwinds from the handler still find it */
		*head = node->next;
		kretprobe_recycle(ri);
		if (last)
			break;
	}
	return real;
}

NOKPROBE_SYMBOL(kretprobe_walk_return);

#ifdef CONFIG_KPROBES_CLASSIC
/**
 * __kretprobe_trampoline_handler() - a kretprobed function returned
 * @regs: registers at the return (its ip is set to the real address)
 * @frame_pointer: the frame the backend's arch_prepare_kretprobe() noted
 *
 * For the backends that reach it from a probe on their trampoline (arc,
 * mips, parisc, sh, sparc): that probe's hit already made this CPU busy.
 *
 * Return: the real return address.
 */
unsigned long __kretprobe_trampoline_handler(struct pt_regs *regs,
					     void *frame_pointer)
{
	unsigned long real = kretprobe_walk_return(regs, frame_pointer);

	arch_kretprobe_fixup_return(regs, (kprobe_opcode_t *)real);
	return real;
}

NOKPROBE_SYMBOL(__kretprobe_trampoline_handler);

/* parisc puts the address back in its return register too */
void __weak arch_kretprobe_fixup_return(struct pt_regs *regs,
					kprobe_opcode_t *correct_ret_addr)
{
}

/**
 * kretprobe_trampoline_handler() - a kretprobed function returned
 * @regs: registers at the return (its ip is set to the real address)
 * @frame_pointer: the frame the backend's arch_prepare_kretprobe() noted
 *
 * For the backends whose trampoline calls it straight (arm, arm64, csky).
 *
 * Return: the real return address.
 */
unsigned long kretprobe_trampoline_handler(struct pt_regs *regs,
					   void *frame_pointer)
{
	unsigned long real;

	kprobe_busy_begin();
	real = __kretprobe_trampoline_handler(regs, frame_pointer);
	kprobe_busy_end();
	return real;
}

NOKPROBE_SYMBOL(kretprobe_trampoline_handler);
#else
/*
 * The return path's functions (these, kretprobe_walk_return() and the
 * x86 trampoline's callback) are notrace: they run on every return of
 * every kretprobed function, and an fentry call there would cost every
 * one of them an instruction for a trace of what the kretprobe itself
 * reports.  As for rethook, which kernel/trace/ builds without -pg, they
 * cannot be livepatched nor traced by fentry programs.
 */
static noinline notrace void kretprobe_return_general(struct pt_regs *regs,
						      void *frame_pointer)
{
	kprobe_busy_begin();
	kretprobe_walk_return(regs, frame_pointer);
	kprobe_busy_end();
}

NOKPROBE_SYMBOL(kretprobe_return_general);

/*
 * The common return, but with a hit under way on this CPU (preemption
 * disabled by the caller): a frame above it.
 */
static noinline notrace void
kretprobe_return_nested(struct pt_regs *regs, struct kretprobe_instance *ri)
{
	struct kprobe_ctlblk *kcb = get_kprobe_ctlblk();
	struct kretprobe *rp = get_kretprobe(ri);

	kprobe_frame_push(kcb, NULL, rp ? &rp->kp : &kprobe_busy,
			  KPROBE_HIT_ACTIVE);
	if (rp && rp->handler)
		rp->handler(ri, regs);
	current->kretprobe_instances.first = ri->llist.next;
	kretprobe_recycle_as(ri, rp);
	kprobe_frame_pop(kcb);
}

NOKPROBE_SYMBOL(kretprobe_return_nested);

/**
 * kretprobe_slot_return() - a kretprobed function returned
 * @regs: registers at the return (ip is set to the real return address)
 * @frame_pointer: the stack slot that held the diverted return address
 *
 * Writes the real return address back into @frame_pointer's slot before
 * any handler runs, on every path, so the trampoline returns through the
 * slot and needs no result from here.  Then runs every instance diverted
 * at this frame (one per kretprobe on the function, most recent first)
 * and recycles them.  Instances of deeper frames left behind (their
 * function never returned) are recycled too.
 *
 * The common return is done here: the task's most recent instance is this
 * frame's and holds the real return address, so it is the only one of
 * this frame (a second kretprobe's would sit above it, holding the
 * trampoline's address) and none is left behind below it.  Nothing but
 * the instance is kept across the handler's call.  An instance that holds
 * another return hook's trampoline (rethook's, function_graph's) takes
 * the general path, which tells the handlers the caller behind it.
 *
 * A handler's changes to regs->ip or ri->ret_addr are not followed (as
 * with upstream's rethook): the return goes through the slot, which a
 * handler has no business writing (it sits at regs->sp - sizeof(long)).
 */
notrace void kretprobe_slot_return(struct pt_regs *regs, void *frame_pointer)
{
	struct llist_node *node = current->kretprobe_instances.first;
	struct kretprobe_instance *ri;
	struct kretprobe *rp;
	unsigned long real;

	if (unlikely(!node)) {
		kretprobe_return_general(regs, frame_pointer);
		return;
	}
	ri = container_of(node, struct kretprobe_instance, llist);
	real = (unsigned long)ri->ret_addr;
	if (unlikely(ri->fp != frame_pointer || is_kretprobe_trampoline(real) ||
		     kretprobe_foreign_trampoline(real))) {
		kretprobe_return_general(regs, frame_pointer);
		return;
	}
	instruction_pointer_set(regs, real);
	/*
	 * The slot holds the real address from now on: an unwind of this
	 * task, preempted or interrupted anywhere between here and the
	 * trampoline's ret, finds it there, whatever the list holds.
	 */
	*(unsigned long *)frame_pointer = real;

	preempt_disable();
	if (unlikely(__this_cpu_read(kprobe_ctlblk.depth))) {
		kretprobe_return_nested(regs, ri);	/* never, in practice */
		preempt_enable();
		return;
	}
	/*
	 * As kprobe_busy_begin(): a probe hit in the handler or the
	 * recycling counts nmissed; the frame stands for rp (or for the
	 * busy placeholder once rp is unregistered).  Only ri is kept
	 * across the handler's call: ri->task is current, found again
	 * through it.
	 */
	rp = get_kretprobe(ri);
	kprobe_solo_begin(NULL, NULL, rp ? &rp->kp : &kprobe_busy);
	if (rp && rp->handler)
		rp->handler(ri, regs);
	ri->task->kretprobe_instances.first = ri->llist.next;
	/* rp again, in the same read-side section: NULL if orphaned since */
	kretprobe_recycle_hot(ri, get_kretprobe(ri));
	kprobe_solo_done(NULL);
	preempt_enable();
}

NOKPROBE_SYMBOL(kretprobe_slot_return);
#endif /* CONFIG_KPROBES_CLASSIC */

/**
 * kretprobe_find_ret_addr() - the real return address behind a trampoline
 * @tsk: the task whose stack is being unwound
 * @fp: the stack slot where the unwinder found the trampoline address
 * @cur: the unwinder's cursor into @tsk's instances (NULL to start)
 *
 * Return: the real return address, or 0 if none matches.
 */
notrace unsigned long kretprobe_find_ret_addr(struct task_struct *tsk,
					      void *fp,
					      struct llist_node **cur)
{
	struct kretprobe_instance *ri;
	struct llist_node *node = *cur;
	unsigned long ret;

	/*
	 * A running task's instances come and go under us, recycled into
	 * pools that may be freed: as rethook_find_ret_addr(), only current
	 * or a task that is not running.
	 */
	if (tsk != current && task_is_running(tsk))
		return 0;
	node = node ? node->next : tsk->kretprobe_instances.first;
	for (; node; node = node->next) {
		ri = container_of(node, struct kretprobe_instance, llist);
		if (ri->fp != fp)
			continue;
		/* the return walk may rewrite it (to the real caller) */
		ret = (unsigned long)READ_ONCE(ri->ret_addr);
		if (!is_kretprobe_trampoline(ret)) {
			*cur = node;
			return ret;
		}
	}
	return 0;
}

NOKPROBE_SYMBOL(kretprobe_find_ret_addr);

/**
 * kprobe_flush_task() - a task is gone; recycle its live instances
 * @tk: the task (called from its RCU free path)
 */
void kprobe_flush_task(struct task_struct *tk)
{
	struct llist_node *node;

	if (unlikely(!kprobes_initialized))
		return;
	kprobe_busy_begin();
	node = __llist_del_all(&tk->kretprobe_instances);
	while (node) {
		struct kretprobe_instance *ri =
			container_of(node, struct kretprobe_instance, llist);

		node = node->next;
		kretprobe_recycle(ri);
	}
	kprobe_busy_end();
}

NOKPROBE_SYMBOL(kprobe_flush_task);

/*
 * rp's instance pools: maxactive instances with data_size bytes each,
 * and the first spare pool.
 */
int kretprobe_pool_create(struct kretprobe *rp)
{
	int obj_size = sizeof(struct kretprobe_instance) + rp->data_size;
	struct kretprobe_spares *sp;
	struct kretprobe_holder *rph;

	sp = kzalloc(sizeof(*sp), GFP_KERNEL);
	if (!sp)
		return -ENOMEM;
	rph = kretprobe_holder_alloc(rp->maxactive, obj_size, GFP_KERNEL);
	if (!rph) {
		kfree(sp);
		return -ENOMEM;
	}
	if (kretprobe_hot_alloc(rph)) {
		objpool_fini(&rph->pool);
		kfree(sp);
		return -ENOMEM;
	}
	raw_spin_lock_init(&sp->lock);
#ifdef CONFIG_IRQ_WORK
	init_irq_work(&sp->grow_irq, kretprobe_spares_irq);
#endif
	INIT_WORK(&sp->grow_work, kretprobe_spares_work);
	sp->reserved = rph;
	sp->newest = rph;
	sp->limit = KRETPROBE_SPARES_MAX(rp->maxactive);
	sp->pool_size = min(max(rp->maxactive, KRETPROBE_SPARE_POOL_MIN),
			    sp->limit);
	rcu_assign_pointer(rph->rp, rp);
	/* no spare pool is no error: hits then miss as they used to */
	kretprobe_spares_add(sp, GFP_KERNEL);
	rph->spares = sp;
	rp->rph = rph;
	return 0;
}

/*
 * Unregistering a kretprobe takes two steps around a grace period:
 * kretprobe_orphan() makes every instance recycled from then on be
 * dropped rather than pushed back (and its handler skipped); after the
 * grace period no CPU is still between that check and a push, and
 * kretprobe_release() drains the pool.  The holder is freed then, or
 * when the last instance still live on some stack comes home.
 */
void kretprobe_orphan(struct kretprobe *rp)
{
	struct kretprobe_spares *sp;
	struct kretprobe_holder *h;
	unsigned long flags;

	if (!rp->rph)
		return;
	sp = rp->rph->spares;
	/* no spare pool is appended after this: each gets orphaned here */
	raw_spin_lock_irqsave(&sp->lock, flags);
	sp->orphaned = true;
	for (h = rp->rph; h; h = h->next)
		rcu_assign_pointer(h->rp, NULL);
	raw_spin_unlock_irqrestore(&sp->lock, flags);
}

void kretprobe_release(struct kretprobe *rp)
{
	struct kretprobe_holder *rph = rp->rph, *next;
	struct kretprobe_spares *sp;

	if (!rph)
		return;
	rp->rph = NULL;
	sp = rph->spares;
	/* no hit is left to raise it (a grace period passed): wait it out */
#ifdef CONFIG_IRQ_WORK
	irq_work_sync(&sp->grow_irq);
#endif
	cancel_work_sync(&sp->grow_work);
	kfree(sp);
	/* no return fills a slot since then, and no entry takes one */
	kretprobe_hot_drain(rph);
	/* a pool with instances still out goes with its last one */
	for (; rph; rph = next) {
		next = rph->next;
		rph->spares = NULL;
		objpool_fini(&rph->pool);
	}
}
#endif /* !KRETPROBE_VIA_RETHOOK */

static int kretprobe_prepare(struct kretprobe *rp)
{
	bool on_entry;
	kprobe_opcode_t *addr;
	unsigned int i;
	int ret;

	addr = kprobe_resolve(rp->kp.addr, rp->kp.symbol_name, rp->kp.offset,
			      &on_entry);
	if (IS_ERR(addr))
		return PTR_ERR(addr);
	if (!on_entry)
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(kretprobe_refused_syms); i++) {
		bool e;

		/* placed as a probe on the symbol would be */
		if (kprobe_resolve(NULL, kretprobe_refused_syms[i], 0, &e) == addr)
			return -EINVAL;
	}
	if (rp->data_size > KRETPROBE_MAX_DATA_SIZE)
		return -E2BIG;
	if (rp->maxactive > KRETPROBE_MAXACTIVE_LIMIT)
		return -E2BIG;
	if (rp->maxactive <= 0)
		rp->maxactive = IS_ENABLED(CONFIG_PREEMPTION) ?
			max_t(unsigned int, 10, 2 * num_possible_cpus()) :
			num_possible_cpus();

	ret = kretprobe_pool_create(rp);
	if (ret)
		return ret;
	rp->nmissed = 0;
	rp->kp.pre_handler = kretprobe_entry;
	rp->kp.post_handler = NULL;
	return 0;
}

/**
 * register_kretprobes() - register an array of kretprobes
 * @rps: the kretprobes
 * @num: how many
 *
 * Return: 0, or the first error (those registered so far are removed).
 */
int register_kretprobes(struct kretprobe **rps, int num)
{
	struct kprobe_array a = {
		.objs = (void *const *)rps, .num = num,
		.kp_off = offsetof(struct kretprobe, kp),
	};
	int i, ret;

	if (!rps || num <= 0)
		return -EINVAL;
	for (i = 0; i < num; i++) {
		/* a registered one's pool is in use: the core refuses it */
		if (!rps[i] || kprobe_is_registered(&rps[i]->kp))
			ret = -EINVAL;
		else
			ret = kretprobe_prepare(rps[i]);
		if (ret)
			goto undo;
	}
	ret = kprobe_register_array(&a);
	if (!ret)
		return 0;
	/*
	 * The registration waited out the hits, but an instance they took
	 * may still come back through the trampoline, which runs with
	 * interrupts on: as unregister_kretprobes() does, orphan every pool,
	 * then a grace period, before they go.
	 */
	for (i = 0; i < num; i++)
		kretprobe_orphan(rps[i]);
	synchronize_rcu();
	for (i = 0; i < num; i++)
		kretprobe_release(rps[i]);
	return ret;
undo:
	/* none of these was armed: no instance was taken */
	while (--i >= 0) {
		kretprobe_orphan(rps[i]);
		kretprobe_release(rps[i]);
	}
	return ret;
}
EXPORT_SYMBOL_GPL(register_kretprobes);

/**
 * register_kretprobe() - probe a function's returns
 * @rp: the kretprobe: kp.addr or kp.symbol_name at a function entry,
 *	handler, optional entry_handler, data_size, maxactive
 *
 * Return: 0; -EINVAL (not a function entry, blacklisted), -ENOENT,
 * -E2BIG (data_size or maxactive too large), -ENOMEM, or as register_kprobe().
 */
int register_kretprobe(struct kretprobe *rp)
{
	if (!rp)
		return -EINVAL;
	return register_kretprobes(&rp, 1);
}
EXPORT_SYMBOL_GPL(register_kretprobe);

/**
 * unregister_kretprobes() - remove an array of kretprobes
 * @rps: the kretprobes
 * @num: how many
 *
 * Instances still live on some task's stack stay valid and return
 * through the trampoline without calling the (gone) handler.
 */
void unregister_kretprobes(struct kretprobe **rps, int num)
{
	struct kprobe_array a = {
		.objs = (void *const *)rps, .num = num,
		.kp_off = offsetof(struct kretprobe, kp),
	};
	int i;

	if (!rps || num <= 0)
		return;
	for (i = 0; i < num; i++)
		if (rps[i])
			kretprobe_orphan(rps[i]);
	/* a grace period: the trampoline recycles instances, irqs on */
	kprobe_unregister_array(&a, KPROBE_WAIT_GP);
	for (i = 0; i < num; i++)
		if (rps[i])
			kretprobe_release(rps[i]);
}
EXPORT_SYMBOL_GPL(unregister_kretprobes);

/**
 * unregister_kretprobe() - remove a kretprobe
 * @rp: the kretprobe
 */
void unregister_kretprobe(struct kretprobe *rp)
{
	unregister_kretprobes(&rp, 1);
}
EXPORT_SYMBOL_GPL(unregister_kretprobe);
