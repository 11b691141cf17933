// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Kernel Probes (kprobes): the arch-neutral core.
 *
 * What lives here
 * ---------------
 *  - The probe site (struct kprobe_site), our aggregate probe: one per
 *    probed address, owning the arch state (copied instruction, slot,
 *    original bytes) and an RCU list of the kprobes registered there, in
 *    registration order.  Every probe belongs to a site, even a lone one:
 *    there is no "become an aggregate on the second probe" transition, so
 *    adding or removing a probe never swaps the object the hit path finds.
 *  - The site hash table (kprobe_table): RCU hlist buckets keyed by
 *    address.  The hit path (int3, ftrace) looks a site up without locks.
 *  - Registration: address resolution, the safety checks (instruction
 *    boundary, blacklist, text owned by other patchers), arming and
 *    disarming in batches (one text_poke_sync() for a whole
 *    register_kprobes()/unregister_kprobes() call, whose IPI round also
 *    waits out the hits under way; retired sites are freed after a grace
 *    period, in the background).
 *  - Fentry sites: hooked on ftrace (two ftrace_ops, lingering hooks), or
 *    armed by a carrier, an int3 site on the instruction after the nop,
 *    when a registration arms few of them (no ftrace update); carriers
 *    that get no jump move onto the hook in the background.
 *  - The blacklist: NOKPROBE_SYMBOL() entries of the kernel and of each
 *    module, .kprobes.text, .noinstr.text, and the arch's (entry text).
 *  - Module load/unload and init-memory freeing.
 *
 * Elsewhere: kretprobes and their instance pools in kprobes_kretprobes.c,
 * the debugfs files in kprobes_debugfs.c, the slot cache in
 * kprobes_slots.c, jprobes in kprobes_jprobes.c, the jump optimizer in
 * kprobes_opt.c, the other arches' interface in kprobes_classic.c; the
 * x86 backend is arch/x86/kernel/kprobes/.
 *
 * Locking
 * -------
 *  kprobe_mutex serialises every change to sites, the hash table, the
 *  all-sites list and the blacklist.  The arch takes text_mutex around
 *  each poke (inside kprobe_mutex); ftrace sites change ftrace filters,
 *  which take text_mutex themselves, so the core holds it only for the
 *  reserved-text checks at register (outside kprobe_mutex).  The hit path
 *  takes no lock: it relies on
 *   (1) a site is in the hash table before its int3 is written, and stays
 *       there until after its int3 is removed and a grace period passed;
 *       its memory (and slot) is freed only after that grace period;
 *   (2) a probe is on its site's list before the site is armed for it,
 *       and its memory is not given back to the caller until every hit
 *       that might have seen it on the list has ended.  Hits run with
 *       interrupts off from the lookup to the last handler, so one IPI
 *       round to all CPUs (text_poke_sync()) waits them out; it is much
 *       cheaper than a grace period, which unregister_kprobe() would
 *       otherwise pay per call.  Kretprobes still wait a grace period:
 *       their trampoline runs with interrupts on.
 */

#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/kprobes.h>
#include <linux/kprobes_core.h>
#include <linux/hash.h>
#include <linux/init.h>
#include <linux/slab.h>
#include <linux/stddef.h>
#include <linux/export.h>
#include <linux/kallsyms.h>
#include <linux/extable.h>
#include <linux/module.h>
#include <linux/moduleloader.h>
#include <linux/memory.h>
#include <linux/cpu.h>
#include <linux/jump_label.h>
#include <linux/static_call.h>
#include <linux/ftrace.h>
#include <linux/perf_event.h>
#include <linux/sched/task.h>
#include <linux/llist.h>
#include <linux/bug.h>
#include <linux/cfi.h>
#include <linux/mm.h>
#include <linux/hashtable.h>
#include <linux/workqueue.h>
#include <linux/error-injection.h>
#include <linux/sysctl.h>

#include <asm/sections.h>
#include <linux/cacheflush.h>
#ifdef CONFIG_HAVE_KPROBE_SITES
#include <asm/text-patching.h>
#endif

/* ---- the site hash table ------------------------------------------------- */

/* KPROBE_HASH_BITS is in <linux/kprobes.h>: the hit path inlines lookups */
struct hlist_head kprobe_table[1 << KPROBE_HASH_BITS];

/* every site, live or gone, for debugfs and module walks; kprobe_mutex */
LIST_HEAD(kprobe_sites);
/* serialises registration, sites, the hash table and the blacklist */
DEFINE_MUTEX(kprobe_mutex);

/* sites on kprobe_sites that are out of the hash table (gone code) */
static unsigned int kprobe_nr_gone;

/* debugfs kprobes/enabled: 0 disarms every site, keeping their state */
bool kprobes_all_disarmed;

bool kprobes_initialized;

#ifdef CONFIG_HAVE_KPROBE_SITES
/* (a classic backend defines its own, with its own struct kprobe_ctlblk) */
DEFINE_PER_CPU(struct kprobe *, current_kprobe);
DEFINE_PER_CPU(struct kprobe_ctlblk, kprobe_ctlblk);
#endif

/**
 * kprobe_site_lookup() - find the live site at an address
 * @addr: the probed address
 *
 * Lock-free; the caller is in an RCU read-side section, or runs with
 * preemption disabled (the int3 and ftrace paths), or holds kprobe_mutex.
 *
 * Return: the site, or NULL.
 */
struct kprobe_site *kprobe_site_lookup(unsigned long addr)
{
	return __kprobe_site_lookup(addr);
}

NOKPROBE_SYMBOL(kprobe_site_lookup);

/* ---- counting misses ----------------------------------------------------- */

/**
 * kprobes_inc_nmissed_count() - count a hit that ran no handler
 * @p: the probe that was hit; every enabled probe of its site is charged
 */
void kprobes_inc_nmissed_count(struct kprobe *p)
{
	struct kprobe_site *s = p->site;
	struct kprobe *kp;

	if (!s) {
		kprobe_count_miss(&p->nmissed);
		return;
	}
	list_for_each_entry_rcu(kp, &s->probes, list) {
		if (!kprobe_disabled(kp))
			kprobe_count_miss(&kp->nmissed);
	}
}

NOKPROBE_SYMBOL(kprobes_inc_nmissed_count);

/* ---- running the handlers of a site -------------------------------------- */

/* a placeholder kprobe for kprobe_busy_begin(); never registered */
struct kprobe kprobe_busy;

/**
 * kprobe_busy_begin() - mark this CPU busy in a probe handler
 *
 * Used where handlers run outside the int3 path (fprobe, the kretprobe
 * trampoline): a probe hit meanwhile counts nmissed and runs nothing.
 */
void kprobe_busy_begin(void)
{
	preempt_disable();
#ifdef CONFIG_HAVE_KPROBE_SITES
	kprobe_frame_push(get_kprobe_ctlblk(), NULL, &kprobe_busy,
			  KPROBE_HIT_ACTIVE);
#else
	/* a classic backend's state is one level: nothing runs under this */
	__this_cpu_write(current_kprobe, &kprobe_busy);
	get_kprobe_ctlblk()->kprobe_status = KPROBE_HIT_ACTIVE;
#endif
}

NOKPROBE_SYMBOL(kprobe_busy_begin);

/**
 * kprobe_busy_end() - end a kprobe_busy_begin() section
 */
void kprobe_busy_end(void)
{
#ifdef CONFIG_HAVE_KPROBE_SITES
	kprobe_frame_pop(get_kprobe_ctlblk());
#else
	__this_cpu_write(current_kprobe, NULL);
#endif
	preempt_enable();
}

NOKPROBE_SYMBOL(kprobe_busy_end);

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
static void kprobe_blacklist_remove_range(unsigned long start, unsigned long end)
{
	struct kprobe_blacklist_entry *ent, *n;

	list_for_each_entry_safe(ent, n, &kprobe_blacklist, list) {
		if (ent->start_addr >= start && ent->start_addr < end) {
			list_del_rcu(&ent->list);
			kfree_rcu_mightsleep(ent);
		}
	}
}
#endif

static void kprobe_blacklist_init(void)
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
 * both), moved past an ENDBR at a function entry by the arch.
 */
