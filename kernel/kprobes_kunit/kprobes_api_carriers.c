// SPDX-License-Identifier: GPL-2.0
/*
 * kprobes_api, x86: ours arms an entry probe registered on its own by a
 * carrier (an int3, then a jump, on the instruction after the fentry
 * nop) and moves it onto the ftrace hook when it must: every call is
 * seen once, before, across and after the move.  The moves under a
 * second CPU's calls are in kprobes_api_carriers_move.c.
 */
#define pr_fmt(fmt) fmt

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/ftrace.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/sched.h>
#include <asm/text-patching.h>

#include "kprobes_api.h"

#if defined(KPROBES_ANEW) && defined(CONFIG_KPROBE_CARRIERS)
#include <linux/kprobes_backend.h>

/*
 * A carried entry probe: its handlers see what the ftrace hook shows
 * (ip = entry + 1 for the pre_handler, past the nop for the post_handler,
 * the entry's argument registers), once per call, on the int3 and once
 * the optimizer has made it a jump; a post_handler may join it; a probe
 * at the carrier's own address moves the entry onto ftrace first, and
 * both fire once per call; the bytes are the original ones at the end.
 */
void kpt_carrier_entry(struct kunit *test)
{
	struct kprobe kp1, kp2, kp3;
	int want = 3 * 31 + 4, i;
	u8 *next, orig;

	if (!kpt_carriers_now())
		kunit_skip(test, KPT_CARRIERS_NOT_YET);
	if (!IS_ENABLED(CONFIG_KPROBES_ON_FTRACE))
		kunit_skip(test, KPT_NO_FTRACE_SITES);
	/*
	 * A hook the cases before left lingering on kpt_target() would be
	 * taken over instead (no update either way); ours removes them a
	 * quarter second after they were left.
	 */
	msleep(600);
	kpt_target_probe(&kp1, false);
	next = (u8 *)kpt_target_entry +
	       (kpt_has_endbr((void *)kpt_target_entry) ? 4 : 0) + MCOUNT_INSN_SIZE;
	orig = *next;
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp1), 0);
	KUNIT_EXPECT_EQ(test, (unsigned long)kp1.addr + MCOUNT_INSN_SIZE, (unsigned long)next);
	KUNIT_EXPECT_TRUE(test, kp1.flags & KPROBE_FLAG_FTRACE);
	KUNIT_EXPECT_EQ(test, *next, INT3_INSN_OPCODE);
	for (i = 0; i < 2; i++) {
		/* the int3, then (optimized) the jump */
		kpt_reset();
		KUNIT_EXPECT_EQ(test, kpt_call_target(3, 4), want);
		KUNIT_EXPECT_EQ(test, kpt_h.pre, 1);
		KUNIT_EXPECT_EQ(test, kpt_h.pre_ip, (unsigned long)kp1.addr + 1);
		KUNIT_EXPECT_EQ(test, kpt_h.pre_di, 3);
		KUNIT_EXPECT_EQ(test, kpt_h.pre_si, 4);
		wait_for_kprobe_optimizer();
	}
	if (KPT_JUMPS_EXPECTED) {
		KUNIT_EXPECT_TRUE(test, kprobe_optimized(&kp1));
		KUNIT_EXPECT_EQ(test, *next, JMP32_INSN_OPCODE);
	}

	kpt_target_probe(&kp2, true);
	if (!KPT_CHECK_EQ(test, register_kprobe(&kp2), 0))
		goto out1;
	kpt_reset();
	KUNIT_EXPECT_EQ(test, kpt_call_target(3, 4), want);
	KUNIT_EXPECT_EQ(test, kpt_h.pre, 2);
	KUNIT_EXPECT_EQ(test, kpt_h.post, 1);
	KUNIT_EXPECT_EQ(test, kpt_h.post_ip, (unsigned long)next);
	KUNIT_EXPECT_LT(test, kpt_h.pre_seq, kpt_h.post_seq);
	unregister_kprobe(&kp2);

	kpt_init_probe(&kp3);
	kp3.addr = (kprobe_opcode_t *)next;
	kp3.pre_handler = kpt_pre_record;
	if (!KPT_CHECK_EQ(test, register_kprobe(&kp3), 0))
		goto out1;
	kpt_reset();
	KUNIT_EXPECT_EQ(test, kpt_call_target(3, 4), want);
	KUNIT_EXPECT_EQ(test, kpt_h.pre, 2);
	KUNIT_EXPECT_EQ(test, kpt_h.pre_ip, (unsigned long)next + 1);	/* kp3 ran last */
	unregister_kprobe(&kp3);
	kpt_reset();
	KUNIT_EXPECT_EQ(test, kpt_call_target(3, 4), want);
	KUNIT_EXPECT_EQ(test, kpt_h.pre, 1);
	KUNIT_EXPECT_EQ(test, kpt_h.pre_ip, (unsigned long)kp1.addr + 1);
