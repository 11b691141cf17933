// SPDX-License-Identifier: GPL-2.0
/*
 * kpt_opt: the in-guest half of opt.sh (jump optimization): a probe on
 * kpo_target (kpt_opt_targets.S) must see the same registers and stack
 * trace, and the function return the same results, whether the probe is
 * hit through its int3, boosted or optimized.  Public API only, so it
 * runs on IMPL=upstream too.
 */
#define pr_fmt(fmt) "kpt_opt: " fmt

#include <linux/module.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/delay.h>
#include <linux/string.h>
#include <linux/atomic.h>
#include <linux/kallsyms.h>
#include <linux/stacktrace.h>

#include "kpt_opt_targets.h"

long (*target)(long) = kpo_target;

/* our <linux/kprobes.h> defines KPROBES_ANEW; upstream's does not */
#ifdef KPROBES_ANEW
static const char built_against[] = "ours";
#else
static const char built_against[] = "upstream";
#endif

#define KPO_RESULT(x)	(0x888888888888889fL + (x))
/* the region skipped: %rax and %rcx as set */
#define KPO_SKIPPED(x)	(0x4444444444444444L + (x))

/* pt_regs fields compared between paths, in this order */
enum {
	R_AX, R_BX, R_CX, R_DX, R_SI, R_DI, R_BP, R_R8, R_R9, R_R10, R_R11,
	R_R12, R_R13, R_R14, R_R15, R_FLAGS, R_IP, R_SP, R_NUM
};

static const char * const rname[R_NUM] = {
	"ax", "bx", "cx", "dx", "si", "di", "bp", "r8", "r9", "r10", "r11",
	"r12", "r13", "r14", "r15", "flags", "ip", "sp" };

#define FLAGS_SEEN	(X86_EFLAGS_CF | X86_EFLAGS_PF | X86_EFLAGS_AF | \
			 X86_EFLAGS_ZF | X86_EFLAGS_SF | X86_EFLAGS_OF | \
			 X86_EFLAGS_DF | X86_EFLAGS_IF)

enum { S_INT3, S_BOOST, S_OPT, S_NUM };
static const char * const sname[S_NUM] = { "int3", "boost", "opt" };
static unsigned long snap[S_NUM][R_NUM];
static bool have[S_NUM], capture, skip;
static unsigned long seen[R_NUM];
/*
 * do_snap()'s own stack pointer: R_SP is kept relative to it, since
 * RANDOMIZE_KSTACK_OFFSET moves the whole stack on every system call and
 * each snapshot is taken by a different write.
 */
static unsigned long snap_sp_base;

static atomic64_t hits, inner_hits, post_hits, calls, bad;

static void take(struct pt_regs *regs, unsigned long *r)
{
	r[R_AX] = regs->ax;	r[R_BX] = regs->bx;	r[R_CX] = regs->cx;
	r[R_DX] = regs->dx;	r[R_SI] = regs->si;	r[R_DI] = regs->di;
	r[R_BP] = regs->bp;	r[R_R8] = regs->r8;	r[R_R9] = regs->r9;
	r[R_R10] = regs->r10;	r[R_R11] = regs->r11;	r[R_R12] = regs->r12;
	r[R_R13] = regs->r13;	r[R_R14] = regs->r14;	r[R_R15] = regs->r15;
	r[R_FLAGS] = regs->flags & FLAGS_SEEN;
	r[R_IP] = regs->ip;	r[R_SP] = regs->sp - READ_ONCE(snap_sp_base);
}

/* a stack trace taken by the handler (cmd "trace") */
static unsigned long trace[16];
static unsigned int ntrace;
static bool tracing;

static int first_pre(struct kprobe *p, struct pt_regs *regs)
{
	atomic64_inc(&hits);
	if (READ_ONCE(capture))
		take(regs, seen);
	if (READ_ONCE(tracing))
		ntrace = stack_trace_save(trace, ARRAY_SIZE(trace), 0);
	if (READ_ONCE(skip)) {
		/* go on past the region, as a pre_handler may */
		regs->ip = (unsigned long)kpo_target + kpo_skip_off;
		return 1;
	}
	return 0;
}

