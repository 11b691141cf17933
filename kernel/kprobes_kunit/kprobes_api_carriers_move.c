// SPDX-License-Identifier: GPL-2.0
/*
 * kprobes_api, x86: carried entry probes moving onto the ftrace hook
 * under a second CPU's calls (a "mover" thread): every call is seen
 * exactly once before, across and after the move, however the move
 * ends (its wait for tasks, an unregistration in the middle of it, a
 * diverting ftrace user that comes meanwhile).
 */
#define pr_fmt(fmt) fmt

#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/ftrace.h>
#include <linux/jiffies.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/sched.h>
#include <asm/text-patching.h>

#include "kprobes_api.h"

#if defined(KPROBES_ANEW) && defined(CONFIG_KPROBE_CARRIERS)
#include <linux/kprobes_backend.h>
#include <linux/wprobes.h>

/*
 * Exactly once per call while a carried entry probe moves onto ftrace
 * under a second CPU's calls: a thread on another CPU calls kpt_target()
 * without a pause (sleeping now and then, so that the move's wait for
 * every task ends); the probe counts the calls of that thread.  Paused at
 * both ends of the window, the two counts must agree.
 */
static atomic_t mover_calls, mover_hits, mover_errors;
static struct task_struct *mover_task;
static bool mover_pause, mover_paused;
static int (*mover_call)(int, int);
static int mover_want;		/* mover_call(x, 1) - x * mover_want */
/*
 * It sleeps after each (mover_nap + 1) calls.  With mover_nap -1 it does
 * not sleep, until mover_nap_until (jiffies), and only switches when
 * asked to (cond_resched(): never on a fully preemptible kernel, where
 * the bound keeps a wait for every task from hanging).  Once
 * mover_busy_site is moving onto its hook, it neither sleeps nor yields
 * until mover_busy_until (which it sets a second ahead; the case may
 * shorten it): a wait for its CPU lasts until then.
 */
static int mover_nap = 255;
static unsigned long mover_nap_until;
static struct kprobe_site *mover_busy_site;
static bool mover_busy;
static unsigned long mover_busy_until;

static int mover_pre(struct kprobe *p, struct pt_regs *regs)
{
	if (current == READ_ONCE(mover_task))
		atomic_inc(&mover_hits);
	return 0;
}

static int mover_fn(void *unused)
{
	struct kprobe_site *s;
	int i = 0, nap;

	while (!kthread_should_stop()) {
		if (READ_ONCE(mover_pause)) {
			WRITE_ONCE(mover_paused, true);
			usleep_range(100, 200);
			continue;
		}
		WRITE_ONCE(mover_paused, false);
		if (mover_call(i & 0xff, 1) != (i & 0xff) * mover_want + 1)
			atomic_inc(&mover_errors);
		atomic_inc(&mover_calls);
		i++;
		s = READ_ONCE(mover_busy_site);
		if (s && !READ_ONCE(mover_busy) && READ_ONCE(s->carry.moving)) {
			WRITE_ONCE(mover_busy_until, jiffies + HZ);
			WRITE_ONCE(mover_busy, true);
		}
		if (READ_ONCE(mover_busy) &&
		    time_before(jiffies, READ_ONCE(mover_busy_until)))
			continue;	/* holds off every wait for its CPU */
		nap = READ_ONCE(mover_nap);
		if (nap < 0 && time_before(jiffies, READ_ONCE(mover_nap_until)))
			cond_resched();
		else if (nap < 0 || !(i & nap))
			usleep_range(20, 40);
	}
	return 0;
}

/*
 * Stop the mover between two calls; its counts are then still.  A mover
 * that never stops (stuck in a call) fails the case rather than hang it.
 */
static void mover_hold(struct kunit *test, bool hold)
{
	int i;

	WRITE_ONCE(mover_paused, false);
	WRITE_ONCE(mover_pause, hold);
	for (i = 0; hold && !READ_ONCE(mover_paused) && i < 10000; i++)
		usleep_range(100, 200);
	KUNIT_EXPECT_TRUE(test, !hold || READ_ONCE(mover_paused));
}

