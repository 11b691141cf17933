// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Kernel Probes (kprobes): registration's lookups in O(log n).
 *
 * Kprobes' sorted indexes for what registration asks about an address
 * and the kernel's own helpers answer by walking a whole table: which
 * function it is in, whether jump labels or static calls own its bytes,
 * whether it is a BUG() site, whether a static branch jumps to it, and
 * where its function's cold parts are.  A registration of every
 * function, or of 10 000 module functions, would pay each walk per
 * probe.  Nothing here is on the hit path.
 */

#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/kprobes.h>
#include <linux/kallsyms.h>
#include <linux/module.h>
#include <linux/module_symbol.h>
#include <linux/jump_label.h>
#include <linux/static_call.h>
#include <linux/bug.h>
#include <linux/memory.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>

#include <asm/sections.h>

#include "kprobes_internal.h"

/*
 * Guards building the kernel's indexes and the module symbol indexes'
 * list.  The innermost lock: taken under jump_label_mutex, text_mutex and
 * kprobe_mutex, it takes none itself.  The kernel's indexes are read
 * without it once published: they never change.
 */
static DEFINE_MUTEX(kprobe_index_mutex);

/* ---- the kernel's patch-site and bug-site indexes ---------------------------- */

/* an entry: offset from _stext above, length (1..7 bytes) in the low bits */
#define KPROBE_IDX_LEN_BITS	3
#define KPROBE_IDX_MAX_LEN	((1U << KPROBE_IDX_LEN_BITS) - 1)
#define KPROBE_IDX_MAX_OFF	(U32_MAX >> KPROBE_IDX_LEN_BITS)

struct kprobe_text_index {
	u32 *ent;
	unsigned int n;
};

static struct kprobe_text_index kprobe_patch_index;	/* jump labels, static calls */
static struct kprobe_text_index kprobe_bug_index;	/* BUG() sites */
static struct kprobe_text_index kprobe_target_index;	/* jump label targets */

enum {
	KPROBE_IDX_NONE,	/* not built yet: the kernel's helpers answer */
	KPROBE_IDX_READY,	/* built: the indexes answer */
	KPROBE_IDX_FAILED,	/* could not be built: the helpers answer, always */
};

static int kprobe_index_state;

#ifdef CONFIG_HAVE_STATIC_CALL_INLINE
/* the kernel's static call sites (kernel/static_call_inline.c walks them too) */
extern struct static_call_site __start_static_call_sites[],
			       __stop_static_call_sites[];

static unsigned long kprobe_static_call_addr(struct static_call_site *site)
{
	return (long)&site->addr + site->addr;
}
#endif

#ifdef CONFIG_GENERIC_BUG
/* the kernel's BUG() sites (lib/bug.c walks them too) */
extern struct bug_entry __start___bug_table[], __stop___bug_table[];

static unsigned long kprobe_bug_addr(const struct bug_entry *bug)
{
#ifdef CONFIG_GENERIC_BUG_RELATIVE_POINTERS
	return (unsigned long)&bug->bug_addr_disp + bug->bug_addr_disp;
#else
	return bug->bug_addr;
#endif
}
#endif

/*
 * Append [addr, addr + len) to an index being built.
 * Return: false if the entry cannot be represented.
 */
static bool kprobe_idx_add(struct kprobe_text_index *idx, unsigned long addr,
			   unsigned int len)
{
	unsigned long off = addr - (unsigned long)_stext;

	if (!len || len > KPROBE_IDX_MAX_LEN || off > KPROBE_IDX_MAX_OFF)
		return false;
	idx->ent[idx->n++] = (u32)off << KPROBE_IDX_LEN_BITS | len;
	return true;
}

/*
 * The kernel's text once it runs.  Sites outside it are in init text
 * (freed, never probe-able again): the builders leave them out before
 * asking their size, which decodes the (gone) bytes.
 */
static bool kprobe_in_core_text(unsigned long addr)
{
	return addr >= (unsigned long)_stext && addr < (unsigned long)_etext;
}

static int kprobe_idx_cmp(const void *a, const void *b)
{
	u32 x = *(const u32 *)a, y = *(const u32 *)b;

	return x < y ? -1 : x > y;
}

