// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Kprobes' instruction-slot cache: a probed instruction that is
 * single-stepped runs from a copy, in a slot of executable memory within
 * reach of kernel and module text (so its RIP-relative displacement can
 * be fixed to point where the original pointed).  Also the freeing of
 * retired sites, and the wait for every task to leave code kprobes is
 * about to change or free.
 */
#include <linux/kprobes.h>
#include <linux/kprobes_backend.h>
#include <linux/execmem.h>
#include <linux/slab.h>
#include <linux/mutex.h>
#include <linux/perf_event.h>
#include <linux/memory.h>
#include <linux/rculist.h>
#include <linux/rcupdate_wait.h>
#include <linux/set_memory.h>
#include <linux/string.h>
#include <linux/workqueue.h>
#ifdef CONFIG_HAVE_KPROBE_SITES
#include <asm/text-patching.h>
#endif

#include "kprobes_internal.h"

#ifdef CONFIG_HAVE_KPROBE_SITES
/* KPROBE_SLOT_SIZE (bytes) is the arch's: it knows what it puts in a slot */
#define KPROBE_SLOT_BYTES	KPROBE_SLOT_SIZE

static void *slot_page_get(void)
{
	void *base = execmem_alloc(EXECMEM_KPROBES, PAGE_SIZE);

	if (!base)
		return NULL;
	/* unused bytes trap: a stray jump into a free slot stops at once */
	memset(base, INT3_INSN_OPCODE, PAGE_SIZE);
	set_memory_rox((unsigned long)base, 1);
	return base;
}

static void slot_clear(kprobe_opcode_t *slot)
{
	/* text_poke_set() takes text_mutex itself */
	text_poke_set(slot, INT3_INSN_OPCODE, KPROBE_SLOT_BYTES);
}
#else
#define KPROBE_SLOT_BYTES	(MAX_INSN_SIZE * sizeof(kprobe_opcode_t))

/**
 * alloc_insn_page() - a page for the slot cache
 *
 * A classic backend that writes its slots through text patching (arm64,
 * s390) gives its own, read-only and executable.
 *
 * Return: the page, or NULL.
 */
void * __weak alloc_insn_page(void)
{
	return execmem_alloc(EXECMEM_KPROBES, PAGE_SIZE);
}

static void *slot_page_get(void)
{
	return alloc_insn_page();
}

static void slot_clear(kprobe_opcode_t *slot)
{
}
#endif
#define KPROBE_SLOTS_PER_PAGE	(PAGE_SIZE / KPROBE_SLOT_BYTES)

/*
 * A page of slots, tracked by a bitmap.  x86's pages come from execmem
 * (EXECMEM_KPROBES, read-only and executable, written with text_poke()),
 * KPROBE_SLOT_SIZE bytes a slot.  A classic backend gets MAX_INSN_SIZE
 * opcodes a slot, in pages from its alloc_insn_page() (writable or not,
 * as that backend writes its slots), and fills and clears them itself.
 */
struct kprobe_insn_page {
	struct list_head list;
	kprobe_opcode_t *base;
	unsigned int nused;
	DECLARE_BITMAP(used, KPROBE_SLOTS_PER_PAGE);
	struct rcu_head rcu;
};

static LIST_HEAD(slot_pages);
static DEFINE_MUTEX(slot_mutex);

static struct kprobe_insn_page *slot_page_alloc(void)
{
	struct kprobe_insn_page *pg;

	pg = kzalloc(sizeof(*pg), GFP_KERNEL);
	if (!pg)
		return NULL;
	pg->base = slot_page_get();
	if (!pg->base) {
		kfree(pg);
		return NULL;
	}
	list_add_tail_rcu(&pg->list, &slot_pages);
	/* perf's view of kernel text: samples in a slot get this name */
	perf_event_ksymbol(PERF_RECORD_KSYMBOL_TYPE_OOL, (unsigned long)pg->base,
			   PAGE_SIZE, false, "kprobe_insn_page");
	return pg;
}

