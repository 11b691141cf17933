// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Kprobes: where a probe may go.
 *
 *  - The blacklist: NOKPROBE_SYMBOL() entries of the kernel and of each
 *    module, .kprobes.text, .noinstr.text and the arch's (entry text),
 *    as an RCU list that hw_breakpoint and kgdb read too.
 *  - Addresses: a probe's symbol and offset resolved, and moved past an
 *    ENDBR at a function's entry by the arch.
 *  - The checks of register_kprobe(): kernel or module text, not
 *    blacklisted, not text another patcher owns (jump labels, static
 *    calls, alternatives, BUG() sites, CFI traps), a module kept alive
 *    while it is probed; and whether the address is an ftrace site.
 *
 * Locking: the blacklist changes under kprobe_mutex (module load and
 * unload) and is read locklessly; the checks run before kprobe_mutex is
 * taken, under the locks of the text owners they ask.
 */

#include <linux/kprobes.h>
#include <linux/kprobes_backend.h>
#include <linux/kallsyms.h>
#include <linux/extable.h>
#include <linux/module.h>
#include <linux/memory.h>
#include <linux/jump_label.h>
#include <linux/static_call.h>
#include <linux/ftrace.h>
#include <linux/bug.h>
#include <linux/cfi.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include <asm/sections.h>

#include "kprobes_internal.h"

/* ---- the blacklist ------------------------------------------------------- */

/* kprobe_mutex; read locklessly (RCU list) by within_kprobe_blacklist() */
LIST_HEAD(kprobe_blacklist);

/**
 * within_kprobe_blacklist() - is this address one kprobes must not probe?
 * @addr: a kernel text address
 *
 * Also used by hw_breakpoint and kgdb to keep off the same code.
 *
 * Return: true if @addr is blacklisted.
 */
bool within_kprobe_blacklist(unsigned long addr)
{
	struct kprobe_blacklist_entry *ent;
	bool found = false;

	rcu_read_lock();
	list_for_each_entry_rcu(ent, &kprobe_blacklist, list) {
		if (addr >= ent->start_addr && addr < ent->end_addr) {
			found = true;
			break;
		}
	}
	rcu_read_unlock();
#ifdef CONFIG_KPROBES_CLASSIC
	/* arm's and powerpc's early and idmap text, by address range */
	found = found || arch_within_kprobe_blacklist(addr);
#endif
	return found;
}

/**
 * kprobe_add_area_blacklist() - blacklist an address range
 * @start: first address
 * @end: one past the last address
 *
 * Return: 0, or -ENOMEM.
 */
int kprobe_add_area_blacklist(unsigned long start, unsigned long end)
{
	struct kprobe_blacklist_entry *ent;

	ent = kmalloc(sizeof(*ent), GFP_KERNEL);
	if (!ent)
		return -ENOMEM;
	ent->start_addr = start;
	ent->end_addr = end;
	INIT_LIST_HEAD(&ent->list);
	list_add_tail_rcu(&ent->list, &kprobe_blacklist);
	return 0;
}

/**
 * kprobe_add_ksym_blacklist() - blacklist the function containing an address
 * @entry: an address inside the function
 *
 * Return: 0, -EINVAL if @entry is in no known function, or -ENOMEM.
 */
int kprobe_add_ksym_blacklist(unsigned long entry)
{
	unsigned long size, offset;

	if (!kernel_text_address(entry) ||
	    !kallsyms_lookup_size_offset(entry, &size, &offset))
		return -EINVAL;
	return kprobe_add_area_blacklist(entry - offset, entry - offset + size);
}

static void kprobe_blacklist_add_table(unsigned long *start, unsigned long *end)
{
	unsigned long *iter;

	for (iter = start; iter < end; iter++) {
		unsigned long entry = (unsigned long)dereference_symbol_descriptor((void *)*iter);

		if (kprobe_add_ksym_blacklist(entry) == -ENOMEM)
			return;
	}
}

