// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Kretprobes: a kprobe on a function's entry whose pre_handler,
 * kretprobe_entry(), takes an instance from the kretprobe's pool
 * (kprobes_kretprobe_pool.c), saves the real return address in it and
 * diverts the return to the arch's trampoline; the return runs the
 * handlers of the frame's instances and gives them back.  Live instances
 * are chained on their task, most recent first.  Here too: what other
 * return hooks on the same frame see (x86), unwinding through the
 * trampoline, and registration.
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

/*
 * Functions during which `current` changes: an instance pushed on one task
 * would be popped on another.
 */
static const char * const kretprobe_refused_syms[] = {
	"__switch_to",
	"__switch_to_asm",
};

#ifndef KRETPROBE_VIA_RETHOOK

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
static noinline notrace void kretprobe_return_slow(struct pt_regs *regs,
						   void *frame_pointer)
{
	kprobe_busy_begin();
	kretprobe_walk_return(regs, frame_pointer);
	kprobe_busy_end();
}

NOKPROBE_SYMBOL(kretprobe_return_slow);

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
		kretprobe_return_slow(regs, frame_pointer);
		return;
	}
	ri = container_of(node, struct kretprobe_instance, llist);
	real = (unsigned long)ri->ret_addr;
	if (unlikely(ri->fp != frame_pointer || is_kretprobe_trampoline(real) ||
		     kretprobe_foreign_trampoline(real))) {
		kretprobe_return_slow(regs, frame_pointer);
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
