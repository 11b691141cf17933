// SPDX-License-Identifier: GPL-2.0
/*
 * kprobes_seed: the parts of the seed API that upstream dropped and this
 * series brings back, as KUnit suites: jprobes (struct jprobe,
 * register/unregister/enable/disable, jprobe_return()) and
 * kprobe::fault_handler.  Stock 6.12 has neither: built against it, every
 * case reports a skip.
 *
 * Targets come in pairs: kps_argsN() is a C function with an fentry site
 * (a jprobe there goes through ftrace), kps_argsN_nt() the same without
 * one (notrace: the int3 path).  They return a weighted sum of their
 * arguments, so a corrupted argument shows in the result.  Targets are
 * called through global pointers, whose value the compiler cannot assume,
 * so it can neither inline nor specialise them.
 */
#define pr_fmt(fmt) fmt

#include <linux/module.h>
#include <linux/kprobes.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/atomic.h>
#include <linux/vmalloc.h>
#include <linux/irqflags.h>
#include <linux/preempt.h>
#include <linux/uaccess.h>
#include <asm/trapnr.h>

#include "kprobes_kunit.h"
#include "kprobes_seed_targets.h"

#ifdef KPROBES_ANEW
#include <linux/kprobes_backend.h>

/* ---- targets ------------------------------------------------------------ */

#define ARGS10 long a1, long a2, long a3, long a4, long a5, long a6, \
	       long a7, long a8, long a9, long a10
#define SUM10 (a1 + 2 * a2 + 3 * a3 + 4 * a4 + 5 * a5 + 6 * a6 + \
	       7 * a7 + 8 * a8 + 9 * a9 + 10 * a10)
#define ARGS21 ARGS10, long a11, long a12, long a13, long a14, long a15, \
	       long a16, long a17, long a18, long a19, long a20, long a21
#define SUM21 (SUM10 + 11 * a11 + 12 * a12 + 13 * a13 + 14 * a14 + \
	       15 * a15 + 16 * a16 + 17 * a17 + 18 * a18 + 19 * a19 + \
	       20 * a20 + 21 * a21)

static noinline long kps_args10(ARGS10)
{
	return SUM10;
}

static noinline notrace long kps_args10_nt(ARGS10)
{
	return SUM10;
}

static noinline long kps_args21(ARGS21)
{
	return SUM21;
}

static noinline notrace long kps_args21_nt(ARGS21)
{
	return SUM21;
}

static noinline long kps_inner(long x)
{
	return x * 3 + 1;
}

typedef long (*fn10_t)(ARGS10);
typedef long (*fn21_t)(ARGS21);

fn10_t kps_call10[2] = { kps_args10, kps_args10_nt };
fn21_t kps_call21[2] = { kps_args21, kps_args21_nt };
long (*kps_call_inner)(long) = kps_inner;
long (*kps_call_load)(long *) = kps_load;
static const char * const site_name[2] = { "ftrace", "int3" };

/* distinct values, a pointer among them */
static long v10[10];

static void init_values(void)
{
	int i;

	for (i = 0; i < 10; i++)
		v10[i] = 0x1000 * (i + 1) + i;
	v10[3] = (long)&v10[0];
}

static long c10(int which)
{
	return kps_call10[which](v10[0], v10[1], v10[2], v10[3], v10[4], v10[5],
			     v10[6], v10[7], v10[8], v10[9]);
}

static long want10(void)
{
	long s = 0;
	int i;

	for (i = 0; i < 10; i++)
		s += (i + 1) * v10[i];
	return s;
}

/* ---- handler bookkeeping ------------------------------------------------ */

static struct {
	int hits;
	long args[21];
	bool irqs_off, preempt_off;
	int order[8];
	int norder;
	long inner_result;
	int faults, trapnr;
	long load_result;
} h;

static void reset(void)
{
	memset(&h, 0, sizeof(h));
}

static void order(int who)
{
	if (h.norder < ARRAY_SIZE(h.order))
		h.order[h.norder++] = who;
}

