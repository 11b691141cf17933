// SPDX-License-Identifier: GPL-2.0
/*
 * kprobes_api: kretprobes: return values and per-instance data, disabling,
 * maxactive and the activations beyond it, sleeping functions, and an
 * instance live while its kretprobe goes away.
 */
#define pr_fmt(fmt) fmt

#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/preempt.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/workqueue.h>

#include "kprobes_api.h"

static noinline int kpt_recurse(int depth)
{
	int (*self)(int) = kpt_recurse;

	OPTIMIZER_HIDE_VAR(self);	/* a real call: the function recurses */
	return depth > 0 ? self(depth - 1) + 1 : 0;
}

static noinline int kpt_sleeper(int ms)
{
	msleep(ms);
	return ms + 7;
}

/* Blocks until told to return: a task the test knows is inside. */
static DECLARE_COMPLETION(blocker_entered);
static DECLARE_COMPLETION(blocker_release);

static noinline int kpt_blocker(int x)
{
	complete(&blocker_entered);
	wait_for_completion(&blocker_release);
	return x + 7;
}

int (*kpt_call_recurse)(int) = kpt_recurse;
int (*kpt_call_sleeper)(int) = kpt_sleeper;
int (*kpt_call_blocker)(int) = kpt_blocker;

struct kpt_ri_data {
	int a;
	u64 cookie;
};

static struct {
	int entries, returns, bad_data;
	long last_ret;
	unsigned long ret_ip;
	bool preemptible;
} rh;

static int ret_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kpt_ri_data *d = (struct kpt_ri_data *)ri->data;

	rh.entries++;
	d->a = regs_get_kernel_argument(regs, 0);
	d->cookie = 0xc0ffee00ULL + d->a;
	return 0;
}

static int ret_handler(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kpt_ri_data *d = (struct kpt_ri_data *)ri->data;

	rh.returns++;
	rh.last_ret = regs_return_value(regs);
	rh.preemptible = preemptible();
	if (d->cookie != 0xc0ffee00ULL + d->a)
		rh.bad_data++;
	return 0;
}

void kpt_kretprobe_return_value(struct kunit *test)
{
	struct kretprobe rp = {
		.kp.addr = (kprobe_opcode_t *)kpt_target,
		.entry_handler = ret_entry,
		.handler = ret_handler,
		.data_size = sizeof(struct kpt_ri_data),
		.maxactive = 4,
	};
	int i;

	memset(&rh, 0, sizeof(rh));
	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	for (i = 0; i < 10; i++)
		KUNIT_EXPECT_EQ(test, kpt_call_target(i, 2), i * 31 + 2);
	unregister_kretprobe(&rp);
	KUNIT_EXPECT_EQ(test, rh.entries, 10);
	KUNIT_EXPECT_EQ(test, rh.returns, 10);
	KUNIT_EXPECT_EQ(test, rh.last_ret, 9 * 31 + 2);
	KUNIT_EXPECT_EQ(test, rh.bad_data, 0);
	KUNIT_EXPECT_FALSE(test, rh.preemptible);
	KUNIT_EXPECT_EQ(test, rp.nmissed, 0);
}

/*
 * disable_kretprobe()/enable_kretprobe(): a disabled kretprobe takes no
 * instances; one registered disabled (KPROBE_FLAG_DISABLED) starts so.
 */
