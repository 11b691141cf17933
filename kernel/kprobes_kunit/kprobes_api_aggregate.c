// SPDX-License-Identifier: GPL-2.0
/*
 * kprobes_api, x86: probes sharing an address, registered, disabled and
 * removed one by one, and a post_handler joining a hit in flight.
 */
#define pr_fmt(fmt) fmt

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <asm/text-patching.h>

#include "kprobes_api.h"

static int pre_order1(struct kprobe *p, struct pt_regs *r)
{
	kpt_h.order[kpt_h.norder++] = 1;
	return 0;
}

static int pre_order2(struct kprobe *p, struct pt_regs *r)
{
	kpt_h.order[kpt_h.norder++] = 2;
	return 0;
}

static int pre_order3(struct kprobe *p, struct pt_regs *r)
{
	kpt_h.order[kpt_h.norder++] = 3;
	return 0;
}

void kpt_aggregate_probes(struct kunit *test)
{
	static struct kprobe kp[3];
	kprobe_pre_handler_t pre[3] = { pre_order1, pre_order2, pre_order3 };
	int i;

	for (i = 0; i < 3; i++) {
		kpt_init_probe(&kp[i]);
		kp[i].addr = (kprobe_opcode_t *)kpt_asm_add;
		kp[i].pre_handler = pre[i];
		if (i == 1)
			kp[i].post_handler = kpt_post_record;
		if (!KPT_CHECK_EQ(test, register_kprobe(&kp[i]), 0)) {
			while (--i >= 0)
				unregister_kprobe(&kp[i]);
			return;
		}
	}
	kpt_reset();
	KUNIT_EXPECT_EQ(test, kpt_call_asm(2), KPT_ASM_BASE + 2);
	KUNIT_EXPECT_EQ(test, kpt_h.norder, 3);
	KUNIT_EXPECT_EQ(test, kpt_h.order[0] + kpt_h.order[1] + kpt_h.order[2], 1 + 2 + 3);

	/* removing one leaves the others armed */
	unregister_kprobe(&kp[1]);
	kpt_reset();
	KUNIT_EXPECT_EQ(test, kpt_call_asm(2), KPT_ASM_BASE + 2);
	KUNIT_EXPECT_EQ(test, kpt_h.norder, 2);
	KUNIT_EXPECT_EQ(test, kpt_h.order[0] + kpt_h.order[1], 1 + 3);

	/* disabling one leaves the other firing */
	KUNIT_EXPECT_EQ(test, disable_kprobe(&kp[0]), 0);
	kpt_reset();
	kpt_call_asm(2);
	KUNIT_EXPECT_TRUE(test, kpt_h.norder == 1 && kpt_h.order[0] == 3);
	unregister_kprobe(&kp[0]);
	unregister_kprobe(&kp[2]);
	kpt_reset();
	kpt_call_asm(2);
	KUNIT_EXPECT_EQ(test, kpt_h.norder, 0);
}

/*
 * A site's probes change one by one, on an int3 site and an ftrace site:
 * alone, joined, left alone again, disabled, joined by a post_handler.
 * Each call must run exactly the handlers registered and enabled at that
 * moment (ours takes a shortcut while a site has one pre-only probe).
 */
static void solo_step(struct kunit *test, struct kprobe *kp, int n,
		      long (*call)(void), long want, int norder, int sum,
		      int post)
{
	int i, total = 0;

	kpt_reset();
	if (!KPT_CHECK_EQ(test, call(), want))
		return;
	for (i = 0; i < kpt_h.norder; i++)
		total += kpt_h.order[i];
	KUNIT_EXPECT_EQ(test, kpt_h.norder, norder);
	KUNIT_EXPECT_EQ(test, total, sum);
	KUNIT_EXPECT_EQ(test, kpt_h.post, post);
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ(test, kp[i].nmissed, 0);
}

static long solo_call_asm(void)
{
	return kpt_call_asm(2);
}