kprobe_opcode_t *kprobe_resolve(kprobe_opcode_t *addr,
				const char *symbol_name, unsigned long offset,
				bool *on_entry)
{
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
	/* re-derive the offset into the function for the ENDBR rule */
	if (!kprobe_sym_size_offset(a, NULL, &offset))
		return ERR_PTR(symbol_name ? -ENOENT : -EINVAL);
	*on_entry = false;
	return arch_adjust_kprobe_addr(a, offset, on_entry);
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

/* x86's alternatives (lock prefixes included) rewrite text at boot and hotplug */
static bool kprobe_alternatives_reserved(unsigned long start, unsigned long end)
{
#ifdef CONFIG_X86
	return alternatives_text_reserved((void *)start, (void *)end);
#else
	return false;
#endif
}

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
 * Jump labels, static calls, alternatives (lock prefixes included) and
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
	ret = kprobe_patched_text(start, end) ||
	      kprobe_alternatives_reserved(start, end + 1) ||
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

static int kprobe_check_text(unsigned long addr, struct module **probed_mod)
{
	int ret = 0;

	*probed_mod = NULL;
	kprobe_index_prepare();
	/*
	 * The patchers' own locks, in their order (jump_label_mutex, then
	 * text_mutex), so none of them is mid-way through adding sites
	 * while we look; alternatives_text_reserved() asserts text_mutex.
	 */
	jump_label_lock();
	mutex_lock(&text_mutex);
	preempt_disable();
	if (!(core_kernel_text(addr) || is_module_text_address(addr)) ||
	    in_gate_area_no_mm(addr) || within_kprobe_blacklist(addr) ||
	    kprobe_bug_site(addr) || is_cfi_trap(addr)) {
		ret = -EINVAL;
		goto out;
	}
	/*
	 * Jump labels and static calls take an inclusive range; 6.12's
	 * alternatives_text_reserved() an exclusive end, so (addr, addr)
	 * would never match there: ask about the byte at addr, where a
	 * LOCK_PREFIX sits (upstream 6.12 asks (addr, addr), and so never
	 * refuses a .smp_locks prefix).
	 */
	if (kprobe_patched_text(addr, addr) ||
	    kprobe_alternatives_reserved(addr, addr + 1)) {
		ret = -EBUSY;
		goto out;
	}
	*probed_mod = __module_text_address(addr);
	if (*probed_mod) {
		/* hold the module while its text is patched */
		if (unlikely(!try_module_get(*probed_mod))) {
			*probed_mod = NULL;
			ret = -ENOENT;
			goto out;
		}
		/* init text that was already freed */
		if (kprobe_module_init_freed(*probed_mod, addr)) {
			module_put(*probed_mod);
			*probed_mod = NULL;
			ret = -ENOENT;
		}
	}
out:
	preempt_enable();
	mutex_unlock(&text_mutex);
	jump_label_unlock();
	return ret;
}

/* ---- sites: create, arm, disarm, free ---------------------------------------- */

/*
 * A batch of text changes: sites to arm or disarm are patched by
 * kprobe_batch_commit() with one text_poke_sync() for all of them; ftrace
 * sites are collected and their filters changed by kprobe_batch_ftrace()
 * with one ftrace update per direction; sites to free wait for one grace
 * period together.
 */
struct kprobe_batch {
	struct list_head to_free;	/* sites, via ->free_list */
	struct list_head ftrace;	/* ftrace sites to re-sync, ->ftrace_node */
	bool poked;			/* text_poke() done, sync owed */
};

static void kprobe_batch_init(struct kprobe_batch *b)
{
	INIT_LIST_HEAD(&b->to_free);
	INIT_LIST_HEAD(&b->ftrace);
	b->poked = false;
}

static bool site_enabled(struct kprobe_site *s)
{
	struct kprobe *kp;

	list_for_each_entry(kp, &s->probes, list) {
		if (!kprobe_disabled(kp))
			return true;
	}
	return false;
}

static bool site_has_post(struct kprobe_site *s)
{
	struct kprobe *kp;

	list_for_each_entry(kp, &s->probes, list) {
		if (kp->post_handler)
			return true;
	}
	return false;
}

static bool site_has_jprobe(struct kprobe_site *s)
{
	struct kprobe *kp;

	list_for_each_entry(kp, &s->probes, list) {
		if (kprobe_is_jprobe(kp))
			return true;
	}
	return false;
}

/*
 * An ftrace site goes on the IPMODIFY ops when a hit may move regs->ip:
 * a post_handler (it sees ip past the fentry call, and is what
 * fail_function-style redirection uses) or a jprobe (ip goes to its
 * handler).
 */
static bool site_ipmodify(struct kprobe_site *s)
{
	/* a classic backend's sites are all on one ops (kprobes_classic.c) */
	if (IS_ENABLED(CONFIG_KPROBES_CLASSIC))
		return true;
	return READ_ONCE(s->has_post) || s->has_jprobe;
}

/*
 * A site should be armed iff it is live, some probe on it is enabled, and
 * kprobes are not globally disarmed.
 */
static bool site_wants_armed(struct kprobe_site *s)
{
	return !(s->flags & KPROBE_SITE_GONE) && !kprobes_all_disarmed &&
	       site_enabled(s);
}

/*
 * The probe that may stand alone for the site on the hit paths (struct
 * kprobe_site.solo): one probe, enabled, with a pre_handler and nothing
 * else to run, on a site that is armed or about to be (want_armed, what
 * site_wants_armed() said).
 */
static struct kprobe *site_solo(struct kprobe_site *s, bool want_armed)
{
	struct kprobe *kp;

	if (!want_armed || !list_is_singular(&s->probes))
		return NULL;
	kp = list_first_entry(&s->probes, struct kprobe, list);
	if (!kp->pre_handler || kp->post_handler || kprobe_is_jprobe(kp))
		return NULL;
	return kp;
}

/* the probe for struct kprobe_site.solo_post, or NULL */
static struct kprobe *site_solo_post(struct kprobe_site *s, bool want_armed)
{
	struct kprobe *kp;

	if (!want_armed || (s->flags & KPROBE_SITE_FTRACE) ||
	    !list_is_singular(&s->probes))
		return NULL;
	kp = list_first_entry(&s->probes, struct kprobe, list);
	if (!kp->post_handler || kprobe_is_jprobe(kp))
		return NULL;
	return kp;
}

/*
 * Make the site's text state match what its probes want (int3 sites at
 * once, ftrace sites queued for kprobe_batch_ftrace()), and publish
 * has_post for the hit path.  Called with kprobe_mutex held.
 */
static int site_sync(struct kprobe_site *s, struct kprobe_batch *b)
{
	bool want = site_wants_armed(s);
	bool post = site_has_post(s);

	lockdep_assert_held(&kprobe_mutex);
	/* a carrier follows the fentry site it carries (kprobe_carriers_sync()) */
	if (s->carried)
		return 0;
	s->has_jprobe = site_has_jprobe(s);
	/* an optimized site has no int3 to run a post_handler from, or to remove */
	if (!(s->flags & KPROBE_SITE_FTRACE) && (!want || post || s->has_jprobe))
		kprobe_unoptimize(s);
	/* read by the hit path: a post_handler rules out boosting */
	WRITE_ONCE(s->has_post, post);
	/* a site moving off its carrier: every hook hit redirects (general path) */
	WRITE_ONCE(s->solo, s->carrier_moving ? NULL : site_solo(s, want));
	WRITE_ONCE(s->solo_post, site_solo_post(s, want));
	if (s->flags & KPROBE_SITE_FTRACE) {
		/* its filter changes with the batch's (kprobe_batch_ftrace()) */
		if (list_empty(&s->ftrace_node))
			list_add_tail(&s->ftrace_node, &b->ftrace);
		return 0;
	}
	if (want && !(s->flags & KPROBE_SITE_ARMED)) {
		arch_arm_site(s);
		s->flags |= KPROBE_SITE_ARMED;
		b->poked = true;
	} else if (!want && (s->flags & KPROBE_SITE_ARMED)) {
		arch_disarm_site(s);
		s->flags &= ~KPROBE_SITE_ARMED;
		b->poked = true;
	}
	/* queued for the optimizer if it qualifies now */
	kprobe_opt_sync(s);
	return 0;
}

/*
 * Lingering hooks.  Unhooking an fentry site is an ftrace filter update,
 * and ftrace walks every record it has for each (about 4.7 M instructions
 * on a distribution kernel, whatever the number of sites): what a tool
 * detaching its probes one by one pays per probe.  So a site that leaves
 * the plain ops stays hooked there ("lingers"): the callback finds no
 * armed site at it and returns at once.  The lingering hooks are
 * removed together, in one update, by kprobe_linger_work a little later
 * (KPROBE_LINGER_DELAY), or at once when their module goes; a site that
 * comes to a lingering address on the plain ops takes its hook over with
 * no update at all (a tool detaching and attaching again).  Never on the
 * IPMODIFY ops: livepatch and BPF trampolines need that ops off a
 * function as soon as its probes are.  All under kprobe_mutex.
 */
#define KPROBE_LINGER_DELAY	(HZ / 4)

struct kprobe_linger {
	struct hlist_node node;
	unsigned long ip;
};

static DEFINE_HASHTABLE(kprobe_lingering, 8);
static unsigned int kprobe_nr_lingering;

static void kprobe_linger_work_fn(struct work_struct *unused);
static DECLARE_DELAYED_WORK(kprobe_linger_work, kprobe_linger_work_fn);

/* ip's hook stays on the plain ops; false if memory is short */
static bool kprobe_linger_add(unsigned long ip)
{
	struct kprobe_linger *l = kmalloc(sizeof(*l), GFP_KERNEL);

	if (!l)
		return false;
	l->ip = ip;
	hash_add(kprobe_lingering, &l->node, ip);
	if (!kprobe_nr_lingering++)
		schedule_delayed_work(&kprobe_linger_work, KPROBE_LINGER_DELAY);
	return true;
}

/* was ip's hook lingering?  Then it is the caller's now */
static bool kprobe_linger_take(unsigned long ip)
{
	struct kprobe_linger *l;

	if (!kprobe_nr_lingering)
		return false;
	hash_for_each_possible(kprobe_lingering, l, node, ip) {
		if (l->ip == ip) {
			hash_del(&l->node);
			kfree(l);
			kprobe_nr_lingering--;
			return true;
		}
	}
	return false;
}

/*
 * Unhook the lingering sites for which in() holds (every one if in is
 * NULL), in one ftrace update.
 */
static void kprobe_linger_flush(bool (*in)(unsigned long, void *), void *arg)
{
	struct kprobe_linger *l;
	struct hlist_node *t;
	unsigned long *ips;
	int bkt, n = 0;

	lockdep_assert_held(&kprobe_mutex);
	if (!kprobe_nr_lingering)
		return;
	ips = kvmalloc_array(kprobe_nr_lingering, sizeof(*ips), GFP_KERNEL);
	hash_for_each_safe(kprobe_lingering, bkt, t, l, node) {
		if (in && !in(l->ip, arg))
			continue;
		if (ips)
			ips[n++] = l->ip;
		else	/* no memory for a list: one update each */
			kprobe_ftrace_update(false, NULL, 0, &l->ip, 1);
		hash_del(&l->node);
		kfree(l);
		kprobe_nr_lingering--;
	}
	if (n)
		kprobe_ftrace_update(false, NULL, 0, ips, n);
	kvfree(ips);
}

static void kprobe_linger_work_fn(struct work_struct *unused)
{
	mutex_lock(&kprobe_mutex);
	kprobe_linger_flush(NULL, NULL);
	mutex_unlock(&kprobe_mutex);
}

/*
 * ftrace updates that hooked a site moving off its carrier, so far: a
 * wait begun after update N covers the moves it hooked (kprobe_mutex)
 */
static unsigned long kprobe_hook_seq;

/* hooked on ftrace: which of kprobe_ftrace_update()'s lists a site is in */
enum { FT_ADD, FT_ADD_IPMODIFY, FT_DEL, FT_DEL_IPMODIFY, FT_LISTS };

/* hooked, and wants to stay hooked but on the other ops */
static bool ftrace_site_moves(struct kprobe_site *s)
{
	return (s->flags & KPROBE_SITE_ARMED) && site_wants_armed(s) &&
	       site_ipmodify(s) != s->armed_ipmodify;
}

/*
 * Bring the ftrace sites on @sites to what their probes want now (hooked
 * or not, on which ops): the differences go to ftrace in one update per
 * ops and direction, whatever their number.  @buf has room for
 * FT_LISTS * @cnt addresses.  Empties @sites.
 *
 * A site moving to the other ops is hooked there before it is unhooked
 * from its old one (make-before-break), with a wait for every CPU to
 * leave ftrace's ops list between the steps; while on both, one
 * callback of the two acts (see arch/x86/kernel/kprobes/ftrace.c).  So a
 * call to it always runs its probes, exactly once.  If the new ops
 * refuses it (another IPMODIFY user owns the function), it stays where it
 * was and the error is returned.
 */
static int ftrace_sync_sites(struct list_head *sites, unsigned long *buf,
			     int cnt)
{
	unsigned long *ips[FT_LISTS];
	int n[FT_LISTS] = { 0 }, ret = 0, err, i;
	bool hooked[2] = { true, true }, moving = false, unhooked_plain = false;
	bool carriers_hooked = false;
	struct kprobe_site *s, *t;

	for (i = 0; i < FT_LISTS; i++)
		ips[i] = buf + i * cnt;
	list_for_each_entry(s, sites, ftrace_node) {
		bool armed = s->flags & KPROBE_SITE_ARMED;
		bool want = site_wants_armed(s), post = site_ipmodify(s);

		if (ftrace_site_moves(s)) {
			WRITE_ONCE(s->ftrace_dual, true);
			moving = true;
		} else if (armed && !want) {
			/* its hook stays while nothing else changes */
			if (!s->armed_ipmodify && kprobe_linger_add(s->addr))
				continue;
			i = s->armed_ipmodify ? FT_DEL_IPMODIFY : FT_DEL;
			ips[i][n[i]++] = s->addr;
			continue;
		} else if (armed || !want) {
			continue;
		} else if (kprobe_linger_take(s->addr)) {
			if (!post) {
				/* hooked already: armed from now on */
				s->flags |= KPROBE_SITE_ARMED;
				s->armed_ipmodify = false;
				continue;
			}
			/* off the plain ops in this update, once on the other */
			ips[FT_DEL][n[FT_DEL]++] = s->addr;
			unhooked_plain = true;
		}
		i = post ? FT_ADD_IPMODIFY : FT_ADD;
		ips[i][n[i]++] = s->addr;
	}
	/* every callback from now on sees which sites are on both */
	if (moving)
		kprobe_ftrace_walk_sync();
	for (i = 0; i < 2; i++) {
		err = kprobe_ftrace_update(i, ips[FT_ADD + i], n[FT_ADD + i],
					   NULL, 0);
		if (err) {
			hooked[i] = false;
			ret = ret ?: err;
		}
	}
	if (moving) {
		/* every call from now on finds the movers on their new ops */
		kprobe_ftrace_walk_sync();
		list_for_each_entry(s, sites, ftrace_node) {
			if (!ftrace_site_moves(s) || !hooked[site_ipmodify(s)])
				continue;
			i = s->armed_ipmodify ? FT_DEL_IPMODIFY : FT_DEL;
			ips[i][n[i]++] = s->addr;
		}
	}
	for (i = 0; i < 2; i++)
		kprobe_ftrace_update(i, NULL, 0, ips[FT_DEL + i], n[FT_DEL + i]);
	/*
	 * every call from now on finds each mover on one ops only, and no
	 * callback of the plain ops still runs for a lingering hook taken
	 * over by the IPMODIFY one
	 */
	if (moving || unhooked_plain)
		kprobe_ftrace_walk_sync();

	/* the same decisions again, now recorded in the sites */
	list_for_each_entry_safe(s, t, sites, ftrace_node) {
		bool armed = s->flags & KPROBE_SITE_ARMED;
		bool want = site_wants_armed(s), post = site_ipmodify(s);

		list_del_init(&s->ftrace_node);
		WRITE_ONCE(s->ftrace_dual, false);
		if (armed && !want) {
			armed = false;
		} else if (want && hooked[post] &&
			   (!armed || post != s->armed_ipmodify)) {
			armed = true;
			s->armed_ipmodify = post;
		}
		if (armed)
			s->flags |= KPROBE_SITE_ARMED;
		else
			s->flags &= ~KPROBE_SITE_ARMED;
		if (armed && s->carrier_moving && !s->carrier_hooked) {
			s->carrier_hooked = kprobe_hook_seq + 1;
			carriers_hooked = true;
		}
	}
	if (carriers_hooked)
		kprobe_hook_seq++;
	return ret;
}

/*
 * Carriers.  Hooking one fentry site on ftrace is one filter update, and
 * ftrace walks every record it has for each (see lingering hooks above):
 * what a tool attaching entry probes one by one pays per probe, 4.7 M
 * instructions.  But the fentry nop changes no register, so the
 * instruction right after it sees the registers a hook at the entry
 * would: an int3 there (a "carrier", an ordinary int3 site whose
 * ->carried is the fentry site) costs one text poke and stands for the
 * hook, as long as every call of the function, and nothing else, reaches
 * that instruction (arch_prepare_carrier() checks the function's code).
 * Its hits run the fentry site's probes with the registers, ip included,
 * that the hook shows them.  The optimizer makes it a jump as any int3
 * site (the detour runs the fentry site's probes too: cheaper than the
 * hook); a carrier it cannot make a jump is moved onto the hook in the
 * background, with the others (kprobe_carrier_slow()): one update for
 * all, none in the registration's path.
 *
 * Used when a batch hooks few fentry sites (KPROBE_CARRY_MAX): a bigger
 * one shares one ftrace update anyway.  Never on a function whose calls
 * may not reach the carrier: one an ftrace user diverts (an IPMODIFY ops
 * such as livepatch's, a direct trampoline such as BPF's, which may skip
 * the body or call it from elsewhere), nor one on the error-injection
 * list, whose calls an fprobe may return from at the entry.  ftrace asks
 * kprobe_ftrace_divert() before such a user takes a function: its
 * carrier moves onto the hook first, so the hook's callback, which
 * ftrace runs with the others on every call, sees each call as upstream
 * kprobes would.  Nor for a jprobe, whose hit returns to the entry.
 *
 * A move onto the hook sees each call exactly once: hooked with
 * ->carrier_moving set, the callback runs the probes and sends the call
 * past the carrier (kprobe_carrier_resume()); a call that passed the nop
 * before the hook still meets the carrier, which runs them.  Once every
 * task has passed a voluntary switch after the hook went in (none is
 * then between the nop and the carrier having passed the nop unhooked),
 * the carrier goes, then the redirection (kprobe_carriers_finish()).
 * That wait is never taken under kprobe_mutex (kprobe_carriers_settle()):
 * on a PREEMPT kernel a busy task may hold it off for long.  No diverting
 * user is ever on a function while it moves: the redirection, done by
 * the plain ops, would otherwise confuse it.
 */
/* a carrier's hit goes through the optimizer's trampoline: OPTPROBES */
#ifdef CONFIG_KPROBE_CARRIERS
#define KPROBE_CARRY_MAX	8
#define KPROBE_MOVE_DELAY	(HZ / 4)

static int kprobe_batch_ftrace(struct kprobe_batch *b);
static struct kprobe_site *site_create(unsigned long addr, bool ftrace,
				       bool on_entry, int *err);
static void site_retire(struct kprobe_site *s, struct kprobe_batch *b);
static void kprobe_batch_commit(struct kprobe_batch *b);

static int kprobes_carriers = 1;	/* debug.kprobes-carriers */
/*
 * Diverting ftrace users on their way in (kprobe_ftrace_divert()), and
 * carriers: each side counts itself, then reads the other's count, so
 * that either the user sees a carrier to move or the carrier is not made.
 */
static atomic_t kprobe_diverting, kprobe_nr_carriers;

static void kprobe_carrier_mover(struct work_struct *unused);
static DECLARE_DELAYED_WORK(kprobe_mover_work, kprobe_carrier_mover);

/* is ip's hook lingering? */
static bool kprobe_linger_has(unsigned long ip)
{
	struct kprobe_linger *l;

	if (!kprobe_nr_lingering)
		return false;
	hash_for_each_possible(kprobe_lingering, l, node, ip) {
		if (l->ip == ip)
			return true;
	}
	return false;
}

/*
 * Is the function at ip on the error-injection list?  A module's entries
 * reach the list from a module notifier that may run after a probe of
 * another notifier (trace_kprobe's) was registered: ask the module too.
 */
static bool kprobe_error_injectable(unsigned long ip)
{
#if defined(CONFIG_FUNCTION_ERROR_INJECTION) && defined(CONFIG_MODULES)
	unsigned long size, off;
	struct module *mod;
	unsigned int i;
	bool ret = false;

	if (within_error_injection_list(ip))
		return true;
	if (!kallsyms_lookup_size_offset(ip, &size, &off))
		return false;
	preempt_disable();
	mod = __module_text_address(ip);
	for (i = 0; mod && i < mod->num_ei_funcs; i++) {
		if (mod->ei_funcs[i].addr == ip - off) {
			ret = true;
			break;
		}
	}
	preempt_enable();
	return ret;
#else
	return within_error_injection_list(ip);
#endif
}

/* may site s be carried (now, or go on being so)? */
static bool site_carriable(struct kprobe_site *s)
{
	return READ_ONCE(kprobes_carriers) && !s->has_jprobe &&
	       !s->carrier_moving && !kprobe_error_injectable(s->addr);
}

/**
 * kprobe_carrier_slow() - a carrier stays an int3: hook its site instead
 * @c: the carrier (kprobe_mutex held)
 *
 * The hook's hit costs half an int3's: the background mover hands the
 * fentry site to ftrace, with the other such sites in one update.
 */
void kprobe_carrier_slow(struct kprobe_site *c)
{
	lockdep_assert_held(&kprobe_mutex);
	c->carried->carrier_slow = true;
	schedule_delayed_work(&kprobe_mover_work, KPROBE_MOVE_DELAY);
}

/* arm fentry site s by a carrier rather than by its hook: 0 if done */
static int kprobe_carry(struct kprobe_site *s, struct kprobe_batch *b)
{
	unsigned long addr = s->addr + MCOUNT_INSN_SIZE;
	struct kprobe_site *c;
	int ret;

	if (!site_carriable(s) || kprobe_linger_has(s->addr) ||
	    kprobe_site_lookup(addr))
		return -EBUSY;
	/* no diverting ftrace user on its way in (paired), nor there */
	atomic_inc(&kprobe_nr_carriers);
	smp_mb__after_atomic();		/* paired with kprobe_ftrace_divert() */
	if (atomic_read(&kprobe_diverting) || ftrace_ip_diverted(s->addr)) {
		ret = -EBUSY;
		goto out;
	}
	kprobe_opt_break(addr);
	c = site_create(addr, false, false, &ret);
	if (!c)
		goto out;
	c->carried = s;		/* its hit stub names s */
	ret = arch_prepare_carrier(c);
	if (ret) {
		arch_release_site(c);
		kfree(c);
		goto out;
	}
	s->carrier = c;
	s->carrier_slow = false;
	list_add_tail(&c->all, &kprobe_sites);
	hlist_add_head_rcu(&c->hash, kprobe_bucket(addr));
	arch_arm_site(c);
	c->flags |= KPROBE_SITE_ARMED;
	b->poked = true;
	kprobe_opt_sync(c);
	/* not queued for a jump (none configured, or not allowed now) */
	if (c->opt_state == KPROBE_OPT_NONE)
		kprobe_carrier_slow(c);
	return 0;
out:
	atomic_dec(&kprobe_nr_carriers);
	return ret;
}

/*
 * s's carrier goes (disarmed, freed after the batch's grace period, so a
 * hook callback that read ->carrier_moving may still use it).
 */
static void kprobe_uncarry(struct kprobe_site *s, struct kprobe_batch *b)
{
	site_retire(s->carrier, b);
	s->carrier = NULL;
	atomic_dec(&kprobe_nr_carriers);
}

/*
 * s is to be hooked: its callback runs its probes, then skips the
 * carrier.  Once the hook is in, the mover settles the move if its maker
 * does not (kprobe_batch_ftrace()).
 */
static void kprobe_carrier_start_move(struct kprobe_site *s,
				      struct kprobe_batch *b)
{
	WRITE_ONCE(s->solo, NULL);	/* the callback's general path redirects */
	s->carrier_hooked = 0;
	WRITE_ONCE(s->carrier_moving, s->carrier);
	if (list_empty(&s->ftrace_node))
		list_add_tail(&s->ftrace_node, &b->ftrace);
}

/* a batch hooked moving sites: the mover settles them, at the latest */
static void kprobe_carriers_kick(void)
{
	schedule_delayed_work(&kprobe_mover_work, KPROBE_MOVE_DELAY);
}

/* a move is over: no redirection, and the fast path may take s again */
static void kprobe_carrier_moved(struct kprobe_site *s)
{
	WRITE_ONCE(s->carrier_moving, NULL);
	WRITE_ONCE(s->solo, site_solo(s, site_wants_armed(s)));
}

/*
 * After a batch's ftrace update: a move whose hook ftrace refused stays
 * carried (every move is hooked by the batch that starts it, under the
 * same hold of kprobe_mutex, so one still unhooked here was refused).
 */
static void kprobe_carriers_refused(void)
{
	struct kprobe_site *s;

	lockdep_assert_held(&kprobe_mutex);
	list_for_each_entry(s, &kprobe_sites, all) {
		if (s->carrier_moving && s->carrier && !s->carrier_hooked)
			kprobe_carrier_moved(s);
	}
}

/*
 * Before a batch's ftrace update: carry what it arms if it arms few,
 * drop the carriers of sites no longer armed, and keep on the list those
 * that move onto the hook (and those hooked already, to be unhooked).
 */
static void kprobe_carriers_sync(struct kprobe_batch *b)
{
	struct kprobe_site *s, *t;
	int nadd = 0;

	list_for_each_entry(s, &b->ftrace, ftrace_node) {
		if (!s->carrier && !(s->flags & KPROBE_SITE_ARMED) &&
		    site_wants_armed(s))
			nadd++;
	}
	list_for_each_entry_safe(s, t, &b->ftrace, ftrace_node) {
		if (s->carrier) {
			if (!site_wants_armed(s)) {
				WRITE_ONCE(s->carrier_moving, NULL);
				kprobe_uncarry(s, b);
				if (s->flags & KPROBE_SITE_ARMED)
					continue;	/* hooked mid-move too */
			} else if (!site_carriable(s)) {
				if (!s->carrier_moving)
					kprobe_carrier_start_move(s, b);
				continue;
			}
			list_del_init(&s->ftrace_node);
		} else if (nadd <= KPROBE_CARRY_MAX &&
			   !(s->flags & KPROBE_SITE_ARMED) &&
			   site_wants_armed(s) && !kprobe_carry(s, b)) {
			list_del_init(&s->ftrace_node);
		}
	}
}

/* let every task pass a voluntary switch: none is left at a carrier unseen */
static void kprobe_carriers_wait(void)
{
	if (IS_ENABLED(CONFIG_TASKS_RCU))
		synchronize_rcu_tasks();
	else
		synchronize_rcu();
}

/*
 * The moves whose hooks went in by update @seen (kprobe_hook_seq) and
 * have been waited for since: their carriers go, and once every CPU sees
 * the original bytes back, the redirection.  A move whose hook went in
 * later is left to the path that made it; one whose hook was refused
 * stays carried.
 */
static void kprobe_carriers_finish(struct kprobe_batch *b, unsigned long seen)
{
	struct kprobe_site *s;

	lockdep_assert_held(&kprobe_mutex);
	list_for_each_entry(s, &kprobe_sites, all) {
		if (!s->carrier_moving || !(s->flags & KPROBE_SITE_ARMED) ||
		    !s->carrier_hooked || s->carrier_hooked > seen)
			continue;
		kprobe_uncarry(s, b);
	}
	if (b->poked) {
		arch_kprobe_poke_sync(false);
		b->poked = false;
	}
	list_for_each_entry(s, &kprobe_sites, all) {
		if (!s->carrier_moving || (s->carrier && s->carrier_hooked))
			continue;
		/* carrier gone, or the hook refused: no redirection */
		kprobe_carrier_moved(s);
	}
}

/*
 * Wait for the moves hooked so far, then finish them.  Not under
 * kprobe_mutex: the wait may last as long as a busy task takes to switch.
 */
static void kprobe_carriers_settle(void)
{
	struct kprobe_batch b;
	unsigned long seen;

	mutex_lock(&kprobe_mutex);
	seen = kprobe_hook_seq;
	mutex_unlock(&kprobe_mutex);
	kprobe_carriers_wait();
	kprobe_batch_init(&b);
	mutex_lock(&kprobe_mutex);
	kprobe_carriers_finish(&b, seen);
	mutex_unlock(&kprobe_mutex);
	kprobe_batch_commit(&b);
}

/*
 * Move the carried fentry sites match() picks onto their hooks, and
 * return once their carriers are gone.  Called without kprobe_mutex.
 * Returns 0, or -EBUSY if one of them could not be hooked (it stays
 * carried).
 */
static int kprobe_carriers_move(bool (*match)(struct kprobe_site *, void *),
				void *arg)
{
	struct kprobe_batch b;
	struct kprobe_site *s;
	int n = 0, ret = 0;

	kprobe_batch_init(&b);
	mutex_lock(&kprobe_mutex);
	list_for_each_entry(s, &kprobe_sites, all) {
		if (!s->carrier || !match(s, arg))
			continue;
		/* not moving, or its hook was refused: (again) onto the hook */
		if (!s->carrier_moving || !s->carrier_hooked)
			kprobe_carrier_start_move(s, &b);
		n++;
	}
	if (n)
		kprobe_batch_ftrace(&b);
	mutex_unlock(&kprobe_mutex);
	kprobe_batch_commit(&b);
	if (!n)
		return 0;
	kprobe_carriers_settle();
	mutex_lock(&kprobe_mutex);
	list_for_each_entry(s, &kprobe_sites, all) {
		if (s->carrier && match(s, arg)) {
			ret = -EBUSY;
			break;
		}
	}
	mutex_unlock(&kprobe_mutex);
	return ret;
}

static bool kprobe_carrier_at(struct kprobe_site *s, void *arg)
{
	return s->addr == *(unsigned long *)arg &&
	       !(s->flags & KPROBE_SITE_UNHASHED);
}

/*
 * Move the fentry site at addr onto its hook before a probe that cannot
 * be carried joins it or comes to its carrier's address.  Called without
 * kprobe_mutex (so by address: the site may be gone meanwhile).  Returns
 * 0, or -EBUSY.
 */
static int kprobe_carrier_move(unsigned long addr)
{
	return kprobe_carriers_move(kprobe_carrier_at, &addr);
}

/* in the background: the carriers kprobe_carrier_slow() named, hooked */
static void kprobe_carrier_mover(struct work_struct *unused)
{
	struct kprobe_batch b;
	struct kprobe_site *s;
	int n = 0;

	kprobe_batch_init(&b);
	mutex_lock(&kprobe_mutex);
	list_for_each_entry(s, &kprobe_sites, all) {
		if (s->carrier_moving)
			n++;	/* hooked by a batch: settled here too */
		if (!s->carrier || s->carrier_moving ||
		    (!s->carrier_slow && READ_ONCE(kprobes_carriers)))
			continue;
		s->carrier_slow = false;
		kprobe_carrier_start_move(s, &b);
		n++;
	}
	kprobe_batch_ftrace(&b);
	mutex_unlock(&kprobe_mutex);
	kprobe_batch_commit(&b);
	if (n)
		kprobe_carriers_settle();
}

/* what a diverting ftrace user is about to take (kprobe_ftrace_divert()) */
struct kprobe_divert {
	struct ftrace_ops *ops;
	unsigned long *ips;
	unsigned int cnt;
	bool any;
};

static bool kprobe_divert_covers(struct kprobe_site *s, void *arg)
{
	struct kprobe_divert *d = arg;
	unsigned int i;

	if (d->any)
		return true;
	if (!d->ips)
		return ftrace_ops_has_ip(d->ops, s->addr);
	/* ftrace takes an address in the function for its fentry site */
	for (i = 0; i < d->cnt; i++) {
		if (ftrace_location(d->ips[i]) == s->addr)
			return true;
	}
	return false;
}

/**
 * kprobe_ftrace_divert() - an ftrace user is about to divert calls
 * @ops: an ops with FTRACE_OPS_FL_IPMODIFY, or a direct trampoline's
 * @ips: the functions it takes (@cnt of them), or NULL: its filter's
 * @cnt: how many in @ips
 * @any: which functions is not known yet (a pattern): every one
 *
 * Called by ftrace, with no ftrace lock held, before @ops is registered
 * or its filter grows; kprobe_ftrace_divert_end() follows once that is
 * done, if this returned 0.  Until then no entry probe is carried; the
 * carried ones on @ops's functions are hooked on ftrace before this
 * returns (this may wait for every task to pass a voluntary switch), so
 * that they go on seeing every call, before @ops's callback diverts it.
 * With no carrier at all (the common case) it takes no lock.
 *
 * Return: 0, or -EBUSY if a probe could not be hooked (@ops must not
 * take its functions then: the probe would miss their calls).
 */
int kprobe_ftrace_divert(struct ftrace_ops *ops, unsigned long *ips,
			 unsigned int cnt, bool any)
{
	struct kprobe_divert d = { ops, ips, cnt, any };
	int ret;

	/* kprobes' own ops, changed under kprobe_mutex: nothing to move */
	if (kprobe_ftrace_ops_ours(ops))
		return 0;
	atomic_inc(&kprobe_diverting);
	smp_mb__after_atomic();		/* paired with kprobe_carry() */
	if (!atomic_read(&kprobe_nr_carriers))
		return 0;	/* and none is made until _end() */
	ret = kprobe_carriers_move(kprobe_divert_covers, &d);
	if (ret) {
		pr_warn("entry probes stay on their carriers: a diverting ftrace user is refused\n");
		kprobe_ftrace_divert_end(ops);
	}
	return ret;
}

/**
 * kprobe_ftrace_divert_end() - the diverting ftrace user is in (or failed)
 * @ops: the ops of kprobe_ftrace_divert()
 *
 * Entry probes may be carried again, on functions no user diverts.
 */
void kprobe_ftrace_divert_end(struct ftrace_ops *ops)
{
	if (kprobe_ftrace_ops_ours(ops))
		return;
	WARN_ON_ONCE(atomic_dec_return(&kprobe_diverting) < 0);
}

/* debug.kprobes-carriers=0 moves the carriers there are onto their hooks */
static int kprobe_carriers_sysctl(const struct ctl_table *table, int write,
				  void *buffer, size_t *lenp, loff_t *ppos)
{
	int ret = proc_dointvec_minmax(table, write, buffer, lenp, ppos);

	if (!ret && write && !READ_ONCE(kprobes_carriers))
		mod_delayed_work(system_wq, &kprobe_mover_work, 0);
	return ret;
}

static struct ctl_table kprobe_carrier_sysctls[] = {
	{
		.procname	= "kprobes-carriers",
		.data		= &kprobes_carriers,
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= kprobe_carriers_sysctl,
		.extra1		= SYSCTL_ZERO,
		.extra2		= SYSCTL_ONE,
	},
};

static int __init kprobe_carriers_init(void)
{
	register_sysctl_init("debug", kprobe_carrier_sysctls);
	return 0;
}
late_initcall(kprobe_carriers_init);
#else
static inline void kprobe_carriers_sync(struct kprobe_batch *b) { }
static inline void kprobe_carriers_kick(void) { }
static inline void kprobe_carriers_refused(void) { }

static inline int kprobe_carrier_move(unsigned long addr)
{
	return 0;
}
#endif /* CONFIG_KPROBE_CARRIERS */

/*
 * Apply the ftrace filter changes a batch collected.  Called with
 * kprobe_mutex held, before it is dropped, by every path that re-synced
 * sites.
 *
 * Return: 0, or ftrace's error for sites to hook (they stay unhooked;
 * register_kprobes() then rolls its probes back).
 */
static int kprobe_batch_ftrace(struct kprobe_batch *b)
{
	unsigned long *buf, one[FT_LISTS], seq = kprobe_hook_seq;
	struct kprobe_site *s;
	int cnt = 0, ret = 0, err;
	bool moving = false;

	lockdep_assert_held(&kprobe_mutex);
	kprobe_carriers_sync(b);
	list_for_each_entry(s, &b->ftrace, ftrace_node) {
		moving |= !!s->carrier_moving;
		cnt++;
	}
	if (!cnt)
		return 0;
	buf = kvmalloc_array(FT_LISTS * cnt, sizeof(*buf), GFP_KERNEL);
	if (buf) {
		ret = ftrace_sync_sites(&b->ftrace, buf, cnt);
		kvfree(buf);
	} else {
		/* no memory for the lists: one site at a time */
		while (!list_empty(&b->ftrace)) {
			LIST_HEAD(single);

			list_move(b->ftrace.next, &single);
			err = ftrace_sync_sites(&single, one, 1);
			ret = ret ?: err;
		}
	}
	if (moving) {
		if (kprobe_hook_seq != seq)
			kprobe_carriers_kick();
		kprobe_carriers_refused();
	}
	return ret;
}

/*
 * Sites retired by a batch are freed after a grace period, off the
 * caller's path: a work item per batch (a shared one could run before
 * the grace period of sites added to it later).  With TASKS_RCU it also
 * waits for every task to pass a voluntary switch: a boosted copy runs
 * preemptible in its slot.
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

static void kprobe_free_sites_fn(struct work_struct *work)
{
	struct kprobe_free_work *fw =
		container_of(to_rcu_work(work), struct kprobe_free_work, rwork);

	if (IS_ENABLED(CONFIG_TASKS_RCU))
		synchronize_rcu_tasks();
	kprobe_free_sites(&fw->sites);
	kfree(fw);
}

/*
 * Finish a batch:
 *  - make its pokes visible to every CPU (one text_poke_sync());
 *  - KPROBE_WAIT_HITS: wait until no CPU is still running a hit that
 *    may have seen a probe taken off its site.  Every hit runs with
 *    interrupts off from its site lookup to its last use of a struct
 *    kprobe (the int3 path by the gate, the single-step with IF cleared,
 *    the ftrace handler by local_irq_save()), so the IPI round of
 *    text_poke_sync() returns only after each such hit ended, and later
 *    hits see the lists without the probe.  That is one IPI per
 *    unregister_kprobe(), not a grace period: a tool removing probes
 *    one by one does not wait for 10000 grace periods.
 *  - KPROBE_WAIT_GP: synchronize_rcu(), for readers that run with
 *    interrupts on (the kretprobe trampoline's instance recycling).
 *  - retired sites are freed after a grace period, asynchronously.
 */
static void __kprobe_batch_commit(struct kprobe_batch *b, enum kprobe_wait wait)
{
	struct kprobe_free_work *fw;

	if (b->poked || wait == KPROBE_WAIT_HITS) {
		arch_kprobe_poke_sync(wait == KPROBE_WAIT_HITS);
		b->poked = false;
	}
	if (wait == KPROBE_WAIT_GP)
		synchronize_rcu();
	if (list_empty(&b->to_free))
		return;
	fw = kmalloc(sizeof(*fw), GFP_KERNEL);
	if (!fw) {
		/* no memory to defer it: wait here */
		synchronize_rcu();
		if (IS_ENABLED(CONFIG_TASKS_RCU))
			synchronize_rcu_tasks();
		kprobe_free_sites(&b->to_free);
		return;
	}
	INIT_LIST_HEAD(&fw->sites);
	list_splice_init(&b->to_free, &fw->sites);
	INIT_RCU_WORK(&fw->rwork, kprobe_free_sites_fn);
	queue_rcu_work(system_wq, &fw->rwork);
}

static void kprobe_batch_commit(struct kprobe_batch *b)
{
	__kprobe_batch_commit(b, KPROBE_WAIT_NONE);
}

static struct kprobe_site *site_create(unsigned long addr, bool ftrace,
				       bool on_entry, int *err)
{
	struct kprobe_site *s;

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s) {
		*err = -ENOMEM;
		return NULL;
	}
	s->addr = addr;
	INIT_LIST_HEAD(&s->probes);
	INIT_LIST_HEAD(&s->free_list);
	INIT_LIST_HEAD(&s->ftrace_node);
	INIT_LIST_HEAD(&s->opt_node);
	if (ftrace)
		s->flags |= KPROBE_SITE_FTRACE;
	if (on_entry)
		s->flags |= KPROBE_SITE_ON_ENTRY;
	/* a classic backend prepares ftrace sites too (its ftrace handler) */
	if (!ftrace || IS_ENABLED(CONFIG_KPROBES_CLASSIC)) {
		*err = arch_prepare_site(s);
		if (*err) {
			kfree(s);
			return NULL;
		}
	}
	return s;
}

