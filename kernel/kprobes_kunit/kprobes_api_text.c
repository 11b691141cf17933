// SPDX-License-Identifier: GPL-2.0
/*
 * kprobes_api, x86: where registration must refuse, with which errno,
 * and leave nothing armed: bad input, text kprobes must not touch, and
 * text another patcher owns (jump labels, static calls, BUG() sites,
 * alternatives' lock prefixes).
 */
#define pr_fmt(fmt) fmt

#include <linux/bug.h>
#include <linux/cpumask.h>
#include <linux/jump_label.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/static_call.h>

#ifdef CONFIG_X86_KERNEL_IBT
#include <asm/ibt.h>
#endif

#include "kprobes_api.h"

/* A function in .kprobes.text: registration must refuse it. */
static int __kprobes kpt_in_kprobes_text(int x)
{
	return x + 1;
}

int (*kpt_call_kprobes_text)(int) = kpt_in_kprobes_text;

/* Each bad registration gets its errno and leaves nothing armed. */
static void bad(struct kunit *test, struct kprobe *kp, int want)
{
	int ret = register_kprobe(kp);

	KUNIT_EXPECT_EQ_MSG(test, ret, want, "register %s%s+%u addr %pS",
			    kp->symbol_name ?: "",
			    kp->symbol_name ? "" : "(addr)", kp->offset,
			    kp->addr);
	if (!ret)
		unregister_kprobe(kp);
	else
		KUNIT_EXPECT_FALSE_MSG(test, kpt_registered(kp),
				       "a failed register left the probe listed");
}

void kpt_bad_input(struct kunit *test)
{
	struct kprobe kp, good;

	KUNIT_EXPECT_EQ(test, register_kprobes(NULL, 0), -EINVAL);

	kpt_init_probe(&kp);		/* neither addr nor symbol */
	kp.pre_handler = kpt_pre_record;
	bad(test, &kp, -EINVAL);

	kpt_init_probe(&kp);		/* both addr and symbol */
	kp.addr = (kprobe_opcode_t *)kpt_target;
	kp.symbol_name = "kpt_target";
	bad(test, &kp, -EINVAL);

	kpt_init_probe(&kp);		/* unknown symbol */
	kp.symbol_name = "kpt_no_such_symbol";
	bad(test, &kp, -ENOENT);

	kpt_init_probe(&kp);		/* module not loaded */
	kp.symbol_name = "kpt_no_such_module:kpt_target";
	bad(test, &kp, -ENOENT);

	kpt_init_probe(&kp);		/* inside the 10-byte movabs */
	kp.addr = (kprobe_opcode_t *)(kpt_asm_mov + 1);
	bad(test, &kp, -EILSEQ);

	kpt_init_probe(&kp);		/* same, by symbol+offset */
	kp.symbol_name = "kpt_asm";
	kp.offset = kpt_asm_off_mov + 3;
	bad(test, &kp, -EILSEQ);

	kpt_init_probe(&kp);		/* mov from %ss, just before: accepted */
	kp.addr = (kprobe_opcode_t *)kpt_asm_ss;
	kp.pre_handler = kpt_pre_record;
	if (KPT_CHECK_EQ(test, register_kprobe(&kp), 0))
		unregister_kprobe(&kp);

	kpt_init_probe(&kp);		/* mov to %ss: not single-stepped */
	kp.addr = (kprobe_opcode_t *)((char *)kpt_asm_ss + kpt_asm_ss_off);
	bad(test, &kp, -EINVAL);

	kpt_init_probe(&kp);		/* NOKPROBE_SYMBOL() in the kernel */
	kp.symbol_name = "notifier_call_chain";
	bad(test, &kp, -EINVAL);

	kpt_init_probe(&kp);	/* .kprobes.text (this module's, or vmlinux's) */
	kp.addr = (kprobe_opcode_t *)kpt_in_kprobes_text;
	bad(test, &kp, -EINVAL);

	kpt_init_probe(&kp);		/* entry text */
	kp.symbol_name = IS_ENABLED(CONFIG_X86_64) ? "entry_SYSCALL_64" :
						     "entry_INT80_32";
	bad(test, &kp, -EINVAL);

	kpt_init_probe(&kp);		/* .noinstr.text */
	kp.symbol_name = "exc_int3";
	bad(test, &kp, -EINVAL);

	kpt_init_probe(&good);
	good.addr = (kprobe_opcode_t *)kpt_asm_add;
	good.pre_handler = kpt_pre_record;
	KUNIT_ASSERT_EQ(test, register_kprobe(&good), 0);

	/* unregistering a probe never registered changes nothing */
	kpt_init_probe(&kp);
	kp.addr = (kprobe_opcode_t *)kpt_asm_add;
	kp.pre_handler = kpt_pre_record;
	unregister_kprobe(&kp);
	kpt_reset();
	KUNIT_EXPECT_EQ(test, kpt_call_asm(3), KPT_ASM_BASE + 3);
	KUNIT_EXPECT_EQ(test, kpt_h.pre, 1);
	unregister_kprobe(&good);
	kpt_reset();
	kpt_call_asm(3);
	KUNIT_EXPECT_EQ(test, kpt_h.pre, 0);
	KUNIT_EXPECT_EQ(test, kpt_call_kprobes_text(1), 2);
}