static long solo_call_entry(void)
{
	return kpt_call_target(2, 3);
}

static void solo_changes(struct kunit *test, void *addr, long (*call)(void),
			 long want, bool post)
{
	static struct kprobe kp[3];
	kprobe_pre_handler_t pre[3] = { pre_order1, pre_order2, pre_order3 };
	int i;

	for (i = 0; i < 3; i++) {
		kpt_init_probe(&kp[i]);
		kp[i].addr = addr;
		kp[i].pre_handler = pre[i];
	}
	kp[2].post_handler = kpt_post_record;

	if (!KPT_CHECK_EQ(test, register_kprobe(&kp[0]), 0))
		return;
	solo_step(test, kp, 3, call, want, 1, 1, 0);		/* alone */
	if (KPT_CHECK_EQ(test, register_kprobe(&kp[1]), 0)) {
		solo_step(test, kp, 3, call, want, 2, 1 + 2, 0);	/* joined */
		unregister_kprobe(&kp[0]);
		solo_step(test, kp, 3, call, want, 1, 2, 0);	/* the other alone */
		KUNIT_EXPECT_EQ(test, disable_kprobe(&kp[1]), 0);
		solo_step(test, kp, 3, call, want, 0, 0, 0);
		KUNIT_EXPECT_EQ(test, enable_kprobe(&kp[1]), 0);
		solo_step(test, kp, 3, call, want, 1, 2, 0);
		if (post && KPT_CHECK_EQ(test, register_kprobe(&kp[2]), 0)) {
			solo_step(test, kp, 3, call, want, 2, 2 + 3, 1);
			unregister_kprobe(&kp[2]);
			solo_step(test, kp, 3, call, want, 1, 2, 0);
		}
		unregister_kprobe(&kp[1]);
	} else {
		unregister_kprobe(&kp[0]);
	}
	solo_step(test, kp, 3, call, want, 0, 0, 0);		/* none */
}

/*
 * On upstream the post_handler step is left out: a post_handler joining
 * a boosted address does not run at once there (kpt_aggregate_order_and_post()),
 * and one leaving an ftrace site WARNs then faults (kpt_ftrace_ops_switch()).
 */
void kpt_site_probes_change(struct kunit *test)
{
	solo_changes(test, kpt_asm_add, solo_call_asm, KPT_ASM_BASE + 2,
		     !upstream);
	solo_changes(test, (void *)kpt_target_entry, solo_call_entry,
		     2 * 31 + 3, !upstream);
}

/*
 * What ours promises beyond upstream for probes sharing an address:
 * handlers run in registration order, and a post_handler added to an
 * address that already has a probe runs from the first hit after
 * register_kprobe() returns (the address falls back from the jump or
 * boosted path to single-stepping before register returns).
 */
void kpt_aggregate_order_and_post(struct kunit *test)
{
	static struct kprobe kp[3];
	kprobe_pre_handler_t pre[3] = { pre_order1, pre_order2, pre_order3 };
	int i, j;

	for (i = 0; i < 3; i++) {
		kpt_init_probe(&kp[i]);
		kp[i].addr = (kprobe_opcode_t *)kpt_asm_add;
		kp[i].pre_handler = pre[i];
		if (i == 1)
			kp[i].post_handler = kpt_post_record;
		if (!KPT_CHECK_EQ(test, register_kprobe(&kp[i]), 0)) {
			while (--i >= 0)
				unregister_kprobe(&kp[i]);
			return;
		}
		/*
		 * Let a deferred optimizer act between registrations.
		 * Upstream does not export wait_for_kprobe_optimizer(); its
		 * optimizer runs 5 jiffies after a change.
		 */
		for (j = 0; j < 3; j++) {
#ifdef KPROBES_ANEW
			wait_for_kprobe_optimizer();
#else
			msleep(20);
#endif
			kpt_call_asm(0);
		}
	}
	kpt_reset();
	KUNIT_EXPECT_EQ(test, kpt_call_asm(2), KPT_ASM_BASE + 2);
	for (i = 2; i >= 0; i--)
		unregister_kprobe(&kp[i]);
	if (upstream && !kpt_failed(test)) {
		kunit_skip(test, "upstream differs: order %d,%d,%d, post_handler ran %d time(s)",
			   kpt_h.order[0], kpt_h.order[1], kpt_h.order[2], kpt_h.post);
	}
	KUNIT_EXPECT_EQ(test, kpt_h.norder, 3);
	KUNIT_EXPECT_TRUE(test, kpt_h.order[0] == 1 && kpt_h.order[1] == 2 && kpt_h.order[2] == 3);
	KUNIT_EXPECT_EQ(test, kpt_h.post, 1);
	KUNIT_EXPECT_EQ(test, kpt_h.post_ax, KPT_ASM_BASE + 2);
}