static void init_jprobe(struct jprobe *jp, void *fn, void *entry)
{
	memset(jp, 0, sizeof(*jp));
	INIT_HLIST_NODE(&jp->kp.hlist);
	INIT_LIST_HEAD(&jp->kp.list);
	jp->kp.addr = (kprobe_opcode_t *)fn;
	jp->entry = entry;
}

static void init_probe(struct kprobe *kp, void *fn)
{
	memset(kp, 0, sizeof(*kp));
	INIT_HLIST_NODE(&kp->hlist);
	INIT_LIST_HEAD(&kp->list);
	kp->addr = (kprobe_opcode_t *)fn;
}

/*
 * The mirror handlers.  Each records what it saw, then scribbles over its
 * stack arguments (a callee owns them): the probed function must not see
 * that.  Taking their addresses makes the compiler keep them in their
 * incoming stack slots.
 */
static void scribble(long *p)
{
	WRITE_ONCE(*p, -1);
}

static long j_args10(ARGS10)
{
	long a[] = { a1, a2, a3, a4, a5, a6, a7, a8, a9, a10 };

	h.hits++;
	memcpy(h.args, a, sizeof(a));
	h.irqs_off = irqs_disabled();
	h.preempt_off = !preemptible();
	scribble(&a7);
	scribble(&a8);
	scribble(&a9);
	scribble(&a10);
	jprobe_return();
	return 0;
}

static long j_args21(ARGS21)
{
	long a[] = { a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13,
		     a14, a15, a16, a17, a18, a19, a20, a21 };
	long *stack[] = { &a7, &a8, &a9, &a10, &a11, &a12, &a13, &a14, &a15,
			  &a16, &a17, &a18, &a19, &a20, &a21 };
	int i;

	h.hits++;
	memcpy(h.args, a, sizeof(a));
	for (i = 0; i < ARRAY_SIZE(stack); i++)
		scribble(stack[i]);
	jprobe_return();
	return 0;
}

/* returns without jprobe_return(): its return address leads there anyway */
static long j_args10_plain(ARGS10)
{
	h.hits++;
	h.args[0] = a1;
	h.args[9] = a10;
	return -1;
}

/* ---- jprobes: arguments, results, context ---------------------------- */

static void jprobe_args10(struct kunit *test, int which)
{
	struct jprobe jp;
	int i;

	init_values();
	init_jprobe(&jp, kps_call10[which], j_args10);
	reset();
	if (!KPT_CHECK_EQ(test, register_jprobe(&jp), 0))
		return;
	/* without kprobes on ftrace the entry site is an int3 like the other */
	KUNIT_EXPECT_EQ(test, kprobe_ftrace(&jp.kp),
			which == 0 && IS_ENABLED(CONFIG_KPROBES_ON_FTRACE));
	KUNIT_EXPECT_EQ(test, c10(which), want10());
	KUNIT_EXPECT_EQ(test, c10(which), want10());
	unregister_jprobe(&jp);
	KUNIT_EXPECT_EQ(test, h.hits, 2);
	for (i = 0; i < 10; i++)
		KUNIT_EXPECT_EQ(test, h.args[i], v10[i]);
	KUNIT_EXPECT_TRUE(test, h.irqs_off);
	KUNIT_EXPECT_TRUE(test, h.preempt_off);
	KUNIT_EXPECT_EQ(test, jp.kp.nmissed, 0);
	/* unregistered: the function alone */
	KUNIT_EXPECT_EQ(test, c10(which), want10());
	KUNIT_EXPECT_EQ(test, h.hits, 2);
}

static void kpt_jprobe_args_ftrace(struct kunit *test)
{
	jprobe_args10(test, 0);
}

static void kpt_jprobe_args_int3(struct kunit *test)
{
	jprobe_args10(test, 1);
}

/*
 * 21 arguments: on x86_64 6 in registers and 15 on the stack, the most
 * that JPROBE_MAX_STACK_SIZE (the return address and 15 words) mirrors;
 * on i386 3 and 18, within its 31 words.
 */