/* take a site out of use; it is freed by the batch after a grace period */
static void site_retire(struct kprobe_site *s, struct kprobe_batch *b)
{
	lockdep_assert_held(&kprobe_mutex);
	WRITE_ONCE(s->solo, NULL);
	WRITE_ONCE(s->solo_post, NULL);
	if (s->flags & KPROBE_SITE_FTRACE) {
		/* no probes left: kprobe_batch_ftrace() unhooks it */
		if (list_empty(&s->ftrace_node))
			list_add_tail(&s->ftrace_node, &b->ftrace);
	} else {
		kprobe_unoptimize(s);
		if (s->flags & KPROBE_SITE_ARMED) {
			arch_disarm_site(s);
			b->poked = true;
			s->flags &= ~KPROBE_SITE_ARMED;
		}
	}
	if (!(s->flags & KPROBE_SITE_UNHASHED)) {
		hlist_del_rcu(&s->hash);
		s->flags |= KPROBE_SITE_UNHASHED;
	} else {
		kprobe_nr_gone--;	/* a gone site, off kprobe_sites now */
	}
	list_del(&s->all);
	list_add_tail(&s->free_list, &b->to_free);
	/* a site before it whose region it blocked may be optimized now */
	if (!(s->flags & KPROBE_SITE_FTRACE))
		kprobe_opt_unblock(s->addr);
}