/*
 * A post_handler that joins a site while a hit is inside its jump's
 * detour.  The detour runs pre_handlers only, with the instruction still
 * ahead: that hit must not run the newcomer's post_handler, whose regs
 * would show the instruction not yet executed.  One CPU's hit waits in a
 * pre_handler (interrupts on, so that the jump's removal can reach it)
 * until register_kprobe() of the post_handler's probe has returned on
 * another.  Two pre-only probes, so that the hit takes the site's general
 * path.  Every post_handler run must see regs->ip past the instruction,
 * and the calls after register_kprobe() returned run it (upstream undoes
 * the jump later: it says so).
 */
static atomic_t inflight_state;		/* 1: a hit waits; 2: released */
static atomic_t inflight_post, inflight_post_bad;
static bool inflight_timed_out;

static int pre_inflight(struct kprobe *p, struct pt_regs *regs)
{
	unsigned long flags;
	u64 t0;

	/* only a hit through the jump waits: never in the trap's context */
	if (in_nmi() || atomic_cmpxchg(&inflight_state, 0, 1) != 0)
		return 0;
	preempt_disable();	/* the per-CPU hit state stays this CPU's */
	local_save_flags(flags);
	local_irq_enable();
	t0 = ktime_get_ns();
	while (atomic_read(&inflight_state) != 2) {
		if (ktime_get_ns() - t0 > 5 * NSEC_PER_SEC) {
			inflight_timed_out = true;
			break;
		}
		cpu_relax();
	}
	local_irq_restore(flags);
	preempt_enable();	/* interrupts as the detour had them */
	return 0;
}

static int pre_none(struct kprobe *p, struct pt_regs *regs)
{
	return 0;
}

static void post_inflight(struct kprobe *p, struct pt_regs *regs,
			  unsigned long flags)
{
	atomic_inc(&inflight_post);
	if (instruction_pointer(regs) != (unsigned long)kpt_asm_add)
		atomic_inc(&inflight_post_bad);
}

static long inflight_result;
static DECLARE_COMPLETION(inflight_done);

static int inflight_fn(void *unused)
{
	inflight_result = kpt_call_asm(9);
	kthread_complete_and_exit(&inflight_done, 0);
}

/* 1: the case ends here (its failure or skip reported), 0: it goes on */
static int post_in_flight(struct kunit *test, int cpu);

void kpt_post_joins_hit_in_flight(struct kunit *test)
{
	int cpu, ret = 0, i;

	/* this task stays off the CPU whose hit will spin */
	migrate_disable();
	cpu = cpumask_any_but(cpu_online_mask, raw_smp_processor_id());
	if (cpu >= nr_cpu_ids) {
		migrate_enable();
		kunit_skip(test, "this boot: needs 2 online CPUs");
	}
	for (i = 0; i < 3; i++) {
		ret = post_in_flight(test, cpu);
		if (ret || !inflight_timed_out || upstream)
			break;
		/*
		 * A stop_machine() elsewhere (a clocksource switch early in
		 * boot) stops the registering CPU until the hit gives up.
		 */
		kunit_info(test, "the waiting hit timed out; once more\n");
	}
	migrate_enable();
	if (ret)
		return;
	if (upstream && !kpt_failed(test) &&
	    (inflight_timed_out || atomic_read(&inflight_post) < 3)) {
		kunit_skip(test,
			   "upstream differs: post_handler ran for %d of the 3 calls after register_kprobe()%s",
			   atomic_read(&inflight_post),
			   inflight_timed_out ? ", which waited for the hit" : "");
	}
	KUNIT_EXPECT_FALSE(test, inflight_timed_out);
	KUNIT_EXPECT_GE(test, atomic_read(&inflight_post), 3);
}