static void kpt_jprobe_stack_bound(struct kunit *test)
{
	long want = 0, got;
	struct jprobe jp;
	int which, i;

	BUILD_BUG_ON(IS_ENABLED(CONFIG_X86_64) &&
		     JPROBE_MAX_STACK_SIZE != (1 + 15) * sizeof(long));
	BUILD_BUG_ON(IS_ENABLED(CONFIG_X86_32) &&
		     JPROBE_MAX_STACK_SIZE < (1 + 18) * sizeof(long));
	for (i = 1; i <= 21; i++)
		want += i * (100L * i + 7);
	for (which = 0; which < 2; which++) {
		init_jprobe(&jp, kps_call21[which], j_args21);
		reset();
		KUNIT_ASSERT_EQ(test, register_jprobe(&jp), 0);
		got = kps_call21[which](107, 207, 307, 407, 507, 607, 707, 807,
				    907, 1007, 1107, 1207, 1307, 1407, 1507,
				    1607, 1707, 1807, 1907, 2007, 2107);
		unregister_jprobe(&jp);
		kunit_info(test, "%s site\n", site_name[which]);
		KUNIT_EXPECT_EQ(test, got, want);
		KUNIT_EXPECT_EQ(test, h.hits, 1);
		for (i = 0; i < 21; i++)
			KUNIT_EXPECT_EQ(test, h.args[i], 100L * (i + 1) + 7);
	}
}

static void kpt_jprobe_handler_returns(struct kunit *test)
{
	struct jprobe jp;
	int which;

	init_values();
	for (which = 0; which < 2; which++) {
		init_jprobe(&jp, kps_call10[which], j_args10_plain);
		reset();
		KUNIT_ASSERT_EQ(test, register_jprobe(&jp), 0);
		KUNIT_EXPECT_EQ(test, c10(which), want10());
		unregister_jprobe(&jp);
		KUNIT_EXPECT_EQ(test, h.hits, 1);
		KUNIT_EXPECT_EQ(test, h.args[0], v10[0]);
		KUNIT_EXPECT_EQ(test, h.args[9], v10[9]);
	}
}

/* ---- jprobes among other probes ------------------------------------- */

static long j_first(ARGS10)
{
	order(1);
	h.args[0] = a1;
	jprobe_return();
	return 0;
}

static long j_third(ARGS10)
{
	order(3);
	h.args[9] = a10;
	jprobe_return();
	return 0;
}

static int k_second(struct kprobe *p, struct pt_regs *regs)
{
	order(2);
	return 0;
}

static void k_second_post(struct kprobe *p, struct pt_regs *regs,
			  unsigned long flags)
{
	order(5);
}

static int r_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	order(4);
	return 0;
}

static int r_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	order(6);
	h.load_result = regs_return_value(regs);
	return 0;
}

/*
 * jprobe, kprobe (pre and post), jprobe, kretprobe on one function: every
 * handler runs, in registration order, the post_handler after the last
 * pre_handler, the kretprobe's handler at the return.
 */
