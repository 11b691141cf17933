// SPDX-License-Identifier: GPL-2.0
/*
 * kprobes_modapi: what 6.12's <linux/kprobes.h> offers modules, used as
 * modules in the wild use it (SystemTap's runtime, LTTng, out-of-tree
 * tracers), built from one source against ours and stock 6.12 and run on
 * both, as a KUnit suite.  Every field of struct kprobe, kretprobe
 * and kretprobe_instance that such a module sets or reads, every inline
 * helper, the flags, and the two layouts CONFIG_KRETPROBE_ON_RETHOOK
 * selects.  What 6.12 declares but does not export (kprobe_running(),
 * kretprobe_find_ret_addr(), whose rethook_find_ret_addr() is not
 * exported either) no module can link on stock: those are checked by
 * type only.  The uprobe consumer API has its cases in uprobes.sh
 * (kpt_ucons.ko).
 */
#define pr_fmt(fmt) fmt

#include <linux/module.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/string.h>

#include "kprobes_kunit.h"

#define N 100

static noinline int modapi_target(int x)
{
	return x * 7 + 3;
}

/* what the handlers saw */
static struct {
	unsigned long pre_hits, post_hits, ret_hits, entry_hits;
	unsigned long bad_addr, bad_ret, bad_data, bad_rp, bad_layout;
} seen;

static int pre(struct kprobe *p, struct pt_regs *regs)
{
	seen.pre_hits++;
	/* the probe's own fields, as handlers read them */
	if (!p->addr || kprobe_disabled(p) || kprobe_gone(p))
		seen.bad_addr++;
	return 0;
}

static void post(struct kprobe *p, struct pt_regs *regs, unsigned long flags)
{
	seen.post_hits++;
}

struct modapi_data {
	int arg;
	unsigned long magic;
};

static struct kretprobe rp;

/* an entry handler that declines the return (no instance kept) */
static int entry_only(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	seen.entry_hits++;
	return 1;
}

static int entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct modapi_data *d = (struct modapi_data *)ri->data;

	seen.entry_hits++;
	d->arg = regs_get_kernel_argument(regs, 0);
	d->magic = 0x6b727021;
	return 0;
}

static noinline int calls(int n);

/*
 * Is ra in calls()?  In this module, as SystemTap checks it, or, built
 * in, by name: THIS_MODULE is NULL then.
 */
static bool ret_in_calls(unsigned long ra)
{
#ifdef MODULE
	return within_module(ra, THIS_MODULE);
#else
	char sym[KSYM_SYMBOL_LEN];

	/* calls(), or a clone the compiler made of it ("calls.constprop.0") */
	sprint_symbol(sym, ra);
	return str_has_prefix(sym, "calls+") || str_has_prefix(sym, "calls.");
#endif
}

static int ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct modapi_data *d = (struct modapi_data *)ri->data;
	unsigned long ra = get_kretprobe_retaddr(ri);

	seen.ret_hits++;
	if (d->magic != 0x6b727021 ||
	    (int)regs_return_value(regs) != d->arg * 7 + 3)
		seen.bad_data++;
	if (get_kretprobe(ri) != &rp)
		seen.bad_rp++;
	/* the real caller, calls() (so not a trampoline) */
	if (!ret_in_calls(ra))
		seen.bad_ret++;
	/* the layout the config implies, as SystemTap's runtime reads it */
#ifdef CONFIG_KRETPROBE_ON_RETHOOK
	if (ri->node.ret_addr != ra || !rp.rh)
		seen.bad_layout++;
#else
	if ((unsigned long)ri->ret_addr != ra || !ri->fp || !rp.rph)
		seen.bad_layout++;
#endif
	return 0;
}

/* n calls the compiler cannot drop (it would see a pure function) */
static noinline int calls(int n)
{
	int (*fn)(int) = modapi_target;
	int i, bad = 0;

	OPTIMIZER_HIDE_VAR(fn);
	for (i = 0; i < n; i++)
		bad += fn(i) != i * 7 + 3;
	return bad;
}

static void reset(void)
{
	memset(&seen, 0, sizeof(seen));
}