static int post_in_flight(struct kunit *test, int cpu)
{
	static struct kprobe kp[3];
	struct task_struct *t;
	int i, ret;

	for (i = 0; i < 3; i++) {
		kpt_init_probe(&kp[i]);
		kp[i].addr = (kprobe_opcode_t *)kpt_asm_mov;
		kp[i].pre_handler = i ? pre_none : pre_inflight;
	}
	kp[2].post_handler = post_inflight;
	atomic_set(&inflight_state, 2);		/* no hit waits yet */
	atomic_set(&inflight_post, 0);
	atomic_set(&inflight_post_bad, 0);
	inflight_timed_out = false;
	reinit_completion(&inflight_done);
	for (i = 0; i < 2; i++) {
		if (!KPT_CHECK_EQ(test, register_kprobe(&kp[i]), 0)) {
			while (--i >= 0)
				unregister_kprobe(&kp[i]);
			return 1;
		}
	}
#ifdef KPROBES_ANEW
	wait_for_kprobe_optimizer();
#else
	/* upstream's optimizer runs 5 jiffies after a change */
	for (i = 0; i < 50 && *(u8 *)kpt_asm_mov != JMP32_INSN_OPCODE; i++)
		msleep(20);
#endif
	if (*(u8 *)kpt_asm_mov != JMP32_INSN_OPCODE) {
		if (!KPT_JUMPS_EXPECTED)
			kunit_mark_skipped(test, "this boot: no jump optimization in this config");
		else if (upstream)
			kunit_mark_skipped(test, "upstream did not optimize the site within 1 s");
		else	/* it must be a jump */
			KUNIT_EXPECT_EQ(test, *(u8 *)kpt_asm_mov, JMP32_INSN_OPCODE);
		ret = 1;
		goto out;
	}

	atomic_set(&inflight_state, 0);		/* the next hit waits */
	t = kthread_create(inflight_fn, NULL, "kpt_inflight");
	if (!KPT_CHECK(test, !IS_ERR(t))) {
		ret = 1;
		goto out;
	}
	kthread_bind(t, cpu);
	wake_up_process(t);
	for (i = 0; i < 250 && atomic_read(&inflight_state) != 1; i++)
		msleep(20);
	KUNIT_EXPECT_EQ(test, atomic_read(&inflight_state), 1);
	ret = register_kprobe(&kp[2]);
	atomic_set(&inflight_state, 2);
	/* if the caller's hit never ended, nothing is safe to free */
	if (!KPT_CHECK(test, wait_for_completion_timeout(&inflight_done, 10 * HZ)))
		return 1;
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, inflight_result, KPT_ASM_BASE + 9);
	/* from now on the post_handler runs, after the instruction */
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, kpt_call_asm(i), KPT_ASM_BASE + i);
	if (!ret)
		unregister_kprobe(&kp[2]);
	kunit_info(test, "post_handler runs %d, %d before the instruction; hit waited %s\n",
		   atomic_read(&inflight_post), atomic_read(&inflight_post_bad),
		   inflight_timed_out ? "5 s (timed out)" : "for the registration");
	KUNIT_EXPECT_EQ(test, atomic_read(&inflight_post_bad), 0);
	ret = kpt_failed(test);	/* no second try after a failure */
out:
	unregister_kprobe(&kp[1]);
	unregister_kprobe(&kp[0]);
	return ret;
}
