// SPDX-License-Identifier: GPL-2.0
/*
 * kprobes_api: registration, by address, by symbol (and offset) and in
 * batches; what the handlers see around the single-step; a pre_handler
 * that changes the IP; re-entry; disabling and enabling.
 */
#define pr_fmt(fmt) fmt

#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/ptrace.h>
#include <linux/stacktrace.h>
#include <linux/string.h>

#include "kprobes_api.h"

void kpt_register_by_addr(struct kunit *test)
{
	struct kprobe kp;
	int ret;

	kpt_target_probe(&kp, false);
	kpt_reset();
	ret = register_kprobe(&kp);
	KUNIT_ASSERT_EQ(test, ret, 0);
	/* An ENDBR at entry is stepped over: the probe sits after it. */
	KUNIT_EXPECT_EQ(test, (unsigned long)kp.addr, kpt_target_entry +
		      (kpt_has_endbr((void *)kpt_target_entry) ? 4 : 0));
	KUNIT_EXPECT_EQ(test, kpt_call_target(3, 4), 3 * 31 + 4);
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, kpt_h.pre, 1);
	KUNIT_EXPECT_EQ(test, kpt_h.pre_di, 3);
	KUNIT_EXPECT_EQ(test, kpt_h.pre_si, 4);
	/* x86 convention: ip as if the int3 at addr had just executed */
	KUNIT_EXPECT_EQ(test, kpt_h.pre_ip, (unsigned long)kp.addr + KPT_TRAP_IP_OFF);
	KUNIT_EXPECT_FALSE(test, kpt_h.pre_preemptible);
	KUNIT_EXPECT_EQ(test, kpt_call_target(3, 4), 3 * 31 + 4);
	KUNIT_EXPECT_EQ(test, kpt_h.pre, 1);	/* gone after unregister */
}

void kpt_register_by_symbol(struct kunit *test)
{
	struct kprobe kp;

	kpt_init_probe(&kp);
	kp.symbol_name = "kpt_target";
	kp.pre_handler = kpt_pre_record;
	kpt_reset();
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	kpt_call_target(1, 2);
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, kpt_h.pre, 1);
}

/* "MOD:sym" names the module */
void kpt_register_by_module_symbol(struct kunit *test)
{
	struct kprobe kp;

	KPT_NEEDS_MODULE(test);
	kpt_init_probe(&kp);
	kp.symbol_name = KBUILD_MODNAME ":kpt_target";
	kp.pre_handler = kpt_pre_record;
	kpt_reset();
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	kpt_call_target(1, 2);
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, kpt_h.pre, 1);
}

#ifdef CONFIG_X86	/* kprobes_api_targets.S: x86 code */
void kpt_symbol_offset_single_step(struct kunit *test)
{
	struct kprobe kp;
	long off = kpt_asm_off_add;

	/* probe the "add %rdi,%rax" by symbol+offset */
	kpt_init_probe(&kp);
	kp.symbol_name = "kpt_asm";
	kp.offset = off;
	kp.pre_handler = kpt_pre_record;
	kp.post_handler = kpt_post_record;
	kpt_reset();
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_EQ(test, (unsigned long)kp.addr, (unsigned long)kpt_asm_add);
	KUNIT_EXPECT_EQ(test, kpt_call_asm(5), KPT_ASM_BASE + 5);
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, kpt_h.pre, 1);
	KUNIT_EXPECT_EQ(test, kpt_h.post, 1);
	KUNIT_EXPECT_LT(test, kpt_h.pre_seq, kpt_h.post_seq);
	/* before the add: rax holds the constant; after it, the sum */
	KUNIT_EXPECT_EQ(test, kpt_h.pre_ax, KPT_ASM_BASE);
	KUNIT_EXPECT_EQ(test, kpt_h.pre_x, 5);
	KUNIT_EXPECT_EQ(test, kpt_h.post_ax, KPT_ASM_BASE + 5);
	KUNIT_EXPECT_EQ(test, kpt_h.post_ip, (unsigned long)kpt_asm_ret);
	KUNIT_EXPECT_TRUE(test, !kpt_h.pre_preemptible && !kpt_h.post_preemptible);
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
		if (str_has_prefix(sym, "kpt_step_post_context+"))
			sc.in_caller = true;
	}
}