/**
 * get_insn_slot() - allocate a slot for a copied instruction
 *
 * Sleeps (slot_mutex); the caller holds kprobe_mutex.
 *
 * Return: the slot (KPROBE_SLOT_SIZE bytes, filled with int3; for a
 * classic backend MAX_INSN_SIZE opcodes), or NULL.
 */
kprobe_opcode_t *get_insn_slot(void)
{
	struct kprobe_insn_page *pg;
	unsigned int i;

	guard(mutex)(&slot_mutex);
	list_for_each_entry(pg, &slot_pages, list) {
		if (pg->nused < KPROBE_SLOTS_PER_PAGE)
			goto found;
	}
	pg = slot_page_alloc();
	if (!pg)
		return NULL;
found:
	i = find_first_zero_bit(pg->used, KPROBE_SLOTS_PER_PAGE);
	__set_bit(i, pg->used);
	pg->nused++;
	return (void *)pg->base + i * KPROBE_SLOT_BYTES;
}

/**
 * free_insn_slot() - give a slot back
 * @slot: a slot from get_insn_slot(), no longer reachable by any CPU
 * @dirty: unused (slots are always freed after a grace period)
 *
 * A slot is freed only a grace period after its site was disarmed (the
 * core's batches see to it), so no CPU can still be executing in it.
 * The slot is refilled with int3.  A page left empty is freed, unless it
 * is the only one (most systems keep a few probes around).  Sleeps
 * (slot_mutex).
 */
void free_insn_slot(kprobe_opcode_t *slot, int dirty)
{
	struct kprobe_insn_page *pg;
	unsigned int i;

	guard(mutex)(&slot_mutex);
	list_for_each_entry(pg, &slot_pages, list) {
		if ((void *)slot < (void *)pg->base ||
		    (void *)slot >= (void *)pg->base + PAGE_SIZE)
			continue;
		i = ((void *)slot - (void *)pg->base) / KPROBE_SLOT_BYTES;
		if (WARN_ON_ONCE(!__test_and_clear_bit(i, pg->used)))
			return;
		slot_clear(slot);
		if (--pg->nused == 0 && !list_is_singular(&slot_pages)) {
			list_del_rcu(&pg->list);
			perf_event_ksymbol(PERF_RECORD_KSYMBOL_TYPE_OOL,
					   (unsigned long)pg->base, PAGE_SIZE,
					   true, "kprobe_insn_page");
			synchronize_rcu();	/* unwinders may be looking */
			execmem_free(pg->base);
			kfree(pg);
		}
		return;
	}
	WARN_ONCE(1, "kprobes: freeing unknown insn slot %p\n", slot);
}

/**
 * is_kprobe_insn_slot() - is this address inside a slot page?
 * @addr: any address
 *
 * Called by the unwinders from any context, NMI included: it walks the
 * page list under RCU, and a page is freed only a grace period after it
 * left the list.
 *
 * Return: true if @addr is in a slot page.
 */
bool is_kprobe_insn_slot(unsigned long addr)
{
	struct kprobe_insn_page *pg;
	bool ret = false;

	rcu_read_lock_sched_notrace();
	list_for_each_entry_rcu(pg, &slot_pages, list) {
		if (addr >= (unsigned long)pg->base &&
		    addr < (unsigned long)pg->base + PAGE_SIZE) {
			ret = true;
			break;
		}
	}
	rcu_read_unlock_sched_notrace();
	return ret;
}

NOKPROBE_SYMBOL(is_kprobe_insn_slot);

/**
 * kprobe_get_kallsym() - the symnum'th slot page, as a kallsyms entry
 * @symnum: index among the slot pages
 * @value: its address
 * @type: 't'
 * @sym: "kprobe_insn_page"
 *
 * /proc/kallsyms shows each page so, in module [__builtin__kprobes], and
 * perf hears of each page as it comes and goes (PERF_RECORD_KSYMBOL), so
 * profilers can attribute samples taken in a slot.
 *
 * Return: 0, or -ERANGE past the last page.
 */
