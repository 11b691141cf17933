// SPDX-License-Identifier: GPL-2.0
/*
 * kprobes_api: the public kprobes API, case by case, as a kernel module
 * whose init runs every case and prints KTAP.  It uses only what
 * <linux/kprobes.h> exports to modules, so the same source runs on
 * IMPL=ours and IMPL=upstream and both must pass it.
 *
 * Targets: kpt_target() is a C function with an fentry site (so a probe
 * at its entry may be ftrace-based); kpt_asm() (kprobes_api_targets.S) is
 * assembly with a known layout and no fentry, so probes there take the
 * int3 path and the tests can check registers before and after a single
 * instruction.  Targets are called through pointers the compiler cannot
 * see through (global, or hidden with OPTIMIZER_HIDE_VAR()), so it can
 * neither inline nor specialise them.
 */
#define pr_fmt(fmt) fmt

#include <linux/module.h>
#include <linux/kprobes.h>
#include <linux/delay.h>
#include <linux/preempt.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/kthread.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/atomic.h>
#include <linux/vmalloc.h>
#include <linux/jump_label.h>
#include <linux/static_call.h>
#include <linux/stacktrace.h>
#include <linux/ftrace.h>
#include <linux/kallsyms.h>
#include <linux/string.h>
#include <linux/bug.h>
#include <linux/fs.h>
#ifdef CONFIG_X86
#include <asm/text-patching.h>
#endif
#ifdef CONFIG_X86_KERNEL_IBT
#include <asm/ibt.h>
#endif

#include "kpt_ktap.h"
#include "kprobes_api_targets.h"

/*
 * Built against upstream's <linux/kprobes.h>, the few expectations where
 * ours promises more than stock 6.12 (each says how) are skipped, with what
 * upstream did printed as the reason.  Our header defines KPROBES_ANEW.
 */
#ifdef KPROBES_ANEW
static const bool upstream;
#else
static const bool upstream = true;
#endif

/* ---- targets ------------------------------------------------------------ */

#ifdef CONFIG_X86_64
#define KPT_ASM_BASE	0x1122334455667788L
#define KPT_RIPREL_VAL	0x5a5a5a5a5aL
#define KPT_XFER_X	0x100000005L
/* kpt_asm()'s x, still in the register it came in after the mov */
#define KPT_ASM_X(regs)	((regs)->di)
#define KPT_XFER_R8(regs) ((regs)->r8)
/* the register kpt_asm_riprel()'s first instruction loads */
#define KPT_RIPREL_REG(regs) ((regs)->ax)
#else
#define KPT_ASM_BASE	0x11223344L
#define KPT_RIPREL_VAL	0x5a5a5a5aL
#define KPT_XFER_X	0x10005L
#define KPT_ASM_X(regs)	((regs)->dx)
#define KPT_XFER_R8(regs) ((regs)->dx)
#define KPT_RIPREL_REG(regs) ((regs)->dx)
#endif

static noinline int kpt_target(int a, int b)
{
	return a * 31 + b;
}

/* too short for a jump after its fentry nop: an entry probe goes to the hook */
static noinline int kpt_tiny(int a, int b)
{
	return a + b;
}

static noinline int kpt_alt(int a, int b)
{
	return a * 1000 + b;
}

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

/* A function in .kprobes.text: registration must refuse it. */
static int __kprobes __maybe_unused kpt_in_kprobes_text(int x)
{
	return x + 1;
}

int (*call_target)(int, int) = kpt_target;
int (*call_tiny)(int, int) = kpt_tiny;
int (*call_recurse)(int) = kpt_recurse;
int (*call_sleeper)(int) = kpt_sleeper;
int (*call_blocker)(int) = kpt_blocker;
#ifdef CONFIG_X86
int (*call_kprobes_text)(int) = kpt_in_kprobes_text;
long (*call_asm)(long) = kpt_asm;
long (*call_load)(long *) = kpt_asm_load;
long (*call_branch)(long, long (*)(void)) = kpt_asm_branch;
long (*helper_fn)(void) = kpt_asm_helper;
#endif

/*
 * The cases that probe kprobes_api_targets.S (x86 instructions, in 64-bit
 * and 32-bit form) run on x86 only; elsewhere (make arm64-test) they
 * report a skip saying so.  The others use the arch-neutral register
 * accessors.
 */
#ifdef CONFIG_X86
#define X86_CASE(name, fn)	{ name, fn }
/* where a pre_handler sees the IP: just past the int3 */
#define KPT_TRAP_IP_OFF		1
#else
static int t_x86_only(void)
{
	return KPT_SKIP_BECAUSE("probes x86 instructions (kprobes_api_targets.S)");
}

/* fn is x86 code, absent here: named (as a string) but never linked */
#define X86_CASE(name, fn)	{ (name) + 0 * sizeof(#fn), t_x86_only }
#define KPT_TRAP_IP_OFF		0
#endif

/*
 * Does this config make optimizable probes jumps?  Not without the
 * optimizer, nor on a preemptible kernel without Tasks RCU (a preempted
 * task could sit in the covered bytes).
 */
#define KPT_JUMPS_EXPECTED						\
	(IS_ENABLED(CONFIG_OPTPROBES) &&				\
	 !(IS_ENABLED(CONFIG_PREEMPTION) && !IS_ENABLED(CONFIG_TASKS_RCU)))

/* Addresses inside the targets, computed at run time (see the .S file). */
#define kpt_asm_mov ((char *)call_asm + kpt_asm_off_mov)
#define kpt_asm_add ((char *)call_asm + kpt_asm_off_add)
#define kpt_asm_ret ((char *)call_asm + kpt_asm_off_ret)
#define kpt_target_entry ((unsigned long)call_target)

/* ---- handler bookkeeping ------------------------------------------------ */

static struct {
	int pre, post, seq;
	int order[8];
	int norder;
	unsigned long pre_ip, pre_di, pre_si, pre_ax, pre_x;
	unsigned long post_ip, post_ax, post_load;
	bool pre_preemptible, post_preemptible;
	int pre_seq, post_seq;
} h;

static void reset(void)
{
	memset(&h, 0, sizeof(h));
}

static int pre_record(struct kprobe *p, struct pt_regs *regs)
{
	h.pre++;
	h.pre_seq = ++h.seq;
	h.pre_ip = instruction_pointer(regs);
	h.pre_di = regs_get_kernel_argument(regs, 0);
#ifdef CONFIG_X86
	h.pre_x = KPT_ASM_X(regs);
#endif
	h.pre_si = regs_get_kernel_argument(regs, 1);
	h.pre_ax = regs_return_value(regs);
	h.pre_preemptible = preemptible();
	return 0;
}

static void post_record(struct kprobe *p, struct pt_regs *regs,
			unsigned long flags)
{
	h.post++;
	h.post_seq = ++h.seq;
	h.post_ip = instruction_pointer(regs);
	h.post_ax = regs_return_value(regs);
#ifdef CONFIG_X86
	h.post_load = KPT_RIPREL_REG(regs);
#endif
	h.post_preemptible = preemptible();
}

static void init_probe(struct kprobe *kp)
{
	memset(kp, 0, sizeof(*kp));
	INIT_HLIST_NODE(&kp->hlist);
	INIT_LIST_HEAD(&kp->list);
}

/* a probe on kpt_target() (an ftrace site where the arch has those) */
static void target_probe(struct kprobe *kp, bool post)
{
	init_probe(kp);
	kp->addr = (kprobe_opcode_t *)kpt_target;
	kp->pre_handler = pre_record;
	kp->post_handler = post ? post_record : NULL;
}

/* The registered-ness test trace_kprobe relies on. */
static bool __maybe_unused registered(struct kprobe *kp)
{
	return !(list_empty(&kp->list) && hlist_unhashed(&kp->hlist));
}

static bool has_endbr(const void *addr)
{
	/* f3 0f 1e fa */
	return IS_ENABLED(CONFIG_X86) && *(const u32 *)addr == 0xfa1e0ff3;
}

/* ---- cases ---------------------------------------------------------------- */

static int t_register_by_addr(void)
{
	struct kprobe kp;
	int ret;

	target_probe(&kp, false);
	reset();
	ret = register_kprobe(&kp);
	if (!KPT_EXPECT_EQ(ret, 0))
		return 1;
	/* An ENDBR at entry is stepped over: the probe sits after it. */
	KPT_EXPECT_EQ((unsigned long)kp.addr, kpt_target_entry +
		      (has_endbr((void *)kpt_target_entry) ? 4 : 0));
	KPT_EXPECT_EQ(call_target(3, 4), 3 * 31 + 4);
	unregister_kprobe(&kp);
	KPT_EXPECT_EQ(h.pre, 1);
	KPT_EXPECT_EQ(h.pre_di, 3);
	KPT_EXPECT_EQ(h.pre_si, 4);
	/* x86 convention: ip as if the int3 at addr had just executed */
	KPT_EXPECT_EQ(h.pre_ip, (unsigned long)kp.addr + KPT_TRAP_IP_OFF);
	KPT_EXPECT(!h.pre_preemptible);
	KPT_EXPECT_EQ(call_target(3, 4), 3 * 31 + 4);
	KPT_EXPECT_EQ(h.pre, 1);	/* gone after unregister */
	return kpt_failed;
}

static int t_register_by_symbol(void)
{
	struct kprobe kp;

	init_probe(&kp);
	kp.symbol_name = "kpt_target";
	kp.pre_handler = pre_record;
	reset();
	if (!KPT_EXPECT_EQ(register_kprobe(&kp), 0))
		return 1;
	call_target(1, 2);
	unregister_kprobe(&kp);
	KPT_EXPECT_EQ(h.pre, 1);

	/* "MOD:sym" names the module */
	init_probe(&kp);
	kp.symbol_name = KBUILD_MODNAME ":kpt_target";
	kp.pre_handler = pre_record;
	reset();
	if (!KPT_EXPECT_EQ(register_kprobe(&kp), 0))
		return 1;
	call_target(1, 2);
	unregister_kprobe(&kp);
	KPT_EXPECT_EQ(h.pre, 1);
	return kpt_failed;
}

#ifdef CONFIG_X86	/* kprobes_api_targets.S: x86 code */
static int t_symbol_offset_single_step(void)
{
	struct kprobe kp;
	long off = kpt_asm_off_add;

	/* probe the "add %rdi,%rax" by symbol+offset */
	init_probe(&kp);
	kp.symbol_name = "kpt_asm";
	kp.offset = off;
	kp.pre_handler = pre_record;
	kp.post_handler = post_record;
	reset();
	if (!KPT_EXPECT_EQ(register_kprobe(&kp), 0))
		return 1;
	KPT_EXPECT_EQ((unsigned long)kp.addr, (unsigned long)kpt_asm_add);
	KPT_EXPECT_EQ(call_asm(5), KPT_ASM_BASE + 5);
	unregister_kprobe(&kp);
	KPT_EXPECT_EQ(h.pre, 1);
	KPT_EXPECT_EQ(h.post, 1);
	KPT_EXPECT(h.pre_seq < h.post_seq);
	/* before the add: rax holds the constant; after it, the sum */
	KPT_EXPECT_EQ(h.pre_ax, KPT_ASM_BASE);
	KPT_EXPECT_EQ(h.pre_x, 5);
	KPT_EXPECT_EQ(h.post_ax, KPT_ASM_BASE + 5);
	KPT_EXPECT_EQ(h.post_ip, (unsigned long)kpt_asm_ret);
	KPT_EXPECT(!h.pre_preemptible && !h.post_preemptible);
	return kpt_failed;
}

/*
 * What a post_handler after a single-step sees of its context: the
 * stack pointer and the interrupt flag of the probed code as the
 * pre_handler saw them (the add moves neither), interrupts off while it
 * runs, and a stack trace that goes through the probed function to its
 * caller.  Ours reaches the post_handler through a call at the end of
 * the copy (one trap per hit), upstream through a second trap: both must
 * look the same to the handler.
 */
static struct {
	unsigned long pre_sp, post_sp, pre_flags, post_flags;
	bool pre_irqs_off, post_irqs_off;
	bool in_func, in_caller;
} sc;

static int step_ctx_pre(struct kprobe *p, struct pt_regs *regs)
{
	sc.pre_sp = kernel_stack_pointer(regs);
	sc.pre_flags = regs->flags;
	sc.pre_irqs_off = irqs_disabled();
	return 0;
}

static void step_ctx_post(struct kprobe *p, struct pt_regs *regs,
			  unsigned long flags)
{
	unsigned long trace[16];
	char sym[KSYM_SYMBOL_LEN];
	unsigned int i, n;

	sc.post_sp = kernel_stack_pointer(regs);
	sc.post_flags = regs->flags;
	sc.post_irqs_off = irqs_disabled();
	n = stack_trace_save(trace, ARRAY_SIZE(trace), 0);
	for (i = 0; i < n; i++) {
		sprint_symbol(sym, trace[i]);
		if (str_has_prefix(sym, "kpt_asm+"))
			sc.in_func = true;
		if (str_has_prefix(sym, "t_step_post_context+"))
			sc.in_caller = true;
	}
}

static noinline int t_step_post_context(void)
{
	struct kprobe kp;

	init_probe(&kp);
	kp.addr = (kprobe_opcode_t *)kpt_asm_add;
	kp.pre_handler = step_ctx_pre;
	kp.post_handler = step_ctx_post;
	memset(&sc, 0, sizeof(sc));
	if (!KPT_EXPECT_EQ(register_kprobe(&kp), 0))
		return 1;
	KPT_EXPECT_EQ(call_asm(7), KPT_ASM_BASE + 7);
	unregister_kprobe(&kp);
	KPT_EXPECT_EQ(kp.nmissed, 0);
	KPT_EXPECT(sc.pre_sp && sc.post_sp == sc.pre_sp);
	/* interrupts were on where the call was made */
	KPT_EXPECT(sc.pre_flags & X86_EFLAGS_IF);
	KPT_EXPECT(sc.post_flags & X86_EFLAGS_IF);
	KPT_EXPECT(sc.pre_irqs_off && sc.post_irqs_off);
	/*
	 * The guess unwinder (i386 without frame pointers) did not list the
	 * probed function in a post_handler's trace on either kernel, as it
	 * fails KUnit's test_stacktrace_on_nested_kretprobe on both.
	 */
	if (!IS_ENABLED(CONFIG_UNWINDER_GUESS))
		KPT_EXPECT(sc.in_func);
	/*
	 * kpt_asm() has no frame: only ORC (x86_64) finds its caller from
	 * its registers; the frame-pointer unwinder (i386) goes on from the
	 * caller's caller, on stock as on ours.
	 */
	if (IS_ENABLED(CONFIG_UNWINDER_ORC))
		KPT_EXPECT(sc.in_caller);
	return kpt_failed;
}