static bool site_has_probe(struct kprobe_site *s, struct kprobe *p)
{
	struct kprobe *kp;

	list_for_each_entry(kp, &s->probes, list) {
		if (kp == p)
			return true;
	}
	return false;
}

/*
 * Is p registered (at address a, its resolved address)?  Nothing in *p is
 * trusted but addresses: the caller may pass a never-registered, even
 * uninitialised, struct.  Found through the hash table, or among the gone
 * sites (unhashed), which are few.
 */
static bool probe_is_registered_at(struct kprobe *p, unsigned long a)
{
	struct kprobe_site *s;

	lockdep_assert_held(&kprobe_mutex);
	s = kprobe_site_lookup(a);
	if (s && site_has_probe(s, p))
		return true;
	if (!kprobe_nr_gone)	/* the usual case: no walk over every site */
		return false;
	list_for_each_entry(s, &kprobe_sites, all) {
		if ((s->flags & KPROBE_SITE_UNHASHED) && s->addr == a &&
		    site_has_probe(s, p))
			return true;
	}
	return false;
}

static bool probe_is_registered(struct kprobe *p)
{
	return probe_is_registered_at(p, (unsigned long)p->addr);
}

/* ---- registration ------------------------------------------------------------ */

static int __register_kprobe(struct kprobe *p, struct kprobe_batch *b)
{
	struct kprobe_site *s;
	struct module *mod = NULL;
	kprobe_opcode_t *addr;
	bool on_entry, ftrace;
	unsigned long a;
	int ret;

	addr = kprobe_resolve(p->addr, p->symbol_name, p->offset, &on_entry);
	if (IS_ERR(addr))
		return PTR_ERR(addr);
	a = (unsigned long)addr;

	ret = kprobe_check_ftrace(a, &ftrace);
	if (ret)
		return ret;
	ret = kprobe_check_text(a, &mod);
	if (ret)
		return ret;

	mutex_lock(&kprobe_mutex);
again:
	if (probe_is_registered_at(p, a) || probe_is_registered(p)) {
		ret = -EINVAL;		/* the same struct twice */
		goto out;
	}
	/*
	 * A function's entry (after its ENDBR) is a boundary: no decode,
	 * and no second symbol lookup (linear in a module's symbols).
	 */
	if (!ftrace && !on_entry) {
		ret = arch_check_insn_boundary(a);
		if (ret)
			goto out;
	}

	s = kprobe_site_lookup(a);
	if (s && (s->carried || (s->carrier && kprobe_is_jprobe(p)))) {
		/*
		 * A probe at a carrier's address, or a jprobe (whose hit
		 * returns to the entry), needs the fentry site hooked: move
		 * it, outside kprobe_mutex, then look again.  The batch's
		 * ftrace changes so far go in first (the site may be one).
		 */
		unsigned long fentry = (s->carried ?: s)->addr;

		ret = kprobe_batch_ftrace(b);
		mutex_unlock(&kprobe_mutex);
		kprobe_batch_commit(b);
		ret = ret ?: kprobe_carrier_move(fentry);
		if (ret)
			goto out_unlocked;
		mutex_lock(&kprobe_mutex);
		goto again;
	}
	if (!s) {
		/* no optimized probe's jump may cover the new site's bytes */
		if (!ftrace)
			kprobe_opt_break(a);
		s = site_create(a, ftrace, on_entry, &ret);
		if (!s)
			goto out;
		list_add_tail(&s->all, &kprobe_sites);
	}

	/* publish the probe on its site, then make the text match */
	p->addr = addr;
	p->nmissed = 0;
	p->site = s;
	p->flags &= KPROBE_FLAG_DISABLED;
	if (ftrace)
		p->flags |= KPROBE_FLAG_FTRACE;
	if (on_entry)
		p->flags |= KPROBE_FLAG_ON_FUNC_ENTRY;
#ifdef CONFIG_KPROBES_CLASSIC
	p->opcode = s->kp.opcode;
#else
	p->opcode = s->ainsn.orig[0];
#endif
	/* no hit may boost past p's post_handler once p is on the list */
	if (p->post_handler || kprobe_is_jprobe(p))
		kprobe_unoptimize(s);
	if (p->post_handler)
		WRITE_ONCE(s->has_post, true);
	/* hits walk the list, p included, until site_sync() decides */
	WRITE_ONCE(s->solo, NULL);
	WRITE_ONCE(s->solo_post, NULL);
	list_add_tail_rcu(&p->list, &s->probes);
	if (hlist_unhashed(&s->hash) && !(s->flags & KPROBE_SITE_UNHASHED))
		hlist_add_head_rcu(&s->hash, kprobe_bucket(a));

	ret = site_sync(s, b);
	if (ret) {
		list_del_rcu(&p->list);
		if (list_empty(&s->probes))
			site_retire(s, b);
		INIT_LIST_HEAD(&p->list);
		p->site = NULL;
	}
out:
	mutex_unlock(&kprobe_mutex);
out_unlocked:
	if (mod)
		module_put(mod);
	return ret;
}

