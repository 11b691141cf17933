/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the kprobes KUnit suites share: checks whose outcome a case acts
 * on, and the "this boot" skips of the cases that need this code to be a
 * module.  The same sources build in (kunit.py, CONFIG_..._KUNIT_TEST=y)
 * and as modules, against this kernel and, out of tree, against stock
 * 6.12, whose <linux/kprobes.h> they also compile with.
 */
#ifndef KPROBES_KUNIT_H
#define KPROBES_KUNIT_H

#include <kunit/test.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/module.h>

/*
 * KUNIT_EXPECT_TRUE() and KUNIT_EXPECT_EQ() as expressions, for the
 * places where a case goes on, or cleans up and returns, depending on the
 * outcome: KUnit reports a failure (where, what, the values) as for its
 * own expectations, and the outcome is the value.  A case never asserts
 * once it has registered something in this code: an assertion ends the
 * case's thread and would leave a probe on text that is about to go.
 */
#define KPT_CHECK(test, cond)						\
	({								\
		bool __ok = !!(cond);					\
		KUNIT_EXPECT_TRUE_MSG(test, __ok, "%s", #cond);		\
		__ok;							\
	})

#define KPT_CHECK_EQ(test, a, b)					\
	({								\
		long long __a = (long long)(a), __b = (long long)(b);	\
		KUNIT_EXPECT_EQ_MSG(test, __a, __b, "%s == %s", #a, #b); \
		__a == __b;						\
	})

/*
 * Has a check of the case failed so far?  A case that then finds it
 * cannot go on reports a skip only if not: a skip would hide the failure
 * (kunit_mark_skipped() overwrites the status).
 */
static inline bool kpt_failed(struct kunit *test)
{
	return READ_ONCE(test->status) == KUNIT_FAILURE;
}

/* a case of a table, named without its function's "kpt_" */
#define KPT_CASE(c)							\
	{ .run_case = kpt_##c, .name = #c, .module_name = KBUILD_MODNAME }
/* one that runs for seconds (KUnit's attribute; kunit.py --filter speed>slow) */
#define KPT_CASE_SLOW(c)						\
	{ .run_case = kpt_##c, .name = #c, .module_name = KBUILD_MODNAME, \
	  .attr.speed = KUNIT_SPEED_SLOW }

#ifdef KPROBES_ANEW
/*
 * Ours carries an entry probe in the kernel's text only once the system
 * runs: kprobe_index_prepare() indexes the kernel's cold parts then, and
 * until it has, an entry there is hooked on ftrace.  Built in, KUnit runs
 * these suites before that.  A module's text is carried at any time.
 */
static inline bool kpt_carriers_now(void)
{
	if (!IS_ENABLED(CONFIG_KPROBE_CARRIERS))
		return false;
#ifdef MODULE
	return true;
#else
	return system_state >= SYSTEM_RUNNING;
#endif
}
#else
static inline bool kpt_carriers_now(void)
{
	return false;
}
#endif

#define KPT_CARRIERS_NOT_YET						\
	"this boot: built in, run before the system runs, when an entry in the kernel's text is hooked, not carried"

/*
 * The cases that probe this code as a module's (its name in "MOD:sym",
 * its module notifier, unloading it) skip when it is built in, which is
 * how kunit.py runs it.
 */
#ifdef MODULE
#define KPT_NEEDS_MODULE(test)	((void)(test))
#else
#define KPT_NEEDS_MODULE(test)						\
	kunit_skip(test, "this boot: built in, the case needs a module")
#endif

#endif /* KPROBES_KUNIT_H */