#ifdef CONFIG_MODULES
/* remove every entry inside [start, end) (a module going away) */
void kprobe_blacklist_remove_range(unsigned long start, unsigned long end)
{
	struct kprobe_blacklist_entry *ent, *n;

	kprobe_assert_locked();
	list_for_each_entry_safe(ent, n, &kprobe_blacklist, list) {
		if (ent->start_addr >= start && ent->start_addr < end) {
			list_del_rcu(&ent->list);
			kfree_rcu_mightsleep(ent);
		}
	}
}
#endif

void __init kprobe_blacklist_init(void)
{
	kprobe_blacklist_add_table(__start_kprobe_blacklist, __stop_kprobe_blacklist);
	kprobe_add_area_blacklist((unsigned long)__kprobes_text_start,
				  (unsigned long)__kprobes_text_end);
	kprobe_add_area_blacklist((unsigned long)__noinstr_text_start,
				  (unsigned long)__noinstr_text_end);
	arch_populate_kprobe_blacklist();
}

/* ---- addresses ----------------------------------------------------------- */

/**
 * kprobe_lookup_name() - resolve a symbol ("sym" or "mod:sym") to an address
 * @name: the symbol
 * @offset: unused; kept for the API trace_kprobe calls
 *
 * Return: the address, or NULL.
 */
kprobe_opcode_t * __weak kprobe_lookup_name(const char *name,
					    unsigned int offset)
{
	return (kprobe_opcode_t *)kallsyms_lookup_name(name);
}

/*
 * The address a probe asks for: addr, or symbol_name + offset (never
 * both), as the arch places it: past an ENDBR at a function entry
 * (x86), at the local entry point or the ftrace call (powerpc).
 */
kprobe_opcode_t *kprobe_resolve(kprobe_opcode_t *addr,
				const char *symbol_name, unsigned long offset,
				bool *on_entry)
{
	kprobe_opcode_t *p;
	unsigned long a;

	if ((symbol_name && addr) || (!symbol_name && !addr))
		return ERR_PTR(-EINVAL);
	if (symbol_name) {
		/* 'sym' with a '.' suffix (a clone) is matched as written */
		a = (unsigned long)kprobe_lookup_name(symbol_name, offset);
		if (!a)
			return ERR_PTR(-ENOENT);
	} else {
		a = (unsigned long)addr;
	}
	a += offset;
	/*
	 * As in 6.12, the arch gets the function's start and the offset into
	 * it, and re-combines them (powerpc's backend adds them up itself).
	 */
	if (!kprobe_sym_size_offset(a, NULL, &offset))
		return ERR_PTR(symbol_name ? -ENOENT : -EINVAL);
	*on_entry = false;
	p = arch_adjust_kprobe_addr(a - offset, offset, on_entry);
	return p ?: ERR_PTR(-EINVAL);
}

/**
 * kprobe_on_func_entry() - is this probe point a function's entry?
 * @addr: address, or NULL
 * @sym: symbol name, or NULL
 * @offset: offset from @addr or @sym
 *
 * Return: 0 if it is, -EINVAL if it is not (or the arguments are bad),
 * -ENOENT if the symbol is unknown.
 */
int kprobe_on_func_entry(kprobe_opcode_t *addr, const char *sym,
			 unsigned long offset)
{
	bool on_entry;
	kprobe_opcode_t *a = kprobe_resolve(addr, sym, offset, &on_entry);

	if (IS_ERR(a))
		return PTR_ERR(a);
	return on_entry ? 0 : -EINVAL;
}

/* ---- safety checks --------------------------------------------------------- */

/**
 * kprobe_check_ftrace() - does ftrace own the bytes at addr?
 * @addr: the probe address
 * @ftrace: set if @addr is an fentry site (probe it through ftrace)
 *
 * Return: 0; -EILSEQ if @addr is inside an fentry site; -EINVAL if it is
 * one but kprobes on ftrace are not configured.
 */
int kprobe_check_ftrace(unsigned long addr, bool *ftrace)
{
	unsigned long loc;

	/*
	 * One lookup of the fentry records answers both questions:
	 * ftrace_location() would add a symbol lookup to map sym+0 to its
	 * fentry site, which kprobe_resolve() already did (the ENDBR rule).
	 */
	*ftrace = false;
#ifdef CONFIG_DYNAMIC_FTRACE
	loc = ftrace_location_range(addr, addr);
#else
	loc = 0;	/* no fentry records at all */
#endif
	if (!loc)
		return 0;
	if (loc != addr)
		return -EILSEQ;
	if (!IS_ENABLED(CONFIG_KPROBES_ON_FTRACE))
		return -EINVAL;
	*ftrace = true;
	return 0;
}