void kpt_kretprobe_disable_enable(struct kunit *test)
{
	struct kretprobe rp = {
		.kp.addr = (kprobe_opcode_t *)kpt_target,
		.kp.flags = KPROBE_FLAG_DISABLED,
		.entry_handler = ret_entry,
		.handler = ret_handler,
		.data_size = sizeof(struct kpt_ri_data),
		.maxactive = 4,
	};

	KUNIT_EXPECT_EQ(test, disable_kretprobe(&rp), -EINVAL);	/* not registered */
	memset(&rh, 0, sizeof(rh));
	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	KUNIT_EXPECT_EQ(test, kpt_call_target(1, 2), 33);
	KUNIT_EXPECT_EQ(test, rh.returns, 0);
	KUNIT_EXPECT_EQ(test, enable_kretprobe(&rp), 0);
	KUNIT_EXPECT_EQ(test, kpt_call_target(2, 2), 64);
	KUNIT_EXPECT_EQ(test, rh.entries, 1);
	KUNIT_EXPECT_EQ(test, rh.returns, 1);
	KUNIT_EXPECT_EQ(test, disable_kretprobe(&rp), 0);
	KUNIT_EXPECT_EQ(test, kpt_call_target(3, 2), 95);
	KUNIT_EXPECT_EQ(test, rh.returns, 1);
	KUNIT_EXPECT_EQ(test, enable_kretprobe(&rp), 0);
	KUNIT_EXPECT_EQ(test, kpt_call_target(4, 2), 126);
	KUNIT_EXPECT_EQ(test, rh.returns, 2);
	KUNIT_EXPECT_EQ(test, rh.last_ret, 126);
	unregister_kretprobe(&rp);
	KUNIT_EXPECT_EQ(test, rp.nmissed, 0);
}

/* a fresh kretprobe on kpt_recurse with one reserved instance, rh cleared */
static int register_recurse_rp(struct kretprobe *rp)
{
	memset(rp, 0, sizeof(*rp));
	rp->kp.symbol_name = "kpt_recurse";
	rp->handler = ret_handler;
	rp->data_size = sizeof(struct kpt_ri_data);	/* ret_handler reads it */
	rp->maxactive = 1;
	memset(&rh, 0, sizeof(rh));
	return register_kretprobe(rp);
}

/*
 * Activations beyond maxactive: upstream misses them; ours takes spare
 * instances (kernel/kprobes_kretprobes.c), so 4 nested activations with
 * maxactive 1 all return through the handler.
 */
void kpt_kretprobe_nmissed_recursion(struct kunit *test)
{
	struct kretprobe rp;

	KUNIT_ASSERT_EQ(test, register_recurse_rp(&rp), 0);
	KUNIT_EXPECT_EQ(test, kpt_call_recurse(3), 3);
	unregister_kretprobe(&rp);
	KUNIT_EXPECT_EQ(test, rh.last_ret, 3);	/* the outermost return */
	if (!KPT_SPARES) {
		/* 1 instance: the 3 inner activations miss */
		KUNIT_EXPECT_EQ(test, rh.returns, 1);
		KUNIT_EXPECT_EQ(test, rp.nmissed, 3);
	} else {
		KUNIT_EXPECT_EQ(test, rh.returns, 4);
		KUNIT_EXPECT_EQ(test, rp.nmissed, 0);
	}
}

/*
 * Ours: spare pools are grown from an irq_work, so with interrupts off
 * only the first spare pool (max(maxactive, 4) instances) serves: 8
 * activations, maxactive 1, 5 served and 3 missed.  With interrupts on,
 * 100 activations stop at the bound: maxactive 1 + 32 spares.
 */
void kpt_kretprobe_spare_bound(struct kunit *test)
{
	struct kretprobe rp;
	unsigned long flags;
	int missed, ret;

	if (!KPT_SPARES)
		kunit_skip(test, "no spare instances: see kretprobe_nmissed_recursion");
	KUNIT_ASSERT_EQ(test, register_recurse_rp(&rp), 0);
	local_irq_save(flags);
	ret = kpt_call_recurse(7);
	local_irq_restore(flags);
	/* checked with interrupts on: a failure's report allocates */
	KUNIT_EXPECT_EQ(test, ret, 7);
	unregister_kretprobe(&rp);
	KUNIT_EXPECT_EQ(test, rh.returns, 5);
	KUNIT_EXPECT_EQ(test, rp.nmissed, 3);

	KUNIT_ASSERT_EQ(test, register_recurse_rp(&rp), 0);
	KUNIT_EXPECT_EQ(test, kpt_call_recurse(99), 99);
	unregister_kretprobe(&rp);
	missed = rp.nmissed;
	kunit_info(test, "100 activations, maxactive 1: %d returns, %d missed\n",
		   rh.returns, missed);
	KUNIT_EXPECT_EQ(test, rh.returns + missed, 100);
	KUNIT_EXPECT_TRUE(test, rh.returns > 5 && rh.returns <= 1 + 32);
}