/*
 * Take p off its site; retire the site if p was its last probe.
 * Returns false if p was not registered.
 */
static bool __unregister_kprobe_top(struct kprobe *p, struct kprobe_batch *b)
{
	struct kprobe_site *s;

	lockdep_assert_held(&kprobe_mutex);
	if (!p || !probe_is_registered(p))
		return false;
	s = p->site;
	list_del_rcu(&p->list);
	if (list_empty(&s->probes))
		site_retire(s, b);
	else
		site_sync(s, b);
	return true;
}

/* after the grace period: the probe's memory is the caller's again */
static void __unregister_kprobe_bottom(struct kprobe *p)
{
	INIT_LIST_HEAD(&p->list);
	p->site = NULL;
}

/**
 * register_kprobes() - register an array of kprobes
 * @kps: the probes
 * @num: how many
 *
 * All are armed with one text-patch batch, unless one of them must first
 * move an entry probe off its carrier (a probe at the carrier's address,
 * a jprobe on the entry): the batch so far is then committed, the move
 * waited for, and the rest goes on in the same batch.  On error, the
 * probes of the array registered so far are unregistered again (same
 * batch), and none is left registered.
 *
 * Return: 0, or the first error: -EINVAL (bad arguments, not probeable,
 * registered already), -ENOENT (unknown symbol or module), -EILSEQ (not an
 * instruction boundary), -EBUSY (text owned by another patcher), -ENOMEM.
 */