#endif /* CONFIG_X86 */

static int pre_redirect(struct kprobe *p, struct pt_regs *regs)
{
	h.pre++;
	instruction_pointer_set(regs, (unsigned long)kpt_alt);
	return 1;	/* ip changed: do not run the probed instruction */
}

static int t_pre_handler_changes_ip(void)
{
	struct kprobe kp;

	init_probe(&kp);
	kp.addr = (kprobe_opcode_t *)kpt_target;
	kp.pre_handler = pre_redirect;
	kp.post_handler = post_record;
	reset();
	if (!KPT_EXPECT_EQ(register_kprobe(&kp), 0))
		return 1;
	KPT_EXPECT_EQ(call_target(3, 4), 3 * 1000 + 4);
	unregister_kprobe(&kp);
	KPT_EXPECT_EQ(h.pre, 1);
	KPT_EXPECT_EQ(h.post, 0);	/* skipped with the instruction */
	KPT_EXPECT_EQ(call_target(3, 4), 3 * 31 + 4);
	return kpt_failed;
}

/*
 * A pre_handler that calls its own probed function: the nested hit must
 * run no handler and count nmissed, and the nested call still carry out
 * the probed instruction.  reenter_nested is that call, made from the
 * handler; outer the test's own.
 */
static long recursion_result;
static long (*reenter_nested)(void);

static int pre_reenter(struct kprobe *p, struct pt_regs *regs)
{
	h.pre++;
	recursion_result = reenter_nested();	/* hits the same probe */
	return 0;
}

static int reentry_case(void *addr, bool ftrace, long (*outer)(void),
			long want, long (*nested)(void), long want_nested)
{
	struct kprobe kp;

	init_probe(&kp);
	kp.addr = addr;
	kp.pre_handler = pre_reenter;
	reenter_nested = nested;
	reset();
	recursion_result = 0;
	if (!KPT_EXPECT_EQ(register_kprobe(&kp), 0))
		return 1;
	KPT_EXPECT_EQ(!!(kp.flags & KPROBE_FLAG_FTRACE), ftrace);
	KPT_EXPECT_EQ(outer(), want);
	unregister_kprobe(&kp);
	KPT_EXPECT_EQ(h.pre, 1);		/* the nested hit ran nothing */
	KPT_EXPECT_EQ(kp.nmissed, 1);
	KPT_EXPECT_EQ(recursion_result, want_nested);
	return kpt_failed;
}

#ifdef CONFIG_X86	/* kprobes_api_targets.S: x86 code */
static long reenter_asm_outer(void)
{
	return call_asm(1);
}

static long reenter_asm_nested(void)
{
	return call_asm(100);
}

#endif /* CONFIG_X86 */

static long reenter_entry_outer(void)
{
	return call_target(3, 4);
}

static long reenter_entry_nested(void)
{
	return call_target(5, 6);
}

#ifdef CONFIG_X86	/* kprobes_api_targets.S: x86 code */
static int t_reentry_counts_nmissed(void)
{
	return reentry_case(kpt_asm_add, false, reenter_asm_outer,
			    KPT_ASM_BASE + 1, reenter_asm_nested,
			    KPT_ASM_BASE + 100);
}

#endif /* CONFIG_X86 */

/*
 * The same on an ftrace site (a C function's entry).  Ours has no ftrace
 * recursion guard: its own per-CPU frames are what keep the nested hit
 * from running the handler again, and they count it.  (Upstream's guard
 * lets one nested level through, and its frames count it the same.)
 */
static int t_reentry_ftrace_counts_nmissed(void)
{
	/* through ftrace where the arch has kprobes on it (x86_64 here) */
	return reentry_case((void *)kpt_target_entry,
			    IS_ENABLED(CONFIG_KPROBES_ON_FTRACE),
			    reenter_entry_outer, 3 * 31 + 4,
			    reenter_entry_nested, 5 * 31 + 6);
}

#ifdef CONFIG_X86	/* kprobes_api_targets.S: x86 code */
static int t_disable_enable(void)
{
	struct kprobe kp;

	init_probe(&kp);
	kp.addr = (kprobe_opcode_t *)kpt_asm_add;
	kp.pre_handler = pre_record;
	reset();
	if (!KPT_EXPECT_EQ(register_kprobe(&kp), 0))
		return 1;
	KPT_EXPECT_EQ(disable_kprobe(&kp), 0);
	KPT_EXPECT(kprobe_disabled(&kp));
	KPT_EXPECT_EQ(call_asm(1), KPT_ASM_BASE + 1);
	KPT_EXPECT_EQ(h.pre, 0);
	KPT_EXPECT_EQ(enable_kprobe(&kp), 0);
	KPT_EXPECT(!kprobe_disabled(&kp));
	KPT_EXPECT_EQ(call_asm(1), KPT_ASM_BASE + 1);
	KPT_EXPECT_EQ(h.pre, 1);
	unregister_kprobe(&kp);

	/* registered disabled: armed only by enable_kprobe() */
	init_probe(&kp);
	kp.addr = (kprobe_opcode_t *)kpt_asm_add;
	kp.pre_handler = pre_record;
	kp.flags = KPROBE_FLAG_DISABLED;
	reset();
	if (!KPT_EXPECT_EQ(register_kprobe(&kp), 0))
		return 1;
	call_asm(1);
	KPT_EXPECT_EQ(h.pre, 0);
	KPT_EXPECT_EQ(enable_kprobe(&kp), 0);
	call_asm(1);
	KPT_EXPECT_EQ(h.pre, 1);
	unregister_kprobe(&kp);

	/* enable/disable of a probe that is not registered */
	KPT_EXPECT_EQ(enable_kprobe(&kp), -EINVAL);
	KPT_EXPECT_EQ(disable_kprobe(&kp), -EINVAL);
	return kpt_failed;
}

static int pre_order1(struct kprobe *p, struct pt_regs *r)
{
	h.order[h.norder++] = 1;
	return 0;
}

static int pre_order2(struct kprobe *p, struct pt_regs *r)
{
	h.order[h.norder++] = 2;
	return 0;
}

static int pre_order3(struct kprobe *p, struct pt_regs *r)
{
	h.order[h.norder++] = 3;
	return 0;
}

static int t_aggregate_probes(void)
{
	static struct kprobe kp[3];
	kprobe_pre_handler_t pre[3] = { pre_order1, pre_order2, pre_order3 };
	int i;

	for (i = 0; i < 3; i++) {
		init_probe(&kp[i]);
		kp[i].addr = (kprobe_opcode_t *)kpt_asm_add;
		kp[i].pre_handler = pre[i];
		if (i == 1)
			kp[i].post_handler = post_record;
		if (!KPT_EXPECT_EQ(register_kprobe(&kp[i]), 0)) {
			while (--i >= 0)
				unregister_kprobe(&kp[i]);
			return 1;
		}
	}
	reset();
	KPT_EXPECT_EQ(call_asm(2), KPT_ASM_BASE + 2);
	KPT_EXPECT_EQ(h.norder, 3);
	KPT_EXPECT_EQ(h.order[0] + h.order[1] + h.order[2], 1 + 2 + 3);

	/* removing one leaves the others armed */
	unregister_kprobe(&kp[1]);
	reset();
	KPT_EXPECT_EQ(call_asm(2), KPT_ASM_BASE + 2);
	KPT_EXPECT_EQ(h.norder, 2);
	KPT_EXPECT_EQ(h.order[0] + h.order[1], 1 + 3);

	/* disabling one leaves the other firing */
	KPT_EXPECT_EQ(disable_kprobe(&kp[0]), 0);
	reset();
	call_asm(2);
	KPT_EXPECT(h.norder == 1 && h.order[0] == 3);
	unregister_kprobe(&kp[0]);
	unregister_kprobe(&kp[2]);
	reset();
	call_asm(2);
	KPT_EXPECT_EQ(h.norder, 0);
	return kpt_failed;
}

/*
 * A site's probes change one by one, on an int3 site and an ftrace site:
 * alone, joined, left alone again, disabled, joined by a post_handler.
 * Each call must run exactly the handlers registered and enabled at that
 * moment (ours takes a shortcut while a site has one pre-only probe).
 */
static int solo_step(struct kprobe *kp, int n, long (*call)(void),
		     long want, int norder, int sum, int post)
{
	int i, total = 0;

	reset();
	if (!KPT_EXPECT_EQ(call(), want))
		return 1;
	for (i = 0; i < h.norder; i++)
		total += h.order[i];
	KPT_EXPECT_EQ(h.norder, norder);
	KPT_EXPECT_EQ(total, sum);
	KPT_EXPECT_EQ(h.post, post);
	for (i = 0; i < n; i++)
		KPT_EXPECT_EQ(kp[i].nmissed, 0);
	return kpt_failed;
}

static long solo_call_asm(void)
{
	return call_asm(2);
}

static long solo_call_entry(void)
{
	return call_target(2, 3);
}

static int solo_changes(void *addr, long (*call)(void), long want, bool post)
{
	static struct kprobe kp[3];
	kprobe_pre_handler_t pre[3] = { pre_order1, pre_order2, pre_order3 };
	int i;

	for (i = 0; i < 3; i++) {
		init_probe(&kp[i]);
		kp[i].addr = addr;
		kp[i].pre_handler = pre[i];
	}
	kp[2].post_handler = post_record;

	if (!KPT_EXPECT_EQ(register_kprobe(&kp[0]), 0))

		return 1;
	solo_step(kp, 3, call, want, 1, 1, 0);		/* alone */
	if (KPT_EXPECT_EQ(register_kprobe(&kp[1]), 0)) {
		solo_step(kp, 3, call, want, 2, 1 + 2, 0);	/* joined */
		unregister_kprobe(&kp[0]);
		solo_step(kp, 3, call, want, 1, 2, 0);	/* the other alone */
		KPT_EXPECT_EQ(disable_kprobe(&kp[1]), 0);
		solo_step(kp, 3, call, want, 0, 0, 0);
		KPT_EXPECT_EQ(enable_kprobe(&kp[1]), 0);
		solo_step(kp, 3, call, want, 1, 2, 0);
		if (post && KPT_EXPECT_EQ(register_kprobe(&kp[2]), 0)) {
			solo_step(kp, 3, call, want, 2, 2 + 3, 1);
			unregister_kprobe(&kp[2]);
			solo_step(kp, 3, call, want, 1, 2, 0);
		}
		unregister_kprobe(&kp[1]);
	} else {
		unregister_kprobe(&kp[0]);
	}
	solo_step(kp, 3, call, want, 0, 0, 0);		/* none */
	return kpt_failed;
}

/*
 * On upstream the post_handler step is left out: a post_handler joining
 * a boosted address does not run at once there (t_aggregate_order_and_post()),
 * and one leaving an ftrace site WARNs then faults (t_ftrace_ops_switch()).
 */
static int t_site_probes_change(void)
{
	solo_changes(kpt_asm_add, solo_call_asm, KPT_ASM_BASE + 2, !upstream);
	solo_changes((void *)kpt_target_entry, solo_call_entry, 2 * 31 + 3,
		     !upstream);
	return kpt_failed;
}

/*
 * What ours promises beyond upstream for probes sharing an address:
 * handlers run in registration order, and a post_handler added to an
 * address that already has a probe runs from the first hit after
 * register_kprobe() returns (the address falls back from the jump or
 * boosted path to single-stepping before register returns).
 */
static int t_aggregate_order_and_post(void)
{
	static struct kprobe kp[3];
	static char why[128];
	kprobe_pre_handler_t pre[3] = { pre_order1, pre_order2, pre_order3 };
	int i, j;

	for (i = 0; i < 3; i++) {
		init_probe(&kp[i]);
		kp[i].addr = (kprobe_opcode_t *)kpt_asm_add;
		kp[i].pre_handler = pre[i];
		if (i == 1)
			kp[i].post_handler = post_record;
		if (!KPT_EXPECT_EQ(register_kprobe(&kp[i]), 0)) {
			while (--i >= 0)
				unregister_kprobe(&kp[i]);
			return 1;
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
			call_asm(0);
		}
	}
	reset();
	KPT_EXPECT_EQ(call_asm(2), KPT_ASM_BASE + 2);
	for (i = 2; i >= 0; i--)
		unregister_kprobe(&kp[i]);
	if (upstream) {
		snprintf(why, sizeof(why),
			 "upstream differs: order %d,%d,%d, post_handler ran %d time(s)",
			 h.order[0], h.order[1], h.order[2], h.post);
		return KPT_SKIP_BECAUSE(why);
	}
	KPT_EXPECT_EQ(h.norder, 3);
	KPT_EXPECT(h.order[0] == 1 && h.order[1] == 2 && h.order[2] == 3);
	KPT_EXPECT_EQ(h.post, 1);
	KPT_EXPECT_EQ(h.post_ax, KPT_ASM_BASE + 2);
	return kpt_failed;
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
	inflight_result = call_asm(9);
	kthread_complete_and_exit(&inflight_done, 0);
}

static int t_post_in_flight(int cpu);

static int t_post_joins_hit_in_flight(void)
{
	int cpu, ret = 0, i;

	/* this task stays off the CPU whose hit will spin */
	migrate_disable();
	cpu = cpumask_any_but(cpu_online_mask, raw_smp_processor_id());
	if (cpu >= nr_cpu_ids) {
		migrate_enable();
		return KPT_SKIP_BECAUSE("this boot: needs 2 online CPUs");
	}
	for (i = 0; i < 3; i++) {
		ret = t_post_in_flight(cpu);
		if (ret || !inflight_timed_out || upstream)
			break;
		/*
		 * A stop_machine() elsewhere (a clocksource switch early in
		 * boot) stops the registering CPU until the hit gives up.
		 */
		pr_info("# the waiting hit timed out; once more\n");
	}
	migrate_enable();
	if (ret)
		return ret;
	if (upstream && (inflight_timed_out || atomic_read(&inflight_post) < 3)) {
		static char why[128];

		snprintf(why, sizeof(why),
			 "upstream differs: post_handler ran for %d of the 3 calls after register_kprobe()%s",
			 atomic_read(&inflight_post),
			 inflight_timed_out ? ", which waited for the hit" : "");
		return KPT_SKIP_BECAUSE(why);
	}
	KPT_EXPECT(!inflight_timed_out);
	KPT_EXPECT(atomic_read(&inflight_post) >= 3);
	return kpt_failed;
}