/* run on one CPU by work_on_cpu(): arg activations, interrupts off */
static long recurse_irqs_off(void *arg)
{
	unsigned long flags;
	long n;

	local_irq_save(flags);
	n = kpt_call_recurse((long)arg);
	local_irq_restore(flags);
	return n;
}

/*
 * Ours keeps the instance a return recycles in its CPU's hot slot (x86).
 * The one reserved instance of maxactive 1, parked in the first CPU's slot
 * by a call there, must still serve an activation on the second CPU: 8
 * nested activations there, interrupts off, are then served as in
 * kretprobe_spare_bound (the reserved one and the first spare pool's 4:
 * 5 returns, 3 missed), not 4 and 4.
 */
void kpt_kretprobe_hot_instance_reachable(struct kunit *test)
{
	int first = cpumask_first(cpu_online_mask);
	int second = cpumask_next(first, cpu_online_mask);
	struct kretprobe rp;

	if (!KPT_SPARES)
		kunit_skip(test, "no spare instances: see kretprobe_nmissed_recursion");
	if (second >= nr_cpu_ids)
		kunit_skip(test, "this boot: needs 2 online CPUs");
	KUNIT_ASSERT_EQ(test, register_recurse_rp(&rp), 0);
	KUNIT_EXPECT_EQ(test, work_on_cpu(first, recurse_irqs_off, (void *)0L), 0);
	KUNIT_EXPECT_EQ(test, work_on_cpu(second, recurse_irqs_off, (void *)7L), 7);
	unregister_kretprobe(&rp);
	KUNIT_EXPECT_EQ(test, rh.returns, 1 + 5);
	KUNIT_EXPECT_EQ(test, rp.nmissed, 3);
}

void kpt_kretprobe_sleeping_function(struct kunit *test)
{
	struct kretprobe rp = {
		.kp.symbol_name = "kpt_sleeper",
		.handler = ret_handler,
		.data_size = sizeof(struct kpt_ri_data),	/* ret_handler reads it */
	};

	memset(&rh, 0, sizeof(rh));
	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	KUNIT_EXPECT_GT(test, rp.maxactive, 0);	/* the default was applied */
	KUNIT_EXPECT_EQ(test, kpt_call_sleeper(2), 9);
	KUNIT_EXPECT_EQ(test, kpt_call_sleeper(1), 8);
	unregister_kretprobe(&rp);
	KUNIT_EXPECT_EQ(test, rh.returns, 2);
	KUNIT_EXPECT_EQ(test, rh.last_ret, 8);
}