/* ---- text another patcher owns ------------------------------------------- */

/*
 * A jump label, a static call and a WARN() in this module: their sites are
 * listed in this module's own tables (struct module), which is how the
 * test finds their addresses without decoding anything.
 */
static DEFINE_STATIC_KEY_FALSE(kpt_key);

static noinline int kpt_jump_label_fn(int x)
{
	if (static_branch_unlikely(&kpt_key))
		return x + 2;
	return x + 1;
}

static int kpt_sc_impl(int x)
{
	return x + 1;
}

DEFINE_STATIC_CALL(kpt_sc, kpt_sc_impl);

static noinline int kpt_static_call_fn(int x)
{
	return static_call(kpt_sc)(x);
}

static noinline int kpt_warn_fn(int x)
{
	WARN_ON_ONCE(x == -12345);	/* never true: only its ud2 site counts */
	return x + 1;
}

int (*kpt_call_jump_label_fn)(int) = kpt_jump_label_fn;
int (*kpt_call_static_call_fn)(int) = kpt_static_call_fn;
int (*kpt_call_warn_fn)(int) = kpt_warn_fn;

/*
 * The module's patched sites inside [fn, fn + KPT_SITE_WINDOW): not simply
 * the first entry of each table, since a distribution config adds sites of
 * its own to the module (might_resched() is a static call under
 * PREEMPT_DYNAMIC, WARN()s and jump labels come with inlined helpers).
 */
#define KPT_SITE_WINDOW 64

static bool __maybe_unused in_window(unsigned long site, void *fn)
{
	return site > (unsigned long)fn &&
	       site < (unsigned long)fn + KPT_SITE_WINDOW;
}

#ifdef CONFIG_HAVE_STATIC_CALL_INLINE
/* a static call site's address (its table holds it relative) */
static unsigned long static_call_addr(struct static_call_site *site)
{
	return (unsigned long)&site->addr + site->addr;
}
#endif

#ifdef CONFIG_GENERIC_BUG
/* a BUG()/WARN() site's address, as lib/bug.c reads it */
static unsigned long bug_entry_addr(struct bug_entry *bug)
{
#ifdef CONFIG_GENERIC_BUG_RELATIVE_POINTERS
	return (unsigned long)&bug->bug_addr_disp + bug->bug_addr_disp;
#else
	return bug->bug_addr;
#endif
}
#endif

static unsigned long jump_label_site_in(void *fn)
{
#if defined(MODULE) && defined(CONFIG_JUMP_LABEL)	/* THIS_MODULE's */
	unsigned int i;

	for (i = 0; i < THIS_MODULE->num_jump_entries; i++) {
		unsigned long site = jump_entry_code(&THIS_MODULE->jump_entries[i]);

		if (in_window(site, fn))
			return site;
	}
#endif
	return 0;
}

static unsigned long static_call_site_in(void *fn)
{
#if defined(MODULE) && defined(CONFIG_HAVE_STATIC_CALL_INLINE)
	unsigned int i;

	for (i = 0; i < THIS_MODULE->num_static_call_sites; i++) {
		unsigned long addr =
			static_call_addr(&THIS_MODULE->static_call_sites[i]);

		if (in_window(addr, fn))
			return addr;
	}
#endif
	return 0;
}

static unsigned long bug_site_in(void *fn)
{
#if defined(MODULE) && defined(CONFIG_GENERIC_BUG)
	unsigned int i;

	for (i = 0; i < THIS_MODULE->num_bugs; i++) {
		unsigned long addr = bug_entry_addr(&THIS_MODULE->bug_table[i]);

		if (in_window(addr, fn))
			return addr;
	}
#endif
	return 0;
}

/*
 * Jump labels and static calls rewrite their sites at run time and a
 * BUG()/WARN() site is a ud2 that must trap as itself: registration refuses
 * them, ours with -EBUSY for a site another patcher owns and -EINVAL for
 * the ud2 (upstream answers -EINVAL to all three), and nothing is armed.
 */