noinline void kpt_step_post_context(struct kunit *test)
{
	struct kprobe kp;

	kpt_init_probe(&kp);
	kp.addr = (kprobe_opcode_t *)kpt_asm_add;
	kp.pre_handler = step_ctx_pre;
	kp.post_handler = step_ctx_post;
	memset(&sc, 0, sizeof(sc));
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_EQ(test, kpt_call_asm(7), KPT_ASM_BASE + 7);
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, kp.nmissed, 0);
	KUNIT_EXPECT_TRUE(test, sc.pre_sp && sc.post_sp == sc.pre_sp);
	/* interrupts were on where the call was made */
	KUNIT_EXPECT_TRUE(test, sc.pre_flags & X86_EFLAGS_IF);
	KUNIT_EXPECT_TRUE(test, sc.post_flags & X86_EFLAGS_IF);
	KUNIT_EXPECT_TRUE(test, sc.pre_irqs_off && sc.post_irqs_off);
	/*
	 * The guess unwinder (i386 without frame pointers) did not list the
	 * probed function in a post_handler's trace on either kernel, as it
	 * fails KUnit's test_stacktrace_on_nested_kretprobe on both.
	 */
	if (!IS_ENABLED(CONFIG_UNWINDER_GUESS))
		KUNIT_EXPECT_TRUE(test, sc.in_func);
	/*
	 * kpt_asm() has no frame: only ORC (x86_64) finds its caller from
	 * its registers; the frame-pointer unwinder (i386) goes on from the
	 * caller's caller, on stock as on ours.
	 */
	if (IS_ENABLED(CONFIG_UNWINDER_ORC))
		KUNIT_EXPECT_TRUE(test, sc.in_caller);
}

#endif /* CONFIG_X86 */

static int pre_redirect(struct kprobe *p, struct pt_regs *regs)
{
	kpt_h.pre++;
	instruction_pointer_set(regs, (unsigned long)kpt_alt);
	return 1;	/* ip changed: do not run the probed instruction */
}

void kpt_pre_handler_changes_ip(struct kunit *test)
{
	struct kprobe kp;

	kpt_init_probe(&kp);
	kp.addr = (kprobe_opcode_t *)kpt_target;
	kp.pre_handler = pre_redirect;
	kp.post_handler = kpt_post_record;
	kpt_reset();
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_EQ(test, kpt_call_target(3, 4), 3 * 1000 + 4);
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, kpt_h.pre, 1);
	KUNIT_EXPECT_EQ(test, kpt_h.post, 0);	/* skipped with the instruction */
	KUNIT_EXPECT_EQ(test, kpt_call_target(3, 4), 3 * 31 + 4);
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
	kpt_h.pre++;
	recursion_result = reenter_nested();	/* hits the same probe */
	return 0;
}

static void reentry_case(struct kunit *test, void *addr, bool ftrace,
			 long (*outer)(void), long want,
			 long (*nested)(void), long want_nested)
{
	struct kprobe kp;

	kpt_init_probe(&kp);
	kp.addr = addr;
	kp.pre_handler = pre_reenter;
	reenter_nested = nested;
	kpt_reset();
	recursion_result = 0;
	if (!KPT_CHECK_EQ(test, register_kprobe(&kp), 0))
		return;
	KUNIT_EXPECT_EQ(test, !!(kp.flags & KPROBE_FLAG_FTRACE), ftrace);
	KUNIT_EXPECT_EQ(test, outer(), want);
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, kpt_h.pre, 1);		/* the nested hit ran nothing */
	KUNIT_EXPECT_EQ(test, kp.nmissed, 1);
	KUNIT_EXPECT_EQ(test, recursion_result, want_nested);
}

#ifdef CONFIG_X86	/* kprobes_api_targets.S: x86 code */
static long reenter_asm_outer(void)
{
	return kpt_call_asm(1);
}

static long reenter_asm_nested(void)
{
	return kpt_call_asm(100);
}

#endif /* CONFIG_X86 */

static long reenter_entry_outer(void)
{
	return kpt_call_target(3, 4);
}

static long reenter_entry_nested(void)
{
	return kpt_call_target(5, 6);
}