/*
 * The CPU for a case's mover: another than this one.  Where this boot
 * makes no carriers or has no second CPU, the case skips, saying why
 * (before it registers anything: a skip ends the case's thread).
 */
static int mover_cpu(struct kunit *test)
{
	int cpu;

	if (!kpt_carriers_now())
		kunit_skip(test, KPT_CARRIERS_NOT_YET);
	if (!IS_ENABLED(CONFIG_KPROBES_ON_FTRACE))
		kunit_skip(test, KPT_NO_FTRACE_SITES);
	cpu = cpumask_any_but(cpu_online_mask, raw_smp_processor_id());
	if (cpu >= nr_cpu_ids)
		kunit_skip(test, "this boot: needs 2 online CPUs");
	return cpu;
}

/* the mover thread on cpu, calling fn, held */
static struct task_struct *mover_start(struct kunit *test,
				       int (*fn)(int, int), int want, int cpu)
{
	struct task_struct *t;

	atomic_set(&mover_calls, 0);
	atomic_set(&mover_hits, 0);
	atomic_set(&mover_errors, 0);
	mover_call = fn;
	mover_want = want;
	mover_busy_site = NULL;
	mover_busy = false;
	mover_pause = true;
	t = kthread_create(mover_fn, NULL, "kpt_mover");
	if (IS_ERR(t))
		return t;
	kthread_bind(t, cpu);
	WRITE_ONCE(mover_task, t);
	wake_up_process(t);
	mover_hold(test, true);
	return t;
}

/* the mover of mover_start() gone; every result it got was right */
static void mover_stop(struct kunit *test, struct task_struct *t)
{
	WRITE_ONCE(mover_task, NULL);
	kthread_stop(t);
	KUNIT_EXPECT_EQ(test, atomic_read(&mover_errors), 0);
}

void kpt_carrier_move_exact(struct kunit *test)
{
	struct kprobe kp1, kp3;
	struct task_struct *t;
	int cpu, calls, hits, round;
	u8 *next;

	cpu = mover_cpu(test);
	t = mover_start(test, kpt_call_target, 31, cpu);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, t);

	next = (u8 *)kpt_target_entry +
	       (kpt_has_endbr((void *)kpt_target_entry) ? 4 : 0) + MCOUNT_INSN_SIZE;
	for (round = 0; round < 3; round++) {
		kpt_init_probe(&kp1);
		kp1.addr = (kprobe_opcode_t *)kpt_target;
		kp1.pre_handler = mover_pre;
		if (!KPT_CHECK_EQ(test, register_kprobe(&kp1), 0))
			break;
		calls = atomic_read(&mover_calls);
		hits = atomic_read(&mover_hits);
		mover_hold(test, false);
		msleep(20);
		/* round 1: from the jump; rounds 0 and 2: from the int3 */
		if (round == 1)
			wait_for_kprobe_optimizer();
		kpt_init_probe(&kp3);
		kp3.addr = (kprobe_opcode_t *)next;
		kp3.pre_handler = kpt_pre_record;
		KUNIT_EXPECT_EQ(test, register_kprobe(&kp3), 0);
		msleep(20);
		unregister_kprobe(&kp3);
		msleep(20);
		mover_hold(test, true);
		calls = atomic_read(&mover_calls) - calls;
		hits = atomic_read(&mover_hits) - hits;
		kunit_info(test, "round %d: %d calls, %d hits\n", round, calls, hits);
		KUNIT_EXPECT_GT(test, calls, 0);
		KUNIT_EXPECT_EQ(test, hits, calls);
		unregister_kprobe(&kp1);
		KUNIT_EXPECT_EQ(test, kp1.nmissed, 0);
	}
	mover_stop(test, t);
}

