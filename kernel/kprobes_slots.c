// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Kprobes instruction-slot cache.
 *
 * A probed instruction that is single-stepped runs from a copy, in a slot
 * of executable memory within reach of kernel and module text (so its
 * RIP-relative displacement can be fixed to point where the original
 * pointed).  Slots are carved out of pages from execmem (EXECMEM_KPROBES,
 * read-only + executable; written with text_poke()), KPROBE_SLOT_SIZE
 * bytes each, tracked by a bitmap per page.
 *
 * Rules:
 *  - get_insn_slot()/free_insn_slot() sleep (slot_mutex); callers hold
 *    kprobe_mutex.  A slot is freed only after a grace period since its
 *    site was disarmed (the core's batches guarantee it), so no CPU can
 *    still be executing in it.
 *  - is_kprobe_insn_slot() is called by the unwinders from any context,
 *    NMI included: it walks the page list under RCU, and pages are freed
 *    only after a grace period.
 *  - /proc/kallsyms names each page "kprobe_insn_page" in module
 *    [__builtin__kprobes] (kprobe_get_kallsym()) so profilers can attribute
 *    samples taken in a slot.
 *
 * A classic backend (kernel/kprobes_classic.c) gets MAX_INSN_SIZE opcodes
 * a slot, in pages from its alloc_insn_page() (writable or not, as that
 * backend writes its slots), and fills and clears them itself.
 */
#include <linux/kprobes.h>
#include <linux/kprobes_core.h>
#include <linux/execmem.h>
#include <linux/slab.h>
#include <linux/mutex.h>
#include <linux/memory.h>
#include <linux/rculist.h>
#include <linux/set_memory.h>
#include <linux/string.h>
#ifdef CONFIG_HAVE_KPROBE_SITES
#include <asm/text-patching.h>
#endif

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
	return pg;
}

/**
 * get_insn_slot() - allocate a slot for a copied instruction
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
 * The slot is refilled with int3.  A page left empty is freed, unless it
 * is the only one (most systems keep a few probes around).
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
 * Safe in any context (RCU list walk).
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