#ifdef CONFIG_X86	/* kprobes_api_targets.S: x86 code */
void kpt_reentry_counts_nmissed(struct kunit *test)
{
	reentry_case(test, kpt_asm_add, false, reenter_asm_outer,
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
void kpt_reentry_ftrace_counts_nmissed(struct kunit *test)
{
	/*
	 * through ftrace where the arch has kprobes on it and a function's
	 * address is its ftrace site (x86; powerpc's is the global entry,
	 * before the ftrace call: a breakpoint there, on both kernels)
	 */
	reentry_case(test, (void *)kpt_target_entry,
		     IS_ENABLED(CONFIG_KPROBES_ON_FTRACE) &&
		     IS_ENABLED(CONFIG_X86),
		     reenter_entry_outer, 3 * 31 + 4,
		     reenter_entry_nested, 5 * 31 + 6);
}

#ifdef KPROBES_ANEW
static int fault_declined(struct kprobe *p, struct pt_regs *regs, int trapnr)
{
	return 0;
}
#endif

/*
 * A kprobe with a fault_handler (the seed's; 6.12 has none): x86's
 * backend calls it, so the probe registers and runs; a classic backend
 * never would, so the probe is refused, with -EOPNOTSUPP, and nothing is
 * left registered.
 */
void kpt_fault_handler_where_served(struct kunit *test)
{
#ifdef KPROBES_ANEW
	struct kprobe kp;
	int ret;

	kpt_init_probe(&kp);
	kp.addr = (kprobe_opcode_t *)kpt_target_entry;
	kp.pre_handler = kpt_pre_record;
	kp.fault_handler = fault_declined;
	kpt_reset();
	ret = register_kprobe(&kp);
	if (IS_ENABLED(CONFIG_KPROBES_CLASSIC)) {
		KUNIT_EXPECT_EQ(test, ret, -EOPNOTSUPP);
		KUNIT_EXPECT_FALSE(test, kpt_registered(&kp));
		KUNIT_EXPECT_EQ(test, kpt_call_target(1, 2), 33);
		KUNIT_EXPECT_EQ(test, kpt_h.pre, 0);
	} else if (KPT_CHECK_EQ(test, ret, 0)) {
		KUNIT_EXPECT_EQ(test, kpt_call_target(1, 2), 33);
		KUNIT_EXPECT_EQ(test, kpt_h.pre, 1);
		unregister_kprobe(&kp);
	}
#else
	kunit_skip(test, "upstream has no fault_handler");
#endif
}

#ifdef CONFIG_X86	/* kprobes_api_targets.S: x86 code */
void kpt_disable_enable(struct kunit *test)
{
	struct kprobe kp;

	kpt_init_probe(&kp);
	kp.addr = (kprobe_opcode_t *)kpt_asm_add;
	kp.pre_handler = kpt_pre_record;
	kpt_reset();
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_EQ(test, disable_kprobe(&kp), 0);
	KUNIT_EXPECT_TRUE(test, kprobe_disabled(&kp));
	KUNIT_EXPECT_EQ(test, kpt_call_asm(1), KPT_ASM_BASE + 1);
	KUNIT_EXPECT_EQ(test, kpt_h.pre, 0);
	KUNIT_EXPECT_EQ(test, enable_kprobe(&kp), 0);
	KUNIT_EXPECT_FALSE(test, kprobe_disabled(&kp));
	KUNIT_EXPECT_EQ(test, kpt_call_asm(1), KPT_ASM_BASE + 1);
	KUNIT_EXPECT_EQ(test, kpt_h.pre, 1);
	unregister_kprobe(&kp);

	/* registered disabled: armed only by enable_kprobe() */
	kpt_init_probe(&kp);
	kp.addr = (kprobe_opcode_t *)kpt_asm_add;
	kp.pre_handler = kpt_pre_record;
	kp.flags = KPROBE_FLAG_DISABLED;
	kpt_reset();
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	kpt_call_asm(1);
	KUNIT_EXPECT_EQ(test, kpt_h.pre, 0);
	KUNIT_EXPECT_EQ(test, enable_kprobe(&kp), 0);
	kpt_call_asm(1);
	KUNIT_EXPECT_EQ(test, kpt_h.pre, 1);
	unregister_kprobe(&kp);

	/* enable/disable of a probe that is not registered */
	KUNIT_EXPECT_EQ(test, enable_kprobe(&kp), -EINVAL);
	KUNIT_EXPECT_EQ(test, disable_kprobe(&kp), -EINVAL);
}

void kpt_batch_register(struct kunit *test)
{
	static struct kprobe kp[3];
	struct kprobe *kps[3];
	int i;

	for (i = 0; i < 3; i++) {
		kpt_init_probe(&kp[i]);
		kps[i] = &kp[i];
		kp[i].pre_handler = kpt_pre_record;
	}
	kp[0].addr = (kprobe_opcode_t *)kpt_asm_add;
	kp[1].addr = (kprobe_opcode_t *)kpt_asm_mov;
	kp[2].addr = (kprobe_opcode_t *)kpt_target;
	kpt_reset();
	KUNIT_ASSERT_EQ(test, register_kprobes(kps, 3), 0);
	kpt_call_asm(1);
	kpt_call_target(1, 1);
	KUNIT_EXPECT_EQ(test, kpt_h.pre, 3);
	unregister_kprobes(kps, 3);
	kpt_reset();
	kpt_call_asm(1);
	kpt_call_target(1, 1);
	KUNIT_EXPECT_EQ(test, kpt_h.pre, 0);
	KUNIT_EXPECT_EQ(test, register_kprobes(kps, 0), -EINVAL);
}

void kpt_batch_rollback(struct kunit *test)
{
	static struct kprobe kp[3];
	struct kprobe *kps[3];
	int i;

	for (i = 0; i < 3; i++) {
		kpt_init_probe(&kp[i]);
		kps[i] = &kp[i];
		kp[i].pre_handler = kpt_pre_record;
	}
	kp[0].addr = (kprobe_opcode_t *)kpt_asm_add;
	kp[1].addr = (kprobe_opcode_t *)kpt_target;
	kp[2].symbol_name = "kpt_no_such_symbol";
	kpt_reset();
	KUNIT_ASSERT_EQ(test, register_kprobes(kps, 3), -ENOENT);
	KUNIT_EXPECT_TRUE(test, !kpt_registered(&kp[2]));
	kpt_call_asm(1);
	kpt_call_target(1, 1);
	KUNIT_EXPECT_EQ(test, kpt_h.pre, 0);	/* the first two were rolled back */

	/* rolled-back probes can be registered again */
	kpt_init_probe(&kp[0]);
	kp[0].addr = (kprobe_opcode_t *)kpt_asm_add;
	kp[0].pre_handler = kpt_pre_record;
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp[0]), 0);
	kpt_call_asm(1);
	unregister_kprobe(&kp[0]);
	KUNIT_EXPECT_EQ(test, kpt_h.pre, 1);
}