#ifdef CONFIG_X86	/* kprobes_api_targets.S: x86 code */
void kpt_kretprobe_bad_input(struct kunit *test)
{
	struct kretprobe rp = { .handler = ret_handler };
	struct kretprobe *rps[2] = { &rp, NULL };

	KUNIT_EXPECT_EQ(test, register_kretprobe(&rp), -EINVAL);	/* no target */
	rp.kp.symbol_name = "kpt_no_such_symbol";
	KUNIT_EXPECT_EQ(test, register_kretprobe(&rp), -ENOENT);
	rp.kp.symbol_name = "kpt_asm";
	rp.kp.offset = kpt_asm_off_add;
	KUNIT_EXPECT_EQ(test, register_kretprobe(&rp), -EINVAL);	/* not at entry */
	/*
	 * noinstr code, where RCU may not be watching (the return path
	 * needs it): refused, on both kernels.  ct_idle_enter(), which
	 * idle calls to stop RCU watching, and ct_idle_exit(), which runs
	 * before it watches again.
	 */
	rp.kp.offset = 0;
	rp.kp.symbol_name = "ct_idle_enter";
	if (!KPT_CHECK_EQ(test, register_kretprobe(&rp), -EINVAL))
		unregister_kretprobe(&rp);
	rp.kp.symbol_name = "ct_idle_exit";
	if (!KPT_CHECK_EQ(test, register_kretprobe(&rp), -EINVAL))
		unregister_kretprobe(&rp);
	rp.kp.addr = NULL;
	if (upstream)
		return;	/* it dereferences a NULL entry */
	/* a NULL entry: -EINVAL, the one before it rolled back */
	rp.kp.symbol_name = NULL;
	rp.kp.offset = 0;
	rp.kp.addr = (kprobe_opcode_t *)kpt_target;
	rp.entry_handler = ret_entry;
	rp.data_size = sizeof(struct kpt_ri_data);	/* ret_handler reads it */
	memset(&rh, 0, sizeof(rh));
	KUNIT_EXPECT_EQ(test, register_kretprobes(rps, 2), -EINVAL);
	kpt_call_target(1, 1);
	KUNIT_EXPECT_EQ(test, rh.returns, 0);
	unregister_kretprobes(rps, 2);	/* NULL and unregistered: skipped */
	KUNIT_EXPECT_EQ(test, register_kretprobe(&rp), 0);
	kpt_call_target(1, 1);
	/* twice: refused, and its instance pool still serves the first */
	KUNIT_EXPECT_EQ(test, register_kretprobe(&rp), -EINVAL);
	kpt_call_target(1, 1);
	unregister_kretprobe(&rp);
	KUNIT_EXPECT_EQ(test, rh.returns, 2);
	KUNIT_EXPECT_EQ(test, rp.nmissed, 0);
}
#endif /* CONFIG_X86 */

/*
 * Unregister while an instance is live: a task blocks inside the probed
 * function; the kretprobe goes away meanwhile.  The task must still
 * return to its real caller with the right value, and the gone
 * kretprobe's handler must not run.
 */
static int blocker_result;

static int blocker_fn(void *unused)
{
	blocker_result = kpt_call_blocker(300);
	return 0;
}

void kpt_kretprobe_unregister_while_live(struct kunit *test)
{
	static struct kretprobe rp;
	struct task_struct *t;
	unsigned long inside;

	memset(&rp, 0, sizeof(rp));
	rp.kp.symbol_name = "kpt_blocker";
	rp.entry_handler = ret_entry;
	rp.handler = ret_handler;
	rp.data_size = sizeof(struct kpt_ri_data);
	rp.maxactive = 2;
	memset(&rh, 0, sizeof(rh));
	blocker_result = 0;
	reinit_completion(&blocker_entered);
	reinit_completion(&blocker_release);
	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	t = kthread_run(blocker_fn, NULL, "kpt_blocker");
	if (!KPT_CHECK(test, !IS_ERR(t))) {
		unregister_kretprobe(&rp);
		return;
	}
	get_task_struct(t);
	/* its instance is live once it is inside kpt_blocker() */
	inside = wait_for_completion_timeout(&blocker_entered, 10 * HZ);
	if (!inside)
		kunit_info(test, "waited 10 s for the thread to enter kpt_blocker()\n");
	KUNIT_EXPECT_TRUE(test, inside);
	KUNIT_EXPECT_EQ(test, rh.entries, 1);
	unregister_kretprobe(&rp);
	complete(&blocker_release);
	kthread_stop(t);		/* waits for it to return and exit */
	put_task_struct(t);
	KUNIT_EXPECT_EQ(test, blocker_result, 300 + 7);
	KUNIT_EXPECT_EQ(test, rh.returns, 0);	/* unregistered: no handler */
}