/*
 * The hook callback of a moving site reads the carrier once and goes on
 * in it: an unregistration may end the move, and retire the carrier,
 * right after that read.  A read/write watchpoint on the site's
 * ->carry.moving stops the mover thread just after each of its reads
 * there, until the carrier is dropped (or ten milliseconds), and the
 * probe goes away during a background move (kpt_tiny(): no jump, so its
 * carrier moves a moment after registration): the call held then goes on
 * in a carrier the unregistration has dropped.  A disabled probe keeps
 * the site (and the watched word) until the watchpoint is gone.  Every
 * call must still return its result and be seen at most once, and the
 * carrier's memory must still be there (KASAN, in make test-debug).  A
 * reader that read ->carry.moving and then the carrier (two loads, as
 * before the fix) gets NULL for the second here.
 */
static struct kprobe_site *window_site;
static atomic_t window_reads, window_ends;
static bool window_holding;

static void window_watch(struct wprobe *wp, struct pt_regs *regs)
{
	int i;

	if (current != READ_ONCE(mover_task) ||
	    !READ_ONCE(window_site->carry.moving))
		return;
	atomic_inc(&window_reads);
	WRITE_ONCE(window_holding, true);
	for (i = 0; i < 10000; i++) {
		if (!READ_ONCE(window_site->carry.carrier)) {
			atomic_inc(&window_ends);
			break;
		}
		udelay(1);
	}
	WRITE_ONCE(window_holding, false);
}

void kpt_carrier_move_reader_window(struct kunit *test)
{
	struct wprobe wp = { .type = WPROBE_RW, .handler = window_watch };
	int cpu, calls, hits, round, ret = 0;
	struct kprobe kp, anchor;
	unsigned long deadline;
	struct task_struct *t;

	cpu = mover_cpu(test);
	atomic_set(&window_reads, 0);
	atomic_set(&window_ends, 0);
	/*
	 * The mover calls without sleeping (mover_nap -1, a few seconds each
	 * round): the move's wait for tasks (with the rude flavour, a work
	 * item on each CPU) cannot end before its next call has gone through
	 * the hook, which a mover asleep when the hook went in would not
	 * make.  It sleeps when held.
	 */
	mover_nap = -1;
	t = mover_start(test, kpt_call_tiny, 1, cpu);
	if (!KPT_CHECK(test, !IS_ERR(t)))
		goto out_nap;
	for (round = 0; round < 5 && !atomic_read(&window_ends); round++) {
		msleep(600);	/* no hook left lingering: the probe is carried */
		kpt_init_probe(&anchor);
		anchor.addr = (kprobe_opcode_t *)kpt_call_tiny;
		anchor.flags = KPROBE_FLAG_DISABLED;
		if (!KPT_CHECK_EQ(test, register_kprobe(&anchor), 0))
			break;
		kpt_init_probe(&kp);
		kp.addr = (kprobe_opcode_t *)kpt_call_tiny;
		kp.pre_handler = mover_pre;
		if (!KPT_CHECK_EQ(test, register_kprobe(&kp), 0)) {
			unregister_kprobe(&anchor);
			break;
		}
		if (!KPT_CHECK(test, kp.site->carry.carrier)) {
			unregister_kprobe(&kp);
			unregister_kprobe(&anchor);
			break;
		}
		window_site = kp.site;
		wp.addr = &window_site->carry.moving;
		wp.len = sizeof(window_site->carry.moving);
		ret = register_wprobe(&wp);
		if (ret) {
			unregister_kprobe(&kp);
			unregister_kprobe(&anchor);
			break;
		}
		calls = atomic_read(&mover_calls);
		hits = atomic_read(&mover_hits);
		WRITE_ONCE(mover_nap_until, jiffies + 3 * HZ);
		mover_hold(test, false);
		/* the mover is held after its read: end the move now */
		deadline = jiffies + 2 * HZ;	/* the move starts in HZ / 4 */
		while (!READ_ONCE(window_holding) &&
		       time_before(jiffies, deadline))
			usleep_range(50, 100);
		unregister_kprobe(&kp);
		msleep(20);
		mover_hold(test, true);
		unregister_wprobe(&wp);
		unregister_kprobe(&anchor);	/* the site may go now */
		calls = atomic_read(&mover_calls) - calls;
		hits = atomic_read(&mover_hits) - hits;
		kunit_info(test, "round %d: %d calls, %d hits, %d reads held, %d across the end\n",
			   round, calls, hits, atomic_read(&window_reads),
			   atomic_read(&window_ends));
		KUNIT_EXPECT_GT(test, hits, 0);
		KUNIT_EXPECT_LE(test, hits, calls);
		KUNIT_EXPECT_EQ(test, kp.nmissed, 0);
	}
	mover_stop(test, t);
out_nap:
	mover_nap = 255;
	/* ptrace or perf users hold every debug register */
	if (ret && !kpt_failed(test))
		kunit_skip(test, "this boot: no debug register free");
	/* the move ended while the mover was held after its read */
	KUNIT_EXPECT_GT(test, atomic_read(&window_ends), 0);
}