/*
 * A NULL entry in the array is bad input: -EINVAL, and the entries before
 * it are rolled back, as for any error.
 */
void kpt_batch_null_entry(struct kunit *test)
{
	struct kprobe kp;
	struct kprobe *kps[2] = { &kp, NULL };

	if (upstream)
		kunit_skip(test, "upstream dereferences a NULL entry");
	kpt_init_probe(&kp);
	kp.addr = (kprobe_opcode_t *)kpt_asm_add;
	kp.pre_handler = kpt_pre_record;
	KUNIT_EXPECT_EQ(test, register_kprobes(kps, 2), -EINVAL);
	KUNIT_EXPECT_FALSE(test, kpt_registered(&kp));
	kpt_reset();
	kpt_call_asm(1);
	KUNIT_EXPECT_EQ(test, kpt_h.pre, 0);
	unregister_kprobes(kps, 2);		/* NULL and unregistered: skipped */

	/* it can be registered again */
	KUNIT_EXPECT_EQ(test, register_kprobe(&kp), 0);
	kpt_call_asm(1);
	KUNIT_EXPECT_EQ(test, kpt_h.pre, 1);
	unregister_kprobe(&kp);
}

void kpt_double_register(struct kunit *test)
{
	struct kprobe kp;

	if (upstream)
		kunit_skip(test, "upstream WARNs on it (warn_kprobe_rereg)");
	kpt_init_probe(&kp);
	kp.addr = (kprobe_opcode_t *)kpt_asm_add;
	kp.pre_handler = kpt_pre_record;
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_EQ(test, register_kprobe(&kp), -EINVAL);
	kpt_reset();
	kpt_call_asm(3);
	KUNIT_EXPECT_EQ(test, kpt_h.pre, 1);	/* still armed once, not twice */
	unregister_kprobe(&kp);
	kpt_reset();
	kpt_call_asm(3);
	KUNIT_EXPECT_EQ(test, kpt_h.pre, 0);
}

#endif /* CONFIG_X86 */