static void kpt_jprobe_with_kprobe_and_kretprobe(struct kunit *test)
{
	struct jprobe j1, j3;
	struct kprobe k2;
	struct kretprobe r4;
	int which, i;

	init_values();
	for (which = 0; which < 2; which++) {
		init_jprobe(&j1, kps_call10[which], j_first);
		init_jprobe(&j3, kps_call10[which], j_third);
		init_probe(&k2, kps_call10[which]);
		k2.pre_handler = k_second;
		k2.post_handler = k_second_post;
		memset(&r4, 0, sizeof(r4));
		r4.kp.addr = (kprobe_opcode_t *)kps_call10[which];
		r4.entry_handler = r_entry;
		r4.handler = r_return;
		r4.maxactive = 4;
		reset();
		KUNIT_ASSERT_EQ(test, register_jprobe(&j1), 0);
		KUNIT_EXPECT_EQ(test, register_kprobe(&k2), 0);
		KUNIT_EXPECT_EQ(test, register_jprobe(&j3), 0);
		KUNIT_EXPECT_EQ(test, register_kretprobe(&r4), 0);
		KUNIT_EXPECT_EQ(test, c10(which), want10());
		unregister_kretprobe(&r4);
		unregister_jprobe(&j3);
		unregister_kprobe(&k2);
		unregister_jprobe(&j1);
		kunit_info(test, "%s site\n", site_name[which]);
		KUNIT_EXPECT_EQ(test, h.norder, 6);
		for (i = 0; i < 6; i++)
			KUNIT_EXPECT_EQ(test, h.order[i], i + 1);
		KUNIT_EXPECT_EQ(test, h.args[0], v10[0]);
		KUNIT_EXPECT_EQ(test, h.args[9], v10[9]);
		KUNIT_EXPECT_EQ(test, h.load_result, want10());
		KUNIT_EXPECT_EQ(test, r4.nmissed, 0);
	}
}

/*
 * A jprobe joining an entry probe that was alone there, armed by a
 * carrier: the jprobe's handler returns to the entry, so the site must
 * move onto the ftrace hook first: both run on every call, in order,
 * with the function's arguments, and the probe alone goes on after the
 * jprobe leaves.
 */
static void kpt_jprobe_joins_lone_entry(struct kunit *test)
{
	struct jprobe jp;
	struct kprobe kp;
	int i;

	init_values();
	init_probe(&kp, kps_call10[0]);
	kp.pre_handler = k_second;
	init_jprobe(&jp, kps_call10[0], j_args10);
	reset();
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	if (!kp.site->carry.carrier) {
		unregister_kprobe(&kp);
		kunit_skip(test, "%s", kpt_carriers_now() ?
			   "this boot: the entry probe got no carrier" :
			   KPT_CARRIERS_NOT_YET);
	}
	if (!KPT_CHECK_EQ(test, register_jprobe(&jp), 0)) {
		unregister_kprobe(&kp);
		return;
	}
	KUNIT_EXPECT_FALSE(test, kp.site->carry.carrier);		/* moved onto the hook */
	KUNIT_EXPECT_TRUE(test, kprobe_ftrace(&jp.kp));
	KUNIT_EXPECT_EQ(test, c10(0), want10());
	KUNIT_EXPECT_EQ(test, c10(0), want10());
	unregister_jprobe(&jp);
	KUNIT_EXPECT_EQ(test, c10(0), want10());
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, h.hits, 2);
	for (i = 0; i < 10; i++)
		KUNIT_EXPECT_EQ(test, h.args[i], v10[i]);
	KUNIT_EXPECT_EQ(test, h.norder, 3);
	KUNIT_EXPECT_EQ(test, kp.nmissed, 0);
	KUNIT_EXPECT_EQ(test, jp.kp.nmissed, 0);
}

/* a jprobe handler calling a jprobed function: that one only counts */
static long j_calls_inner(ARGS10)
{
	h.hits++;
	h.inner_result = kps_call_inner(a1);
	jprobe_return();
	return 0;
}

static long j_inner(long x)
{
	order(9);
	jprobe_return();
	return 0;
}

static void kpt_jprobe_nested_nmissed(struct kunit *test)
{
	struct jprobe outer, inner;
	int which;

	init_values();
	for (which = 0; which < 2; which++) {
		init_jprobe(&outer, kps_call10[which], j_calls_inner);
		init_jprobe(&inner, kps_call_inner, j_inner);
		reset();
		KUNIT_ASSERT_EQ(test, register_jprobe(&outer), 0);
		KUNIT_EXPECT_EQ(test, register_jprobe(&inner), 0);
		KUNIT_EXPECT_EQ(test, c10(which), want10());
		KUNIT_EXPECT_EQ(test, h.hits, 1);
		KUNIT_EXPECT_EQ(test, h.inner_result, v10[0] * 3 + 1);
		KUNIT_EXPECT_EQ(test, h.norder, 0);
		KUNIT_EXPECT_EQ(test, inner.kp.nmissed, 1);
		/* called outside a handler, the inner one runs */
		KUNIT_EXPECT_EQ(test, kps_call_inner(5), 16);
		KUNIT_EXPECT_EQ(test, h.norder, 1);
		unregister_jprobe(&inner);
		unregister_jprobe(&outer);
		KUNIT_EXPECT_EQ(test, outer.kp.nmissed, 0);
	}
}