/*
 * A diverting ftrace user that comes while a carried entry probe is moving
 * onto the hook: its registration does not wait for the move to end (as
 * on a kernel without carriers), and yet the probe sees each call once,
 * before, across and after: a call the user diverts had its hit in the
 * hook and never meets the carrier, and no redirect of ours undoes the
 * user's.  The user here is an IPMODIFY ops that sends kpt_tiny() to a
 * twin with the same result, called on a second CPU.
 */
static atomic_t twin_calls;

static noinline int kpt_tiny_twin(int a, int b)
{
	atomic_inc(&twin_calls);
	return a + b;
}

static void divert_to_twin(unsigned long ip, unsigned long parent_ip,
			   struct ftrace_ops *ops, struct ftrace_regs *fregs)
{
	ftrace_regs_set_instruction_pointer(fregs, (unsigned long)kpt_tiny_twin);
}

static struct ftrace_ops twin_ops = {
	.func = divert_to_twin,
	.flags = FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY,
};

void kpt_carrier_divert_during_move(struct kunit *test)
{
	unsigned long fentry = (unsigned long)kpt_call_tiny +
			       (kpt_has_endbr((void *)kpt_call_tiny) ? 4 : 0);
	int cpu, calls, hits, ret;
	unsigned long deadline;
	struct kprobe_site *s;
	struct task_struct *t;
	struct kprobe kp;
	bool moving;

	cpu = mover_cpu(test);
	KUNIT_ASSERT_EQ(test, ftrace_set_filter_ip(&twin_ops, fentry, 0, 1), 0);
	atomic_set(&twin_calls, 0);
	msleep(600);	/* no hook left lingering: the probe is carried */
	t = mover_start(test, kpt_call_tiny, 1, cpu);
	if (!KPT_CHECK(test, !IS_ERR(t)))
		goto out_filter;
	kpt_init_probe(&kp);
	kp.addr = (kprobe_opcode_t *)kpt_call_tiny;
	kp.pre_handler = mover_pre;
	if (!KPT_CHECK_EQ(test, register_kprobe(&kp), 0))
		goto out_mover;
	s = kp.site;
	if (!KPT_CHECK(test, s->carry.carrier))
		goto out_probe;
	calls = atomic_read(&mover_calls);
	hits = atomic_read(&mover_hits);
	/*
	 * The background move: hooked, then waiting for every task to
	 * switch.  Once the site is moving, the mover stops switching (see
	 * mover_busy_site) for up to five seconds: the move is still on when
	 * the user comes, and when its registration returns, however short
	 * the wait would otherwise be (a rude one: a work item on each CPU).
	 */
	WRITE_ONCE(mover_busy_site, s);
	mover_hold(test, false);
	deadline = jiffies + 2 * HZ;	/* the move starts in HZ / 4 */
	while (!READ_ONCE(s->carry.moving) && time_before(jiffies, deadline))
		usleep_range(100, 200);
	moving = READ_ONCE(s->carry.moving);
	WRITE_ONCE(mover_busy_until, jiffies + 5 * HZ);
	WRITE_ONCE(mover_busy, true);
	ret = register_ftrace_function(&twin_ops);
	KUNIT_EXPECT_TRUE(test, moving);
	KUNIT_EXPECT_EQ(test, ret, 0);
	/* the registration did not wait: the mover holds the move off */
	KUNIT_EXPECT_TRUE(test, READ_ONCE(s->carry.moving) && READ_ONCE(s->carry.carrier));
	msleep(50);		/* calls diverted while the carrier is there */
	WRITE_ONCE(mover_busy_until, jiffies);
	/* the move ends in the background, the user still on */
	deadline = jiffies + 5 * HZ;
	while (READ_ONCE(s->carry.carrier) && time_before(jiffies, deadline))
		usleep_range(1000, 2000);
	KUNIT_EXPECT_FALSE(test, READ_ONCE(s->carry.moving));
	KUNIT_EXPECT_FALSE(test, READ_ONCE(s->carry.carrier));
	msleep(20);
	WRITE_ONCE(mover_busy_site, NULL);	/* before the site may go */
	mover_hold(test, true);
	WRITE_ONCE(mover_busy, false);
	if (!ret)
		KUNIT_EXPECT_EQ(test, unregister_ftrace_function(&twin_ops), 0);
	calls = atomic_read(&mover_calls) - calls;
	hits = atomic_read(&mover_hits) - hits;
	kunit_info(test, "moving: %d; %d calls, %d hits, %d diverted\n", moving,
		   calls, hits, atomic_read(&twin_calls));
	KUNIT_EXPECT_GT(test, atomic_read(&twin_calls), 0);
	KUNIT_EXPECT_EQ(test, hits, calls);
out_probe:
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, kp.nmissed, 0);
out_mover:
	mover_stop(test, t);