/* a kprobe by address, by symbol and offset, with both handlers */
static void kpt_kprobe(struct kunit *test)
{
	struct kprobe a = {
		.addr = (kprobe_opcode_t *)modapi_target,
		.pre_handler = pre,
		.post_handler = post,
	};
	struct kprobe b = {
		.symbol_name = "modapi_target",
		.offset = 0,
		.pre_handler = pre,
	};
	int r;

	reset();
	r = register_kprobe(&a);
	KUNIT_ASSERT_EQ(test, r, 0);
	r = register_kprobe(&b);
	KUNIT_EXPECT_EQ(test, r, 0);
	KUNIT_EXPECT_EQ(test, calls(N), 0);
	KUNIT_EXPECT_EQ(test, seen.pre_hits, r ? N : 2 * N);
	KUNIT_EXPECT_EQ(test, seen.post_hits, N);
	KUNIT_EXPECT_EQ(test, seen.bad_addr, 0);
	KUNIT_EXPECT_EQ(test, a.nmissed + b.nmissed, 0);
	/* the same address, whichever way it was named */
	KUNIT_EXPECT_TRUE(test, r || a.addr == b.addr);
	KUNIT_EXPECT_TRUE(test, !kprobe_disabled(&a) && !kprobe_gone(&a));
	kunit_info(test, "kprobe_optimized %d kprobe_ftrace %d flags %#x\n",
		   kprobe_optimized(&a), kprobe_ftrace(&a), a.flags);
	if (!r)
		unregister_kprobe(&b);
	unregister_kprobe(&a);
}

/* disabled at registration, enabled, disabled: hits only while enabled */
static void kpt_enable_disable(struct kunit *test)
{
	struct kprobe a = {
		.addr = (kprobe_opcode_t *)modapi_target,
		.pre_handler = pre,
		.flags = KPROBE_FLAG_DISABLED,
	};

	reset();
	KUNIT_ASSERT_EQ(test, register_kprobe(&a), 0);
	KUNIT_EXPECT_TRUE(test, kprobe_disabled(&a));
	calls(N);
	KUNIT_EXPECT_EQ(test, seen.pre_hits, 0);
	KUNIT_EXPECT_EQ(test, enable_kprobe(&a), 0);
	KUNIT_EXPECT_FALSE(test, kprobe_disabled(&a));
	calls(N);
	KUNIT_EXPECT_EQ(test, seen.pre_hits, N);
	KUNIT_EXPECT_EQ(test, disable_kprobe(&a), 0);
	calls(N);
	KUNIT_EXPECT_EQ(test, seen.pre_hits, N);
	unregister_kprobe(&a);
}

/* register_kprobes()/unregister_kprobes() on an array */
static void kpt_kprobes_array(struct kunit *test)
{
	struct kprobe a = { .addr = (kprobe_opcode_t *)modapi_target, .pre_handler = pre };
	struct kprobe b = { .symbol_name = "modapi_target", .pre_handler = pre };
	struct kprobe *kps[] = { &a, &b };

	reset();
	KUNIT_ASSERT_EQ(test, register_kprobes(kps, ARRAY_SIZE(kps)), 0);
	calls(N);
	KUNIT_EXPECT_EQ(test, seen.pre_hits, 2 * N);
	unregister_kprobes(kps, ARRAY_SIZE(kps));
	calls(N);
	KUNIT_EXPECT_EQ(test, seen.pre_hits, 2 * N);
}

/* the errnos a module sees for the classic mistakes */
static void kpt_errnos(struct kunit *test)
{
	struct kprobe both = {
		.addr = (kprobe_opcode_t *)modapi_target,
		.symbol_name = "modapi_target",
	};
	struct kprobe none = { .symbol_name = "kpt_no_such_symbol_anywhere" };
	struct kprobe nowhere = { .pre_handler = pre };

	KUNIT_EXPECT_EQ(test, register_kprobe(&both), -EINVAL);
	KUNIT_EXPECT_EQ(test, register_kprobe(&nowhere), -EINVAL);
	KUNIT_EXPECT_EQ(test, register_kprobe(&none), -ENOENT);
}

/* a kretprobe with entry_handler, data_size, maxactive; its instance */
static void kpt_kretprobe(struct kunit *test)
{
	int r;

	reset();
	memset(&rp, 0, sizeof(rp));
	rp.kp.symbol_name = "modapi_target";
	rp.handler = ret;
	rp.entry_handler = entry;
	rp.data_size = sizeof(struct modapi_data);
	rp.maxactive = 4;
	r = register_kretprobe(&rp);
	KUNIT_ASSERT_EQ(test, r, 0);
	KUNIT_EXPECT_EQ(test, calls(N), 0);
	KUNIT_EXPECT_EQ(test, seen.entry_hits, N);
	KUNIT_EXPECT_EQ(test, seen.ret_hits, N);
	KUNIT_EXPECT_EQ(test, seen.bad_data, 0);
	KUNIT_EXPECT_EQ(test, seen.bad_rp, 0);
	KUNIT_EXPECT_EQ(test, seen.bad_ret, 0);
	KUNIT_EXPECT_EQ(test, seen.bad_layout, 0);
	KUNIT_EXPECT_EQ(test, rp.nmissed, 0);
	KUNIT_EXPECT_EQ(test, rp.kp.nmissed, 0);
	KUNIT_EXPECT_EQ(test, disable_kretprobe(&rp), 0);
	calls(N);
	KUNIT_EXPECT_EQ(test, seen.ret_hits, N);
	KUNIT_EXPECT_EQ(test, enable_kretprobe(&rp), 0);
	calls(N);
	KUNIT_EXPECT_EQ(test, seen.ret_hits, 2 * N);
	unregister_kretprobe(&rp);
}