void kpt_bad_input_patched_sites(struct kunit *test)
{
	int busy = upstream ? -EINVAL : -EBUSY;
	unsigned long jl, sc, bug;
	struct kprobe kp;

	/* the sites are found in this module's tables */
	KPT_NEEDS_MODULE(test);
	jl = jump_label_site_in(kpt_call_jump_label_fn);
	sc = static_call_site_in(kpt_call_static_call_fn);
	bug = bug_site_in(kpt_call_warn_fn);
	/* each function has its site in its first KPT_SITE_WINDOW bytes */
	KUNIT_ASSERT_TRUE(test, IS_ENABLED(CONFIG_JUMP_LABEL) && jl);
	/* 32-bit x86 has no inline static calls (no objtool): none to refuse */
	KUNIT_ASSERT_TRUE(test, !IS_ENABLED(CONFIG_HAVE_STATIC_CALL_INLINE) || sc);
	KUNIT_ASSERT_TRUE(test, bug);

	kpt_init_probe(&kp);
	kp.addr = (kprobe_opcode_t *)jl;
	kp.pre_handler = kpt_pre_record;
	bad(test, &kp, busy);

	if (sc) {
		kpt_init_probe(&kp);
		kp.addr = (kprobe_opcode_t *)sc;
		kp.pre_handler = kpt_pre_record;
		bad(test, &kp, busy);
	}

	kpt_init_probe(&kp);
	kp.addr = (kprobe_opcode_t *)bug;
	kp.pre_handler = kpt_pre_record;
	bad(test, &kp, -EINVAL);

	/* nothing was armed: the functions run as before, no handler */
	kpt_reset();
	KUNIT_EXPECT_EQ(test, kpt_call_jump_label_fn(1), 2);
	static_branch_enable(&kpt_key);
	KUNIT_EXPECT_EQ(test, kpt_call_jump_label_fn(1), 3);
	static_branch_disable(&kpt_key);
	KUNIT_EXPECT_EQ(test, kpt_call_static_call_fn(4), 5);
	KUNIT_EXPECT_EQ(test, kpt_call_warn_fn(7), 8);
	KUNIT_EXPECT_EQ(test, kpt_h.pre, 0);
}

struct kpt_core_tally {
	int armed;	/* registered: must never happen */
	int busy;	/* -EBUSY */
	int inval;	/* -EINVAL */
	int other;
};

static void kpt_core_try(struct kpt_core_tally *t, unsigned long addr)
{
	struct kprobe kp;
	int ret;

	kpt_init_probe(&kp);
	kp.addr = (kprobe_opcode_t *)addr;
	kp.pre_handler = kpt_pre_record;
	ret = register_kprobe(&kp);
	if (!ret) {
		unregister_kprobe(&kp);
		pr_info("kprobes_api: armed a patched site at %pS\n", (void *)addr);
		t->armed++;
	} else if (ret == -EBUSY) {
		t->busy++;
	} else if (ret == -EINVAL) {
		t->inval++;
	} else {
		t->other++;
	}
}

/*
 * Every jump label, static call and BUG() site of the kernel itself (not
 * of a module, which kpt_bad_input_patched_sites covers): registration
 * refuses each, and a byte inside a 5-byte site too.  Ours answers -EBUSY
 * for a patched site unless the function is blacklisted (-EINVAL first),
 * and -EINVAL for a ud2; upstream answers -EINVAL or -EILSEQ.  Ours asks
 * jump labels, static calls and the bug table, which answer from sorted
 * indexes of the kernel's sites once kprobes asked them to build those: a
 * site an index missed would be armed here.  (Built in, the suite runs
 * before the indexes are built: then the owners' walks answer.)
 */
