/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kretprobe instance pools' operations on the hit paths, inline for
 * kretprobe_entry() and the return (kprobes_kretprobes.c); the pools
 * themselves are in kprobes_kretprobe_pool.c.
 */
#ifndef _KERNEL_KPROBES_KRETPROBE_POOL_H
#define _KERNEL_KPROBES_KRETPROBE_POOL_H

#include <linux/kprobes.h>
#include <linux/objpool.h>
#include <linux/percpu.h>

#ifndef KRETPROBE_VIA_RETHOOK
struct kretprobe_instance *kretprobe_spare_pop(struct kretprobe_holder *rph);
void kretprobe_drop_rcu(struct rcu_head *head);

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
struct kretprobe_instance *kretprobe_hot_steal(struct kretprobe_holder *rph);

/*
 * The hot slots (x86's backend): the trampoline's common return keeps the
 * instance it recycles in a per-CPU slot of the reserved pool's (one per
 * CPU, if the slot is empty), and an entry takes that one before asking
 * the pool.  A call and its return on one CPU, the common case, then cost
 * one exchange each instead of the pool's pop and push (which save and
 * restore interrupts around theirs and look for a slot).  An entry that
 * finds the pool empty takes from another CPU's slot before the spares,
 * and kretprobe_release() puts what they hold back in the pool.  Atomic
 * exchanges, not
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
#endif /* !CONFIG_KPROBES_CLASSIC */

static nokprobe_inline void kretprobe_recycle(struct kretprobe_instance *ri)
{
	kretprobe_recycle_as(ri, rcu_access_pointer(ri->rph->rp));
}
#endif /* !KRETPROBE_VIA_RETHOOK */
#endif /* _KERNEL_KPROBES_KRETPROBE_POOL_H */