static int t_post_in_flight(int cpu)
{
	static struct kprobe kp[3];
	struct task_struct *t;
	int i, ret;

	for (i = 0; i < 3; i++) {
		init_probe(&kp[i]);
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
		if (!KPT_EXPECT_EQ(register_kprobe(&kp[i]), 0)) {
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
			ret = KPT_SKIP_BECAUSE("this boot: no jump optimization in this config");
		else if (upstream)
			ret = KPT_SKIP_BECAUSE("upstream did not optimize the site within 1 s");
		else	/* it must be a jump */
			ret = !KPT_EXPECT_EQ(*(u8 *)kpt_asm_mov, JMP32_INSN_OPCODE);
		goto out;
	}

	atomic_set(&inflight_state, 0);		/* the next hit waits */
	t = kthread_create(inflight_fn, NULL, "kpt_inflight");
	if (!KPT_EXPECT(!IS_ERR(t))) {
		ret = 1;
		goto out;
	}
	kthread_bind(t, cpu);
	wake_up_process(t);
	for (i = 0; i < 250 && atomic_read(&inflight_state) != 1; i++)
		msleep(20);
	KPT_EXPECT_EQ(atomic_read(&inflight_state), 1);
	ret = register_kprobe(&kp[2]);
	atomic_set(&inflight_state, 2);
	if (!KPT_EXPECT(wait_for_completion_timeout(&inflight_done, 10 * HZ)))
		return 1;	/* the caller's hit never ended: nothing is safe to free */
	KPT_EXPECT_EQ(ret, 0);
	KPT_EXPECT_EQ(inflight_result, KPT_ASM_BASE + 9);
	/* from now on the post_handler runs, after the instruction */
	for (i = 0; i < 3; i++)
		KPT_EXPECT_EQ(call_asm(i), KPT_ASM_BASE + i);
	if (!ret)
		unregister_kprobe(&kp[2]);
	pr_info("# post_handler runs %d, %d before the instruction; hit waited %s\n",
		atomic_read(&inflight_post), atomic_read(&inflight_post_bad),
		inflight_timed_out ? "5 s (timed out)" : "for the registration");
	KPT_EXPECT_EQ(atomic_read(&inflight_post_bad), 0);
	ret = kpt_failed;
out:
	unregister_kprobe(&kp[1]);
	unregister_kprobe(&kp[0]);
	return ret;
}

static int t_batch_register(void)
{
	static struct kprobe kp[3];
	struct kprobe *kps[3];
	int i;

	for (i = 0; i < 3; i++) {
		init_probe(&kp[i]);
		kps[i] = &kp[i];
		kp[i].pre_handler = pre_record;
	}
	kp[0].addr = (kprobe_opcode_t *)kpt_asm_add;
	kp[1].addr = (kprobe_opcode_t *)kpt_asm_mov;
	kp[2].addr = (kprobe_opcode_t *)kpt_target;
	reset();
	if (!KPT_EXPECT_EQ(register_kprobes(kps, 3), 0))
		return 1;
	call_asm(1);
	call_target(1, 1);
	KPT_EXPECT_EQ(h.pre, 3);
	unregister_kprobes(kps, 3);
	reset();
	call_asm(1);
	call_target(1, 1);
	KPT_EXPECT_EQ(h.pre, 0);
	KPT_EXPECT_EQ(register_kprobes(kps, 0), -EINVAL);
	return kpt_failed;
}

#define KPT_NO_FTRACE_SITES \
	"this boot: no kprobes on ftrace (CONFIG_KPROBES_ON_FTRACE is off)"

#ifdef CONFIG_DYNAMIC_FTRACE_WITH_REGS
static void kpt_ipmodify_func(unsigned long ip, unsigned long parent_ip,
			      struct ftrace_ops *ops, struct ftrace_regs *fregs)
{
}

/* may an IPMODIFY user (livepatch, a BPF trampoline) take fn now? */
static int kpt_ipmodify_claim(void *fn)
{
	struct ftrace_ops ops = {
		.func = kpt_ipmodify_func,
		.flags = FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY,
	};
	int ret;

	ret = ftrace_set_filter_ip(&ops, (unsigned long)fn, 0, 0);
	if (!ret) {
		ret = register_ftrace_function(&ops);
		if (!ret)
			unregister_ftrace_function(&ops);
	}
	ftrace_free_filter(&ops);
	return ret;
}
#endif

/*
 * Probes leaving an ftrace site one by one, and coming back: each call
 * runs each handler exactly once, whatever stayed hooked in between (ours
 * leaves the plain ops' hook lingering a moment), and once the last
 * probe with a post_handler is gone an IPMODIFY user may take the
 * function at once.
 */
static int ftrace_leave_and_return(void)
{
	struct kprobe kp1, kp2;
	int want = 3 * 31 + 4, i;

	if (!IS_ENABLED(CONFIG_KPROBES_ON_FTRACE))
		return KPT_SKIP_BECAUSE(KPT_NO_FTRACE_SITES);
	for (i = 0; i < 3; i++) {
		target_probe(&kp1, false);
		if (!KPT_EXPECT_EQ(register_kprobe(&kp1), 0))
			return 1;
		KPT_EXPECT(kp1.flags & KPROBE_FLAG_FTRACE);
		reset();
		KPT_EXPECT_EQ(call_target(3, 4), want);
		KPT_EXPECT_EQ(h.pre, 1);
		unregister_kprobe(&kp1);
		KPT_EXPECT_EQ(call_target(3, 4), want);
		KPT_EXPECT_EQ(h.pre, 1);
	}

	/* where the plain ops' hook may linger: the IPMODIFY ops, once */
	target_probe(&kp2, true);
	if (!KPT_EXPECT_EQ(register_kprobe(&kp2), 0))
		return 1;
	reset();
	KPT_EXPECT_EQ(call_target(3, 4), want);
	KPT_EXPECT_EQ(h.pre, 1);
	KPT_EXPECT_EQ(h.post, 1);
	unregister_kprobe(&kp2);
	KPT_EXPECT_EQ(call_target(3, 4), want);
	KPT_EXPECT(h.pre == 1 && h.post == 1);
#ifdef CONFIG_DYNAMIC_FTRACE_WITH_REGS
	KPT_EXPECT_EQ(kpt_ipmodify_claim(kpt_target), 0);
#endif

	/* disabled then enabled again, several times */
	target_probe(&kp1, false);
	if (!KPT_EXPECT_EQ(register_kprobe(&kp1), 0))
		return 1;
	reset();
	for (i = 0; i < 3; i++) {
		KPT_EXPECT_EQ(disable_kprobe(&kp1), 0);
		KPT_EXPECT_EQ(call_target(3, 4), want);
		KPT_EXPECT_EQ(enable_kprobe(&kp1), 0);
		KPT_EXPECT_EQ(call_target(3, 4), want);
	}
	KPT_EXPECT_EQ(h.pre, 3);
	unregister_kprobe(&kp1);
	KPT_EXPECT_EQ(kp1.nmissed, 0);
	return kpt_failed;
}

/*
 * An ftrace site moves between our two ftrace_ops as a post_handler comes
 * and goes (the IPMODIFY one only while a probe there has one): every
 * handler keeps firing across the switches, and the function's result
 * never changes.
 */
static int ftrace_ops_switch(void)
{
	struct kprobe kp1, kp2;
	int want = 3 * 31 + 4;

	if (!IS_ENABLED(CONFIG_KPROBES_ON_FTRACE))
		return KPT_SKIP_BECAUSE(KPT_NO_FTRACE_SITES);
	target_probe(&kp1, false);
	if (!KPT_EXPECT_EQ(register_kprobe(&kp1), 0))
		return 1;
	KPT_EXPECT(kp1.flags & KPROBE_FLAG_FTRACE);
	reset();
	KPT_EXPECT_EQ(call_target(3, 4), want);
	KPT_EXPECT_EQ(h.pre, 1);
	if (upstream) {
		/*
		 * Seen on 6.12: once the post_handler probe has left, disabling
		 * (or unregistering) the other fails to disarm ftrace (-ENOENT,
		 * WARN in disarm_kprobe_ftrace) and the kernel faults soon after.
		 */
		unregister_kprobe(&kp1);
		return KPT_SKIP_BECAUSE("upstream WARNs, then faults (not run)");
	}

	target_probe(&kp2, true);		/* to the IPMODIFY ops */
	if (register_kprobe(&kp2)) {
		unregister_kprobe(&kp1);
		if (!KPT_EXPECT(0))
			return 1;
	}
	reset();
	KPT_EXPECT_EQ(call_target(3, 4), want);
	KPT_EXPECT_EQ(h.pre, 2);
	KPT_EXPECT_EQ(h.post, 1);

	unregister_kprobe(&kp2);	/* back to the plain ops */
	reset();
	KPT_EXPECT_EQ(call_target(3, 4), want);
	KPT_EXPECT_EQ(h.pre, 1);
	KPT_EXPECT_EQ(h.post, 0);

	KPT_EXPECT_EQ(disable_kprobe(&kp1), 0);	/* unhooked */
	reset();
	KPT_EXPECT_EQ(call_target(3, 4), want);
	KPT_EXPECT_EQ(h.pre, 0);
	KPT_EXPECT_EQ(enable_kprobe(&kp1), 0);
	KPT_EXPECT_EQ(call_target(3, 4), want);
	KPT_EXPECT_EQ(h.pre, 1);
	unregister_kprobe(&kp1);
	reset();
	KPT_EXPECT_EQ(call_target(3, 4), want);
	KPT_EXPECT_EQ(h.pre, 0);
	return kpt_failed;
}

/*
 * Ours arms an entry probe registered (or enabled) on its own by a
 * "carrier", an int3 on the instruction after the fentry nop, not by an
 * ftrace hook; debug.kprobes-carriers = 0 makes it hook the site, as
 * upstream always does.  The cases about the hooks set it to 0 meanwhile.
 */
static int kpt_set_carriers(int on)
{
#ifdef KPROBES_ANEW
	struct file *f;
	char c = on ? '1' : '0';
	loff_t pos = 0;
	ssize_t n;

	f = filp_open("/proc/sys/debug/kprobes-carriers", O_WRONLY, 0);
	if (IS_ERR(f))	/* no carriers in this kernel: nothing to turn */
		return PTR_ERR(f) == -ENOENT ? 0 : PTR_ERR(f);
	n = kernel_write(f, &c, 1, &pos);
	filp_close(f, NULL);
	return n == 1 ? 0 : -EIO;
#else
	return 0;
#endif
}

/* a case about the hooks, with carriers off: the site is hooked on ftrace */
static int carriers_off(int (*fn)(void))
{
	int ret;

	KPT_EXPECT_EQ(kpt_set_carriers(0), 0);
	ret = fn();
	KPT_EXPECT_EQ(kpt_set_carriers(1), 0);
	return ret ?: kpt_failed;
}

static int t_ftrace_leave_and_return(void)
{
	return carriers_off(ftrace_leave_and_return);
}

static int t_ftrace_ops_switch(void)
{
	return carriers_off(ftrace_ops_switch);
}

#if defined(KPROBES_ANEW) && defined(CONFIG_KPROBE_CARRIERS)
/*
 * A carried entry probe: its handlers see what the ftrace hook shows
 * (ip = entry + 1 for the pre_handler, past the nop for the post_handler,
 * the entry's argument registers), once per call, on the int3 and once
 * the optimizer has made it a jump; a post_handler may join it; a probe
 * at the carrier's own address moves the entry onto ftrace first, and
 * both fire once per call; the bytes are the original ones at the end.
 */
static int t_carrier_entry(void)
{
	struct kprobe kp1, kp2, kp3;
	int want = 3 * 31 + 4, i;
	u8 *next, orig;

	if (!IS_ENABLED(CONFIG_KPROBES_ON_FTRACE))
		return KPT_SKIP_BECAUSE(KPT_NO_FTRACE_SITES);
	/*
	 * A hook the cases before left lingering on kpt_target() would be
	 * taken over instead (no update either way); ours removes them a
	 * quarter second after they were left.
	 */
	msleep(600);
	target_probe(&kp1, false);
	next = (u8 *)kpt_target_entry +
	       (has_endbr((void *)kpt_target_entry) ? 4 : 0) + MCOUNT_INSN_SIZE;
	orig = *next;
	if (!KPT_EXPECT_EQ(register_kprobe(&kp1), 0))
		return 1;
	KPT_EXPECT_EQ((unsigned long)kp1.addr + MCOUNT_INSN_SIZE,
		      (unsigned long)next);
	KPT_EXPECT(kp1.flags & KPROBE_FLAG_FTRACE);
	KPT_EXPECT_EQ(*next, INT3_INSN_OPCODE);
	for (i = 0; i < 2; i++) {
		/* the int3, then (optimized) the jump */
		reset();
		KPT_EXPECT_EQ(call_target(3, 4), want);
		KPT_EXPECT_EQ(h.pre, 1);
		KPT_EXPECT_EQ(h.pre_ip, (unsigned long)kp1.addr + 1);
		KPT_EXPECT_EQ(h.pre_di, 3);
		KPT_EXPECT_EQ(h.pre_si, 4);
		wait_for_kprobe_optimizer();
	}
	if (KPT_JUMPS_EXPECTED) {
		KPT_EXPECT(kprobe_optimized(&kp1));
		KPT_EXPECT_EQ(*next, JMP32_INSN_OPCODE);
	}

	target_probe(&kp2, true);
	if (!KPT_EXPECT_EQ(register_kprobe(&kp2), 0))
		goto out1;
	reset();
	KPT_EXPECT_EQ(call_target(3, 4), want);
	KPT_EXPECT_EQ(h.pre, 2);
	KPT_EXPECT_EQ(h.post, 1);
	KPT_EXPECT_EQ(h.post_ip, (unsigned long)next);
	KPT_EXPECT(h.pre_seq < h.post_seq);
	unregister_kprobe(&kp2);

	init_probe(&kp3);
	kp3.addr = (kprobe_opcode_t *)next;
	kp3.pre_handler = pre_record;
	if (!KPT_EXPECT_EQ(register_kprobe(&kp3), 0))
		goto out1;
	reset();
	KPT_EXPECT_EQ(call_target(3, 4), want);
	KPT_EXPECT_EQ(h.pre, 2);
	KPT_EXPECT_EQ(h.pre_ip, (unsigned long)next + 1);	/* kp3 ran last */
	unregister_kprobe(&kp3);
	reset();
	KPT_EXPECT_EQ(call_target(3, 4), want);
	KPT_EXPECT_EQ(h.pre, 1);
	KPT_EXPECT_EQ(h.pre_ip, (unsigned long)kp1.addr + 1);
out1:
	unregister_kprobe(&kp1);
	reset();
	KPT_EXPECT_EQ(call_target(3, 4), want);
	KPT_EXPECT_EQ(h.pre, 0);
	KPT_EXPECT_EQ(*next, orig);
	KPT_EXPECT_EQ(kp1.nmissed, 0);
	return kpt_failed;
}

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

static int mover_pre(struct kprobe *p, struct pt_regs *regs)
{
	if (current == READ_ONCE(mover_task))
		atomic_inc(&mover_hits);
	return 0;
}

static int mover_fn(void *unused)
{
	int i = 0;

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
		if (!(++i & 255))
			usleep_range(20, 40);
	}
	return 0;
}