static int inner_pre(struct kprobe *p, struct pt_regs *regs)
{
	atomic64_inc(&inner_hits);
	return 0;
}

static void post_post(struct kprobe *p, struct pt_regs *regs,
		      unsigned long flags)
{
	atomic64_inc(&post_hits);
}

static struct kprobe kp_first = { .pre_handler = first_pre };
static struct kprobe kp_post = { .post_handler = post_post };
static struct kprobe kp_inner = { .pre_handler = inner_pre };
static bool armed_first, armed_post, armed_inner;

static int arm(struct kprobe *kp, bool *armed, int off)
{
	int ret;

	if (*armed)
		return 0;
	kp->addr = (kprobe_opcode_t *)((unsigned long)kpo_target + off);
	kp->flags = 0;
	ret = register_kprobe(kp);
	*armed = !ret;
	return ret;
}

static void unarm(struct kprobe *kp, bool *armed)
{
	if (*armed)
		unregister_kprobe(kp);
	*armed = false;
}

/* what the handler must see at the probe: kpo_target's constants */
static bool snap_check(unsigned long *r, long x)
{
	static const unsigned long want[R_R15 + 1] = {
		[R_AX] = 0x1111111111111111, [R_BX] = 0x2222222222222222,
		[R_CX] = 0x3333333333333333, [R_DX] = 0x4444444444444444,
		[R_SI] = 0x5555555555555555, [R_BP] = 0x6666666666666666,
		[R_R8] = 0x7777777777777777, [R_R9] = 0x0888888888888888,
		[R_R10] = 0x0999999999999999, [R_R11] = 0x0aaaaaaaaaaaaaaa,
		[R_R12] = 0x0bbbbbbbbbbbbbbb, [R_R13] = 0x0ccccccccccccccc,
		[R_R14] = 0x0ddddddddddddddd,
	};
	bool ok = true;
	int i;

	for (i = 0; i <= R_R15; i++) {
		unsigned long w = i == R_DI || i == R_R15 ? x : want[i];

		if (r[i] != w) {
			pr_info("# %s is %#lx, not %#lx\n", rname[i], r[i], w);
			ok = false;
		}
	}
	if (r[R_IP] != (unsigned long)kpo_target + kpo_probe_off + 1) {
		pr_info("# ip is %pS\n", (void *)r[R_IP]);
		ok = false;
	}
	return ok;
}

static int do_snap(const char *name)
{
	long x = 5, ret;
	int s;

	s = match_string(sname, S_NUM, name);
	if (s < 0)
		return -EINVAL;
	memset(seen, 0, sizeof(seen));
	WRITE_ONCE(snap_sp_base, current_stack_pointer);
	WRITE_ONCE(capture, true);
	ret = target(x);
	WRITE_ONCE(capture, false);
	memcpy(snap[s], seen, sizeof(seen));
	have[s] = true;
	pr_info("snap %s: result %s, registers %s\n", name,
		ret == KPO_RESULT(x) ? "right" : "WRONG",
		snap_check(seen, x) ? "as set" : "WRONG");
	return 0;
}

/* kpo_target's caller in the trace: not a tail call, so it keeps a frame */
static noinline long kpo_trace_caller(long x)
{
	long r = target(x);

	barrier();
	return r + 1;
}

static bool trace_has(const char *fn)
{
	char sym[KSYM_SYMBOL_LEN];
	size_t n = strlen(fn);
	unsigned int i;

	for (i = 0; i < ntrace; i++) {
		sprint_symbol(sym, trace[i]);
		/* kpo_trace_caller+0x13 or kpo_trace_caller.constprop.0+0x13 */
		if (!strncmp(sym, fn, n) && (sym[n] == '+' || sym[n] == '.'))
			return true;
	}
	return false;
}

/*
 * A stack trace from the handler, as a tracer's would be: it must go
 * through the hit to the probed function and on to its caller.
 */