/*
 * Do jump labels or static calls own bytes in [start, end]?  Their own
 * answers, under their rules: jump_label_lock() held, and text_mutex,
 * which the arch's check (arch_kprobe_text_patched()) wants too.  With
 * the indexes kprobe_index_prepare() asked for, each is a binary search.
 */
static bool kprobe_patchers_own(unsigned long start, unsigned long end)
{
	lockdep_assert_held(&text_mutex);
	return jump_label_text_reserved((void *)start, (void *)end) ||
	       static_call_text_reserved((void *)start, (void *)end);
}

/*
 * Is addr text that someone else owns or that must never trap?  Answers
 * with the errno register_kprobe() returns:
 *  -EINVAL  not kernel text, blacklisted, a BUG()/CFI trap site, the gate
 *  -EBUSY   a site another patcher rewrites (jump labels, static calls,
 *           alternatives, ftrace bytes other than a whole fentry site)
 *  -ENOENT  module text whose module is going away
 */
/**
 * kprobe_text_reserved() - do other patchers own bytes in [start, end]?
 * @start: first byte
 * @end: last byte
 *
 * Jump labels, static calls, the arch's own patching (x86: alternatives) and
 * ftrace, taken with their own locks as kprobe_check_text() does.
 *
 * Return: non-zero if one of them does.
 */
int kprobe_text_reserved(unsigned long start, unsigned long end)
{
	int ret;

	kprobe_index_prepare();
	jump_label_lock();
	mutex_lock(&text_mutex);
	ret = kprobe_patchers_own(start, end) ||
	      arch_kprobe_text_patched(start, end + 1) ||
	      ftrace_text_reserved((void *)start, (void *)end);
	mutex_unlock(&text_mutex);
	jump_label_unlock();
	return ret;
}

/*
 * A module's init text is freed once its init ran: an address there is
 * probe-able only while the module is still coming up.
 */
static bool kprobe_module_init_freed(struct module *mod, unsigned long addr)
{
#ifdef CONFIG_MODULES
	return within_module_init(addr, mod) && mod->state != MODULE_STATE_COMING;
#else
	return false;	/* no module text at all */
#endif
}

int kprobe_check_text(unsigned long addr, struct module **probed_mod)
{
	struct module *mod;
	bool core;
	int ret = 0;

	*probed_mod = NULL;
	kprobe_index_prepare();
	/*
	 * The patchers' own locks, in their order (jump_label_mutex, then
	 * text_mutex), so none of them is mid-way through adding sites
	 * while we look; the arch's own check may assert text_mutex.
	 */
	jump_label_lock();
	mutex_lock(&text_mutex);
	preempt_disable();
	/* one module lookup, valid until preempt_enable() */
	core = core_kernel_text(addr);
	mod = core ? NULL : __module_text_address(addr);
	if (!(core || mod) || in_gate_area_no_mm(addr) ||
	    within_kprobe_blacklist(addr) ||
	    find_bug(addr) || is_cfi_trap(addr)) {
		ret = -EINVAL;
		goto out;
	}
	/*
	 * Jump labels and static calls take an inclusive range; the arch's
	 * check an exclusive end, so (addr, addr) would never match there:
	 * ask about the byte at addr (where x86 has its LOCK_PREFIX).
	 */
	if (kprobe_patchers_own(addr, addr) ||
	    arch_kprobe_text_patched(addr, addr + 1)) {
		ret = -EBUSY;
		goto out;
	}
	if (mod) {
		/* hold the module while its text is patched */
		if (unlikely(!try_module_get(mod))) {
			ret = -ENOENT;
			goto out;
		}
		/* init text that was already freed */
		if (kprobe_module_init_freed(mod, addr)) {
			module_put(mod);
			ret = -ENOENT;
			goto out;
		}
		*probed_mod = mod;
	}
out:
	preempt_enable();
	mutex_unlock(&text_mutex);
	jump_label_unlock();
	return ret;
}
