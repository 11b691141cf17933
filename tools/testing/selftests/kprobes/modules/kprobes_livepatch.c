// SPDX-License-Identifier: GPL-2.0
/*
 * kprobes_livepatch: an entry kprobe and a livepatch on the same
 * function, in both orders, on every arch that has both (a suite module:
 * make test on x86, make ppc64le-test on a classic backend with kprobes
 * on ftrace).  6.12 hooks an entry probe without a post_handler on an
 * ftrace_ops that does not modify the IP, so it and a livepatch (whose
 * ops does) share the function: each registration succeeds, the probe
 * sees every call, and the calls run the patched body.
 *
 * The module is itself the livepatch, of int_sqrt() (exported, pure: its
 * replacement computes the same), and takes it away again through sysfs
 * before its init returns, so that it can be unloaded.  Only calls made
 * by this module's init are counted, in the probe and in the replacement:
 * the rest of the kernel may call int_sqrt() meanwhile.
 */
#define pr_fmt(fmt) fmt

#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/kprobes.h>
#include <linux/livepatch.h>
#include <linux/module.h>
#include <linux/sched.h>

#include "kpt_ktap.h"

#define N 100
#define LP_ENABLED "/sys/kernel/livepatch/kprobes_livepatch/enabled"

static struct task_struct *tester;
static unsigned long hits, patched;

/* int_sqrt(), as lib/math/int_sqrt.c computes it, counted */
static unsigned long lp_int_sqrt(unsigned long x)
{
	unsigned long b, m, y = 0;

	if (current == READ_ONCE(tester))
		patched++;
	if (x <= 1)
		return x;
	m = 1UL << (__fls(x) & ~1UL);
	while (m != 0) {
		b = y + m;
		y >>= 1;
		if (x >= b) {
			x -= b;
			y += m;
		}
		m >>= 2;
	}
	return y;
}

static struct klp_func lp_funcs[] = {
	{ .old_name = "int_sqrt", .new_func = lp_int_sqrt, },
	{ }
};

static struct klp_object lp_objs[] = {
	{ .funcs = lp_funcs, },	/* vmlinux */
	{ }
};

static struct klp_patch lp_patch = {
	.mod = THIS_MODULE,
	.objs = lp_objs,
};

static int pre(struct kprobe *p, struct pt_regs *regs)
{
	if (current == READ_ONCE(tester))
		hits++;
	return 0;
}

/* n calls of int_sqrt(i * i): how many returned i */
static int calls(int n)
{
	unsigned long (*fn)(unsigned long) = int_sqrt;
	int i, ok = 0;

	OPTIMIZER_HIDE_VAR(fn);
	for (i = 0; i < n; i++)
		ok += fn((unsigned long)i * i) == i;
	return ok;
}

/*
 * Until the livepatch's transition reaches this task (it does once the
 * task sleeps outside the patched function), calls run the original.
 */
static bool wait_patched(bool want)
{
	int i;

	for (i = 0; i < 400; i++) {
		unsigned long before = patched;
		bool now;

		calls(1);
		now = patched != before;
		if (now == want)
			return true;
		msleep(50);
	}
	return false;
}

static bool lp_on;
static struct kprobe kp;

/* N calls with the patch in: each ran the replacement and hit the probe */
static void expect_patched_calls(void)
{
	hits = 0;
	patched = 0;
	KPT_EXPECT_EQ(calls(N), N);
	KPT_EXPECT_EQ(patched, N);
	KPT_EXPECT_EQ(hits, N);
}

/* the probe leaves, having missed nothing */
static void unregister_kp(void)
{
	unregister_kprobe(&kp);
	KPT_EXPECT_EQ(kp.nmissed, 0);
}

static void init_kp(void)
{
	memset(&kp, 0, sizeof(kp));
	kp.symbol_name = "int_sqrt";
	kp.pre_handler = pre;
}

/* the probe first: the livepatch comes, and the probe sees every call */
static int t_probe_first(void)
{
	int ret;

	init_kp();
	if (!KPT_EXPECT_EQ(register_kprobe(&kp), 0))
		return 1;
	pr_info("# the probe's flags: %#x (ftrace %d)\n", kp.flags,
		kprobe_ftrace(&kp));
	hits = 0;
	KPT_EXPECT_EQ(calls(N), N);
	KPT_EXPECT_EQ(hits, N);
	ret = klp_enable_patch(&lp_patch);
	KPT_EXPECT_EQ(ret, 0);
	lp_on = !ret;
	if (lp_on && KPT_EXPECT(wait_patched(true)))
		expect_patched_calls();
	unregister_kp();
	return kpt_failed;
}

/* the livepatch first: a probe registers beside it and sees every call */
static int t_probe_second(void)
{
	if (!lp_on)
		return KPT_SKIP_BECAUSE("the livepatch did not load (previous case)");
	init_kp();
	if (!KPT_EXPECT_EQ(register_kprobe(&kp), 0))
		return 1;
	expect_patched_calls();
	unregister_kp();
	return kpt_failed;
}

/* the livepatch leaves through sysfs, as an administrator takes it away */
static int t_unpatch(void)
{
	struct file *f;
	loff_t pos = 0;
	ssize_t n;
	int i;

	if (!lp_on)
		return KPT_SKIP_BECAUSE("the livepatch did not load (first case)");
	f = filp_open(LP_ENABLED, O_WRONLY, 0);
	if (!KPT_EXPECT(!IS_ERR(f)))
		return 1;
	n = kernel_write(f, "0", 1, &pos);
	filp_close(f, NULL);
	KPT_EXPECT_EQ(n, 1);
	KPT_EXPECT(wait_patched(false));
	/* freed once the transition is over: its sysfs folder goes */
	for (i = 0; i < 400; i++) {
		f = filp_open(LP_ENABLED, O_RDONLY, 0);
		if (IS_ERR(f))
			break;
		filp_close(f, NULL);
		msleep(50);
	}
	KPT_EXPECT(i < 400);
	return kpt_failed;
}

static const struct kpt_case cases[] = {
	{ "an entry kprobe, then a livepatch of its function: both in, every call seen",
	  t_probe_first },
	{ "a livepatch, then an entry kprobe on its function: every patched call seen",
	  t_probe_second },
	{ "the livepatch taken away through sysfs", t_unpatch },
};

static int __init kprobes_livepatch_init(void)
{
	WRITE_ONCE(tester, current);
	kpt_run_cases(cases, ARRAY_SIZE(cases));
	WRITE_ONCE(tester, NULL);
	return 0;
}

static void __exit kprobes_livepatch_exit(void)
{
}

module_init(kprobes_livepatch_init);
module_exit(kprobes_livepatch_exit);
MODULE_DESCRIPTION("kprobes selftest: an entry kprobe beside a livepatch");
MODULE_LICENSE("GPL");
MODULE_INFO(livepatch, "Y");