int register_kprobes(struct kprobe **kps, int num)
{
	struct kprobe_batch b;
	int i, ret = 0;

	if (!kps || num <= 0)
		return -EINVAL;
	kprobe_batch_init(&b);
	for (i = 0; i < num; i++) {
		ret = __register_kprobe(kps[i], &b);
		if (ret)
			break;
	}
	if (!ret) {
		/* all ftrace sites of the batch in one update */
		mutex_lock(&kprobe_mutex);
		ret = kprobe_batch_ftrace(&b);
		mutex_unlock(&kprobe_mutex);
	}
	if (ret) {
		int n = i;

		mutex_lock(&kprobe_mutex);
		while (--i >= 0)
			__unregister_kprobe_top(kps[i], &b);
		kprobe_batch_ftrace(&b);
		mutex_unlock(&kprobe_mutex);
		/* their handlers may have run already: wait them out */
		__kprobe_batch_commit(&b, KPROBE_WAIT_HITS);
		for (i = 0; i < n; i++)
			__unregister_kprobe_bottom(kps[i]);
		return ret;
	}
	kprobe_batch_commit(&b);
	return 0;
}
EXPORT_SYMBOL_GPL(register_kprobes);

/**
 * register_kprobe() - plant a probe
 * @p: the probe: addr or symbol_name (+offset), handlers, flags
 *
 * Return: 0, or a negative errno as for register_kprobes().
 */
