// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Kretprobe instance pools: a kretprobe's reserved pool of maxactive
 * instances (an objpool, lock-free: the hit paths are NMI-like), the spare
 * pools that grow behind it, and the per-CPU hot slots of x86's return.
 * Their hit-path pops and pushes are inline, in kprobes_kretprobe_pool.h;
 * each protocol is on the function that runs it.  Backends that take
 * their instances from a rethook (kprobes_classic.c) have none of this.
 */

#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/kprobes.h>
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

#include "kprobes_internal.h"
#include "kprobes_kretprobe_pool.h"

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

/*
 * Spare pools: when the reserved pool is empty (deep recursion, more
 * sleepers than maxactive) a hit takes an instance from a spare pool
 * instead of missing.
 *  1. The first spare pool is allocated with the reserved one
 *     (kretprobe_pool_create()).
 *  2. A hit that takes from the newest one asks for another through an
 *     irq_work (kretprobe_spare_pop()), which allocates it GFP_ATOMIC, or
 *     GFP_KERNEL from a work item if that fails, outside the hit path.
 *  3. The bound: spare pools of max(maxactive, 4) instances each, at most
 *     KRETPROBE_SPARES_MAX(maxactive) instances in all, 4 x maxactive (at
 *     least 32, at most 4096).  Only a hit that finds every pool empty (a
 *     burst with interrupts off, or the bound reached) counts nmissed.
 *  4. An instance goes back to the pool it came from (ri->rph).
 * Spare pools are only ever appended, under kretprobe_spares.lock, which
 * the hit path never takes (it reads the chain with acquire loads), and
 * go with the reserved one at unregister.
 *
 * The growth state of a kretprobe's spare pools, hung off its reserved pool:
 */
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
noinline struct kretprobe_instance *
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
void kretprobe_drop_rcu(struct rcu_head *head)
{
	struct kretprobe_instance *ri =
		container_of(head, struct kretprobe_instance, rcu);

	objpool_drop(ri, &ri->rph->pool);
}

#ifndef CONFIG_KPROBES_CLASSIC
/*
 * The reserved pool is empty: an instance parked in another CPU's slot.
 * An empty pool is routine for a kretprobe on a function that blocks
 * (every instance out on a sleeper), and then so are most slots: each is
 * read first, and only one that holds an instance is exchanged, so such
 * an entry writes no other CPU's cache line for nothing.
 */
noinline struct kretprobe_instance *
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
static int kretprobe_hot_alloc(struct kretprobe_holder *rph)
{
	return 0;
}

static void kretprobe_hot_drain(struct kretprobe_holder *rph)
{
}
#endif /* !CONFIG_KPROBES_CLASSIC */

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