out_filter:
	ftrace_free_filter(&twin_ops);
}

/*
 * A carrier the optimizer cannot make a jump (kpt_tiny(): one short
 * instruction, then the return) hands its entry to the hook in the
 * background, a moment after registration: each call of a second CPU is
 * seen exactly once before, across and after that move, and the bytes
 * after the nop are the original ones again.
 */
void kpt_carrier_background_move(struct kunit *test)
{
	u8 *next, orig;
	struct task_struct *t;
	int cpu, calls, hits, i;
	struct kprobe kp;

	cpu = mover_cpu(test);
	next = (u8 *)kpt_call_tiny + (kpt_has_endbr((void *)kpt_call_tiny) ? 4 : 0) +
	       MCOUNT_INSN_SIZE;
	orig = *next;
	t = mover_start(test, kpt_call_tiny, 1, cpu);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, t);
	kpt_init_probe(&kp);
	kp.addr = (kprobe_opcode_t *)kpt_call_tiny;
	kp.pre_handler = mover_pre;
	if (!KPT_CHECK_EQ(test, register_kprobe(&kp), 0))
		goto out;
	KUNIT_EXPECT_EQ(test, *next, INT3_INSN_OPCODE);
	calls = atomic_read(&mover_calls);
	hits = atomic_read(&mover_hits);
	mover_hold(test, false);
	for (i = 0; i < 100 && READ_ONCE(*next) == INT3_INSN_OPCODE; i++)
		msleep(20);
	msleep(20);
	mover_hold(test, true);
	kunit_info(test, "moved after about %d ms\n", i * 20);
	KUNIT_EXPECT_EQ(test, *next, orig);
	KUNIT_EXPECT_FALSE(test, kprobe_optimized(&kp));
	calls = atomic_read(&mover_calls) - calls;
	hits = atomic_read(&mover_hits) - hits;
	kunit_info(test, "%d calls, %d hits\n", calls, hits);
	KUNIT_EXPECT_GT(test, calls, 0);
	KUNIT_EXPECT_EQ(test, hits, calls);
	kpt_reset();
	KUNIT_EXPECT_EQ(test, kpt_call_tiny(3, 4), 7);	/* on the hook now */
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, kp.nmissed, 0);
out:
	mover_stop(test, t);
}

#endif /* KPROBES_ANEW && CONFIG_KPROBE_CARRIERS */