static bool kprobe_idx_alloc(struct kprobe_text_index *idx, size_t max)
{
	idx->n = 0;
	idx->ent = max ? kvmalloc_array(max, sizeof(u32), GFP_KERNEL) : NULL;
	return !max || idx->ent;
}

static bool kprobe_build_patch_index(void)
{
	struct kprobe_text_index *idx = &kprobe_patch_index;
	size_t max = 0;

#ifdef CONFIG_JUMP_LABEL
	struct jump_entry *je;

	max += __stop___jump_table - __start___jump_table;
#endif
#ifdef CONFIG_HAVE_STATIC_CALL_INLINE
	struct static_call_site *sc;

	max += __stop_static_call_sites - __start_static_call_sites;
#endif
	if (!kprobe_idx_alloc(idx, max))
		return false;
#ifdef CONFIG_JUMP_LABEL
	for (je = __start___jump_table; je < __stop___jump_table; je++) {
		unsigned long code = jump_entry_code(je);

		if (kprobe_in_core_text(code) &&
		    !kprobe_idx_add(idx, code, jump_entry_size(je)))
			return false;
	}
#endif
#ifdef CONFIG_HAVE_STATIC_CALL_INLINE
	for (sc = __start_static_call_sites; sc < __stop_static_call_sites; sc++) {
		unsigned long addr = kprobe_static_call_addr(sc);

		if (kprobe_in_core_text(addr) &&
		    !kprobe_idx_add(idx, addr, CALL_INSN_SIZE))
			return false;
	}
#endif
	sort(idx->ent, idx->n, sizeof(u32), kprobe_idx_cmp, NULL);
	return true;
}

