// SPDX-License-Identifier: GPL-2.0
/*
 * kprobes_modapi: what 6.12's <linux/kprobes.h> offers modules, used as
 * modules in the wild use it (SystemTap's runtime, LTTng, out-of-tree
 * tracers), built from one source against ours and stock 6.12 and run on
 * both (KTAP from its init).  Every field of struct kprobe, kretprobe
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
#include <linux/kprobes.h>
#include <linux/ptrace.h>
#include <linux/sched.h>

#include "kpt_ktap.h"

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
	/* the real caller, in this module (so not a trampoline) */
	if (!within_module(ra, THIS_MODULE))
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
static int calls(int n)
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
static int t_kprobe(void)
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
	if (!KPT_EXPECT_EQ(r, 0))
		return 1;
	r = register_kprobe(&b);
	KPT_EXPECT_EQ(r, 0);
	KPT_EXPECT_EQ(calls(N), 0);
	KPT_EXPECT_EQ(seen.pre_hits, r ? N : 2 * N);
	KPT_EXPECT_EQ(seen.post_hits, N);
	KPT_EXPECT_EQ(seen.bad_addr, 0);
	KPT_EXPECT_EQ(a.nmissed + b.nmissed, 0);
	/* the same address, whichever way it was named */
	KPT_EXPECT(r || a.addr == b.addr);
	KPT_EXPECT(!kprobe_disabled(&a) && !kprobe_gone(&a));
	pr_info("# kprobe_optimized %d kprobe_ftrace %d flags %#x\n",
		kprobe_optimized(&a), kprobe_ftrace(&a), a.flags);
	if (!r)
		unregister_kprobe(&b);
	unregister_kprobe(&a);
	return kpt_failed;
}

/* disabled at registration, enabled, disabled: hits only while enabled */
static int t_enable_disable(void)
{
	struct kprobe a = {
		.addr = (kprobe_opcode_t *)modapi_target,
		.pre_handler = pre,
		.flags = KPROBE_FLAG_DISABLED,
	};

	reset();
	if (!KPT_EXPECT_EQ(register_kprobe(&a), 0))
		return 1;
	KPT_EXPECT(kprobe_disabled(&a));
	calls(N);
	KPT_EXPECT_EQ(seen.pre_hits, 0);
	KPT_EXPECT_EQ(enable_kprobe(&a), 0);
	KPT_EXPECT(!kprobe_disabled(&a));
	calls(N);
	KPT_EXPECT_EQ(seen.pre_hits, N);
	KPT_EXPECT_EQ(disable_kprobe(&a), 0);
	calls(N);
	KPT_EXPECT_EQ(seen.pre_hits, N);
	unregister_kprobe(&a);
	return kpt_failed;
}

/* register_kprobes()/unregister_kprobes() on an array */
static int t_kprobes_array(void)
{
	struct kprobe a = { .addr = (kprobe_opcode_t *)modapi_target, .pre_handler = pre };
	struct kprobe b = { .symbol_name = "modapi_target", .pre_handler = pre };
	struct kprobe *kps[] = { &a, &b };

	reset();
	if (!KPT_EXPECT_EQ(register_kprobes(kps, ARRAY_SIZE(kps)), 0))
		return 1;
	calls(N);
	KPT_EXPECT_EQ(seen.pre_hits, 2 * N);
	unregister_kprobes(kps, ARRAY_SIZE(kps));
	calls(N);
	KPT_EXPECT_EQ(seen.pre_hits, 2 * N);
	return kpt_failed;
}

/* the errnos a module sees for the classic mistakes */
static int t_errnos(void)
{
	struct kprobe both = {
		.addr = (kprobe_opcode_t *)modapi_target,
		.symbol_name = "modapi_target",
	};
	struct kprobe none = { .symbol_name = "kpt_no_such_symbol_anywhere" };
	struct kprobe nowhere = { .pre_handler = pre };

	KPT_EXPECT_EQ(register_kprobe(&both), -EINVAL);
	KPT_EXPECT_EQ(register_kprobe(&nowhere), -EINVAL);
	KPT_EXPECT_EQ(register_kprobe(&none), -ENOENT);
	return kpt_failed;
}

/* a kretprobe with entry_handler, data_size, maxactive; its instance */
static int t_kretprobe(void)
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
	if (!KPT_EXPECT_EQ(r, 0))
		return 1;
	KPT_EXPECT_EQ(calls(N), 0);
	KPT_EXPECT_EQ(seen.entry_hits, N);
	KPT_EXPECT_EQ(seen.ret_hits, N);
	KPT_EXPECT_EQ(seen.bad_data, 0);
	KPT_EXPECT_EQ(seen.bad_rp, 0);
	KPT_EXPECT_EQ(seen.bad_ret, 0);
	KPT_EXPECT_EQ(seen.bad_layout, 0);
	KPT_EXPECT_EQ(rp.nmissed, 0);
	KPT_EXPECT_EQ(rp.kp.nmissed, 0);
	KPT_EXPECT_EQ(disable_kretprobe(&rp), 0);
	calls(N);
	KPT_EXPECT_EQ(seen.ret_hits, N);
	KPT_EXPECT_EQ(enable_kretprobe(&rp), 0);
	calls(N);
	KPT_EXPECT_EQ(seen.ret_hits, 2 * N);
	unregister_kretprobe(&rp);
	return kpt_failed;
}

/* register_kretprobes()/unregister_kretprobes() */
static int t_kretprobes_array(void)
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
	if (!KPT_EXPECT_EQ(register_kretprobes(rps, ARRAY_SIZE(rps)), 0))
		return 1;
	calls(N);
	KPT_EXPECT_EQ(seen.entry_hits, 2 * N);
	KPT_EXPECT_EQ(seen.ret_hits, N);
	KPT_EXPECT_EQ(seen.bad_data + seen.bad_rp + seen.bad_ret + seen.bad_layout, 0);
	unregister_kretprobes(rps, ARRAY_SIZE(rps));
	calls(N);
	KPT_EXPECT_EQ(seen.entry_hits, 2 * N);
	return kpt_failed;
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

static const struct kpt_case cases[] = {
	{ "kprobe by addr and by symbol_name+offset: both handlers, the same addr", t_kprobe },
	{ "KPROBE_FLAG_DISABLED, enable_kprobe(), disable_kprobe()", t_enable_disable },
	{ "register_kprobes()/unregister_kprobes()", t_kprobes_array },
	{ "errnos: addr and symbol_name, neither, an unknown symbol", t_errnos },
	{ "kretprobe: entry_handler, ri->data, get_kretprobe(), the caller, the layout",
	  t_kretprobe },
	{ "register_kretprobes()/unregister_kretprobes(), an entry_handler that declines",
	  t_kretprobes_array },
};

static int __init kprobes_modapi_init(void)
{
	modapi_declared_types();
	kpt_run_cases(cases, ARRAY_SIZE(cases));
	return 0;
}

static void __exit kprobes_modapi_exit(void)
{
}

module_init(kprobes_modapi_init);
module_exit(kprobes_modapi_exit);
MODULE_DESCRIPTION("kprobes selftest: the module API of 6.12's <linux/kprobes.h>");
MODULE_LICENSE("GPL");