out1:
	unregister_kprobe(&kp1);
	kpt_reset();
	KUNIT_EXPECT_EQ(test, kpt_call_target(3, 4), want);
	KUNIT_EXPECT_EQ(test, kpt_h.pre, 0);
	KUNIT_EXPECT_EQ(test, *next, orig);
	KUNIT_EXPECT_EQ(test, kp1.nmissed, 0);
}

/*
 * A probe at a carrier's address moves the entry onto ftrace, which waits
 * for every task to pass a voluntary switch; a kernel thread busy on
 * another CPU holds that wait off.  Meanwhile other registrations go on:
 * the wait is not taken under kprobe_mutex.
 */
static bool busy_done;

static int busy_fn(void *unused)
{
	unsigned long end = jiffies + 2 * HZ;

	while (time_before(jiffies, end) && !kthread_should_stop())
		cpu_relax();
	WRITE_ONCE(busy_done, true);
	while (!kthread_should_stop())
		usleep_range(1000, 2000);
	return 0;
}

static struct kprobe mover_kp3;
static int mover_kp3_ret;
static atomic_t kp3_hits;
static DECLARE_COMPLETION(kp3_registered);

static int kp3_pre(struct kprobe *p, struct pt_regs *regs)
{
	atomic_inc(&kp3_hits);
	return 0;
}

static int register_kp3_fn(void *unused)
{
	mover_kp3_ret = register_kprobe(&mover_kp3);
	complete(&kp3_registered);
	while (!kthread_should_stop())
		usleep_range(1000, 2000);
	return 0;
}

void kpt_carrier_move_unlocked(struct kunit *test)
{
	struct task_struct *busy, *reg;
	struct kprobe kp1, kp4;
	int cpu, me;
	u8 *next;

	if (!kpt_carriers_now())
		kunit_skip(test, KPT_CARRIERS_NOT_YET);
	/* on this CPU throughout: a !PREEMPT kernel never takes the busy one */
	migrate_disable();
	me = smp_processor_id();
	cpu = cpumask_any_but(cpu_online_mask, me);
	if (cpu >= nr_cpu_ids) {
		migrate_enable();
		kunit_skip(test, "this boot: needs 2 online CPUs");
	}
	/* a hook earlier cases left lingering would be taken over instead */
	msleep(600);
	next = (u8 *)kpt_target_entry +
	       (kpt_has_endbr((void *)kpt_target_entry) ? 4 : 0) + MCOUNT_INSN_SIZE;
	kpt_target_probe(&kp1, false);
	if (!KPT_CHECK_EQ(test, register_kprobe(&kp1), 0))
		goto out0;
	KUNIT_EXPECT_EQ(test, *next, INT3_INSN_OPCODE);		/* carried */
	kpt_init_probe(&mover_kp3);
	mover_kp3.addr = (kprobe_opcode_t *)next;
	mover_kp3.pre_handler = kp3_pre;
	mover_kp3_ret = -EINPROGRESS;
	atomic_set(&kp3_hits, 0);
	reinit_completion(&kp3_registered);
	WRITE_ONCE(busy_done, false);
	busy = kthread_create(busy_fn, NULL, "kpt_busy");
	if (!KPT_CHECK(test, !IS_ERR(busy)))
		goto out1;
	kthread_bind(busy, cpu);
	wake_up_process(busy);
	msleep(20);
	reg = kthread_create(register_kp3_fn, NULL, "kpt_register");
	if (!KPT_CHECK(test, !IS_ERR(reg)))
		goto out2;
	kthread_bind(reg, me);
	wake_up_process(reg);
	msleep(100);	/* the move's wait is under way now */
	kpt_init_probe(&kp4);
	kp4.addr = (kprobe_opcode_t *)kpt_asm_add;
	kp4.pre_handler = kpt_pre_record;
	KUNIT_EXPECT_EQ(test, register_kprobe(&kp4), 0);
	unregister_kprobe(&kp4);
	/* done while the busy thread still held the move's wait off */
	KUNIT_EXPECT_FALSE(test, READ_ONCE(busy_done));
	wait_for_completion(&kp3_registered);
	kthread_stop(reg);
	KUNIT_EXPECT_EQ(test, mover_kp3_ret, 0);
	kpt_reset();
	KUNIT_EXPECT_EQ(test, kpt_call_target(3, 4), 3 * 31 + 4);
	KUNIT_EXPECT_EQ(test, kpt_h.pre, 1);				/* kp1, hooked */
	KUNIT_EXPECT_EQ(test, atomic_read(&kp3_hits), mover_kp3_ret ? 0 : 1);
	if (!mover_kp3_ret)
		unregister_kprobe(&mover_kp3);
out2:
	kthread_stop(busy);
out1:
	unregister_kprobe(&kp1);
out0:
	migrate_enable();
}

