// SPDX-License-Identifier: GPL-2.0
/*
 * kprobes_livepatch: an entry kprobe and a livepatch on the same
 * function, in both orders, on every arch that has both (a KUnit suite
 * in a module: make test on x86, make ppc64le-test on a classic backend
 * with kprobes on ftrace).  6.12 hooks an entry probe without a
 * post_handler on an ftrace_ops that does not modify the IP, so it and a
 * livepatch (whose ops does) share the function: each registration
 * succeeds, the probe sees every call, and the calls run the patched
 * body.
 *
 * The module is itself the livepatch, of int_sqrt() (exported, pure: its
 * replacement computes the same), and its last case takes it away again
 * through sysfs, so that it can be unloaded.  Only calls made by the
 * cases' own threads are counted, in the probe and in the replacement:
 * the rest of the kernel may call int_sqrt() meanwhile.
 */
#define pr_fmt(fmt) fmt

#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/kprobes.h>
#include <linux/livepatch.h>
#include <linux/module.h>
#include <linux/sched.h>

#include "kprobes_kunit.h"

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
static void expect_patched_calls(struct kunit *test)
{
	hits = 0;
	patched = 0;
	KUNIT_EXPECT_EQ(test, calls(N), N);
	KUNIT_EXPECT_EQ(test, patched, N);
	KUNIT_EXPECT_EQ(test, hits, N);
}

/* the probe leaves, having missed nothing */
static void unregister_kp(struct kunit *test)
{
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, kp.nmissed, 0);
}

static void init_kp(void)
{
	memset(&kp, 0, sizeof(kp));
	kp.symbol_name = "int_sqrt";
	kp.pre_handler = pre;
}

/* the probe first: the livepatch comes, and the probe sees every call */
static void kpt_probe_first(struct kunit *test)
{
	static bool lp_used;
	int ret;

	/* a klp_patch is enabled once: a second run of the suite cannot */
	if (lp_used)
		kunit_skip(test,
			   "this boot: the module's livepatch was enabled by an earlier run");
	init_kp();
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	kunit_info(test, "the probe's flags: %#x (ftrace %d)\n", kp.flags,
		   kprobe_ftrace(&kp));
	hits = 0;
	KUNIT_EXPECT_EQ(test, calls(N), N);
	KUNIT_EXPECT_EQ(test, hits, N);
	lp_used = true;
	ret = klp_enable_patch(&lp_patch);
	KUNIT_EXPECT_EQ(test, ret, 0);
	lp_on = !ret;
	if (lp_on && KPT_CHECK(test, wait_patched(true)))
		expect_patched_calls(test);
	unregister_kp(test);
}

/* the livepatch first: a probe registers beside it and sees every call */
static void kpt_probe_second(struct kunit *test)
{
	if (!lp_on)
		kunit_skip(test, "the livepatch did not load (previous case)");
	init_kp();
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	expect_patched_calls(test);
	unregister_kp(test);
}

/* the livepatch leaves through sysfs, as an administrator takes it away */
static void kpt_unpatch(struct kunit *test)
{
	struct file *f;
	loff_t pos = 0;
	ssize_t n;
	int i;

	if (!lp_on)
		kunit_skip(test, "the livepatch did not load (first case)");
	f = filp_open(LP_ENABLED, O_WRONLY, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, f);
	n = kernel_write(f, "0", 1, &pos);
	filp_close(f, NULL);
	KUNIT_EXPECT_EQ(test, n, 1);
	if (n == 1)
		lp_on = false;	/* for a later run of the suite too */
	KUNIT_EXPECT_TRUE(test, wait_patched(false));
	/* freed once the transition is over: its sysfs folder goes */
	for (i = 0; i < 400; i++) {
		f = filp_open(LP_ENABLED, O_RDONLY, 0);
		if (IS_ERR(f))
			break;
		filp_close(f, NULL);
		msleep(50);
	}
	KUNIT_EXPECT_LT(test, i, 400);
}

/* the calls counted are those of the case's own thread */
static int kprobes_livepatch_case_init(struct kunit *test)
{
	WRITE_ONCE(tester, current);
	return 0;
}

static void kprobes_livepatch_case_exit(struct kunit *test)
{
	WRITE_ONCE(tester, NULL);
}

/* in this order: each case goes on from the last one's state */
static struct kunit_case kprobes_livepatch_cases[] = {
	/* an entry kprobe, then a livepatch of its function: every call seen */
	KPT_CASE(probe_first),
	/* a livepatch, then an entry kprobe on its function: every patched call seen */
	KPT_CASE(probe_second),
	/* the livepatch taken away through sysfs */
	KPT_CASE(unpatch),
	{}
};

static struct kunit_suite kprobes_livepatch_suite = {
	.name = "kprobes_livepatch",
	.init = kprobes_livepatch_case_init,
	.exit = kprobes_livepatch_case_exit,
	.test_cases = kprobes_livepatch_cases,
};

kunit_test_suite(kprobes_livepatch_suite);

MODULE_DESCRIPTION("KUnit tests of an entry kprobe beside a livepatch");
MODULE_LICENSE("GPL");
MODULE_INFO(livepatch, "Y");
