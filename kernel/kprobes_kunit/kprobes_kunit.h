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

/* a case of a table built with designated names (not KUNIT_CASE()'s "t_") */
#define KPT_CASE(c)	{ .run_case = t_##c, .name = #c }
/* one that runs for seconds (KUnit's attribute; kunit.py --filter speed>slow) */
#define KPT_CASE_SLOW(c)						\
	{ .run_case = t_##c, .name = #c, .attr.speed = KUNIT_SPEED_SLOW }

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