int kprobe_get_kallsym(unsigned int symnum, unsigned long *value, char *type,
		       char *sym)
{
	struct kprobe_insn_page *pg;
	int ret = -ERANGE;

	rcu_read_lock();
	list_for_each_entry_rcu(pg, &slot_pages, list) {
		if (symnum--)
			continue;
		*value = (unsigned long)pg->base;
		*type = 't';
		strscpy(sym, "kprobe_insn_page", KSYM_NAME_LEN);
		ret = 0;
		break;
	}
	rcu_read_unlock();
	return ret;
}

/* ---- freeing retired sites --------------------------------------------- */

/*
 * Sites retired by a batch are freed after a grace period, off the
 * caller's path: a work item per batch (a shared one could run before
 * the grace period of sites added to it later).  It also waits for
 * every task to pass a voluntary switch (kprobe_sync_tasks()): a boosted
 * copy runs with interrupts on in its slot.
 */
struct kprobe_free_work {
	struct rcu_work rwork;
	struct list_head sites;
};

static void kprobe_free_sites(struct list_head *sites)
{
	struct kprobe_site *s, *n;

	list_for_each_entry_safe(s, n, sites, free_list) {
		list_del(&s->free_list);
		arch_release_site(s);
		kfree(s);
	}
}

static void kprobe_sync_tasks_fn(struct work_struct *unused)
{
}

/* declared by rcupdate.h only with it; kprobe_sync_tasks() asks IS_ENABLED() */
void synchronize_rcu_tasks_rude(void);

/*
 * Wait until no task is in code kprobes is about to overwrite or free (a
 * boosted copy, a region the optimizer overwrites, the instruction after
 * a fentry nop that a carrier held): every task passes a voluntary
 * switch.  Without PREEMPTION (no TASKS_RCU) a task there can only have
 * been interrupted, and resumes before its CPU runs anything else, so
 * every CPU passing through the scheduler is enough (the rude flavour,
 * which FUNCTION_TRACER selects, or a work item on each CPU);
 * synchronize_rcu() is not, since with PREEMPT_COUNT a tick that
 * interrupts such a task reports a quiescent state for it.  Sleeps; not
 * under cpus_read_lock().
 */
void kprobe_sync_tasks(void)
{
	if (IS_ENABLED(CONFIG_TASKS_RCU))
		synchronize_rcu_tasks();
	else if (IS_ENABLED(CONFIG_TASKS_RUDE_RCU))
		synchronize_rcu_tasks_rude();
	else if (schedule_on_each_cpu(kprobe_sync_tasks_fn))
		synchronize_rcu();	/* no memory for the works: the best left */
}

static void kprobe_free_sites_fn(struct work_struct *work)
{
	struct kprobe_free_work *fw =
		container_of(to_rcu_work(work), struct kprobe_free_work, rwork);

	kprobe_sync_tasks();
	kprobe_free_sites(&fw->sites);
	kfree(fw);
}

/*
 * Free the retired sites on @sites (via ->free_list; the list is left
 * empty) once no CPU or task can be in them: in the background, or here
 * if there is no memory to defer it.  Sleeps; without kprobe_mutex.
 */
void kprobe_free_sites_later(struct list_head *sites)
{
	struct kprobe_free_work *fw = kmalloc(sizeof(*fw), GFP_KERNEL);

	if (!fw) {
		synchronize_rcu();
		kprobe_sync_tasks();
		kprobe_free_sites(sites);
		return;
	}
	INIT_LIST_HEAD(&fw->sites);
	list_splice_init(sites, &fw->sites);
	INIT_RCU_WORK(&fw->rwork, kprobe_free_sites_fn);
	queue_rcu_work(system_unbound_wq, &fw->rwork);
}