/*
 * A settle ends only the moves hooked before its wait began (finding 5a
 * of the carriers review).  Path A moves kpt_alt()'s entry onto its hook
 * and waits for every task to pass a voluntary switch, a wait a busy
 * thread holds off; meanwhile path B moves kpt_target()'s, whose hook
 * goes in after A's wait began: a task asleep when A's wait began may
 * have passed kpt_target()'s nop unhooked since, and be on its way to the
 * carrier.  The busy thread then passes one voluntary switch, which ends
 * A's wait but not B's (B's began after it).  When A returns, kpt_target()
 * must still be carried; its carrier goes once B's own wait is over.
 * With the generation check taken out of kprobe_carriers_finish(), A
 * retires kpt_target()'s carrier too, and this fails.
 */
static bool gen_switch, gen_stop;

static int gen_busy_fn(void *unused)
{
	unsigned long end = jiffies + 6 * HZ;

	while (time_before(jiffies, end) && !READ_ONCE(gen_stop)) {
		if (READ_ONCE(gen_switch)) {
			WRITE_ONCE(gen_switch, false);
			schedule_timeout_uninterruptible(1);
		}
		cpu_relax();
	}
	while (!kthread_should_stop())
		usleep_range(1000, 2000);
	return 0;
}

struct gen_path {
	struct kprobe kp;		/* at a carrier's address: forces a move */
	struct completion done;
	int ret;
};

static int gen_path_fn(void *arg)
{
	struct gen_path *p = arg;

	p->ret = register_kprobe(&p->kp);
	complete_all(&p->done);	/* waited for twice: the case, its cleanup */
	while (!kthread_should_stop())
		usleep_range(1000, 2000);
	return 0;
}

static struct task_struct *gen_path_start(struct gen_path *p, u8 *carrier,
					  int cpu)
{
	struct task_struct *t;

	kpt_init_probe(&p->kp);
	p->kp.addr = (kprobe_opcode_t *)carrier;
	p->kp.pre_handler = kp3_pre;
	p->ret = -EINPROGRESS;
	init_completion(&p->done);
	t = kthread_create(gen_path_fn, p, "kpt_gen_path");
	if (!IS_ERR(t)) {
		kthread_bind(t, cpu);
		wake_up_process(t);
	}
	return t;
}

/* the instruction after fn's fentry nop, from an address known at run time */
static u8 *entry_next(unsigned long fn)
{
	return (u8 *)fn + (kpt_has_endbr((void *)fn) ? 4 : 0) + MCOUNT_INSN_SIZE;
}

static int (*call_alt)(int, int) = kpt_alt;