int register_kprobe(struct kprobe *p)
{
	if (!p)
		return -EINVAL;
	return register_kprobes(&p, 1);
}
EXPORT_SYMBOL_GPL(register_kprobe);

void __unregister_kprobes(struct kprobe **kps, int num,
			  enum kprobe_wait wait)
{
	struct kprobe_batch b;
	bool one, *done;
	int i;

	if (!kps || num <= 0)
		return;
	/*
	 * Which entries were registered: those alone get their list and
	 * site reset at the end (a probe not registered stays untouched;
	 * p->site itself must stay valid while hits may still read it).
	 */
	done = num == 1 ? &one : kcalloc(num, sizeof(*done), GFP_KERNEL);
	kprobe_batch_init(&b);
	mutex_lock(&kprobe_mutex);
	for (i = 0; i < num; i++) {
		bool r = __unregister_kprobe_top(kps[i], &b);

		if (done)
			done[i] = r;
	}
	kprobe_batch_ftrace(&b);
	mutex_unlock(&kprobe_mutex);
	/* one wait for everything: no hit still uses any of these probes */
	__kprobe_batch_commit(&b, wait);
	for (i = 0; i < num; i++)
		if (done ? done[i] : !!kps[i])
			__unregister_kprobe_bottom(kps[i]);
	if (done != &one)
		kfree(done);
}