/* stop the mover between two calls; its counts are then still */
static void mover_hold(bool hold)
{
	WRITE_ONCE(mover_paused, false);
	WRITE_ONCE(mover_pause, hold);
	while (hold && !READ_ONCE(mover_paused))
		usleep_range(100, 200);
}

/* the mover thread on cpu, calling fn, held */
static struct task_struct *mover_start(int (*fn)(int, int), int want, int cpu)
{
	struct task_struct *t;

	atomic_set(&mover_calls, 0);
	atomic_set(&mover_hits, 0);
	atomic_set(&mover_errors, 0);
	mover_call = fn;
	mover_want = want;
	mover_pause = true;
	t = kthread_create(mover_fn, NULL, "kpt_mover");
	if (IS_ERR(t))
		return t;
	kthread_bind(t, cpu);
	WRITE_ONCE(mover_task, t);
	wake_up_process(t);
	mover_hold(true);
	return t;
}

static int t_carrier_move_exact(void)
{
	struct kprobe kp1, kp3;
	struct task_struct *t;
	int cpu, calls, hits, round;
	u8 *next;

	if (!IS_ENABLED(CONFIG_KPROBES_ON_FTRACE))
		return KPT_SKIP_BECAUSE(KPT_NO_FTRACE_SITES);
	cpu = cpumask_any_but(cpu_online_mask, raw_smp_processor_id());
	if (cpu >= nr_cpu_ids)
		return KPT_SKIP_BECAUSE("this boot: needs 2 online CPUs");
	t = mover_start(call_target, 31, cpu);
	if (!KPT_EXPECT(!IS_ERR(t)))
		return 1;

	next = (u8 *)kpt_target_entry +
	       (has_endbr((void *)kpt_target_entry) ? 4 : 0) + MCOUNT_INSN_SIZE;
	for (round = 0; round < 3; round++) {
		init_probe(&kp1);
		kp1.addr = (kprobe_opcode_t *)kpt_target;
		kp1.pre_handler = mover_pre;
		if (!KPT_EXPECT_EQ(register_kprobe(&kp1), 0))
			break;
		calls = atomic_read(&mover_calls);
		hits = atomic_read(&mover_hits);
		mover_hold(false);
		msleep(20);
		/* round 1: from the jump; rounds 0 and 2: from the int3 */
		if (round == 1)
			wait_for_kprobe_optimizer();
		init_probe(&kp3);
		kp3.addr = (kprobe_opcode_t *)next;
		kp3.pre_handler = pre_record;
		KPT_EXPECT_EQ(register_kprobe(&kp3), 0);
		msleep(20);
		unregister_kprobe(&kp3);
		msleep(20);
		mover_hold(true);
		calls = atomic_read(&mover_calls) - calls;
		hits = atomic_read(&mover_hits) - hits;
		pr_info("# round %d: %d calls, %d hits\n", round, calls, hits);
		KPT_EXPECT(calls > 0);
		KPT_EXPECT_EQ(hits, calls);
		unregister_kprobe(&kp1);
		KPT_EXPECT_EQ(kp1.nmissed, 0);
	}
	WRITE_ONCE(mover_task, NULL);
	kthread_stop(t);
	KPT_EXPECT_EQ(atomic_read(&mover_errors), 0);
	return kpt_failed;
}

/*
 * A carrier the optimizer cannot make a jump (kpt_tiny(): one short
 * instruction, then the return) hands its entry to the hook in the
 * background, a moment after registration: each call of a second CPU is
 * seen exactly once before, across and after that move, and the bytes
 * after the nop are the original ones again.
 */
static int t_carrier_background_move(void)
{
	u8 *next, orig;
	struct task_struct *t;
	int cpu, calls, hits, i;
	struct kprobe kp;

	if (!IS_ENABLED(CONFIG_KPROBES_ON_FTRACE))
		return KPT_SKIP_BECAUSE(KPT_NO_FTRACE_SITES);
	cpu = cpumask_any_but(cpu_online_mask, raw_smp_processor_id());
	if (cpu >= nr_cpu_ids)
		return KPT_SKIP_BECAUSE("this boot: needs 2 online CPUs");
	next = (u8 *)call_tiny + (has_endbr((void *)call_tiny) ? 4 : 0) +
	       MCOUNT_INSN_SIZE;
	orig = *next;
	t = mover_start(call_tiny, 1, cpu);
	if (!KPT_EXPECT(!IS_ERR(t)))
		return 1;
	init_probe(&kp);
	kp.addr = (kprobe_opcode_t *)call_tiny;
	kp.pre_handler = mover_pre;
	if (!KPT_EXPECT_EQ(register_kprobe(&kp), 0))
		goto out;
	KPT_EXPECT_EQ(*next, INT3_INSN_OPCODE);
	calls = atomic_read(&mover_calls);
	hits = atomic_read(&mover_hits);
	mover_hold(false);
	for (i = 0; i < 100 && READ_ONCE(*next) == INT3_INSN_OPCODE; i++)
		msleep(20);
	msleep(20);
	mover_hold(true);
	pr_info("# moved after about %d ms\n", i * 20);
	KPT_EXPECT_EQ(*next, orig);
	KPT_EXPECT(!kprobe_optimized(&kp));
	calls = atomic_read(&mover_calls) - calls;
	hits = atomic_read(&mover_hits) - hits;
	pr_info("# %d calls, %d hits\n", calls, hits);
	KPT_EXPECT(calls > 0);
	KPT_EXPECT_EQ(hits, calls);
	reset();
	KPT_EXPECT_EQ(call_tiny(3, 4), 7);	/* on the hook now */
	unregister_kprobe(&kp);
	KPT_EXPECT_EQ(kp.nmissed, 0);
out:
	WRITE_ONCE(mover_task, NULL);
	kthread_stop(t);
	KPT_EXPECT_EQ(atomic_read(&mover_errors), 0);
	return kpt_failed;
}
#else
#define KPT_NO_CARRIERS \
	"upstream differs: no carriers, an entry probe is hooked on ftrace"

#define KPT_NO_OPT_CARRIERS \
	"this boot: no carriers (they need the optimizer, CONFIG_OPTPROBES is off)"

#define KPT_NO_ARCH_CARRIERS \
	"this boot: no carriers (CONFIG_KPROBE_CARRIERS: not on this arch)"

static int t_carrier_none(void)
{
	if (upstream)
		return KPT_SKIP_BECAUSE(KPT_NO_CARRIERS);
	if (!IS_ENABLED(CONFIG_KPROBES_ON_FTRACE))
		return KPT_SKIP_BECAUSE(KPT_NO_FTRACE_SITES);
	if (!IS_ENABLED(CONFIG_OPTPROBES))
		return KPT_SKIP_BECAUSE(KPT_NO_OPT_CARRIERS);
	return KPT_SKIP_BECAUSE(KPT_NO_ARCH_CARRIERS);
}

#define t_carrier_entry			t_carrier_none
#define t_carrier_move_exact		t_carrier_none
#define t_carrier_background_move	t_carrier_none
#endif /* KPROBES_ANEW && CONFIG_KPROBE_CARRIERS */

#if defined(CONFIG_X86) && defined(CONFIG_KPROBES_ON_FTRACE)
/*
 * An ftrace user that diverts a function's calls beside a kprobe on the
 * function's entry: an IPMODIFY ops, as livepatch's (kpt_target() becomes
 * kpt_alt()), and a direct trampoline that returns without running the
 * body, as a BPF fmod_ret program returning non-zero does.  The probe sees
 * every call, with the entry's registers, whichever of the two comes
 * first, and after the user leaves: upstream's hook, which ftrace calls
 * with the user's, does.  A breakpoint past the fentry call would see
 * none of the diverted calls.
 */
static void divert_to_alt(unsigned long ip, unsigned long parent_ip,
			  struct ftrace_ops *ops, struct ftrace_regs *fregs)
{
	ftrace_regs_set_instruction_pointer(fregs, (unsigned long)kpt_alt);
}

static struct ftrace_ops divert_ops = {
	.func = divert_to_alt,
	.flags = FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY,
};

/*
 * The IPMODIFY ops registered on the function; the same ops registered on
 * another function, whose filter then grows (the function's address, not
 * its fentry site, as ftrace_set_filter_ip() allows); the direct one.
 */
enum { DIVERT_IPMODIFY, DIVERT_GROW, DIVERT_DIRECT, DIVERTERS };
static const char * const divert_names[] = {
	"IPMODIFY ops", "growing IPMODIFY ops", "fmod_ret-like direct"
};

#ifdef CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS
/* one per round: ftrace may still hold on to the last one's hashes */
static struct ftrace_ops divert_direct_ops[2];
#endif

static int divert_on(int kind, int order, unsigned long fentry)
{
	unsigned long tiny = (unsigned long)call_tiny +
			     (has_endbr((void *)call_tiny) ? 4 : 0);
	int ret;

	if (kind == DIVERT_IPMODIFY)	/* its filter: set by the case */
		return register_ftrace_function(&divert_ops);
	if (kind == DIVERT_GROW) {	/* on kpt_tiny() first: the case grows it */
		ret = ftrace_set_filter_ip(&divert_ops, tiny, 0, 1);
		return ret ?: register_ftrace_function(&divert_ops);
	}
#ifdef CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS
	if (ftrace_set_filter_ip(&divert_direct_ops[order], fentry, 0, 1))
		return -EINVAL;
	ret = register_ftrace_direct(&divert_direct_ops[order],
				     (unsigned long)kpt_direct_skip);
	if (ret)
		ftrace_free_filter(&divert_direct_ops[order]);
	return ret;
#else
	return -EOPNOTSUPP;
#endif
}

static int divert_off(int kind, int order, unsigned long fentry)
{
	int ret;

	if (kind == DIVERT_IPMODIFY)
		return unregister_ftrace_function(&divert_ops);
	if (kind == DIVERT_GROW) {
		ret = unregister_ftrace_function(&divert_ops);
		return ret ?: ftrace_set_filter_ip(&divert_ops, fentry, 0, 1);
	}
#ifdef CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS
	return unregister_ftrace_direct(&divert_direct_ops[order],
					(unsigned long)kpt_direct_skip, true);
#else
	return -EOPNOTSUPP;
#endif
}

/* n calls of kpt_target(i, 2): how many returned what kind makes of it */
static int divert_calls(int n, int kind)
{
	int i, ok = 0, want;

	for (i = 0; i < n; i++) {
		want = kind == DIVERT_DIRECT ? KPT_DIRECT_RET :
		       kind >= 0 ? i * 1000 + 2 : i * 31 + 2;
		ok += call_target(i, 2) == want;
	}
	return ok;
}

#define KPT_X86_32_DIVERT \
	"32-bit x86's ftrace keeps the original beside a kprobe (stock too)"

