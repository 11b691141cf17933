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

int (*call_recurse)(int) = kpt_recurse;
int (*call_sleeper)(int) = kpt_sleeper;
int (*call_blocker)(int) = kpt_blocker;

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

int t_kretprobe_return_value(void)
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
	if (!KPT_EXPECT_EQ(register_kretprobe(&rp), 0))
		return 1;
	for (i = 0; i < 10; i++)
		KPT_EXPECT_EQ(call_target(i, 2), i * 31 + 2);
	unregister_kretprobe(&rp);
	KPT_EXPECT_EQ(rh.entries, 10);
	KPT_EXPECT_EQ(rh.returns, 10);
	KPT_EXPECT_EQ(rh.last_ret, 9 * 31 + 2);
	KPT_EXPECT_EQ(rh.bad_data, 0);
	KPT_EXPECT(!rh.preemptible);
	KPT_EXPECT_EQ(rp.nmissed, 0);
	return kpt_failed;
}

/*
 * disable_kretprobe()/enable_kretprobe(): a disabled kretprobe takes no
 * instances; one registered disabled (KPROBE_FLAG_DISABLED) starts so.
 */
int t_kretprobe_disable_enable(void)
{
	struct kretprobe rp = {
		.kp.addr = (kprobe_opcode_t *)kpt_target,
		.kp.flags = KPROBE_FLAG_DISABLED,
		.entry_handler = ret_entry,
		.handler = ret_handler,
		.data_size = sizeof(struct kpt_ri_data),
		.maxactive = 4,
	};

	KPT_EXPECT_EQ(disable_kretprobe(&rp), -EINVAL);	/* not registered */
	memset(&rh, 0, sizeof(rh));
	if (!KPT_EXPECT_EQ(register_kretprobe(&rp), 0))
		return 1;
	KPT_EXPECT_EQ(call_target(1, 2), 33);
	KPT_EXPECT_EQ(rh.returns, 0);
	KPT_EXPECT_EQ(enable_kretprobe(&rp), 0);
	KPT_EXPECT_EQ(call_target(2, 2), 64);
	KPT_EXPECT_EQ(rh.entries, 1);
	KPT_EXPECT_EQ(rh.returns, 1);
	KPT_EXPECT_EQ(disable_kretprobe(&rp), 0);
	KPT_EXPECT_EQ(call_target(3, 2), 95);
	KPT_EXPECT_EQ(rh.returns, 1);
	KPT_EXPECT_EQ(enable_kretprobe(&rp), 0);
	KPT_EXPECT_EQ(call_target(4, 2), 126);
	KPT_EXPECT_EQ(rh.returns, 2);
	KPT_EXPECT_EQ(rh.last_ret, 126);
	unregister_kretprobe(&rp);
	KPT_EXPECT_EQ(rp.nmissed, 0);
	return kpt_failed;
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
int t_kretprobe_nmissed_recursion(void)
{
	struct kretprobe rp;

	if (!KPT_EXPECT_EQ(register_recurse_rp(&rp), 0))
		return 1;
	KPT_EXPECT_EQ(call_recurse(3), 3);
	unregister_kretprobe(&rp);
	KPT_EXPECT_EQ(rh.last_ret, 3);	/* the outermost return */
	if (!KPT_SPARES) {
		/* 1 instance: the 3 inner activations miss */
		KPT_EXPECT_EQ(rh.returns, 1);
		KPT_EXPECT_EQ(rp.nmissed, 3);
	} else {
		KPT_EXPECT_EQ(rh.returns, 4);
		KPT_EXPECT_EQ(rp.nmissed, 0);
	}
	return kpt_failed;
}

/*
 * Ours: spare pools are grown from an irq_work, so with interrupts off
 * only the first spare pool (max(maxactive, 4) instances) serves: 8
 * activations, maxactive 1, 5 served and 3 missed.  With interrupts on,
 * 100 activations stop at the bound: maxactive 1 + 32 spares.
 */
int t_kretprobe_spare_bound(void)
{
	struct kretprobe rp;
	unsigned long flags;
	int missed;

	if (!KPT_SPARES)
		return KPT_SKIP_BECAUSE("no spare instances: see kretprobe_nmissed_recursion");
	if (!KPT_EXPECT_EQ(register_recurse_rp(&rp), 0))
		return 1;
	local_irq_save(flags);
	KPT_EXPECT_EQ(call_recurse(7), 7);
	local_irq_restore(flags);
	unregister_kretprobe(&rp);
	KPT_EXPECT_EQ(rh.returns, 5);
	KPT_EXPECT_EQ(rp.nmissed, 3);

	if (!KPT_EXPECT_EQ(register_recurse_rp(&rp), 0))
		return 1;
	KPT_EXPECT_EQ(call_recurse(99), 99);
	unregister_kretprobe(&rp);
	missed = rp.nmissed;
	pr_info("# 100 activations, maxactive 1: %d returns, %d missed\n",
		rh.returns, missed);
	KPT_EXPECT_EQ(rh.returns + missed, 100);
	KPT_EXPECT(rh.returns > 5 && rh.returns <= 1 + 32);
	return kpt_failed;
}

/* run on one CPU by work_on_cpu(): arg activations, interrupts off */
static long recurse_irqs_off(void *arg)
{
	unsigned long flags;
	long n;

	local_irq_save(flags);
	n = call_recurse((long)arg);
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
int t_kretprobe_hot_instance_reachable(void)
{
	int first = cpumask_first(cpu_online_mask);
	int second = cpumask_next(first, cpu_online_mask);
	struct kretprobe rp;

	if (!KPT_SPARES)
		return KPT_SKIP_BECAUSE("no spare instances: see kretprobe_nmissed_recursion");
	if (second >= nr_cpu_ids)
		return KPT_SKIP_BECAUSE("this boot: needs 2 online CPUs");
	if (!KPT_EXPECT_EQ(register_recurse_rp(&rp), 0))
		return 1;
	KPT_EXPECT_EQ(work_on_cpu(first, recurse_irqs_off, (void *)0L), 0);
	KPT_EXPECT_EQ(work_on_cpu(second, recurse_irqs_off, (void *)7L), 7);
	unregister_kretprobe(&rp);
	KPT_EXPECT_EQ(rh.returns, 1 + 5);
	KPT_EXPECT_EQ(rp.nmissed, 3);
	return kpt_failed;
}

int t_kretprobe_sleeping_function(void)
{
	struct kretprobe rp = {
		.kp.symbol_name = "kpt_sleeper",
		.handler = ret_handler,
		.data_size = sizeof(struct kpt_ri_data),	/* ret_handler reads it */
	};

	memset(&rh, 0, sizeof(rh));
	if (!KPT_EXPECT_EQ(register_kretprobe(&rp), 0))
		return 1;
	KPT_EXPECT(rp.maxactive > 0);	/* the default was applied */
	KPT_EXPECT_EQ(call_sleeper(2), 9);
	KPT_EXPECT_EQ(call_sleeper(1), 8);
	unregister_kretprobe(&rp);
	KPT_EXPECT_EQ(rh.returns, 2);
	KPT_EXPECT_EQ(rh.last_ret, 8);
	return kpt_failed;
}

#ifdef CONFIG_X86	/* kprobes_api_targets.S: x86 code */
int t_kretprobe_bad_input(void)
{
	struct kretprobe rp = { .handler = ret_handler };
	struct kretprobe *rps[2] = { &rp, NULL };

	KPT_EXPECT_EQ(register_kretprobe(&rp), -EINVAL);	/* no target */
	rp.kp.symbol_name = "kpt_no_such_symbol";
	KPT_EXPECT_EQ(register_kretprobe(&rp), -ENOENT);
	rp.kp.symbol_name = "kpt_asm";
	rp.kp.offset = kpt_asm_off_add;
	KPT_EXPECT_EQ(register_kretprobe(&rp), -EINVAL);	/* not at entry */
	/*
	 * noinstr code, where RCU may not be watching (the return path
	 * needs it): refused, on both kernels.  ct_idle_enter(), which
	 * idle calls to stop RCU watching, and ct_idle_exit(), which runs
	 * before it watches again.
	 */
	rp.kp.offset = 0;
	rp.kp.symbol_name = "ct_idle_enter";
	if (!KPT_EXPECT_EQ(register_kretprobe(&rp), -EINVAL))
		unregister_kretprobe(&rp);
	rp.kp.symbol_name = "ct_idle_exit";
	if (!KPT_EXPECT_EQ(register_kretprobe(&rp), -EINVAL))
		unregister_kretprobe(&rp);
	rp.kp.addr = NULL;
	if (upstream)
		return kpt_failed;	/* it dereferences a NULL entry */
	/* a NULL entry: -EINVAL, the one before it rolled back */
	rp.kp.symbol_name = NULL;
	rp.kp.offset = 0;
	rp.kp.addr = (kprobe_opcode_t *)kpt_target;
	rp.entry_handler = ret_entry;
	rp.data_size = sizeof(struct kpt_ri_data);	/* ret_handler reads it */
	memset(&rh, 0, sizeof(rh));
	KPT_EXPECT_EQ(register_kretprobes(rps, 2), -EINVAL);
	call_target(1, 1);
	KPT_EXPECT_EQ(rh.returns, 0);
	unregister_kretprobes(rps, 2);	/* NULL and unregistered: skipped */
	KPT_EXPECT_EQ(register_kretprobe(&rp), 0);
	call_target(1, 1);
	/* twice: refused, and its instance pool still serves the first */
	KPT_EXPECT_EQ(register_kretprobe(&rp), -EINVAL);
	call_target(1, 1);
	unregister_kretprobe(&rp);
	KPT_EXPECT_EQ(rh.returns, 2);
	KPT_EXPECT_EQ(rp.nmissed, 0);
	return kpt_failed;
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
	blocker_result = call_blocker(300);
	return 0;
}

int t_kretprobe_unregister_while_live(void)
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
	if (!KPT_EXPECT_EQ(register_kretprobe(&rp), 0))
		return 1;
	t = kthread_run(blocker_fn, NULL, "kpt_blocker");
	if (!KPT_EXPECT(!IS_ERR(t))) {
		unregister_kretprobe(&rp);
		return 1;
	}
	get_task_struct(t);
	/* its instance is live once it is inside kpt_blocker() */
	inside = wait_for_completion_timeout(&blocker_entered, 10 * HZ);
	if (!inside)
		pr_info("# waited 10 s for the thread to enter kpt_blocker()\n");
	KPT_EXPECT(inside);
	KPT_EXPECT_EQ(rh.entries, 1);
	unregister_kretprobe(&rp);
	complete(&blocker_release);
	kthread_stop(t);		/* waits for it to return and exit */
	put_task_struct(t);
	KPT_EXPECT_EQ(blocker_result, 300 + 7);
	KPT_EXPECT_EQ(rh.returns, 0);	/* unregistered: no handler */
	return kpt_failed;
}

int t_kretprobe_absurd_maxactive(void)
{
	struct kretprobe rp = {
		.kp.symbol_name = "kpt_sleeper",
		.handler = ret_handler,
		.maxactive = INT_MAX,
	};

	/* upstream tries to allocate INT_MAX instances first */
	if (upstream)
		return KPT_SKIP_BECAUSE("upstream has no maxactive bound in the core");
	KPT_EXPECT_EQ(register_kretprobe(&rp), -E2BIG);
	rp.maxactive = 4;
	rp.data_size = 1 << 20;
	KPT_EXPECT_EQ(register_kretprobe(&rp), -E2BIG);
	/* nothing was left armed */
	memset(&rh, 0, sizeof(rh));
	KPT_EXPECT_EQ(call_sleeper(0), 7);
	KPT_EXPECT_EQ(rh.returns, 0);
	return kpt_failed;
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
int t_kretprobe_frame_published(void)
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
		return KPT_SKIP_BECAUSE("upstream's is rethook's: its C side fills cs, ip");
	tramp = kpt_lookup("kretprobe_trampoline");
	if (!KPT_EXPECT(tramp))
		return 1;
	imm = (u32)tramp;
	memcpy(&want[3], &imm, sizeof(imm));
	code = (u8 *)tramp;
	/* within its first 32 bytes: before SAVE_REGS_STRING's pushes */
	for (i = 0; i + sizeof(want) <= 32; i++)
		if (!memcmp(code + i, want, sizeof(want)))
			break;
	pr_info("# kretprobe_trampoline: %*ph\n", 64, code);
	if (!KPT_EXPECT(i + sizeof(want) <= 32))
		return 1;
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
		KPT_EXPECT(j + sizeof(enc) <= 64);
	}
	return kpt_failed;
}
#endif /* CONFIG_X86 */