/**
 * unregister_kprobes() - remove an array of kprobes
 * @kps: the probes
 * @num: how many
 *
 * One text-patch batch and one wait for the hits under way for all of
 * them.  When this returns, no handler of these probes runs on any CPU
 * and their memory is the caller's.  Entries that are not registered are
 * skipped and left untouched.
 */
void unregister_kprobes(struct kprobe **kps, int num)
{
	__unregister_kprobes(kps, num, KPROBE_WAIT_HITS);
}
EXPORT_SYMBOL_GPL(unregister_kprobes);

/**
 * unregister_kprobe() - remove a probe
 * @p: the probe; a probe that is not registered is left untouched
 */
void unregister_kprobe(struct kprobe *p)
{
	unregister_kprobes(&p, 1);
}
EXPORT_SYMBOL_GPL(unregister_kprobe);

static int kprobe_set_disabled(struct kprobe *p, bool disable)
{
	struct kprobe_batch b;
	int ret = 0;

	if (!p)
		return -EINVAL;
	kprobe_batch_init(&b);
	mutex_lock(&kprobe_mutex);
	if (!probe_is_registered(p)) {
		ret = -EINVAL;
		goto out;
	}
	if (kprobe_gone(p)) {
		ret = disable ? 0 : -EINVAL;
		goto out;
	}
	if (disable)
		p->flags |= KPROBE_FLAG_DISABLED;
	else
		p->flags &= ~KPROBE_FLAG_DISABLED;
	ret = site_sync(p->site, &b);
	if (!ret)
		ret = kprobe_batch_ftrace(&b);
	if (ret && !disable)
		p->flags |= KPROBE_FLAG_DISABLED;
out:
	mutex_unlock(&kprobe_mutex);
	kprobe_batch_commit(&b);
	return ret;
}

/**
 * disable_kprobe() - stop a registered probe from firing, keeping it
 * @kp: the probe
 *
 * Return: 0, or -EINVAL if @kp is not registered.
 */
int disable_kprobe(struct kprobe *kp)
{
	return kprobe_set_disabled(kp, true);
}
EXPORT_SYMBOL_GPL(disable_kprobe);

/**
 * enable_kprobe() - let a disabled probe fire again
 * @kp: the probe
 *
 * Return: 0, or -EINVAL if @kp is not registered or its code is gone.
 */
int enable_kprobe(struct kprobe *kp)
{
	return kprobe_set_disabled(kp, false);
}
EXPORT_SYMBOL_GPL(enable_kprobe);

/**
 * kprobes_set_all_armed() - debugfs kprobes/enabled
 * @arm: false disarms every site (probes keep their own disabled state);
 *	 true re-arms those that want to be
 */
void kprobes_set_all_armed(bool arm)
{
	struct kprobe_batch b;
	struct kprobe_site *s;

	kprobe_batch_init(&b);
	mutex_lock(&kprobe_mutex);
	if (kprobes_all_disarmed == !arm)
		goto out;
	kprobes_all_disarmed = !arm;
	list_for_each_entry(s, &kprobe_sites, all)
		site_sync(s, &b);
	if (!arm)
		pr_info("kprobes globally disabled\n");
	else
		pr_info("kprobes globally enabled\n");
	kprobe_batch_ftrace(&b);
out:
	mutex_unlock(&kprobe_mutex);
	kprobe_batch_commit(&b);
}

/**
 * dump_kprobe() - print a probe's identity (for handlers reporting trouble)
 * @kp: the probe
 */
void dump_kprobe(struct kprobe *kp)
{
	pr_err("Dump kprobe:\n.symbol_name = %s, .offset = %x, .addr = %pS\n",
	       kp->symbol_name, kp->offset, kp->addr);
}

NOKPROBE_SYMBOL(dump_kprobe);

/* ---- gone code: module unload, init memory -------------------------------------- */

/*
 * The code under the site is going away: disarm it while the text is still
 * there, take it out of the hash table (a later module may load at the
 * same address), and mark its probes gone.  They stay registered until
 * their owners unregister them.
 */
static void site_kill(struct kprobe_site *s, struct kprobe_batch *b)
{
	struct kprobe *kp;

	lockdep_assert_held(&kprobe_mutex);
	s->flags |= KPROBE_SITE_GONE;
	site_sync(s, b);
	if (!(s->flags & KPROBE_SITE_UNHASHED)) {
		hlist_del_rcu(&s->hash);
		s->flags |= KPROBE_SITE_UNHASHED;
		kprobe_nr_gone++;
	}
	list_for_each_entry(kp, &s->probes, list)
		kp->flags |= KPROBE_FLAG_GONE;
}

static void kprobes_kill_range(bool (*in)(unsigned long, void *), void *arg)
{
	struct kprobe_batch b;
	struct kprobe_site *s;

	kprobe_batch_init(&b);
	mutex_lock(&kprobe_mutex);
	list_for_each_entry(s, &kprobe_sites, all) {
		if (!(s->flags & KPROBE_SITE_GONE) && in(s->addr, arg))
			site_kill(s, &b);
	}
	kprobe_batch_ftrace(&b);
	/* ftrace forgets the text's records next: no hook may linger there */
	kprobe_linger_flush(in, arg);
	mutex_unlock(&kprobe_mutex);
	kprobe_batch_commit(&b);
}

static bool in_core_init_text(unsigned long addr, void *unused)
{
	return is_kernel_inittext(addr);
}

/**
 * kprobe_free_init_mem() - the kernel's init text is about to be freed
 */
void kprobe_free_init_mem(void)
{
	kprobes_kill_range(in_core_init_text, NULL);
}

#ifdef CONFIG_MODULES

static bool in_module_text(unsigned long addr, void *data)
{
	struct module *mod = data;

	return within_module(addr, mod);
}

static bool in_module_init_text(unsigned long addr, void *data)
{
	struct module *mod = data;

	return within_module_init(addr, mod);
}

static void kprobe_module_blacklist(struct module *mod, bool add)
{
	unsigned long start, end;
	unsigned int i;

	mutex_lock(&kprobe_mutex);
	if (add) {
		unsigned long *list = mod->kprobe_blacklist;

		for (i = 0; list && i < mod->num_kprobe_blacklist; i++)
			kprobe_add_ksym_blacklist((unsigned long)
				dereference_symbol_descriptor((void *)list[i]));
		start = (unsigned long)mod->kprobes_text_start;
		if (start)
			kprobe_add_area_blacklist(start, start + mod->kprobes_text_size);
		start = (unsigned long)mod->noinstr_text_start;
		if (start)
			kprobe_add_area_blacklist(start, start + mod->noinstr_text_size);
	} else {
		for_each_mod_mem_type(i) {
			start = (unsigned long)mod->mem[i].base;
			end = start + mod->mem[i].size;
			if (mod->mem[i].size)
				kprobe_blacklist_remove_range(start, end);
		}
	}
	mutex_unlock(&kprobe_mutex);
}

static int kprobes_module_callback(struct notifier_block *nb,
				   unsigned long val, void *data)
{
	struct module *mod = data;

	switch (val) {
	case MODULE_STATE_COMING:
		kprobe_module_blacklist(mod, true);
		break;
	case MODULE_STATE_LIVE:
		/* do_init_module() frees the init text after this */
		kprobes_kill_range(in_module_init_text, mod);
		break;
	case MODULE_STATE_GOING:
		kprobes_kill_range(in_module_text, mod);
		kprobe_module_blacklist(mod, false);
		kprobe_index_module_going(mod);
		break;
	}
	return NOTIFY_DONE;
}

static struct notifier_block kprobe_module_nb = {
	.notifier_call = kprobes_module_callback,
	.priority = 0,
};

static int __init kprobes_module_init(void)
{
	return register_module_notifier(&kprobe_module_nb);
}
#else	/* !CONFIG_MODULES: no module text, nothing to follow */
static int __init kprobes_module_init(void)
{
	return 0;
}
#endif	/* CONFIG_MODULES */

/**
 * kprobe_type_char() - the type letter kprobes/list shows for a probe
 * @p: the probe
 *
 * Return: 'r' for a kretprobe's entry probe, 'j' for a jprobe, 'k'
 * otherwise.
 */
char kprobe_type_char(struct kprobe *p)
{
	if (kprobe_is_kretprobe(p))
		return 'r';
	return kprobe_is_jprobe(p) ? 'j' : 'k';
}

/* ---- init -------------------------------------------------------------------------- */

static int __init init_kprobes(void)
{
	int err;

	kprobe_blacklist_init();
	/* a classic backend may register a probe (on its kretprobe trampoline) */
	err = arch_init_kprobes();
	if (!err)
		err = kprobes_classic_init();
	if (!err)
		err = kprobes_module_init();
	kprobes_initialized = !err;
	return err;
}
early_initcall(init_kprobes);