static int t_ftrace_divert(void)
{
	unsigned long fentry = kpt_target_entry +
			       (has_endbr((void *)kpt_target_entry) ? 4 : 0);
	u8 *next = (u8 *)fentry + MCOUNT_INSN_SIZE, orig = *next;
	struct kprobe kp;
	int kind, order, ret;

	/*
	 * Measured on 32-bit x86: the calls keep running the original while
	 * the probe sees each of them, on stock as on ours, so ftrace there
	 * does not carry out the IPMODIFY ops' new ip beside a kprobe.
	 */
	if (IS_ENABLED(CONFIG_X86_32))
		return KPT_SKIP_BECAUSE(KPT_X86_32_DIVERT);
	if (!KPT_EXPECT_EQ(ftrace_set_filter_ip(&divert_ops, fentry, 0, 1), 0))
		return 1;
	for (kind = 0; kind < DIVERTERS; kind++) {
		/*
		 * 32-bit x86's ftrace_regs_caller never reads orig_ax: a
		 * direct trampoline that shares its function with another
		 * ops is not called there, on either kernel.
		 */
		if (kind == DIVERT_DIRECT &&
		    (!IS_ENABLED(CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS) ||
		     IS_ENABLED(CONFIG_X86_32)))
			continue;
		for (order = 0; order < 2; order++) {
			target_probe(&kp, false);
			if (order == 0) {
				/*
				 * The hook a probe before left lingering would
				 * be taken over: on ours, wait for it to go, so
				 * that the probe is carried.
				 */
				if (!upstream)
					msleep(600);
				if (!KPT_EXPECT_EQ(register_kprobe(&kp), 0))
					goto out;
#if defined(KPROBES_ANEW) && defined(CONFIG_KPROBE_CARRIERS)
				/* from the carrier's jump, on ours */
				wait_for_kprobe_optimizer();
				KPT_EXPECT(*next != orig);	/* carried */
#endif
			}
			if (!KPT_EXPECT_EQ(divert_on(kind, order, fentry), 0)) {
				if (order == 0)
					unregister_kprobe(&kp);
				goto out;
			}
			if (kind == DIVERT_GROW) {
#if defined(KPROBES_ANEW) && defined(CONFIG_KPROBE_CARRIERS)
				/* still carried: the ops is on kpt_tiny() only */
				if (order == 0)
					KPT_EXPECT(*next != orig);
#endif
				/* by the function's address, not its fentry site */
				ret = ftrace_set_filter_ip(&divert_ops,
							   kpt_target_entry, 0, 0);
				if (!KPT_EXPECT_EQ(ret, 0)) {
					divert_off(kind, order, fentry);
					if (order == 0)
						unregister_kprobe(&kp);
					goto out;
				}
			}
			if (order == 1 &&
			    !KPT_EXPECT_EQ(register_kprobe(&kp), 0)) {
				divert_off(kind, order, fentry);
				goto out;
			}
			reset();
			KPT_EXPECT_EQ(divert_calls(1000, kind), 1000);
			pr_info("# %s, %s first: %d hits of 1000 diverted calls\n",
				divert_names[kind], order ? "it" : "the probe",
				h.pre);
			KPT_EXPECT_EQ(h.pre, 1000);
			KPT_EXPECT_EQ(h.pre_ip, fentry + 1);
			KPT_EXPECT_EQ(h.pre_di, 999);
			KPT_EXPECT_EQ(h.pre_si, 2);
			/* nothing past the fentry call stands for the probe */
			KPT_EXPECT_EQ(*next, orig);
			KPT_EXPECT_EQ(divert_off(kind, order, fentry), 0);
			reset();
			KPT_EXPECT_EQ(divert_calls(10, -1), 10);
			KPT_EXPECT_EQ(h.pre, 10);
			unregister_kprobe(&kp);
			KPT_EXPECT_EQ(kp.nmissed, 0);
		}
	}
#if defined(KPROBES_ANEW) && defined(CONFIG_KPROBE_CARRIERS)
	/*
	 * The users gone, an entry probe registered alone is carried again
	 * (once the last probe's hook has stopped lingering).
	 */
	msleep(600);
	target_probe(&kp, false);
	if (KPT_EXPECT_EQ(register_kprobe(&kp), 0)) {
		KPT_EXPECT_EQ(*next, INT3_INSN_OPCODE);
		unregister_kprobe(&kp);
	}
#endif
	reset();
	KPT_EXPECT_EQ(divert_calls(10, -1), 10);
	KPT_EXPECT_EQ(h.pre, 0);
	KPT_EXPECT_EQ(*next, orig);
out:
	ftrace_free_filter(&divert_ops);
	return kpt_failed;
}
#elif defined(CONFIG_X86)
static int t_ftrace_divert(void)
{
	return KPT_SKIP_BECAUSE(KPT_NO_FTRACE_SITES);
}
#endif

#if defined(KPROBES_ANEW) && defined(CONFIG_KPROBE_CARRIERS)
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

static int t_carrier_move_unlocked(void)
{
	struct task_struct *busy, *reg;
	struct kprobe kp1, kp4;
	int cpu, me;
	u8 *next;

	/* on this CPU throughout: a !PREEMPT kernel never takes the busy one */
	migrate_disable();
	me = smp_processor_id();
	cpu = cpumask_any_but(cpu_online_mask, me);
	if (cpu >= nr_cpu_ids) {
		migrate_enable();
		return KPT_SKIP_BECAUSE("this boot: needs 2 online CPUs");
	}
	/* a hook earlier cases left lingering would be taken over instead */
	msleep(600);
	next = (u8 *)kpt_target_entry +
	       (has_endbr((void *)kpt_target_entry) ? 4 : 0) + MCOUNT_INSN_SIZE;
	target_probe(&kp1, false);
	if (!KPT_EXPECT_EQ(register_kprobe(&kp1), 0))
		goto out0;
	KPT_EXPECT_EQ(*next, INT3_INSN_OPCODE);		/* carried */
	init_probe(&mover_kp3);
	mover_kp3.addr = (kprobe_opcode_t *)next;
	mover_kp3.pre_handler = kp3_pre;
	mover_kp3_ret = -EINPROGRESS;
	atomic_set(&kp3_hits, 0);
	reinit_completion(&kp3_registered);
	WRITE_ONCE(busy_done, false);
	busy = kthread_create(busy_fn, NULL, "kpt_busy");
	if (!KPT_EXPECT(!IS_ERR(busy)))
		goto out1;
	kthread_bind(busy, cpu);
	wake_up_process(busy);
	msleep(20);
	reg = kthread_create(register_kp3_fn, NULL, "kpt_register");
	if (!KPT_EXPECT(!IS_ERR(reg)))
		goto out2;
	kthread_bind(reg, me);
	wake_up_process(reg);
	msleep(100);	/* the move's wait is under way now */
	init_probe(&kp4);
	kp4.addr = (kprobe_opcode_t *)kpt_asm_add;
	kp4.pre_handler = pre_record;
	KPT_EXPECT_EQ(register_kprobe(&kp4), 0);
	unregister_kprobe(&kp4);
	/* done while the busy thread still held the move's wait off */
	KPT_EXPECT(!READ_ONCE(busy_done));
	wait_for_completion(&kp3_registered);
	kthread_stop(reg);
	KPT_EXPECT_EQ(mover_kp3_ret, 0);
	reset();
	KPT_EXPECT_EQ(call_target(3, 4), 3 * 31 + 4);
	KPT_EXPECT_EQ(h.pre, 1);				/* kp1, hooked */
	KPT_EXPECT_EQ(atomic_read(&kp3_hits), mover_kp3_ret ? 0 : 1);
	if (!mover_kp3_ret)
		unregister_kprobe(&mover_kp3);
out2:
	kthread_stop(busy);
out1:
	unregister_kprobe(&kp1);
out0:
	migrate_enable();
	return kpt_failed;
}

/*
 * debug.kprobes-carriers=0 turns carriers off for what is registered
 * from then on, and moves the carriers there are onto their hooks: the
 * bytes after the nop come back, and every call is still seen.
 */
static int t_carrier_sysctl_off(void)
{
	u8 *next = (u8 *)kpt_target_entry +
		   (has_endbr((void *)kpt_target_entry) ? 4 : 0) + MCOUNT_INSN_SIZE;
	u8 orig = *next;
	struct kprobe kp;
	int i;

	msleep(600);	/* no hook left lingering: the probe is carried */
	target_probe(&kp, false);
	if (!KPT_EXPECT_EQ(register_kprobe(&kp), 0))
		return 1;
	KPT_EXPECT_EQ(*next, INT3_INSN_OPCODE);
	KPT_EXPECT_EQ(kpt_set_carriers(0), 0);
	for (i = 0; i < 500 && READ_ONCE(*next) != orig; i++)
		msleep(20);
	pr_info("# moved after about %d ms\n", i * 20);
	KPT_EXPECT_EQ(*next, orig);
	reset();
	KPT_EXPECT_EQ(call_target(3, 4), 3 * 31 + 4);
	KPT_EXPECT_EQ(h.pre, 1);
	KPT_EXPECT_EQ(h.pre_ip, (unsigned long)kp.addr + 1);
	KPT_EXPECT_EQ(kpt_set_carriers(1), 0);
	unregister_kprobe(&kp);
	KPT_EXPECT_EQ(kp.nmissed, 0);
	return kpt_failed;
}

/*
 * A probe inside the jump a carrier was made (its region) takes the jump
 * away; the carrier, an int3 again, then hands its entry to the hook in
 * the background, as one that never got a jump does: both probes see
 * every call, and the bytes after the nop are the original ones again.
 */
static int t_carrier_region_probe(void)
{
	u8 *next = (u8 *)kpt_target_entry +
		   (has_endbr((void *)kpt_target_entry) ? 4 : 0) + MCOUNT_INSN_SIZE;
	u8 orig = *next;
	struct kprobe kp, kin;
	int i, ret = -EILSEQ;

	msleep(600);	/* no hook left lingering: the probe is carried */
	target_probe(&kp, false);
	if (!KPT_EXPECT_EQ(register_kprobe(&kp), 0))
		return 1;
	wait_for_kprobe_optimizer();
	if (!kprobe_optimized(&kp)) {
		unregister_kprobe(&kp);
		return KPT_SKIP_BECAUSE("this boot: the carrier got no jump");
	}
	/* the next instruction boundary in the jump's five bytes */
	for (i = 1; i < JMP32_INSN_SIZE && ret == -EILSEQ; i++) {
		init_probe(&kin);
		kin.addr = (kprobe_opcode_t *)(next + i);
		kin.pre_handler = pre_record;
		ret = register_kprobe(&kin);
	}
	if (ret == -EILSEQ) {
		unregister_kprobe(&kp);
		return KPT_SKIP_BECAUSE("this boot: one instruction covers the jump");
	}
	if (!KPT_EXPECT_EQ(ret, 0)) {
		unregister_kprobe(&kp);
		return 1;
	}
	KPT_EXPECT(!kprobe_optimized(&kp));
	for (i = 0; i < 500 && READ_ONCE(*next) != orig; i++)
		msleep(20);
	pr_info("# on the hook after about %d ms\n", i * 20);
	KPT_EXPECT_EQ(*next, orig);
	reset();
	KPT_EXPECT_EQ(call_target(3, 4), 3 * 31 + 4);
	KPT_EXPECT_EQ(h.pre, 2);
	unregister_kprobe(&kin);
	unregister_kprobe(&kp);
	KPT_EXPECT_EQ(kp.nmissed + kin.nmissed, 0);
	return kpt_failed;
}
#else
#define t_carrier_move_unlocked		t_carrier_none
#define t_carrier_sysctl_off		t_carrier_none
#define t_carrier_region_probe		t_carrier_none
#endif

#if defined(CONFIG_X86) && defined(CONFIG_FUNCTION_TRACER)
DEFINE_STATIC_KEY_FALSE(kpt_jl_key);

/*
 * An entry probe on a function whose instruction after the fentry nop
 * is also reached from elsewhere, in a way decoding the function cannot
 * see: from its cold part, or from a static branch, a nop until its key
 * is turned on (kpt_carrier_targets.S).  The probe counts the calls, and
 * only them: on the hook, as upstream's is; ours makes no carrier there
 * (its int3 would count every pass through that instruction).
 */
static int afar_case(int (*fn)(int, int), int (*afar)(int, int))
{
	u8 *next = (u8 *)fn + (has_endbr(fn) ? 4 : 0) + MCOUNT_INSN_SIZE;
	int i, calls = 0, want;
	u8 orig = *next;
	struct kprobe kp;

	if (!IS_ENABLED(CONFIG_KPROBES_ON_FTRACE))
		return KPT_SKIP_BECAUSE(KPT_NO_FTRACE_SITES);
	msleep(600);	/* no hook an earlier case left lingering */
	init_probe(&kp);
	kp.addr = (kprobe_opcode_t *)fn;
	kp.pre_handler = pre_record;
	if (!KPT_EXPECT_EQ(register_kprobe(&kp), 0))
		return 1;
	KPT_EXPECT(kp.flags & KPROBE_FLAG_FTRACE);
#ifdef KPROBES_ANEW
	wait_for_kprobe_optimizer();	/* a carrier would have its jump now */
#endif
	KPT_EXPECT_EQ(*next, orig);		/* no carrier's int3 or jump */
	if (!afar)
		static_branch_enable(&kpt_jl_key);
	reset();
	for (i = 0; i < 10; i++) {
		want = afar ? i + 1 : i;
		KPT_EXPECT_EQ(fn(i, 1), want);
		calls++;
		if (afar)
			KPT_EXPECT_EQ(afar(i, 1), want);
	}
	if (!afar)
		static_branch_disable(&kpt_jl_key);
	KPT_EXPECT_EQ(h.pre, calls);
	KPT_EXPECT_EQ(h.pre_ip, (unsigned long)kp.addr + KPT_TRAP_IP_OFF);
	KPT_EXPECT_EQ(h.pre_di, 9);
	unregister_kprobe(&kp);
	KPT_EXPECT_EQ(kp.nmissed, 0);
	KPT_EXPECT_EQ(*next, orig);
	return kpt_failed;
}

static int t_entry_cold_part(void)
{
	return afar_case(kpt_cold_target, kpt_cold_part);
}

static int t_entry_static_branch(void)
{
	return afar_case(kpt_jl_target, NULL);
}
#elif defined(CONFIG_X86)
static int t_no_fentry(void)
{
	return KPT_SKIP_BECAUSE(KPT_NO_FTRACE_SITES);
}

#define t_entry_cold_part	t_no_fentry
#define t_entry_static_branch	t_no_fentry
#endif

static int t_batch_rollback(void)
{
	static struct kprobe kp[3];
	struct kprobe *kps[3];
	int i;

	for (i = 0; i < 3; i++) {
		init_probe(&kp[i]);
		kps[i] = &kp[i];
		kp[i].pre_handler = pre_record;
	}
	kp[0].addr = (kprobe_opcode_t *)kpt_asm_add;
	kp[1].addr = (kprobe_opcode_t *)kpt_target;
	kp[2].symbol_name = "kpt_no_such_symbol";
	reset();
	if (!KPT_EXPECT_EQ(register_kprobes(kps, 3), -ENOENT))
		return 1;
	KPT_EXPECT(!registered(&kp[2]));
	call_asm(1);
	call_target(1, 1);
	KPT_EXPECT_EQ(h.pre, 0);	/* the first two were rolled back */

	/* rolled-back probes can be registered again */
	init_probe(&kp[0]);
	kp[0].addr = (kprobe_opcode_t *)kpt_asm_add;
	kp[0].pre_handler = pre_record;
	if (!KPT_EXPECT_EQ(register_kprobe(&kp[0]), 0))
		return 1;
	call_asm(1);
	unregister_kprobe(&kp[0]);
	KPT_EXPECT_EQ(h.pre, 1);
	return kpt_failed;
}

/* Each bad registration gets its errno and leaves nothing armed. */
static int bad(struct kprobe *kp, int want)
{
	int ret = register_kprobe(kp);

	if (ret != want) {
		pr_info("# register %s%s+%u addr %pS: got %d, want %d\n",
			kp->symbol_name ?: "", kp->symbol_name ? "" : "(addr)",
			kp->offset, kp->addr, ret, want);
		if (!ret)
			unregister_kprobe(kp);
		return -1;
	}
	if (registered(kp)) {
		pr_info("# failed register left the probe listed\n");
		return -1;
	}
	return 0;
}