void kpt_carrier_settle_generations(struct kunit *test)
{
	u8 *xnext = entry_next(kpt_target_entry);
	u8 *ynext = entry_next((unsigned long)READ_ONCE(call_alt));
	struct task_struct *busy = NULL, *ta = NULL, *tb = NULL;
	u8 xorig = *xnext, yorig = *ynext;
	static struct gen_path a, b;
	struct kprobe kx, ky;
	int cpu, me, i;

	if (!kpt_carriers_now())
		kunit_skip(test, KPT_CARRIERS_NOT_YET);
	migrate_disable();	/* see kpt_carrier_move_unlocked() */
	me = smp_processor_id();
	cpu = cpumask_any_but(cpu_online_mask, me);
	if (cpu >= nr_cpu_ids) {
		migrate_enable();
		kunit_skip(test, "this boot: needs 2 online CPUs");
	}
	msleep(600);	/* no hook left lingering: the probes are carried */
	kpt_target_probe(&kx, false);
	kpt_init_probe(&ky);
	ky.addr = (kprobe_opcode_t *)kpt_alt;
	ky.pre_handler = kpt_pre_record;
	if (!KPT_CHECK_EQ(test, register_kprobe(&kx), 0))
		goto out0;
	if (!KPT_CHECK_EQ(test, register_kprobe(&ky), 0))
		goto out1;
	wait_for_kprobe_optimizer();
	/* an int3-only carrier would move by itself in the background */
	if (!kx.site->carry.carrier || !ky.site->carry.carrier ||
	    !kprobe_optimized(&kx) || !kprobe_optimized(&ky)) {
		kunit_mark_skipped(test, "this boot: the entries are not carried by jumps");
		goto out2;
	}
	WRITE_ONCE(gen_switch, false);
	WRITE_ONCE(gen_stop, false);
	atomic_set(&kp3_hits, 0);
	busy = kthread_create(gen_busy_fn, NULL, "kpt_busy");
	if (!KPT_CHECK(test, !IS_ERR(busy))) {
		busy = NULL;
		goto out2;
	}
	kthread_bind(busy, cpu);
	wake_up_process(busy);
	msleep(20);

	ta = gen_path_start(&a, ynext, me);		/* path A: kpt_alt() */
	if (!KPT_CHECK(test, !IS_ERR(ta))) {
		ta = NULL;
		goto out3;
	}
	msleep(300);	/* A's wait began (the busy thread holds it off) */
	KUNIT_EXPECT_EQ(test, a.ret, -EINPROGRESS);
	tb = gen_path_start(&b, xnext, me);		/* path B: kpt_target() */
	if (!KPT_CHECK(test, !IS_ERR(tb))) {
		tb = NULL;
		goto out3;
	}
	/* B's hook in: its move began after A's wait did */
	for (i = 0; i < 100 && !READ_ONCE(kx.site->carry.hooked); i++)
		msleep(20);
	KUNIT_EXPECT_TRUE(test, READ_ONCE(kx.site->carry.hooked));
	msleep(50);	/* and B waits too */

	WRITE_ONCE(gen_switch, true);	/* ends A's wait, not B's */
	KUNIT_EXPECT_TRUE(test, wait_for_completion_timeout(&a.done, 4 * HZ));
	KUNIT_EXPECT_EQ(test, a.ret, 0);
	KUNIT_EXPECT_FALSE(test, READ_ONCE(ky.site->carry.carrier));	/* A's own: gone */
	/* B still waits: kpt_target() must still be carried */
	KUNIT_EXPECT_EQ(test, b.ret, -EINPROGRESS);
	KUNIT_EXPECT_TRUE(test, READ_ONCE(kx.site->carry.carrier));
	KUNIT_EXPECT_TRUE(test, READ_ONCE(*xnext) != xorig);

	WRITE_ONCE(gen_stop, true);	/* B's wait ends */
	KUNIT_EXPECT_TRUE(test, wait_for_completion_timeout(&b.done, 4 * HZ));
	KUNIT_EXPECT_EQ(test, b.ret, 0);
	KUNIT_EXPECT_FALSE(test, READ_ONCE(kx.site->carry.carrier));
	kpt_reset();
	KUNIT_EXPECT_EQ(test, kpt_call_target(3, 4), 3 * 31 + 4);
	KUNIT_EXPECT_EQ(test, call_alt(3, 4), 3004);
	KUNIT_EXPECT_EQ(test, kpt_h.pre, 2);			/* kx and ky, hooked */
	KUNIT_EXPECT_EQ(test, atomic_read(&kp3_hits), 2);	/* the two paths' */
out3:
	WRITE_ONCE(gen_stop, true);
	if (ta) {
		wait_for_completion(&a.done);
		kthread_stop(ta);
		if (!a.ret)
			unregister_kprobe(&a.kp);
	}
	if (tb) {
		wait_for_completion(&b.done);
		kthread_stop(tb);
		if (!b.ret)
			unregister_kprobe(&b.kp);
	}
	if (busy)
		kthread_stop(busy);
out2:
	unregister_kprobe(&ky);
out1:
	unregister_kprobe(&kx);
	KUNIT_EXPECT_EQ(test, *xnext, xorig);
	KUNIT_EXPECT_EQ(test, *ynext, yorig);
out0:
	migrate_enable();
}

/*
 * debug.kprobes-carriers=0 turns carriers off for what is registered
 * from then on, and moves the carriers there are onto their hooks: the
 * bytes after the nop come back, and every call is still seen.
 */