static int do_trace(const char *name)
{
	unsigned int i;
	long r;

	ntrace = 0;
	WRITE_ONCE(tracing, true);
	r = kpo_trace_caller(3);
	WRITE_ONCE(tracing, false);
	for (i = 0; i < ntrace; i++)
		pr_info("# %s trace %u: %pS\n", name, i, (void *)trace[i]);
	pr_info("trace %s: result %s, target %s, caller %s\n", name,
		r == KPO_RESULT(3) + 1 ? "right" : "WRONG",
		trace_has("kpo_target") ? "yes" : "no",
		trace_has("kpo_trace_caller") ? "yes" : "no");
	return 0;
}

static void do_compare(void)
{
	int s, i, diff = 0;

	for (s = 0; s < S_NUM; s++) {
		if (!have[s]) {
			pr_info("compare: no %s snapshot\n", sname[s]);
			return;
		}
	}
	for (s = 1; s < S_NUM; s++)
		for (i = 0; i < R_NUM; i++)
			if (snap[s][i] != snap[0][i]) {
				pr_info("# %s: %s %#lx, int3 %#lx\n", sname[s],
					rname[i], snap[s][i], snap[0][i]);
				diff++;
			}
	pr_info("compare: int3, boost and opt %s\n",
		diff ? "DIFFER" : "identical");
}

static struct task_struct *loopers[2];
static bool looping;

static int looper(void *data)
{
	long x = (long)data;

	while (!kthread_should_stop()) {
		if (target(x) != KPO_RESULT(x))
			atomic64_inc(&bad);
		atomic64_inc(&calls);
		x++;
		/*
		 * Sleep now and then, as real callers do: under full
		 * preemption cond_resched() never switches voluntarily, and
		 * upstream's optimizer, holding kprobe_mutex across
		 * synchronize_rcu_tasks(), would then wait for these threads
		 * to stop (kprobes_api's concurrent_hits_while_registering
		 * shows that on its own).
		 */
		if (!(x & 1023))
			usleep_range(50, 100);
		else
			cond_resched();
	}
	return 0;
}

static void do_loop(void)
{
	int i;

	atomic64_set(&calls, 0);
	atomic64_set(&hits, 0);
	atomic64_set(&bad, 0);
	for (i = 0; i < 2; i++) {
		loopers[i] = kthread_create_on_cpu(looper, (void *)(long)(i << 20),
						   i % num_online_cpus(), "kpo_loop/%u");
		if (IS_ERR(loopers[i]))
			loopers[i] = NULL;
		else
			wake_up_process(loopers[i]);
	}
	looping = true;
	pr_info("loop: started\n");
}

static void do_stop(void)
{
	int i;

	if (!looping)
		return;
	looping = false;
	for (i = 0; i < 2; i++)
		if (loopers[i])
			kthread_stop(loopers[i]);
	memset(loopers, 0, sizeof(loopers));
	pr_info("loop: calls %lld hits %lld wrong results %lld nmissed %lu: %s\n",
		atomic64_read(&calls), atomic64_read(&hits),
		atomic64_read(&bad), kp_first.nmissed,
		atomic64_read(&calls) == atomic64_read(&hits) &&
		atomic64_read(&calls) && !atomic64_read(&bad) &&
		!kp_first.nmissed ? "exact" : "WRONG");
}

/* calls N: wait until the loop threads have made N more calls */
static int do_calls(const char *arg)
{
	unsigned long deadline = jiffies + 10 * HZ;
	s64 from = atomic64_read(&calls);
	unsigned int n;

	if (!looping || kstrtouint(arg, 0, &n))
		return -EINVAL;
	while (atomic64_read(&calls) < from + n) {
		if (time_after(jiffies, deadline)) {
			pr_info("calls: waited 10 s for %u calls, %lld came\n", n,
				atomic64_read(&calls) - from);
			return -ETIMEDOUT;
		}
		schedule_timeout_uninterruptible(1);
	}
	return 0;
}