static int t_bad_input(void)
{
	struct kprobe kp, good;
	int fails = 0;

	KPT_EXPECT_EQ(register_kprobes(NULL, 0), -EINVAL);

	init_probe(&kp);		/* neither addr nor symbol */
	kp.pre_handler = pre_record;
	fails += bad(&kp, -EINVAL);

	init_probe(&kp);		/* both addr and symbol */
	kp.addr = (kprobe_opcode_t *)kpt_target;
	kp.symbol_name = "kpt_target";
	fails += bad(&kp, -EINVAL);

	init_probe(&kp);		/* unknown symbol */
	kp.symbol_name = "kpt_no_such_symbol";
	fails += bad(&kp, -ENOENT);

	init_probe(&kp);		/* module not loaded */
	kp.symbol_name = "kpt_no_such_module:kpt_target";
	fails += bad(&kp, -ENOENT);

	init_probe(&kp);		/* inside the 10-byte movabs */
	kp.addr = (kprobe_opcode_t *)(kpt_asm_mov + 1);
	fails += bad(&kp, -EILSEQ);

	init_probe(&kp);		/* same, by symbol+offset */
	kp.symbol_name = "kpt_asm";
	kp.offset = kpt_asm_off_mov + 3;
	fails += bad(&kp, -EILSEQ);

	init_probe(&kp);		/* mov from %ss, just before: accepted */
	kp.addr = (kprobe_opcode_t *)kpt_asm_ss;
	kp.pre_handler = pre_record;
	if (KPT_EXPECT_EQ(register_kprobe(&kp), 0))
		unregister_kprobe(&kp);

	init_probe(&kp);		/* mov to %ss: not single-stepped */
	kp.addr = (kprobe_opcode_t *)((char *)kpt_asm_ss + kpt_asm_ss_off);
	fails += bad(&kp, -EINVAL);

	init_probe(&kp);		/* NOKPROBE_SYMBOL() in the kernel */
	kp.symbol_name = "notifier_call_chain";
	fails += bad(&kp, -EINVAL);

	init_probe(&kp);		/* .kprobes.text of this module */
	kp.addr = (kprobe_opcode_t *)kpt_in_kprobes_text;
	fails += bad(&kp, -EINVAL);

	init_probe(&kp);		/* entry text */
	kp.symbol_name = IS_ENABLED(CONFIG_X86_64) ? "entry_SYSCALL_64" :
						     "entry_INT80_32";
	fails += bad(&kp, -EINVAL);

	init_probe(&kp);		/* .noinstr.text */
	kp.symbol_name = "exc_int3";
	fails += bad(&kp, -EINVAL);

	init_probe(&good);
	good.addr = (kprobe_opcode_t *)kpt_asm_add;
	good.pre_handler = pre_record;
	if (!KPT_EXPECT_EQ(register_kprobe(&good), 0))
		return 1;

	/* unregistering a probe never registered changes nothing */
	init_probe(&kp);
	kp.addr = (kprobe_opcode_t *)kpt_asm_add;
	kp.pre_handler = pre_record;
	unregister_kprobe(&kp);
	reset();
	KPT_EXPECT_EQ(call_asm(3), KPT_ASM_BASE + 3);
	KPT_EXPECT_EQ(h.pre, 1);
	unregister_kprobe(&good);
	reset();
	call_asm(3);
	KPT_EXPECT_EQ(h.pre, 0);
	KPT_EXPECT_EQ(call_kprobes_text(1), 2);
	KPT_EXPECT_EQ(fails, 0);
	return kpt_failed;
}

/* ---- text another patcher owns ------------------------------------------- */

/*
 * A jump label, a static call and a WARN() in this module: their sites are
 * listed in this module's own tables (struct module), which is how the
 * test finds their addresses without decoding anything.
 */
static DEFINE_STATIC_KEY_FALSE(kpt_key);

static noinline int kpt_jump_label_fn(int x)
{
	if (static_branch_unlikely(&kpt_key))
		return x + 2;
	return x + 1;
}

static int kpt_sc_impl(int x)
{
	return x + 1;
}

DEFINE_STATIC_CALL(kpt_sc, kpt_sc_impl);

static noinline int kpt_static_call_fn(int x)
{
	return static_call(kpt_sc)(x);
}

static noinline int kpt_warn_fn(int x)
{
	WARN_ON_ONCE(x == -12345);	/* never true: only its ud2 site counts */
	return x + 1;
}

int (*call_jump_label_fn)(int) = kpt_jump_label_fn;
int (*call_static_call_fn)(int) = kpt_static_call_fn;
int (*call_warn_fn)(int) = kpt_warn_fn;

/*
 * The module's patched sites inside [fn, fn + KPT_SITE_WINDOW): not simply
 * the first entry of each table, since a distribution config adds sites of
 * its own to the module (might_resched() is a static call under
 * PREEMPT_DYNAMIC, WARN()s and jump labels come with inlined helpers).
 */
#define KPT_SITE_WINDOW 64

static bool in_window(unsigned long site, void *fn)
{
	return site > (unsigned long)fn &&
	       site < (unsigned long)fn + KPT_SITE_WINDOW;
}

#ifdef CONFIG_HAVE_STATIC_CALL_INLINE
/* a static call site's address (its table holds it relative) */
static unsigned long static_call_addr(struct static_call_site *site)
{
	return (unsigned long)&site->addr + site->addr;
}
#endif

#ifdef CONFIG_GENERIC_BUG
/* a BUG()/WARN() site's address, as lib/bug.c reads it */
static unsigned long bug_entry_addr(struct bug_entry *bug)
{
#ifdef CONFIG_GENERIC_BUG_RELATIVE_POINTERS
	return (unsigned long)&bug->bug_addr_disp + bug->bug_addr_disp;
#else
	return bug->bug_addr;
#endif
}
#endif

static unsigned long jump_label_site_in(void *fn)
{
#ifdef CONFIG_JUMP_LABEL
	unsigned int i;

	for (i = 0; i < THIS_MODULE->num_jump_entries; i++) {
		unsigned long site = jump_entry_code(&THIS_MODULE->jump_entries[i]);

		if (in_window(site, fn))
			return site;
	}
#endif
	return 0;
}

static unsigned long static_call_site_in(void *fn)
{
#ifdef CONFIG_HAVE_STATIC_CALL_INLINE
	unsigned int i;

	for (i = 0; i < THIS_MODULE->num_static_call_sites; i++) {
		unsigned long addr =
			static_call_addr(&THIS_MODULE->static_call_sites[i]);

		if (in_window(addr, fn))
			return addr;
	}
#endif
	return 0;
}

static unsigned long bug_site_in(void *fn)
{
#ifdef CONFIG_GENERIC_BUG
	unsigned int i;

	for (i = 0; i < THIS_MODULE->num_bugs; i++) {
		unsigned long addr = bug_entry_addr(&THIS_MODULE->bug_table[i]);

		if (in_window(addr, fn))
			return addr;
	}
#endif
	return 0;
}

/*
 * Jump labels and static calls rewrite their sites at run time and a
 * BUG()/WARN() site is a ud2 that must trap as itself: registration refuses
 * them, ours with -EBUSY for a site another patcher owns and -EINVAL for
 * the ud2 (upstream answers -EINVAL to all three), and nothing is armed.
 */
static int t_bad_input_patched_sites(void)
{
	int busy = upstream ? -EINVAL : -EBUSY;
	unsigned long jl = jump_label_site_in(call_jump_label_fn);
	unsigned long sc = static_call_site_in(call_static_call_fn);
	unsigned long bug = bug_site_in(call_warn_fn);
	struct kprobe kp;
	int fails = 0;

	/* each function has its site in its first KPT_SITE_WINDOW bytes */
	if (!KPT_EXPECT(IS_ENABLED(CONFIG_JUMP_LABEL) && jl))
		return 1;
	/* 32-bit x86 has no inline static calls (no objtool): none to refuse */
	if (!KPT_EXPECT(!IS_ENABLED(CONFIG_HAVE_STATIC_CALL_INLINE) || sc))
		return 1;
	if (!KPT_EXPECT(bug))
		return 1;

	init_probe(&kp);
	kp.addr = (kprobe_opcode_t *)jl;
	kp.pre_handler = pre_record;
	fails += bad(&kp, busy);

	if (sc) {
		init_probe(&kp);
		kp.addr = (kprobe_opcode_t *)sc;
		kp.pre_handler = pre_record;
		fails += bad(&kp, busy);
	}

	init_probe(&kp);
	kp.addr = (kprobe_opcode_t *)bug;
	kp.pre_handler = pre_record;
	fails += bad(&kp, -EINVAL);
	KPT_EXPECT_EQ(fails, 0);

	/* nothing was armed: the functions run as before, no handler */
	reset();
	KPT_EXPECT_EQ(call_jump_label_fn(1), 2);
	static_branch_enable(&kpt_key);
	KPT_EXPECT_EQ(call_jump_label_fn(1), 3);
	static_branch_disable(&kpt_key);
	KPT_EXPECT_EQ(call_static_call_fn(4), 5);
	KPT_EXPECT_EQ(call_warn_fn(7), 8);
	KPT_EXPECT_EQ(h.pre, 0);
	return kpt_failed;
}

/*
 * kallsyms_lookup_name() is not exported to modules; registering a probe
 * on it resolves its address (moved past an ENDBR, as every entry probe).
 */
static unsigned long kpt_lookup(const char *name)
{
	static unsigned long (*kln)(const char *name);
	struct kprobe kp;

	if (!kln) {
		init_probe(&kp);
		kp.symbol_name = "kallsyms_lookup_name";
		if (register_kprobe(&kp))
			return 0;
		unregister_kprobe(&kp);
		kln = (void *)kp.addr;
#ifdef CONFIG_X86_KERNEL_IBT
		if (is_endbr(*(u32 *)((unsigned long)kln - ENDBR_INSN_SIZE)))
			kln = (void *)((unsigned long)kln - ENDBR_INSN_SIZE);
#endif
	}
	return kln(name);
}

struct kpt_core_tally {
	int armed;	/* registered: must never happen */
	int busy;	/* -EBUSY */
	int inval;	/* -EINVAL */
	int other;
};

static void kpt_core_try(struct kpt_core_tally *t, unsigned long addr)
{
	struct kprobe kp;
	int ret;

	init_probe(&kp);
	kp.addr = (kprobe_opcode_t *)addr;
	kp.pre_handler = pre_record;
	ret = register_kprobe(&kp);
	if (!ret) {
		unregister_kprobe(&kp);
		pr_info("# armed a patched site at %pS\n", (void *)addr);
		t->armed++;
	} else if (ret == -EBUSY) {
		t->busy++;
	} else if (ret == -EINVAL) {
		t->inval++;
	} else {
		t->other++;
	}
}

/*
 * Every jump label, static call and BUG() site of the kernel itself (not
 * of a module, which t_bad_input_patched_sites covers): registration
 * refuses each, and a byte inside a 5-byte site too.  Ours answers -EBUSY
 * for a patched site unless the function is blacklisted (-EINVAL first),
 * and -EINVAL for a ud2; upstream answers -EINVAL or -EILSEQ.  Ours finds
 * them in sorted indexes (kernel/kprobes_index.c): a site the index
 * missed would be armed here.
 */
static int t_core_patched_sites(void)
{
	unsigned long stext = kpt_lookup("_stext"), etext = kpt_lookup("_etext");
	struct kpt_core_tally jl = {}, sc = {}, bug = {};
	void *start, *stop;

	if (!stext || !etext)
		return KPT_SKIP_BECAUSE(upstream ? "no kallsyms_lookup_name" :
			"no _stext in kallsyms (this boot: no KALLSYMS_ALL)");
#ifdef CONFIG_JUMP_LABEL
	start = (void *)kpt_lookup("__start___jump_table");
	stop = (void *)kpt_lookup("__stop___jump_table");
	for (struct jump_entry *je = start; je && je < (struct jump_entry *)stop; je++) {
		unsigned long code = jump_entry_code(je);

		if (code < stext || code >= etext)
			continue;	/* init text, gone */
		kpt_core_try(&jl, code);
		/* a 5-byte site (jmp rel32, nopl): one of its inner bytes too */
		if (*(u8 *)code == 0xe9 || *(u8 *)code == 0x0f)
			kpt_core_try(&jl, code + 2);
	}
#endif
#ifdef CONFIG_HAVE_STATIC_CALL_INLINE
	start = (void *)kpt_lookup("__start_static_call_sites");
	stop = (void *)kpt_lookup("__stop_static_call_sites");
	for (struct static_call_site *site = start;
	     site && site < (struct static_call_site *)stop; site++) {
		unsigned long addr = static_call_addr(site);

		if (addr < stext || addr >= etext)
			continue;
		kpt_core_try(&sc, addr);
		kpt_core_try(&sc, addr + 4);
	}
#endif
#ifdef CONFIG_GENERIC_BUG
	start = (void *)kpt_lookup("__start___bug_table");
	stop = (void *)kpt_lookup("__stop___bug_table");
	for (struct bug_entry *b = start; b && b < (struct bug_entry *)stop; b++) {
		unsigned long addr = bug_entry_addr(b);

		if (addr < stext || addr >= etext)
			continue;
		kpt_core_try(&bug, addr);
	}
#endif
	pr_info("# jump labels: %d busy %d inval %d other; static calls: %d busy %d inval %d other; bugs: %d inval %d other\n",
		jl.busy, jl.inval, jl.other, sc.busy, sc.inval, sc.other,
		bug.inval, bug.busy + bug.other);
	KPT_EXPECT_EQ(jl.armed + sc.armed + bug.armed, 0);
	KPT_EXPECT(jl.busy + jl.inval + jl.other > 0);
	KPT_EXPECT(bug.inval > 0);
	KPT_EXPECT_EQ(bug.busy + bug.other, 0);
	if (!upstream) {
		/* only blacklisted text answers -EINVAL before -EBUSY */
		KPT_EXPECT_EQ(jl.other + sc.other, 0);
		KPT_EXPECT(jl.busy > jl.inval);
		KPT_EXPECT(!IS_ENABLED(CONFIG_HAVE_STATIC_CALL_INLINE) || sc.busy > 0);
	}
	return kpt_failed;
}