void kpt_core_patched_sites(struct kunit *test)
{
	unsigned long stext = kpt_lookup("_stext"), etext = kpt_lookup("_etext");
	struct kpt_core_tally jl = {}, sc = {}, bug = {};
	void *start, *stop;

	if (!stext || !etext)
		kunit_skip(test, "%s", upstream ? "no kallsyms_lookup_name" :
			   "no _stext in kallsyms (this boot: no KALLSYMS_ALL)");
#ifdef CONFIG_JUMP_LABEL
	start = (void *)kpt_lookup("__start___jump_table");
	stop = (void *)kpt_lookup("__stop___jump_table");
	for (struct jump_entry *je = start; je && je < (struct jump_entry *)stop; je++) {
		unsigned long code = jump_entry_code(je);

		if (code < stext || code >= etext)
			continue;	/* init text, gone */
		kpt_core_try(&jl, code);
		/* a 5-byte site (jmp rel32, nopl): one of its inner bytes too */
		if (*(u8 *)code == 0xe9 || *(u8 *)code == 0x0f)
			kpt_core_try(&jl, code + 2);
	}
#endif
#ifdef CONFIG_HAVE_STATIC_CALL_INLINE
	start = (void *)kpt_lookup("__start_static_call_sites");
	stop = (void *)kpt_lookup("__stop_static_call_sites");
	for (struct static_call_site *site = start;
	     site && site < (struct static_call_site *)stop; site++) {
		unsigned long addr = static_call_addr(site);

		if (addr < stext || addr >= etext)
			continue;
		kpt_core_try(&sc, addr);
		kpt_core_try(&sc, addr + 4);
	}
#endif
#ifdef CONFIG_GENERIC_BUG
	start = (void *)kpt_lookup("__start___bug_table");
	stop = (void *)kpt_lookup("__stop___bug_table");
	for (struct bug_entry *b = start; b && b < (struct bug_entry *)stop; b++) {
		unsigned long addr = bug_entry_addr(b);

		if (addr < stext || addr >= etext)
			continue;
		kpt_core_try(&bug, addr);
	}
#endif
	kunit_info(test, "jump labels: %d busy %d inval %d other; static calls: %d busy %d inval %d other; bugs: %d inval %d other\n",
		   jl.busy, jl.inval, jl.other, sc.busy, sc.inval, sc.other,
		   bug.inval, bug.busy + bug.other);
	KUNIT_EXPECT_EQ(test, jl.armed + sc.armed + bug.armed, 0);
	KUNIT_EXPECT_TRUE(test, jl.busy + jl.inval + jl.other > 0);
	KUNIT_EXPECT_GT(test, bug.inval, 0);
	KUNIT_EXPECT_EQ(test, bug.busy + bug.other, 0);
	if (!upstream) {
		/* only blacklisted text answers -EINVAL before -EBUSY */
		KUNIT_EXPECT_EQ(test, jl.other + sc.other, 0);
		KUNIT_EXPECT_GT(test, jl.busy, jl.inval);
		KUNIT_EXPECT_TRUE(test, !IS_ENABLED(CONFIG_HAVE_STATIC_CALL_INLINE) || sc.busy > 0);
	}
}

/*
 * A lock prefix listed in .smp_locks belongs to alternatives only while
 * the kernel runs uniprocessor with a CPU that may still come up (boot
 * with maxcpus=1): the prefix is then a nop that a CPU hotplug turns back
 * into lock, and registration refuses it.  On an SMP boot nothing ever
 * rewrites it again, and a probe there single-steps the locked increment.
 */
void kpt_alternatives_lock_prefix(struct kunit *test)
{
	void (*call_lock)(long *) = kpt_asm_lock;
	bool up = num_online_cpus() == 1 && num_possible_cpus() > 1;
	/*
	 * lock incq (%rdi) or lock incl (%eax); a CONFIG_SMP=n kernel has no
	 * LOCK_PREFIX
	 */
	int len = (IS_ENABLED(CONFIG_SMP) ? 1 : 0) +
		  (IS_ENABLED(CONFIG_X86_64) ? 3 : 2);
	struct kprobe kp;
	long v = 5;

	OPTIMIZER_HIDE_VAR(call_lock);	/* a real call to it */
	kpt_init_probe(&kp);
	kp.addr = (kprobe_opcode_t *)((char *)call_lock + kpt_asm_lock_off);
	kp.pre_handler = kpt_pre_record;
	kp.post_handler = kpt_post_record;
	kunit_info(test, "%s: lock prefix %s (byte %02x)\n",
		   !IS_ENABLED(CONFIG_SMP) ? "CONFIG_SMP=n kernel" :
		   up ? "uniprocessor boot" : "SMP boot",
		   !IS_ENABLED(CONFIG_SMP) ? "not built" :
		   up ? "owned by alternatives" : "fixed", *(u8 *)kp.addr);
	if (up && upstream && !register_kprobe(&kp)) {
		unregister_kprobe(&kp);
		kunit_skip(test, "upstream accepts it: it asks an empty range");
	}
	if (up) {
		bad(test, &kp, -EBUSY);
		kpt_reset();
		call_lock(&v);
		KUNIT_EXPECT_EQ(test, v, 6);
		KUNIT_EXPECT_EQ(test, kpt_h.pre, 0);
		return;
	}
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	kpt_reset();
	call_lock(&v);
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, v, 6);
	KUNIT_EXPECT_EQ(test, kpt_h.pre, 1);
	KUNIT_EXPECT_EQ(test, kpt_h.post, 1);
	/* post_handler sees the IP after the locked increment */
	KUNIT_EXPECT_EQ(test, kpt_h.post_ip, (unsigned long)kp.addr + len);
}