/* one call whose pre_handler moves ip past the region */
static int do_skipcall(void)
{
	int ret;

	WRITE_ONCE(skip, true);
	ret = target(1) == KPO_SKIPPED(1) ? 0 : -EFAULT;
	WRITE_ONCE(skip, false);
	return ret;
}

/*
 * Commands written to /sys/module/kpt_opt/parameters/cmd, each answered
 * by one "kpt_opt: ..." line in the kernel log:
 *
 *   arm | unarm        the probe at the region's first byte (pre_handler)
 *   post | unpost      a second probe there, with a post_handler
 *   inner | uninner    a probe at the region's second instruction
 *   call               one call (the counts are in the answer)
 *   skipcall           one call whose pre_handler sends execution past
 *                      the region (regs->ip changed, returns 1)
 *   snap NAME          one call; what the handler saw is kept as NAME
 *                      (int3, boost or opt) and checked against the
 *                      registers kpo_target set up
 *   compare            the three snapshots must be identical
 *   trace NAME         one call through kpo_trace_caller(); the handler
 *                      saves a stack trace, which must show kpo_target
 *                      and its caller
 *   loop | stop        two threads, on CPU 0 and 1, call kpo_target in a
 *                      loop; stop checks every call ran the handler once
 *                      and returned the right value
 *   calls N            wait until the loop threads made N more calls (at
 *                      most 10 s; -ETIMEDOUT says how many came)
 */
static int cmd_set(const char *val, const struct kernel_param *kp)
{
	char buf[32], *arg;
	int ret = 0;

	strscpy(buf, val, sizeof(buf));
	strim(buf);
	arg = strchr(buf, ' ');
	if (arg)
		*arg++ = '\0';
	if (!strcmp(buf, "arm"))
		ret = arm(&kp_first, &armed_first, kpo_probe_off);
	else if (!strcmp(buf, "unarm"))
		unarm(&kp_first, &armed_first);
	else if (!strcmp(buf, "post"))
		ret = arm(&kp_post, &armed_post, kpo_probe_off);
	else if (!strcmp(buf, "unpost"))
		unarm(&kp_post, &armed_post);
	else if (!strcmp(buf, "inner"))
		ret = arm(&kp_inner, &armed_inner, kpo_inner_off);
	else if (!strcmp(buf, "uninner"))
		unarm(&kp_inner, &armed_inner);
	else if (!strcmp(buf, "call"))
		ret = target(1) == KPO_RESULT(1) ? 0 : -EFAULT;
	else if (!strcmp(buf, "skipcall"))
		ret = do_skipcall();
	else if (!strcmp(buf, "snap") && arg)
		ret = do_snap(arg);
	else if (!strcmp(buf, "trace") && arg)
		ret = do_trace(arg);
	else if (!strcmp(buf, "compare"))
		do_compare();
	else if (!strcmp(buf, "loop"))
		do_loop();
	else if (!strcmp(buf, "stop"))
		do_stop();
	else if (!strcmp(buf, "calls") && arg)
		ret = do_calls(arg);
	else
		ret = -EINVAL;
	pr_info("cmd %s%s%s: %d (hits %lld, inner %lld, post %lld)\n", buf,
		arg ? " " : "", arg ?: "", ret, atomic64_read(&hits),
		atomic64_read(&inner_hits), atomic64_read(&post_hits));
	return ret;
}

static const struct kernel_param_ops cmd_ops = { .set = cmd_set };
module_param_cb(cmd, &cmd_ops, NULL, 0200);

static int __init kpo_init(void)
{
	pr_info("probe at kpo_target+%#x, inner at kpo_target+%#x, built against %s\n",
		kpo_probe_off, kpo_inner_off, built_against);
	return 0;
}

static void __exit kpo_exit(void)
{
	do_stop();
	unarm(&kp_inner, &armed_inner);
	unarm(&kp_post, &armed_post);
	unarm(&kp_first, &armed_first);
}

module_init(kpo_init);
module_exit(kpo_exit);
MODULE_DESCRIPTION("jump optimization checks for opt.sh");
MODULE_LICENSE("GPL");