void kpt_kretprobe_absurd_maxactive(struct kunit *test)
{
	struct kretprobe rp = {
		.kp.symbol_name = "kpt_sleeper",
		.handler = ret_handler,
		.maxactive = INT_MAX,
	};

	/* upstream tries to allocate INT_MAX instances first */
	if (upstream)
		kunit_skip(test, "upstream has no maxactive bound in the core");
	KUNIT_EXPECT_EQ(test, register_kretprobe(&rp), -E2BIG);
	rp.maxactive = 4;
	rp.data_size = 1 << 20;
	KUNIT_EXPECT_EQ(test, register_kretprobe(&rp), -E2BIG);
	/* nothing was left armed */
	memset(&rh, 0, sizeof(rh));
	KUNIT_EXPECT_EQ(test, kpt_call_sleeper(0), 7);
	KUNIT_EXPECT_EQ(test, rh.returns, 0);
}

#ifdef CONFIG_X86
/*
 * The return trampoline's pt_regs as the unwinders may see them from the
 * moment it publishes them (with frame pointers its encoded frame
 * pointer, which an NMI's unwind follows): regs->cs, regs->ip and
 * regs->orig_ax must hold defined values by then, not what an earlier
 * frame left on the stack there.  A breakpoint in the window is refused
 * (the trampoline and its C side are NOKPROBE, which hardware breakpoints
 * honour too), so the trampoline's own code is read: past its fake
 * return address and the flags, it pushes the kernel's code segment, its
 * own address and -1 (no syscall), rather than reserving the three words
 * for its C side to fill after looking up the instance.
 */
void kpt_kretprobe_frame_published(struct kunit *test)
{
	u8 want[2 + 5 + 2] = {
		0x6a, __KERNEL_CS,	/* push $__KERNEL_CS */
		0x68, 0, 0, 0, 0,	/* push $<the trampoline> */
		0x6a, 0xff,		/* push $-1 */
	};
	unsigned long tramp;
	u32 imm;
	u8 *code;
	int i;

	if (upstream)
		kunit_skip(test, "upstream's is rethook's: its C side fills cs, ip");
	tramp = kpt_lookup("kretprobe_trampoline");
	KUNIT_ASSERT_TRUE(test, tramp);
	imm = (u32)tramp;
	memcpy(&want[3], &imm, sizeof(imm));
	code = (u8 *)tramp;
	/* within its first 32 bytes: before SAVE_REGS_STRING's pushes */
	for (i = 0; i + sizeof(want) <= 32; i++)
		if (!memcmp(code + i, want, sizeof(want)))
			break;
	kunit_info(test, "kretprobe_trampoline: %*ph\n", 64, code);
	KUNIT_ASSERT_TRUE(test, i + sizeof(want) <= 32);
	/*
	 * With frame pointers, the frame is published after them: the
	 * encoding (ENCODE_FRAME_POINTER) comes past the general registers'
	 * pushes, right before the C side's argument and call.
	 */
	if (IS_ENABLED(CONFIG_FRAME_POINTER)) {
#ifdef CONFIG_X86_64
		/* lea 1(%rsp), %rbp; mov %rsp, %rdi; call */
		static const u8 enc[] = { 0x48, 0x8d, 0x6c, 0x24, 0x01,
					  0x48, 0x89, 0xe7, 0xe8 };
#else
		/* mov %esp, %ebp; and $0x7fffffff, %ebp; mov %esp, %eax; call */
		static const u8 enc[] = { 0x89, 0xe5, 0x81, 0xe5, 0xff, 0xff, 0xff,
					  0x7f, 0x89, 0xe0, 0xe8 };
#endif
		int j;

		for (j = i + sizeof(want); j + sizeof(enc) <= 64; j++)
			if (!memcmp(code + j, enc, sizeof(enc)))
				break;
		KUNIT_EXPECT_TRUE(test, j + sizeof(enc) <= 64);
	}
}
#endif /* CONFIG_X86 */