/*
 * A lock prefix listed in .smp_locks belongs to alternatives only while
 * the kernel runs uniprocessor with a CPU that may still come up (boot
 * with maxcpus=1): the prefix is then a nop that a CPU hotplug turns back
 * into lock, and registration refuses it.  On an SMP boot nothing ever
 * rewrites it again, and a probe there single-steps the locked increment.
 */
static int t_alternatives_lock_prefix(void)
{
	void (*call_lock)(long *) = kpt_asm_lock;
	bool up = num_online_cpus() == 1 && num_possible_cpus() > 1;
	/*
	 * lock incq (%rdi) or lock incl (%eax); a CONFIG_SMP=n kernel has no
	 * LOCK_PREFIX
	 */
	int len = (IS_ENABLED(CONFIG_SMP) ? 1 : 0) +
		  (IS_ENABLED(CONFIG_X86_64) ? 3 : 2);
	struct kprobe kp;
	long v = 5;

	OPTIMIZER_HIDE_VAR(call_lock);	/* a real call to it */
	init_probe(&kp);
	kp.addr = (kprobe_opcode_t *)((char *)call_lock + kpt_asm_lock_off);
	kp.pre_handler = pre_record;
	kp.post_handler = post_record;
	pr_info("# %s: lock prefix %s (byte %02x)\n",
		!IS_ENABLED(CONFIG_SMP) ? "CONFIG_SMP=n kernel" :
		up ? "uniprocessor boot" : "SMP boot",
		!IS_ENABLED(CONFIG_SMP) ? "not built" :
		up ? "owned by alternatives" : "fixed", *(u8 *)kp.addr);
	if (up && upstream && !register_kprobe(&kp)) {
		unregister_kprobe(&kp);
		return KPT_SKIP_BECAUSE("upstream accepts it: it asks an empty range");
	}
	if (up) {
		KPT_EXPECT_EQ(bad(&kp, -EBUSY), 0);
		reset();
		call_lock(&v);
		KPT_EXPECT_EQ(v, 6);
		KPT_EXPECT_EQ(h.pre, 0);
		return kpt_failed;
	}
	if (!KPT_EXPECT_EQ(register_kprobe(&kp), 0))
		return 1;
	reset();
	call_lock(&v);
	unregister_kprobe(&kp);
	KPT_EXPECT_EQ(v, 6);
	KPT_EXPECT_EQ(h.pre, 1);
	KPT_EXPECT_EQ(h.post, 1);
	/* post_handler sees the IP after the locked increment */
	KPT_EXPECT_EQ(h.post_ip, (unsigned long)kp.addr + len);
	return kpt_failed;
}

static int t_double_register(void)
{
	struct kprobe kp;

	if (upstream)
		return KPT_SKIP_BECAUSE("upstream WARNs on it (warn_kprobe_rereg)");
	init_probe(&kp);
	kp.addr = (kprobe_opcode_t *)kpt_asm_add;
	kp.pre_handler = pre_record;
	if (!KPT_EXPECT_EQ(register_kprobe(&kp), 0))
		return 1;
	KPT_EXPECT_EQ(register_kprobe(&kp), -EINVAL);
	reset();
	call_asm(3);
	KPT_EXPECT_EQ(h.pre, 1);	/* still armed once, not twice */
	unregister_kprobe(&kp);
	reset();
	call_asm(3);
	KPT_EXPECT_EQ(h.pre, 0);
	return kpt_failed;
}

#endif /* CONFIG_X86 */

/* ---- kretprobes ----------------------------------------------------------- */

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