/* register_kretprobes()/unregister_kretprobes() */
static void kpt_kretprobes_array(struct kunit *test)
{
	static struct kretprobe r2;
	struct kretprobe *rps[] = { &rp, &r2 };

	reset();
	memset(&rp, 0, sizeof(rp));
	rp.kp.addr = (kprobe_opcode_t *)modapi_target;
	rp.handler = ret;
	rp.entry_handler = entry;
	rp.data_size = sizeof(struct modapi_data);
	r2 = rp;
	r2.handler = ret;	/* never called: entry_only() declines */
	r2.entry_handler = entry_only;
	KUNIT_ASSERT_EQ(test, register_kretprobes(rps, ARRAY_SIZE(rps)), 0);
	calls(N);
	KUNIT_EXPECT_EQ(test, seen.entry_hits, 2 * N);
	KUNIT_EXPECT_EQ(test, seen.ret_hits, N);
	KUNIT_EXPECT_EQ(test, seen.bad_data + seen.bad_rp + seen.bad_ret + seen.bad_layout, 0);
	unregister_kretprobes(rps, ARRAY_SIZE(rps));
	calls(N);
	KUNIT_EXPECT_EQ(test, seen.entry_hits, 2 * N);
}

/*
 * What 6.12 declares but modules cannot link on stock: the types only,
 * so that a module written against one kernel compiles on the other.
 * A build check: the module does not build if one differs.
 */
static void modapi_declared_types(void)
{
	struct llist_node *cur = NULL;

	BUILD_BUG_ON(!__same_type(kretprobe_find_ret_addr(current, NULL, &cur),
				  unsigned long));
	BUILD_BUG_ON(!__same_type(kprobe_running(), struct kprobe *));
	BUILD_BUG_ON(!__same_type(is_kretprobe_trampoline(0), bool));
	BUILD_BUG_ON(!__same_type(((struct kprobe *)NULL)->opcode,
				  kprobe_opcode_t));
	BUILD_BUG_ON(!__same_type(((struct kprobe *)NULL)->flags, u32));
	BUILD_BUG_ON(!__same_type(((struct kretprobe *)NULL)->maxactive, int));
	BUILD_BUG_ON(!__same_type(((struct kretprobe *)NULL)->nmissed, int));
	BUILD_BUG_ON(!__same_type(((struct kretprobe *)NULL)->data_size, size_t));
	BUILD_BUG_ON(!__same_type(((struct kprobe *)NULL)->nmissed, unsigned long));
	BUILD_BUG_ON(KPROBE_FLAG_GONE == KPROBE_FLAG_DISABLED);
	BUILD_BUG_ON(!__same_type(&pre, kprobe_pre_handler_t));
	BUILD_BUG_ON(!__same_type(&post, kprobe_post_handler_t));
	BUILD_BUG_ON(!__same_type(&ret, kretprobe_handler_t));
}

/*
 * The suite's init only runs modapi_declared_types(), whose checks are
 * made at build time, in a function that is built.
 */
static int kprobes_modapi_suite_init(struct kunit_suite *suite)
{
	modapi_declared_types();
	return 0;
}

static struct kunit_case kprobes_modapi_cases[] = {
	/* by addr and by symbol_name+offset: both handlers, the same addr */
	KPT_CASE(kprobe),
	/* KPROBE_FLAG_DISABLED, enable_kprobe(), disable_kprobe() */
	KPT_CASE(enable_disable),
	/* register_kprobes()/unregister_kprobes() */
	KPT_CASE(kprobes_array),
	/* addr and symbol_name, neither, an unknown symbol */
	KPT_CASE(errnos),
	/* entry_handler, ri->data, get_kretprobe(), the caller, the layout */
	KPT_CASE(kretprobe),
	/* register_kretprobes()/unregister_kretprobes(), an entry_handler that declines */
	KPT_CASE(kretprobes_array),
	{}
};

static struct kunit_suite kprobes_modapi_suite = {
	.name = "kprobes_modapi",
	.suite_init = kprobes_modapi_suite_init,
	.test_cases = kprobes_modapi_cases,
};

kunit_test_suite(kprobes_modapi_suite);

MODULE_DESCRIPTION("KUnit tests of the module API of 6.12's <linux/kprobes.h>");
MODULE_LICENSE("GPL");