/* where the kernel's static branches jump to (length 1: exact matches) */
static bool kprobe_build_target_index(void)
{
	struct kprobe_text_index *idx = &kprobe_target_index;
#ifdef CONFIG_JUMP_LABEL
	struct jump_entry *je;

	if (!kprobe_idx_alloc(idx, __stop___jump_table - __start___jump_table))
		return false;
	for (je = __start___jump_table; je < __stop___jump_table; je++) {
		unsigned long target = jump_entry_target(je);

		if (kprobe_in_core_text(jump_entry_code(je)) &&
		    kprobe_in_core_text(target) &&
		    !kprobe_idx_add(idx, target, 1))
			return false;
	}
	sort(idx->ent, idx->n, sizeof(u32), kprobe_idx_cmp, NULL);
#else
	idx->n = 0;
#endif
	return true;
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

static bool kprobe_build_bug_index(void)
{
	struct kprobe_text_index *idx = &kprobe_bug_index;
#ifdef CONFIG_GENERIC_BUG
	struct bug_entry *bug;

	if (!kprobe_idx_alloc(idx, __stop___bug_table - __start___bug_table))
		return false;
	for (bug = __start___bug_table; bug < __stop___bug_table; bug++) {
		unsigned long addr = kprobe_bug_addr(bug);

		if (kprobe_in_core_text(addr) && !kprobe_idx_add(idx, addr, 1))
			return false;
	}
	sort(idx->ent, idx->n, sizeof(u32), kprobe_idx_cmp, NULL);
#else
	idx->n = 0;	/* no bug table: find_bug() finds nothing either */
#endif
	return true;
}

/**
 * kprobe_index_prepare() - build the kernel's site indexes if it is time
 *
 * Called (may sleep) before the queries of a registration, which may run
 * with preemption off.  Each index is a sorted array of one u32 per site
 * of the core kernel, ((addr - _stext) << 3) | length: the patch-site
 * index for jump label and static call sites, the bug-site index for
 * BUG() sites (length 1), the target index for where static branches jump
 * to (length 1); the cold parts of its functions come with them (struct
 * kprobe_cold_part).  Core text never changes its sites after boot, so
 * the first call once the system runs builds them, once (init text is
 * then gone, and its sites with it).  Before that, or if an index could
 * not be built, the kernel's helpers answer.
 */
void kprobe_index_prepare(void)
{
	/* pairs with the release below: a READY index is seen whole */
	if (smp_load_acquire(&kprobe_index_state) != KPROBE_IDX_NONE ||
	    system_state < SYSTEM_RUNNING)
		return;
	mutex_lock(&kprobe_index_mutex);
	if (kprobe_index_state == KPROBE_IDX_NONE) {
		int state = KPROBE_IDX_READY;

		if (!kprobe_build_patch_index() || !kprobe_build_bug_index() ||
		    !kprobe_build_target_index() || !kprobe_build_cold_index()) {
			kvfree(kprobe_patch_index.ent);
			kvfree(kprobe_bug_index.ent);
			kvfree(kprobe_target_index.ent);
			kvfree(kprobe_cold);
			kprobe_patch_index.n = 0;
			kprobe_bug_index.n = 0;
			kprobe_target_index.n = 0;
			kprobe_cold = NULL;
			kprobe_cold_n = 0;
			state = KPROBE_IDX_FAILED;
			pr_warn("no site index; registration walks the kernel's tables\n");
		}
		/* publish the entries before the state that says to use them */
		smp_store_release(&kprobe_index_state, state);
	}
	mutex_unlock(&kprobe_index_mutex);
}

/*
 * Does an entry of idx overlap [start, end] (core text, inclusive)?
 * Entries start at most KPROBE_IDX_MAX_LEN - 1 bytes before start, so
 * the candidates are the entries whose offset is in
 * (start - KPROBE_IDX_MAX_LEN, end]: a binary search for the first, then
 * a short walk.
 */
static bool kprobe_idx_overlaps(struct kprobe_text_index *idx,
				unsigned long start, unsigned long end)
{
	unsigned long s = start - (unsigned long)_stext;
	unsigned long e = end - (unsigned long)_stext;
	unsigned long from = s >= KPROBE_IDX_MAX_LEN ? s - KPROBE_IDX_MAX_LEN + 1 : 0;
	unsigned int lo = 0, hi = idx->n;

	/* first entry with offset >= from */
	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if ((idx->ent[mid] >> KPROBE_IDX_LEN_BITS) < from)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < idx->n; lo++) {
		unsigned long off = idx->ent[lo] >> KPROBE_IDX_LEN_BITS;
		unsigned int len = idx->ent[lo] & KPROBE_IDX_MAX_LEN;

		if (off > e)
			break;
		if (off + len > s)
			return true;
	}
	return false;
}

static bool kprobe_index_ready(unsigned long start, unsigned long end)
{
	/* pairs with kprobe_index_prepare()'s release */
	return smp_load_acquire(&kprobe_index_state) == KPROBE_IDX_READY &&
	       kprobe_in_core_text(start) && kprobe_in_core_text(end);
}

/* ---- a module's own tables --------------------------------------------------- */

#ifdef CONFIG_MODULES
/* any patch site is shorter than this: a candidate starts at most this far back */
#define KPROBE_MOD_SITE_WINDOW	16

static bool kprobe_span_overlaps(unsigned long addr, unsigned long len,
				 unsigned long start, unsigned long end)
{
	return addr <= end && addr + len > start;
}

/*
 * The module's jump labels and static calls, as the kernel's helpers
 * see them: init sites count only while the module is coming (its init
 * text is freed after that).  A module's text holds none of the kernel's
 * sites and no other module's, so its own tables, which are short, answer
 * for its addresses alone.  Called with preemption off.
 */
static bool kprobe_mod_patched(struct module *mod, unsigned long start,
			       unsigned long end)
{
	bool init = mod->state == MODULE_STATE_COMING;
	unsigned int i;

#ifdef CONFIG_JUMP_LABEL
	for (i = 0; i < mod->num_jump_entries; i++) {
		struct jump_entry *je = &mod->jump_entries[i];
		unsigned long code = jump_entry_code(je);

		if (!init && jump_entry_is_init(je))
			continue;
		/* decode (jump_entry_size()) only what may overlap */
		if (kprobe_span_overlaps(code, KPROBE_MOD_SITE_WINDOW, start, end) &&
		    kprobe_span_overlaps(code, jump_entry_size(je), start, end))
			return true;
	}
#endif
#ifdef CONFIG_HAVE_STATIC_CALL_INLINE
	for (i = 0; i < mod->num_static_call_sites; i++) {
		struct static_call_site *sc = &mod->static_call_sites[i];

		if (!init && (sc->key & STATIC_CALL_SITE_INIT))
			continue;
		if (kprobe_span_overlaps(kprobe_static_call_addr(sc),
					 CALL_INSN_SIZE, start, end))
			return true;
	}
#endif
	return false;
}

