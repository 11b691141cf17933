// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Kernel Probes (kprobes): registration's lookups in O(log n).
 *
 * Registration asks about each probe's address: which function it is in,
 * where that function's cold parts are, and whether jump labels, static
 * calls or the bug table own it.  The kernel's helpers answer some of
 * these by walking a whole table, which a registration of every function,
 * or of 10 000 module functions, would pay per probe.  The indexes of
 * kallsyms' answers live here; jump_label.c, static_call_inline.c and
 * lib/bug.c index their own tables when kprobe_index_prepare() asks.
 * Nothing here is on the hit path.
 */

#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/kprobes.h>
#include <linux/kallsyms.h>
#include <linux/module.h>
#include <linux/module_symbol.h>
#include <linux/jump_label.h>
#include <linux/static_call.h>
#include <linux/bug.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>

#include <asm/sections.h>

#include "kprobes_internal.h"

/*
 * Guards building the cold-part index and the module symbol indexes'
 * list.  It takes no other lock while held, so it nests inside any lock
 * registration holds.  The cold-part index is read without it once
 * published: it never changes.
 */
static DEFINE_MUTEX(kprobe_index_mutex);

/* ---- the kernel's cold parts ------------------------------------------------ */

enum {
	KPROBE_IDX_NONE,	/* not built yet: no answer */
	KPROBE_IDX_READY,	/* built: the index answers */
	KPROBE_IDX_FAILED,	/* could not be built: no answer, ever */
};

static int kprobe_index_state;

/*
 * The kernel's text once it runs.  Cold parts outside it are in init
 * text, freed and never probe-able again.
 */
static bool kprobe_in_core_text(unsigned long addr)
{
	return addr >= (unsigned long)_stext && addr < (unsigned long)_etext;
}

/*
 * The kernel's cold parts: gcc moves a function's unlikely blocks into
 * "<name>.cold" (gcc 8 and 9: "<name>.cold.N"), placed far away and
 * jumping back into the function.  Finding them for a function by name
 * costs a name lookup per probe (kallsyms_lookup() expands names), and
 * a search over kallsyms' names; one pass over the kernel's symbols
 * instead records every cold part under the start of each function of
 * its name (a static name may be several functions': each gets the
 * part), sorted by function.
 */
struct kprobe_cold_part {
	u32 func;	/* the function's address - _stext */
	u32 off;	/* the part's address - _stext */
};

static struct kprobe_cold_part *kprobe_cold;
static unsigned int kprobe_cold_n, kprobe_cold_max;
static char kprobe_cold_name[KSYM_NAME_LEN];	/* under kprobe_index_mutex */

/* a function named as the part at *data: record the pair */
static int kprobe_cold_parent(void *data, unsigned long func)
{
	struct kprobe_cold_part *p;
	unsigned int max;

	if (!kprobe_in_core_text(func))
		return 0;
	if (kprobe_cold_n == kprobe_cold_max) {
		max = max(2 * kprobe_cold_max, 64U);
		p = kvrealloc(kprobe_cold, array_size(max, sizeof(*p)),
			      GFP_KERNEL);
		if (!p)
			return -ENOMEM;
		kprobe_cold = p;
		kprobe_cold_max = max;
	}
	p = &kprobe_cold[kprobe_cold_n++];
	p->func = func - (unsigned long)_stext;
	p->off = *(unsigned long *)data - (unsigned long)_stext;
	return 0;
}

static int kprobe_cold_add(void *unused, const char *name, unsigned long addr)
{
	const char *c = strstr(name, ".cold");

	if (!c || c == name || (c[5] && c[5] != '.') ||
	    !kprobe_in_core_text(addr))
		return 0;
	strscpy(kprobe_cold_name, name, c - name + 1);
	return kallsyms_on_each_match_symbol(kprobe_cold_parent,
					     kprobe_cold_name, &addr);
}