/* ---- jprobes: the API's edges ---------------------------------------- */

static void kpt_jprobe_bad_input(struct kunit *test)
{
	struct jprobe jp;

	init_values();
	KUNIT_EXPECT_EQ(test, register_jprobe(NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, register_jprobes(NULL, 1), -EINVAL);

	init_jprobe(&jp, kps_call10[1], NULL);		/* no handler */
	KUNIT_EXPECT_EQ(test, register_jprobe(&jp), -EINVAL);

	/* an instruction boundary, but not an entry */
	init_jprobe(&jp, (char *)kps_call_load + kps_load_resume_off, j_args10);
	KUNIT_EXPECT_EQ(test, register_jprobe(&jp), -EINVAL);
	KUNIT_EXPECT_FALSE(test, jp.kp.pre_handler);			/* left as it was */

	init_jprobe(&jp, NULL, j_args10);
	jp.kp.symbol_name = "kps_no_such_function";
	KUNIT_EXPECT_EQ(test, register_jprobe(&jp), -ENOENT);

	init_jprobe(&jp, kps_call10[1], j_args10);
	jp.kp.symbol_name = "kps_args10_nt";		/* and an addr */
	KUNIT_EXPECT_EQ(test, register_jprobe(&jp), -EINVAL);

	/* never registered: unregister and enable leave it alone */
	init_jprobe(&jp, kps_call10[1], j_args10);
	unregister_jprobe(&jp);
	KUNIT_EXPECT_EQ(test, enable_jprobe(&jp), -EINVAL);
	KUNIT_EXPECT_EQ(test, disable_jprobe(&jp), -EINVAL);
	KUNIT_EXPECT_FALSE(test, jp.kp.pre_handler);
	KUNIT_EXPECT_TRUE(test, list_empty(&jp.kp.list));

	/* twice: refused, and the first registration still works */
	reset();
	KUNIT_ASSERT_EQ(test, register_jprobe(&jp), 0);
	KUNIT_EXPECT_EQ(test, register_jprobe(&jp), -EINVAL);
	KUNIT_EXPECT_EQ(test, c10(1), want10());
	KUNIT_EXPECT_EQ(test, h.hits, 1);
	unregister_jprobe(&jp);
	unregister_jprobe(&jp);				/* harmless */
	KUNIT_EXPECT_EQ(test, c10(1), want10());
	KUNIT_EXPECT_EQ(test, h.hits, 1);

	/* its kprobe on its own: a plain probe, no handler of the jprobe */
	KUNIT_ASSERT_EQ(test, register_kprobe(&jp.kp), 0);
	KUNIT_EXPECT_EQ(test, c10(1), want10());
	KUNIT_EXPECT_EQ(test, h.hits, 1);
	unregister_kprobe(&jp.kp);

	/* its kprobe registered as a plain probe: refused, handlers kept */
	init_jprobe(&jp, kps_call10[1], j_args10);
	jp.kp.pre_handler = k_second;
	KUNIT_ASSERT_EQ(test, register_kprobe(&jp.kp), 0);
	KUNIT_EXPECT_EQ(test, register_jprobe(&jp), -EINVAL);
	KUNIT_EXPECT_TRUE(test, jp.kp.pre_handler == k_second);
	KUNIT_EXPECT_EQ(test, c10(1), want10());
	unregister_kprobe(&jp.kp);
	KUNIT_EXPECT_EQ(test, h.hits, 1);
	KUNIT_EXPECT_EQ(test, h.norder, 1);

	/* jprobe_return() outside a handler: a warning, and it returns */
	jprobe_return();
}

static void kpt_jprobe_batch_and_disable(struct kunit *test)
{
	struct jprobe a, b, *jps[2] = { &a, &b };

	init_values();
	init_jprobe(&a, kps_call10[0], j_args10);
	init_jprobe(&b, kps_call10[1], j_args10);
	reset();
	KUNIT_ASSERT_EQ(test, register_jprobes(jps, 2), 0);
	KUNIT_EXPECT_EQ(test, c10(0) + c10(1), 2 * want10());
	KUNIT_EXPECT_EQ(test, h.hits, 2);
	KUNIT_EXPECT_EQ(test, disable_jprobe(&a), 0);
	KUNIT_EXPECT_EQ(test, c10(0) + c10(1), 2 * want10());
	KUNIT_EXPECT_EQ(test, h.hits, 3);
	KUNIT_EXPECT_EQ(test, enable_jprobe(&a), 0);
	KUNIT_EXPECT_EQ(test, c10(0), want10());
	KUNIT_EXPECT_EQ(test, h.hits, 4);
	unregister_jprobes(jps, 2);
	KUNIT_EXPECT_EQ(test, c10(0) + c10(1), 2 * want10());
	KUNIT_EXPECT_EQ(test, h.hits, 4);

	/* a batch with a bad entry registers none */
	b.entry = NULL;
	KUNIT_EXPECT_EQ(test, register_jprobes(jps, 2), -EINVAL);
	KUNIT_EXPECT_EQ(test, c10(0), want10());
	KUNIT_EXPECT_EQ(test, h.hits, 4);
}

/* ---- jprobes: unregister while a handler runs on another CPU -------- */

static atomic_t in_handler, handled, bad_results;
static bool stop_calls;

static long j_slow(ARGS10)
{
	atomic_inc(&in_handler);
	udelay(200);
	atomic_inc(&handled);
	atomic_dec(&in_handler);
	jprobe_return();
	return 0;
}

static int slow_caller(void *data)
{
	int which = (long)data;

	while (!READ_ONCE(stop_calls)) {
		if (c10(which) != want10())
			atomic_inc(&bad_results);
		cond_resched();
	}
	return 0;
}

static void kpt_jprobe_unregister_while_running(struct kunit *test)
{
	struct task_struct *t;
	struct jprobe jp;
	int which, busy, n, tries;

	if (num_online_cpus() < 2)
		kunit_skip(test, "this boot: needs 2 online CPUs");
	init_values();
	for (which = 0; which < 2; which++) {
		init_jprobe(&jp, kps_call10[which], j_slow);
		atomic_set(&in_handler, 0);
		atomic_set(&handled, 0);
		atomic_set(&bad_results, 0);
		WRITE_ONCE(stop_calls, false);
		KUNIT_ASSERT_EQ(test, register_jprobe(&jp), 0);
		t = kthread_create(slow_caller, (void *)(long)which, "kps_caller");
		if (!KPT_CHECK(test, !IS_ERR(t))) {
			unregister_jprobe(&jp);
			return;
		}
		kthread_bind(t, cpumask_last(cpu_online_mask));
		wake_up_process(t);
		for (tries = 0; tries < 2000 && atomic_read(&handled) < 20; tries++)
			usleep_range(100, 200);
		/* most likely mid-handler now, on the other CPU */
		unregister_jprobe(&jp);
		busy = atomic_read(&in_handler);
		n = atomic_read(&handled);
		msleep(20);
		kunit_info(test, "%s site: %d handler runs before unregister\n",
			   site_name[which], n);
		KUNIT_EXPECT_GE(test, n, 20);
		KUNIT_EXPECT_EQ(test, busy, 0);
		KUNIT_EXPECT_EQ(test, atomic_read(&handled), n);
		WRITE_ONCE(stop_calls, true);
		kthread_stop(t);
		KUNIT_EXPECT_EQ(test, atomic_read(&bad_results), 0);
	}
}

/* ---- fault_handler --------------------------------------------------- */

static long *fault_ptr;
static bool fault_fixes;	/* handle it (1), or let the kernel (0) */

/* resume a fault of kps_load's load after it, kps_load returning -EFAULT */
static int fh_record(struct kprobe *p, struct pt_regs *regs, int trapnr)
{
	h.faults++;
	h.trapnr = trapnr;
	if (!fault_fixes || regs->ip != (unsigned long)kps_call_load + kps_load_off)
		return 0;
	regs->ip = (unsigned long)kps_call_load + kps_load_resume_off;
	regs->ax = -EFAULT;
	return 1;
}

static int pre_faults(struct kprobe *p, struct pt_regs *regs)
{
	h.hits++;
	h.load_result = kps_call_load(fault_ptr);
	return 0;
}

static int pre_faults_nofault(struct kprobe *p, struct pt_regs *regs)
{
	long v;

	h.hits++;
	h.load_result = copy_from_kernel_nofault(&v, fault_ptr, sizeof(v));
	return 0;
}

static void fault_case(struct kunit *test, int which, long *ptr, bool fixes,
		       kprobe_pre_handler_t pre, int trapnr)
{
	struct kprobe kp;

	init_values();
	init_probe(&kp, kps_call10[which]);
	kp.pre_handler = pre;
	kp.fault_handler = fh_record;
	fault_ptr = ptr;
	fault_fixes = fixes;
	reset();
	if (!KPT_CHECK_EQ(test, register_kprobe(&kp), 0))
		return;
	KUNIT_EXPECT_EQ(test, c10(which), want10());
	unregister_kprobe(&kp);
	kunit_info(test, "%s site, trap %d\n", site_name[which], trapnr);
	KUNIT_EXPECT_EQ(test, h.hits, 1);
	KUNIT_EXPECT_EQ(test, h.faults, 1);
	KUNIT_EXPECT_EQ(test, h.trapnr, trapnr);
	KUNIT_EXPECT_EQ(test, h.load_result, -EFAULT);
}

#ifdef CONFIG_X86_64
/* a non-canonical pointer: #GP */
static void kpt_fault_handler_gp(struct kunit *test)
{
	long *bad = (long *)0xdead000000000000UL;

	fault_case(test, 0, bad, true, pre_faults, X86_TRAP_GP);
	fault_case(test, 1, bad, true, pre_faults, X86_TRAP_GP);
}
#else
static void kpt_fault_handler_gp(struct kunit *test)
{
	kunit_skip(test, "32-bit x86 has no non-canonical address to #GP on");
}
#endif

/* the guard page after a vmalloc area, and a user address: #PF */
static void kpt_fault_handler_pf(struct kunit *test)
{
	char *area = vmalloc(PAGE_SIZE);

	KUNIT_ASSERT_TRUE(test, area);
	fault_case(test, 0, (long *)(area + PAGE_SIZE), true, pre_faults, X86_TRAP_PF);
	fault_case(test, 1, (long *)(area + PAGE_SIZE), true, pre_faults, X86_TRAP_PF);
	fault_case(test, 1, (long *)0x10, true, pre_faults, X86_TRAP_PF);
	vfree(area);
}

/* it declines (0): the access's own exception-table fixup applies */
static void kpt_fault_handler_declines(struct kunit *test)
{
	char *area = vmalloc(PAGE_SIZE);

	KUNIT_ASSERT_TRUE(test, area);
	fault_case(test, 0, (long *)(area + PAGE_SIZE), false, pre_faults_nofault,
		   X86_TRAP_PF);
	fault_case(test, 1, (long *)(area + PAGE_SIZE), false, pre_faults_nofault,
		   X86_TRAP_PF);
	vfree(area);
}

/* a jprobe's handler faults: the jprobe's fault_handler has it */
static long j_faults(ARGS10)
{
	h.hits++;
	h.load_result = kps_call_load(fault_ptr);
	h.args[0] = a1;
	jprobe_return();
	return 0;
}

static void kpt_fault_handler_in_jprobe(struct kunit *test)
{
	char *area = vmalloc(PAGE_SIZE);
	struct jprobe jp;
	int which;

	KUNIT_ASSERT_TRUE(test, area);
	init_values();
	fault_ptr = (long *)(area + PAGE_SIZE);
	fault_fixes = true;
	for (which = 0; which < 2; which++) {
		init_jprobe(&jp, kps_call10[which], j_faults);
		jp.kp.fault_handler = fh_record;
		reset();
		if (!KPT_CHECK_EQ(test, register_jprobe(&jp), 0))
			break;
		KUNIT_EXPECT_EQ(test, c10(which), want10());
		unregister_jprobe(&jp);
		KUNIT_EXPECT_EQ(test, h.hits, 1);
		KUNIT_EXPECT_EQ(test, h.faults, 1);
		KUNIT_EXPECT_EQ(test, h.trapnr, X86_TRAP_PF);
		KUNIT_EXPECT_EQ(test, h.load_result, -EFAULT);
		KUNIT_EXPECT_EQ(test, h.args[0], v10[0]);
	}
	vfree(area);
}

#else /* stock 6.12 */

static void kpt_seed_api(struct kunit *test)
{
	kunit_skip(test, "stock 6.12 has no jprobes and no fault_handler");
}

#define kpt_jprobe_args_ftrace	kpt_seed_api
#define kpt_jprobe_args_int3	kpt_seed_api
#define kpt_jprobe_stack_bound	kpt_seed_api
#define kpt_jprobe_handler_returns	kpt_seed_api
#define kpt_jprobe_with_kprobe_and_kretprobe	kpt_seed_api
#define kpt_jprobe_joins_lone_entry	kpt_seed_api
#define kpt_jprobe_nested_nmissed	kpt_seed_api
#define kpt_jprobe_bad_input	kpt_seed_api
#define kpt_jprobe_batch_and_disable	kpt_seed_api
#define kpt_jprobe_unregister_while_running	kpt_seed_api
#define kpt_fault_handler_gp	kpt_seed_api
#define kpt_fault_handler_pf	kpt_seed_api
#define kpt_fault_handler_declines	kpt_seed_api
#define kpt_fault_handler_in_jprobe	kpt_seed_api

#endif

/* the same suites and cases on stock 6.12, where each reports a skip */
static struct kunit_case kprobes_seed_jprobes_cases[] = {
	KPT_CASE(jprobe_args_ftrace),
	KPT_CASE(jprobe_args_int3),
	KPT_CASE(jprobe_stack_bound),
	KPT_CASE(jprobe_handler_returns),
	KPT_CASE(jprobe_with_kprobe_and_kretprobe),
	KPT_CASE(jprobe_joins_lone_entry),
	KPT_CASE(jprobe_nested_nmissed),
	KPT_CASE(jprobe_bad_input),
	KPT_CASE(jprobe_batch_and_disable),
	KPT_CASE(jprobe_unregister_while_running),
	{}
};

static struct kunit_suite kprobes_seed_jprobes_suite = {
	.name = "kprobes_seed_jprobes",
	.test_cases = kprobes_seed_jprobes_cases,
};

static struct kunit_case kprobes_seed_fault_handler_cases[] = {
	KPT_CASE(fault_handler_gp),
	KPT_CASE(fault_handler_pf),
	KPT_CASE(fault_handler_declines),
	KPT_CASE(fault_handler_in_jprobe),
	{}
};

static struct kunit_suite kprobes_seed_fault_handler_suite = {
	.name = "kprobes_seed_fault_handler",
	.test_cases = kprobes_seed_fault_handler_cases,
};

kunit_test_suites(&kprobes_seed_jprobes_suite,
		  &kprobes_seed_fault_handler_suite);

MODULE_DESCRIPTION("KUnit tests of jprobes and kprobe::fault_handler");
MODULE_LICENSE("GPL");