static int t_kretprobe_return_value(void)
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
static int t_kretprobe_disable_enable(void)
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
static int t_kretprobe_nmissed_recursion(void)
{
	struct kretprobe rp;

	if (!KPT_EXPECT_EQ(register_recurse_rp(&rp), 0))
		return 1;
	KPT_EXPECT_EQ(call_recurse(3), 3);
	unregister_kretprobe(&rp);
	KPT_EXPECT_EQ(rh.last_ret, 3);	/* the outermost return */
	if (upstream) {
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
static int t_kretprobe_spare_bound(void)
{
	struct kretprobe rp;
	unsigned long flags;
	int missed;

	if (upstream)
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

static int t_kretprobe_sleeping_function(void)
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
static int t_kretprobe_bad_input(void)
{
	struct kretprobe rp = { .handler = ret_handler };

	KPT_EXPECT_EQ(register_kretprobe(&rp), -EINVAL);	/* no target */
	rp.kp.symbol_name = "kpt_no_such_symbol";
	KPT_EXPECT_EQ(register_kretprobe(&rp), -ENOENT);
	rp.kp.symbol_name = "kpt_asm";
	rp.kp.offset = kpt_asm_off_add;
	KPT_EXPECT_EQ(register_kretprobe(&rp), -EINVAL);	/* not at entry */
	return kpt_failed;
}

/* ---- SMP: hits on another CPU while probes come and go ---------------- */

static atomic_t hammer_calls, hammer_errors, hammer_hits;

static int hammer_pre(struct kprobe *p, struct pt_regs *regs)
{
	atomic_inc(&hammer_hits);
	return 0;
}

static void hammer_post(struct kprobe *p, struct pt_regs *regs,
			unsigned long flags)
{
	if (regs->ax != KPT_ASM_BASE + KPT_ASM_X(regs))
		atomic_inc(&hammer_errors);
}

static int hammer_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	atomic_inc(&hammer_hits);
	return 0;
}

static int hammer_fn(void *unused)
{
	long i = 0;

	while (!kthread_should_stop()) {
		if (call_asm(i) != KPT_ASM_BASE + i)
			atomic_inc(&hammer_errors);
		if (call_target(i, 1) != i * 31 + 1)
			atomic_inc(&hammer_errors);
		atomic_inc(&hammer_calls);
		i = (i + 1) & 0xffff;	/* i * 31 + 1 stays an int */
		cond_resched();
	}
	return 0;
}

/*
 * The registering side runs in its own thread, so that the test can see
 * it stall rather than stall with it: on a preemptible kernel upstream's
 * optimizer holds kprobe_mutex (and text_mutex) across
 * synchronize_rcu_tasks(), which cannot end while the hammer thread never
 * switches voluntarily (cond_resched() does nothing under full
 * preemption), so every register and unregister waits for the hammer to
 * stop.  Ours waits for tasks outside its mutex (kprobes_opt.c).
 */
#define KPT_STALL_S	10
#define KPT_UPSTREAM_STALL						\
	"upstream stalls: its optimizer holds kprobe_mutex across "	\
	"synchronize_rcu_tasks(), which waits for the busy hammer thread"
static atomic_t registrar_rounds;
static DECLARE_COMPLETION(registrar_done);

static int registrar_fn(void *unused)
{
	static struct kprobe kp[2];
	static struct kretprobe rp;
	int round;

	for (round = 0; round < 50; round++) {
		struct kprobe *kps[2] = { &kp[0], &kp[1] };

		init_probe(&kp[0]);
		kp[0].addr = (kprobe_opcode_t *)kpt_asm_add;
		kp[0].pre_handler = hammer_pre;
		kp[0].post_handler = hammer_post;
		init_probe(&kp[1]);
		kp[1].addr = (kprobe_opcode_t *)kpt_asm_mov;
		kp[1].pre_handler = hammer_pre;
		memset(&rp, 0, sizeof(rp));
		rp.kp.addr = (kprobe_opcode_t *)kpt_target;
		rp.handler = hammer_ret;
		if (!KPT_EXPECT_EQ(register_kprobes(kps, 2), 0))
			break;
		if (!KPT_EXPECT_EQ(register_kretprobe(&rp), 0)) {
			unregister_kprobes(kps, 2);
			break;
		}
		if (round & 1)
			KPT_EXPECT_EQ(disable_kprobe(&kp[1]), 0);
		usleep_range(200, 400);
		unregister_kretprobe(&rp);
		unregister_kprobes(kps, 2);
		atomic_inc(&registrar_rounds);
	}
	/* for every later wait: the stall check may already have seen it */
	complete_all(&registrar_done);
	return 0;
}

static int t_concurrent_hits_while_registering(void)
{
	struct task_struct *t, *r;
	int cpu, seen = 0, stalled_at = -1;
	unsigned long t0;

	cpu = cpumask_any_but(cpu_online_mask, raw_smp_processor_id());
	if (cpu >= nr_cpu_ids)
		return KPT_SKIP_BECAUSE("this boot: needs 2 online CPUs");
	atomic_set(&hammer_calls, 0);
	atomic_set(&hammer_errors, 0);
	atomic_set(&hammer_hits, 0);
	atomic_set(&registrar_rounds, 0);
	reinit_completion(&registrar_done);
	t = kthread_create(hammer_fn, NULL, "kpt_hammer");
	if (!KPT_EXPECT(!IS_ERR(t)))
		return 1;
	kthread_bind(t, cpu);
	wake_up_process(t);
	r = kthread_run(registrar_fn, NULL, "kpt_registrar");
	if (!KPT_EXPECT(!IS_ERR(r))) {
		kthread_stop(t);
		return 1;
	}

	/* a stall: no round ends for KPT_STALL_S while the hammer runs */
	while (!wait_for_completion_timeout(&registrar_done,
					    KPT_STALL_S * HZ)) {
		int now = atomic_read(&registrar_rounds);

		if (now == seen) {
			stalled_at = now;
			break;
		}
		seen = now;
	}
	t0 = jiffies;
	kthread_stop(t);
	wait_for_completion(&registrar_done);
	pr_info("# %d calls on CPU%d, %d handler hits, %d bad results, %d rounds\n",
		atomic_read(&hammer_calls), cpu, atomic_read(&hammer_hits),
		atomic_read(&hammer_errors), atomic_read(&registrar_rounds));
	if (stalled_at >= 0) {
		pr_info("# round %d stalled for %d s while the hammer ran; it went on %u ms after the hammer stopped\n",
			stalled_at, KPT_STALL_S, jiffies_to_msecs(jiffies - t0));
		if (upstream && IS_ENABLED(CONFIG_PREEMPTION))
			return KPT_SKIP_BECAUSE(KPT_UPSTREAM_STALL);
	}
	KPT_EXPECT_EQ(stalled_at, -1);
	KPT_EXPECT_EQ(atomic_read(&registrar_rounds), 50);
	KPT_EXPECT(atomic_read(&hammer_calls) > 0);
	KPT_EXPECT(atomic_read(&hammer_hits) > 0);
	KPT_EXPECT_EQ(atomic_read(&hammer_errors), 0);
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

static int t_kretprobe_unregister_while_live(void)
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

static int t_kretprobe_absurd_maxactive(void)
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

#ifdef CONFIG_X86	/* kprobes_api_targets.S: x86 code */
/*
 * A fault in the out-of-line copy is a fault of the original instruction:
 * its exception-table fixup applies, no post_handler runs, and nothing is
 * left of the hit (the next hit runs its handlers normally).
 */
/* once with a post_handler (single-step), once without (may be boosted) */
static int fault_in_copy(bool post)
{
	struct kprobe kp;
	long good = 4242;
	/* a vmalloc area's guard page: kernel address, never mapped (#PF) */
	char *area = vmalloc(PAGE_SIZE);
	long *bad = (long *)(area + PAGE_SIZE);

	if (!KPT_EXPECT(area))

		return 1;

	init_probe(&kp);
	kp.addr = (kprobe_opcode_t *)((char *)call_load + kpt_asm_load_off);
	kp.pre_handler = pre_record;
	kp.post_handler = post ? post_record : NULL;
	reset();
	if (!KPT_EXPECT_EQ(register_kprobe(&kp), 0))
		return 1;
	KPT_EXPECT_EQ(call_load(&good), 4242);
	KPT_EXPECT(h.pre == 1 && h.post == post);
	if (post)
		KPT_EXPECT_EQ(h.post_ax, 4242);

	KPT_EXPECT_EQ(call_load(bad), -EFAULT);
	KPT_EXPECT_EQ(h.pre, 2);	/* the probe was hit */
	KPT_EXPECT_EQ(h.post, post);	/* the instruction did not complete */

	/* a frame left behind would make this a re-entry: no handlers */
	KPT_EXPECT_EQ(call_load(&good), 4242);
	KPT_EXPECT(h.pre == 3 && h.post == 2 * post);

	unregister_kprobe(&kp);
	vfree(area);
	KPT_EXPECT_EQ(kp.nmissed, 0);
	return kpt_failed;
}

/*
 * A fault in the copied instruction, whose original has an exception-table
 * fixup, is fixed up as if the original had faulted; without a
 * post_handler too (such an instruction is never boosted: the fixup is
 * known only for the original address).
 */
static int t_fault_in_single_step(void)
{
	fault_in_copy(true);
	fault_in_copy(false);
	return kpt_failed;
}

/*
 * Pre-only probes may be boosted (no second trap); with a post_handler they
 * single-step.  Both must leave the same registers and results, the
 * RIP-relative load included (its copy's displacement is fixed).
 */
/* which of the two probes' post_handlers ran (if one does not, say which) */
static int agree_post[2];

static void agree_post_kp(struct kprobe *p, struct pt_regs *regs,
			  unsigned long flags)
{
	agree_post[0]++;
	post_record(p, regs, flags);
}

static void agree_post_kr(struct kprobe *p, struct pt_regs *regs,
			  unsigned long flags)
{
	agree_post[1]++;
	post_record(p, regs, flags);
}

static int t_boost_and_single_step_agree(void)
{
	long (*call_riprel)(long) = kpt_asm_riprel;
	unsigned long ax[2], di[2];
	struct kprobe kp, kr;
	int post;

	OPTIMIZER_HIDE_VAR(call_riprel);	/* a real call to it */
	for (post = 0; post < 2; post++) {
		init_probe(&kp);
		kp.addr = (kprobe_opcode_t *)kpt_asm_add;
		kp.pre_handler = pre_record;
		kp.post_handler = post ? agree_post_kp : NULL;
		init_probe(&kr);
		kr.addr = (kprobe_opcode_t *)call_riprel;
		kr.pre_handler = pre_record;
		kr.post_handler = post ? agree_post_kr : NULL;
		if (!KPT_EXPECT_EQ(register_kprobe(&kp), 0))
			return 1;
		if (register_kprobe(&kr)) {
			unregister_kprobe(&kp);
			if (!KPT_EXPECT(0))
				return 1;
		}
		reset();
		agree_post[0] = 0;
		agree_post[1] = 0;
		KPT_EXPECT_EQ(call_asm(5), KPT_ASM_BASE + 5);
		ax[post] = h.pre_ax;
		di[post] = h.pre_x;
		KPT_EXPECT_EQ(call_riprel(7), KPT_RIPREL_VAL + 7);
		KPT_EXPECT_EQ(h.pre, 2);
		KPT_EXPECT_EQ(h.post, 2 * post);
		KPT_EXPECT_EQ(agree_post[0], post);	/* the add's */
		KPT_EXPECT_EQ(agree_post[1], post);	/* the RIP-relative load's */
		if (post)	/* after the load: its register holds the value */
			KPT_EXPECT_EQ(h.post_load, KPT_RIPREL_VAL);
		/* many hits in a row: a boosted copy always comes back */
		KPT_EXPECT_EQ(call_asm(-1), KPT_ASM_BASE - 1);
		KPT_EXPECT_EQ(call_riprel(-7), KPT_RIPREL_VAL - 7);
		unregister_kprobe(&kr);
		unregister_kprobe(&kp);
		KPT_EXPECT_EQ(kp.nmissed + kr.nmissed, 0);
	}
	KPT_EXPECT_EQ(ax[0], ax[1]);
	KPT_EXPECT_EQ(di[0], 5);
	KPT_EXPECT_EQ(di[1], 5);
	return kpt_failed;
}

/*
 * #GP in the copy (a non-canonical address): 6.12's #GP path tries the
 * exception fixups before asking kprobes, so we apply the original
 * instruction's fixup ourselves.  Upstream does not (it would die here).
 */
static int t_gp_in_single_step(void)
{
#ifdef CONFIG_X86_64
	long *noncanon = (long *)0x8000000000000000UL;
#else
	long *noncanon = NULL;
#endif
	struct kprobe kp;
	long good = 77;

	if (!IS_ENABLED(CONFIG_X86_64))
		return KPT_SKIP_BECAUSE("32-bit x86 has no non-canonical address to #GP on");
	if (upstream)
		return KPT_SKIP_BECAUSE("upstream dies on a #GP in the copy (not run)");
	init_probe(&kp);
	kp.addr = (kprobe_opcode_t *)((char *)call_load + kpt_asm_load_off);
	kp.pre_handler = pre_record;
	kp.post_handler = post_record;
	reset();
	if (!KPT_EXPECT_EQ(register_kprobe(&kp), 0))
		return 1;
	KPT_EXPECT_EQ(call_load(noncanon), -EFAULT);
	KPT_EXPECT(h.pre == 1 && h.post == 0);
	KPT_EXPECT_EQ(call_load(&good), 77);
	KPT_EXPECT(h.pre == 2 && h.post == 1);
	unregister_kprobe(&kp);
	return kpt_failed;
}

/*
 * Each IP-changing instruction, probed (kprobes emulates them): results
 * unchanged, pre and post handlers run, and the post_handler sees ip
 * where the instruction sent it.
 */
static int branch_case(int which, long x, unsigned long want_ip)
{
	char *base = (char *)call_branch;
	struct kprobe kp;
	long want = x ? x + 3 : 100;
	int ret;

	init_probe(&kp);
	kp.addr = (kprobe_opcode_t *)(which == H_RET ?
		(char *)helper_fn + kpt_branch_off[H_RET] :
		base + kpt_branch_off[which]);
	kp.pre_handler = pre_record;
	kp.post_handler = post_record;
	reset();
	ret = register_kprobe(&kp);
	if (ret) {
		pr_info("# register at case %d (offset %d): %d\n", which,
			kpt_branch_off[which], ret);
		kpt_failed = 1;
		return ret;
	}
	KPT_EXPECT_EQ(call_branch(x, helper_fn), want);
	unregister_kprobe(&kp);
	KPT_EXPECT(h.pre >= 1 && h.post == h.pre);
	if (want_ip && !KPT_EXPECT_EQ(h.post_ip, want_ip))
		pr_info("# probe at offset %d of case %d\n", kpt_branch_off[which], which);
	return kpt_failed;
}

static int t_emulated_instructions(void)
{
	char *base = (char *)call_branch;
	unsigned long helper = (unsigned long)helper_fn;
	u8 *ret_site;

	branch_case(B_JZ, 5, (unsigned long)base + kpt_branch_off[B_CALL]);
	branch_case(B_JZ, 0, (unsigned long)base + kpt_branch_off[B_ZERO]);
	branch_case(B_CALL, 5, helper);
	branch_case(B_ICR, 5, helper);
	branch_case(B_JMP, 5, (unsigned long)base + kpt_branch_off[B_OUT]);
	/*
	 * The helper's RET, hit three times, returns to three call sites.
	 * Where the CPU needs a return thunk (Retbleed, SRSO), alternatives
	 * left RET as built: a jmp to the thunk, which is where it goes.
	 */
	branch_case(H_RET, 5, 0);
	KPT_EXPECT_EQ(h.pre, 3);
	ret_site = (u8 *)helper + kpt_branch_off[H_RET];
	if (*ret_site == 0xe9) {
		pr_info("# the helper's RET is a jmp to %ps\n",
			ret_site + 5 + *(s32 *)(ret_site + 1));
		KPT_EXPECT_EQ(h.post_ip, (unsigned long)ret_site + 5 +
			      *(s32 *)(ret_site + 1));
	} else {
		KPT_EXPECT_EQ(*ret_site, 0xc3);
		KPT_EXPECT_EQ(h.post_ip, (unsigned long)base + kpt_branch_off[B_JMP]);
	}
	return kpt_failed;
}

/* call *mem (rip-relative): ours emulates it, loading the target */
/* registers before and after one transfer instruction */
static struct { unsigned long sp, bp, di, ax, cx, r8, top; int n; } xf[2];

static int pre_xfer(struct kprobe *p, struct pt_regs *regs)
{
	xf[0] = (typeof(xf[0])){ regs->sp, regs->bp, regs->di, regs->ax,
				 regs->cx, KPT_XFER_R8(regs), 0, xf[0].n + 1 };
	return 0;
}

static void post_xfer(struct kprobe *p, struct pt_regs *regs,
		      unsigned long flags)
{
	xf[1] = (typeof(xf[1])){ regs->sp, regs->bp, regs->di, regs->ax,
				 regs->cx, KPT_XFER_R8(regs),
				 *(unsigned long *)regs->sp, xf[1].n + 1 };
}

/*
 * Register pushes and moves (ours emulates them: one trap even with a
 * post_handler; upstream single-steps them): the post_handler sees
 * exactly what the instruction did, and the function's result holds.
 */
static int t_emulated_transfers(void)
{
	long (*call_xfer)(long) = kpt_asm_xfer;
	const long x = KPT_XFER_X;
	struct kprobe kp;
	int i;

	OPTIMIZER_HIDE_VAR(call_xfer);	/* a real call to it */
	for (i = X_PUSH; i <= X_MOVR8; i++) {
		init_probe(&kp);
		kp.addr = (kprobe_opcode_t *)((char *)call_xfer + kpt_xfer_off[i]);
		kp.pre_handler = pre_xfer;
		kp.post_handler = post_xfer;
		memset(xf, 0, sizeof(xf));
		if (!KPT_EXPECT_EQ(register_kprobe(&kp), 0))
			return 1;
		KPT_EXPECT_EQ(call_xfer(x), 6);
		unregister_kprobe(&kp);
		if (!KPT_EXPECT(xf[0].n == 1 && xf[1].n == 1))
			continue;
		switch (i) {
		case X_PUSH:
			KPT_EXPECT_EQ(xf[1].sp, xf[0].sp - sizeof(long));
			KPT_EXPECT_EQ(xf[1].top, xf[0].bp);
			break;
		case X_MOV89:
			KPT_EXPECT_EQ(xf[1].bp, x);
			KPT_EXPECT_EQ(xf[1].sp, xf[0].sp);
			break;
		case X_MOV8B:
			KPT_EXPECT_EQ(xf[1].ax, x);
			break;
		case X_MOV32:
			KPT_EXPECT_EQ(xf[1].cx, 5);	/* upper half cleared */
			break;
		case X_MOVR8:
			KPT_EXPECT_EQ(xf[1].r8, 5);
			KPT_EXPECT_EQ(xf[1].cx, xf[0].cx);
			break;
		}
		KPT_EXPECT_EQ(kp.nmissed, 0);
	}
	return kpt_failed;
}

static int t_emulated_indirect_call_mem(void)
{
	int ret = branch_case(B_ICM, 5, (unsigned long)helper_fn);

	if (upstream && ret == -EOPNOTSUPP) {
		kpt_failed = 0;
		return KPT_SKIP_BECAUSE("upstream refuses to probe call *mem (-EOPNOTSUPP)");
	}
	KPT_EXPECT_EQ(ret, 0);
	return kpt_failed;
}

/* A handler may use the nofault accessors: their faults are its own. */
static long nofault_result;
static void *nofault_addr;

static int pre_nofault(struct kprobe *p, struct pt_regs *regs)
{
	long v;

	h.pre++;
	nofault_result = copy_from_kernel_nofault(&v, nofault_addr, sizeof(v));
	return 0;
}

static int t_fault_in_handler(void)
{
	char *area = vmalloc(PAGE_SIZE);
	struct kprobe kp;

	if (!KPT_EXPECT(area))

		return 1;
	nofault_addr = area + PAGE_SIZE;	/* the guard page: it faults */
	init_probe(&kp);
	kp.addr = (kprobe_opcode_t *)kpt_asm_add;
	kp.pre_handler = pre_nofault;
	kp.post_handler = post_record;
	reset();
	nofault_result = 0;
	if (!KPT_EXPECT_EQ(register_kprobe(&kp), 0)) {
		vfree(area);
		return 1;
	}
	KPT_EXPECT_EQ(call_asm(1), KPT_ASM_BASE + 1);
	unregister_kprobe(&kp);
	vfree(area);
	KPT_EXPECT_EQ(h.pre, 1);
	KPT_EXPECT_EQ(nofault_result, -EFAULT);
	KPT_EXPECT_EQ(h.post, 1);	/* the probed insn still completed */
	return kpt_failed;
}

#endif /* CONFIG_X86 */

static const struct kpt_case cases[] = {
	{ "register_by_addr", t_register_by_addr },
	{ "register_by_symbol", t_register_by_symbol },
	X86_CASE("symbol_offset_single_step", t_symbol_offset_single_step),
	X86_CASE("step_post_context", t_step_post_context),
	{ "pre_handler_changes_ip", t_pre_handler_changes_ip },
	X86_CASE("reentry_counts_nmissed", t_reentry_counts_nmissed),
	{ "reentry_ftrace_counts_nmissed", t_reentry_ftrace_counts_nmissed },
	X86_CASE("site_probes_change", t_site_probes_change),
	X86_CASE("disable_enable", t_disable_enable),
	X86_CASE("aggregate_probes", t_aggregate_probes),
	X86_CASE("aggregate_order_and_post", t_aggregate_order_and_post),
	X86_CASE("post_joins_hit_in_flight", t_post_joins_hit_in_flight),
	X86_CASE("batch_register", t_batch_register),
	X86_CASE("batch_rollback", t_batch_rollback),
	X86_CASE("ftrace_ops_switch", t_ftrace_ops_switch),
	X86_CASE("ftrace_leave_and_return", t_ftrace_leave_and_return),
	X86_CASE("carrier_entry", t_carrier_entry),
	X86_CASE("carrier_move_exact", t_carrier_move_exact),
	X86_CASE("carrier_background_move", t_carrier_background_move),
	X86_CASE("carrier_move_unlocked", t_carrier_move_unlocked),
	X86_CASE("carrier_sysctl_off", t_carrier_sysctl_off),
	X86_CASE("carrier_region_probe", t_carrier_region_probe),
	X86_CASE("entry_cold_part", t_entry_cold_part),
	X86_CASE("entry_static_branch", t_entry_static_branch),
	X86_CASE("ftrace_divert", t_ftrace_divert),
	X86_CASE("bad_input", t_bad_input),
	X86_CASE("bad_input_patched_sites", t_bad_input_patched_sites),
	X86_CASE("core_patched_sites", t_core_patched_sites),
	X86_CASE("alternatives_lock_prefix", t_alternatives_lock_prefix),
	X86_CASE("double_register", t_double_register),
	X86_CASE("emulated_instructions", t_emulated_instructions),
	X86_CASE("emulated_indirect_call_mem", t_emulated_indirect_call_mem),
	X86_CASE("emulated_transfers", t_emulated_transfers),
	X86_CASE("fault_in_single_step", t_fault_in_single_step),
	X86_CASE("boost_and_single_step_agree", t_boost_and_single_step_agree),
	X86_CASE("gp_in_single_step", t_gp_in_single_step),
	X86_CASE("fault_in_handler", t_fault_in_handler),
	{ "kretprobe_return_value", t_kretprobe_return_value },
	{ "kretprobe_disable_enable", t_kretprobe_disable_enable },
	{ "kretprobe_nmissed_recursion", t_kretprobe_nmissed_recursion },
	{ "kretprobe_spare_bound", t_kretprobe_spare_bound },
	{ "kretprobe_sleeping_function", t_kretprobe_sleeping_function },
	X86_CASE("kretprobe_bad_input", t_kretprobe_bad_input),
	{ "kretprobe_absurd_maxactive", t_kretprobe_absurd_maxactive },
	{ "kretprobe_unregister_while_live", t_kretprobe_unregister_while_live },
	X86_CASE("concurrent_hits_while_registering", t_concurrent_hits_while_registering),
};

static int __init kprobes_api_init(void)
{
	kpt_run_cases(cases, ARRAY_SIZE(cases));
	return 0;
}

static void __exit kprobes_api_exit(void)
{
}

module_init(kprobes_api_init);
module_exit(kprobes_api_exit);
MODULE_DESCRIPTION("kprobes public API tests (KTAP)");
MODULE_LICENSE("GPL");