static int kprobe_cold_cmp(const void *a, const void *b)
{
	const struct kprobe_cold_part *x = a, *y = b;

	if (x->func != y->func)
		return x->func < y->func ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

static bool kprobe_build_cold_index(void)
{
	kprobe_cold_n = 0;
	if (kallsyms_on_each_symbol(kprobe_cold_add, NULL) < 0)
		return false;
	sort(kprobe_cold, kprobe_cold_n, sizeof(*kprobe_cold),
	     kprobe_cold_cmp, NULL);
	return true;
}

/**
 * kprobe_index_prepare() - build the indexes registration's lookups use
 *
 * Called (may sleep) before the queries of a registration, which may run
 * with preemption off.  Asks jump labels, static calls and the bug table
 * to index the kernel's sites (their owners keep those indexes), and
 * builds the index of the kernel's cold parts (struct kprobe_cold_part).
 * The kernel's text never changes its sites or symbols after boot, so
 * the first call once the system runs builds them, once (init text is
 * then gone, and its sites with it).  Before that, or if an index could
 * not be built, the walks answer.
 */
void kprobe_index_prepare(void)
{
	if (system_state < SYSTEM_RUNNING)
		return;
	jump_label_build_index();
	static_call_build_index();
	bug_table_build_index();
	/* pairs with the release below: a READY index is seen whole */
	if (smp_load_acquire(&kprobe_index_state) != KPROBE_IDX_NONE)
		return;
	mutex_lock(&kprobe_index_mutex);
	if (kprobe_index_state == KPROBE_IDX_NONE) {
		int state = KPROBE_IDX_READY;

		if (!kprobe_build_cold_index()) {
			kvfree(kprobe_cold);
			kprobe_cold = NULL;
			kprobe_cold_n = 0;
			state = KPROBE_IDX_FAILED;
			pr_warn("no cold-part index: no carriers in the kernel's text\n");
		}
		/* publish the entries before the state that says to use them */
		smp_store_release(&kprobe_index_state, state);
	}
	mutex_unlock(&kprobe_index_mutex);
}

/**
 * kprobe_cold_parts() - the cold parts of a kernel function
 * @func: the function's start
 * @fn: called with @data and each part's address; non-zero stops the walk
 * @data: for @fn
 *
 * Every part named after @func's name is passed, another function's of
 * the same name too: a caller that asks what jumps where only looks at
 * more code.
 *
 * Return: -ENOENT if the index cannot answer (not built yet, or failed,
 * or @func outside the kernel's text), else @fn's last return value, or 0.
 */
int kprobe_cold_parts(unsigned long func, int (*fn)(void *, unsigned long),
		      void *data)
{
	unsigned int lo = 0, hi, n;
	int ret = 0;
	u32 key;

	/* pairs with kprobe_index_prepare()'s release */
	if (smp_load_acquire(&kprobe_index_state) != KPROBE_IDX_READY ||
	    !kprobe_in_core_text(func))
		return -ENOENT;
	key = func - (unsigned long)_stext;
	n = kprobe_cold_n;
	hi = n;
	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (kprobe_cold[mid].func < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; !ret && lo < n && kprobe_cold[lo].func == key; lo++)
		ret = fn(data, (unsigned long)_stext + kprobe_cold[lo].off);
	return ret;
}

/* ---- per-module symbol indexes -------------------------------------------------- */

#ifdef CONFIG_MODULES
/*
 * The sorted start addresses of a module's named symbols, as kallsyms has
 * them, so that kprobe_sym_size_offset() answers what
 * find_kallsyms_symbol() would (a walk over every symbol of the module)
 * with a binary search.  Built on the first lookup in that module,
 * rebuilt when the module's symbol table changes (its init symbols go
 * when init ends), and freed when the module goes (GOING also follows a
 * failed COMING).  The kernel's own symbols need none: kallsyms searches
 * them in O(log n).
 */
struct kprobe_mod_syms {
	struct list_head list;
	struct module *mod;
	const struct mod_kallsyms *ks;	/* the table they came from */
	unsigned int n;
	unsigned long val[] __counted_by(n);
};

static LIST_HEAD(kprobe_mod_syms_list);

static int kprobe_ulong_cmp(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;

	return x < y ? -1 : x > y;
}

/*
 * Build mod's index from its current symbol table: the symbols
 * find_kallsyms_symbol() considers (defined, named, not a mapping
 * symbol; ELF's real symbols start at 1).  NULL if memory is short or
 * the table changed under us (the caller then asks kallsyms).
 */
static struct kprobe_mod_syms *kprobe_mod_syms_build(struct module *mod)
{
	struct kprobe_mod_syms *ms;
	struct mod_kallsyms *ks;
	unsigned int i, n, m = 0;

	rcu_read_lock();
	ks = rcu_dereference(mod->kallsyms);
	n = ks->num_symtab;
	rcu_read_unlock();

	ms = kvmalloc(struct_size(ms, val, n), GFP_KERNEL);
	if (!ms)
		return NULL;
	ms->n = n;

	rcu_read_lock();
	if (rcu_dereference(mod->kallsyms) != ks) {
		rcu_read_unlock();
		kvfree(ms);
		return NULL;
	}
	for (i = 1; i < n; i++) {
		const char *name = ks->strtab + ks->symtab[i].st_name;

		if (ks->symtab[i].st_shndx == SHN_UNDEF || !*name ||
		    is_mapping_symbol(name))
			continue;
		ms->val[m++] = kallsyms_symbol_value(&ks->symtab[i]);
	}
	rcu_read_unlock();

	ms->n = m;
	ms->mod = mod;
	ms->ks = ks;
	sort(ms->val, m, sizeof(unsigned long), kprobe_ulong_cmp, NULL);
	return ms;
}

static void kprobe_mod_syms_free(struct kprobe_mod_syms *ms)
{
	list_del(&ms->list);
	kvfree(ms);
}

/* mod's index, current or rebuilt; called with kprobe_index_mutex held */
static struct kprobe_mod_syms *kprobe_mod_syms_get(struct module *mod)
{
	struct kprobe_mod_syms *ms;
	const struct mod_kallsyms *ks = rcu_access_pointer(mod->kallsyms);

	list_for_each_entry(ms, &kprobe_mod_syms_list, list) {
		if (ms->mod != mod)
			continue;
		if (ms->ks == ks)
			return ms;
		kprobe_mod_syms_free(ms);	/* init symbols gone: rebuild */
		break;
	}
	ms = kprobe_mod_syms_build(mod);
	if (ms)
		list_add(&ms->list, &kprobe_mod_syms_list);
	return ms;
}

/*
 * find_kallsyms_symbol()'s answer: the last symbol at or below addr and
 * the next one above it, both inside the text region holding addr (its
 * bounds stand in when there is none above).
 */
static bool kprobe_mod_syms_find(struct kprobe_mod_syms *ms, struct module *mod,
				 unsigned long addr, unsigned long *size,
				 unsigned long *offset)
{
	unsigned long base = 0, limit = 0, best, next;
	unsigned int lo = 0, hi = ms->n;

	for_each_mod_mem_type(type) {
		if (mod_mem_type_is_text(type) &&
		    within_module_mem_type(addr, mod, type)) {
			base = (unsigned long)mod->mem[type].base;
			limit = base + mod->mem[type].size;
			break;
		}
	}
	if (!limit)
		return false;

	/* first symbol above addr */
	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (ms->val[mid] <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || ms->val[lo - 1] < base)
		return false;
	best = ms->val[lo - 1];
	next = lo < ms->n && ms->val[lo] < limit ? ms->val[lo] : limit;
	if (size)
		*size = next - best;
	if (offset)
		*offset = addr - best;
	return true;
}

/**
 * kprobe_index_module_going() - forget a module's symbol index
 * @mod: the module going away
 */
void kprobe_index_module_going(struct module *mod)
{
	struct kprobe_mod_syms *ms;

	mutex_lock(&kprobe_index_mutex);
	list_for_each_entry(ms, &kprobe_mod_syms_list, list) {
		if (ms->mod == mod) {
			kprobe_mod_syms_free(ms);
			break;
		}
	}
	mutex_unlock(&kprobe_index_mutex);
}
#endif /* CONFIG_MODULES */

/**
 * kprobe_sym_size_offset() - the function around addr: its size, addr's offset
 * @addr: a text address
 * @size: set to the function's size, if not NULL
 * @offset: set to @addr's offset into it, if not NULL
 *
 * kallsyms_lookup_size_offset(), answered from the module's symbol
 * index for an address in a coming or live module's text.  May sleep.
 *
 * Return: true if @addr is in a known function.
 */
bool kprobe_sym_size_offset(unsigned long addr, unsigned long *size,
			    unsigned long *offset)
{
#ifdef CONFIG_MODULES
	struct kprobe_mod_syms *ms = NULL;
	struct module *mod;
	bool found = false;

	mutex_lock(&kprobe_index_mutex);
	preempt_disable();
	mod = __module_text_address(addr);
	/*
	 * A coming or live module seen under the mutex stays until we drop
	 * it: its GOING notification (kprobe_index_module_going()) waits.
	 */
	if (mod && mod->state != MODULE_STATE_COMING &&
	    mod->state != MODULE_STATE_LIVE)
		mod = NULL;
	preempt_enable();
	if (mod) {
		ms = kprobe_mod_syms_get(mod);
		if (ms)
			found = kprobe_mod_syms_find(ms, mod, addr, size, offset);
	}
	mutex_unlock(&kprobe_index_mutex);
	if (ms)
		return found;
#endif
	return kallsyms_lookup_size_offset(addr, size, offset);
}