void kpt_carrier_sysctl_off(struct kunit *test)
{
	u8 *next = (u8 *)kpt_target_entry +
		   (kpt_has_endbr((void *)kpt_target_entry) ? 4 : 0) + MCOUNT_INSN_SIZE;
	u8 orig = *next;
	struct kprobe kp;
	int i;

	if (!kpt_carriers_now())
		kunit_skip(test, KPT_CARRIERS_NOT_YET);
	msleep(600);	/* no hook left lingering: the probe is carried */
	kpt_target_probe(&kp, false);
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_EQ(test, *next, INT3_INSN_OPCODE);
	KUNIT_EXPECT_EQ(test, kpt_set_carriers(0), 0);
	for (i = 0; i < 500 && READ_ONCE(*next) != orig; i++)
		msleep(20);
	kunit_info(test, "moved after about %d ms\n", i * 20);
	KUNIT_EXPECT_EQ(test, *next, orig);
	kpt_reset();
	KUNIT_EXPECT_EQ(test, kpt_call_target(3, 4), 3 * 31 + 4);
	KUNIT_EXPECT_EQ(test, kpt_h.pre, 1);
	KUNIT_EXPECT_EQ(test, kpt_h.pre_ip, (unsigned long)kp.addr + 1);
	KUNIT_EXPECT_EQ(test, kpt_set_carriers(1), 0);
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, kp.nmissed, 0);
}

/*
 * A probe inside the jump a carrier was made (its region) takes the jump
 * away; the carrier, an int3 again, then hands its entry to the hook in
 * the background, as one that never got a jump does: both probes see
 * every call, and the bytes after the nop are the original ones again.
 */
void kpt_carrier_region_probe(struct kunit *test)
{
	u8 *next = (u8 *)kpt_target_entry +
		   (kpt_has_endbr((void *)kpt_target_entry) ? 4 : 0) + MCOUNT_INSN_SIZE;
	u8 orig = *next;
	struct kprobe kp, kin;
	int i, ret = -EILSEQ;

	if (!kpt_carriers_now())
		kunit_skip(test, KPT_CARRIERS_NOT_YET);
	msleep(600);	/* no hook left lingering: the probe is carried */
	kpt_target_probe(&kp, false);
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	wait_for_kprobe_optimizer();
	if (!kprobe_optimized(&kp)) {
		unregister_kprobe(&kp);
		kunit_skip(test, "this boot: the carrier got no jump");
	}
	/* the next instruction boundary in the jump's five bytes */
	for (i = 1; i < JMP32_INSN_SIZE && ret == -EILSEQ; i++) {
		kpt_init_probe(&kin);
		kin.addr = (kprobe_opcode_t *)(next + i);
		kin.pre_handler = kpt_pre_record;
		ret = register_kprobe(&kin);
	}
	if (ret == -EILSEQ) {
		unregister_kprobe(&kp);
		kunit_skip(test, "this boot: one instruction covers the jump");
	}
	if (!KPT_CHECK_EQ(test, ret, 0)) {
		unregister_kprobe(&kp);
		return;
	}
	KUNIT_EXPECT_FALSE(test, kprobe_optimized(&kp));
	for (i = 0; i < 500 && READ_ONCE(*next) != orig; i++)
		msleep(20);
	kunit_info(test, "on the hook after about %d ms\n", i * 20);
	KUNIT_EXPECT_EQ(test, *next, orig);
	kpt_reset();
	KUNIT_EXPECT_EQ(test, kpt_call_target(3, 4), 3 * 31 + 4);
	KUNIT_EXPECT_EQ(test, kpt_h.pre, 2);
	unregister_kprobe(&kin);
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, kp.nmissed + kin.nmissed, 0);
}
#else
#define KPT_NO_CARRIERS \
	"upstream differs: no carriers, an entry probe is hooked on ftrace"

#define KPT_NO_OPT_CARRIERS \
	"this boot: no carriers (they need the optimizer, CONFIG_OPTPROBES is off)"

#define KPT_NO_ARCH_CARRIERS \
	"this boot: no carriers (CONFIG_KPROBE_CARRIERS: not on this arch)"

void kpt_carrier_none(struct kunit *test)
{
	if (upstream)
		kunit_skip(test, KPT_NO_CARRIERS);
	if (!IS_ENABLED(CONFIG_KPROBES_ON_FTRACE))
		kunit_skip(test, KPT_NO_FTRACE_SITES);
	if (!IS_ENABLED(CONFIG_OPTPROBES))
		kunit_skip(test, KPT_NO_OPT_CARRIERS);
	kunit_skip(test, KPT_NO_ARCH_CARRIERS);
}
#endif /* KPROBES_ANEW && CONFIG_KPROBE_CARRIERS */