static bool kprobe_mod_bug(struct module *mod, unsigned long addr)
{
#ifdef CONFIG_GENERIC_BUG
	unsigned int i;

	for (i = 0; i < mod->num_bugs; i++)
		if (kprobe_bug_addr(&mod->bug_table[i]) == addr)
			return true;
#endif
	return false;
}
#endif /* CONFIG_MODULES */

/**
 * kprobe_patched_text() - do jump labels or static calls own [start, end]?
 * @start: first byte (kernel or module text)
 * @end: last byte, in the same text
 *
 * What jump_label_text_reserved() || static_call_text_reserved() answer,
 * from the indexes: those walk every site of the kernel, then of the
 * module, and jump_entry_size() decodes each entry on the way.  The
 * caller holds jump_label_lock() and text_mutex, and called
 * kprobe_index_prepare().
 *
 * Return: true if one of them does.
 */
bool kprobe_patched_text(unsigned long start, unsigned long end)
{
#ifdef CONFIG_MODULES
	struct module *mod;
	bool ret = false;
#endif

	lockdep_assert_held(&text_mutex);
	if (kprobe_index_ready(start, end))
		return kprobe_idx_overlaps(&kprobe_patch_index, start, end);
#ifdef CONFIG_MODULES
	preempt_disable();
	mod = __module_text_address(start);
	if (mod)
		ret = kprobe_mod_patched(mod, start, end);
	preempt_enable();
	if (mod)
		return ret;
#endif
	return jump_label_text_reserved((void *)start, (void *)end) ||
	       static_call_text_reserved((void *)start, (void *)end);
}

/**
 * kprobe_bug_site() - is addr a BUG()/WARN() trap?
 * @addr: kernel or module text
 *
 * What find_bug() answers, from the indexes (it walks the kernel's whole
 * bug table).  Called after kprobe_index_prepare(), with preemption off.
 *
 * Return: true if it is.
 */
bool kprobe_bug_site(unsigned long addr)
{
#ifdef CONFIG_MODULES
	struct module *mod;
#endif

	if (kprobe_index_ready(addr, addr))
		return kprobe_idx_overlaps(&kprobe_bug_index, addr, addr);
#ifdef CONFIG_MODULES
	mod = __module_text_address(addr);
	if (mod)
		return kprobe_mod_bug(mod, addr);
#endif
	return find_bug(addr);
}

/**
 * kprobe_jump_target() - does a static branch jump to addr?
 * @addr: kernel or module text
 *
 * A disabled static branch is a nop that may become a jump to @addr at
 * any time: code that relies on nothing else jumping there (a carrier)
 * asks this.  From the index in core text (the jump table is sorted by
 * key, not target); else from the kernel's or the module's own table,
 * under jump_label_lock().  May sleep.
 *
 * Return: true if one does.
 */
bool kprobe_jump_target(unsigned long addr)
{
#ifdef CONFIG_JUMP_LABEL
	struct jump_entry *e = __start___jump_table, *stop = __stop___jump_table;
	struct module *mod;
	bool found = false;

	if (kprobe_index_ready(addr, addr))
		return kprobe_idx_overlaps(&kprobe_target_index, addr, addr);
	jump_label_lock();
	preempt_disable();
	mod = __module_text_address(addr);
	if (mod) {
		e = mod->jump_entries;
		stop = e + mod->num_jump_entries;
	}
	for (; e < stop && !found; e++)
		found = jump_entry_target(e) == addr;
	preempt_enable();
	jump_label_unlock();
	return found;
#else
	return false;
#endif
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
