/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal KTAP output for the in-guest test modules: one named case per
 * behaviour, a plan line, "ok N name" / "not ok N name", and "# " lines
 * saying which expectation failed.  The host (harness/console.py) counts
 * the results from the console.
 */
#ifndef KPT_KTAP_H
#define KPT_KTAP_H

#include <linux/printk.h>
#include <linux/kernel.h>

struct kpt_case {
	const char *name;
	int (*run)(void);	/* 0: pass; nonzero: fail; KPT_SKIP: skip */
};

#define KPT_SKIP 77

/*
 * The state of the case running, which the macros below set and
 * kpt_run_cases() reads.  A module built from several files (which
 * defines KPT_KTAP_SHARED before including this) needs one for all its
 * files: one of them defines kpt_failed and kpt_skip_why.
 */
#ifdef KPT_KTAP_SHARED
extern const char *kpt_skip_why;
extern int kpt_failed;
#else
static const char *kpt_skip_why;
static int kpt_failed;
#endif

#define KPT_SKIP_BECAUSE(why) ({ kpt_skip_why = (why); KPT_SKIP; })

/*
 * Expectations do not return: a case keeps going so that its cleanup
 * (unregistering probes that sit in this module's text) always runs.
 * A case ends with "return kpt_failed;".  Only where nothing is left
 * registered may a case return early: "if (!KPT_EXPECT(...)) return 1;".
 */
#define KPT_EXPECT(cond)						\
	({								\
		bool __ok = !!(cond);					\
		if (!__ok) {						\
			pr_info("# %s:%d: expected %s\n",		\
				__func__, __LINE__, #cond);		\
			kpt_failed = 1;					\
		}							\
		__ok;							\
	})

#define KPT_EXPECT_EQ(a, b)						\
	({								\
		long long __a = (long long)(a), __b = (long long)(b);	\
		if (__a != __b) {					\
			pr_info("# %s:%d: expected %s == %s (%lld != %lld)\n", \
				__func__, __LINE__, #a, #b, __a, __b);	\
			kpt_failed = 1;					\
		}							\
		__a == __b;						\
	})

static inline int kpt_run_cases(const struct kpt_case *c, int n)
{
	int i, failed = 0;

	pr_info("KTAP version 1\n");
	pr_info("1..%d\n", n);
	for (i = 0; i < n; i++) {
		int r;

		kpt_failed = 0;
		kpt_skip_why = NULL;
		r = c[i].run();

		if (r == KPT_SKIP) {
			pr_info("ok %d %s # SKIP %s\n", i + 1, c[i].name,
				kpt_skip_why ?: "");
		} else {
			pr_info("%sok %d %s\n", r ? "not " : "", i + 1, c[i].name);
			failed += !!r;
		}
	}
	return failed;
}

#endif /* KPT_KTAP_H */
