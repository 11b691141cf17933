// SPDX-License-Identifier: GPL-2.0
/*
 * kprobes_api, x86: probes on ftrace sites (a C function's entry): the
 * site's ftrace_ops as probes come and go, another ftrace user diverting
 * the function beside a probe, and entries that are also reached from
 * elsewhere (a cold part, a static branch).
 */
#define pr_fmt(fmt) fmt

#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/ftrace.h>
#include <linux/jump_label.h>
#include <linux/kprobes.h>
#include <asm/text-patching.h>

#include "kprobes_api.h"

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
static void ftrace_leave_and_return(struct kunit *test)
{
	struct kprobe kp1, kp2;
	int want = 3 * 31 + 4, i;

	if (!IS_ENABLED(CONFIG_KPROBES_ON_FTRACE)) {
		kunit_mark_skipped(test, KPT_NO_FTRACE_SITES);
		return;
	}
	for (i = 0; i < 3; i++) {
		kpt_target_probe(&kp1, false);
		if (!KPT_CHECK_EQ(test, register_kprobe(&kp1), 0))
			return;
		KUNIT_EXPECT_TRUE(test, kp1.flags & KPROBE_FLAG_FTRACE);
		kpt_reset();
		KUNIT_EXPECT_EQ(test, kpt_call_target(3, 4), want);
		KUNIT_EXPECT_EQ(test, kpt_h.pre, 1);
		unregister_kprobe(&kp1);
		KUNIT_EXPECT_EQ(test, kpt_call_target(3, 4), want);
		KUNIT_EXPECT_EQ(test, kpt_h.pre, 1);
	}

	/* where the plain ops' hook may linger: the IPMODIFY ops, once */
	kpt_target_probe(&kp2, true);
	if (!KPT_CHECK_EQ(test, register_kprobe(&kp2), 0))
		return;
	kpt_reset();
	KUNIT_EXPECT_EQ(test, kpt_call_target(3, 4), want);
	KUNIT_EXPECT_EQ(test, kpt_h.pre, 1);
	KUNIT_EXPECT_EQ(test, kpt_h.post, 1);
	unregister_kprobe(&kp2);
	KUNIT_EXPECT_EQ(test, kpt_call_target(3, 4), want);
	KUNIT_EXPECT_TRUE(test, kpt_h.pre == 1 && kpt_h.post == 1);
#ifdef CONFIG_DYNAMIC_FTRACE_WITH_REGS
	KUNIT_EXPECT_EQ(test, kpt_ipmodify_claim(kpt_target), 0);
#endif

	/* disabled then enabled again, several times */
	kpt_target_probe(&kp1, false);
	if (!KPT_CHECK_EQ(test, register_kprobe(&kp1), 0))
		return;
	kpt_reset();
	for (i = 0; i < 3; i++) {
		KUNIT_EXPECT_EQ(test, disable_kprobe(&kp1), 0);
		KUNIT_EXPECT_EQ(test, kpt_call_target(3, 4), want);
		KUNIT_EXPECT_EQ(test, enable_kprobe(&kp1), 0);
		KUNIT_EXPECT_EQ(test, kpt_call_target(3, 4), want);
	}
	KUNIT_EXPECT_EQ(test, kpt_h.pre, 3);
	unregister_kprobe(&kp1);
	KUNIT_EXPECT_EQ(test, kp1.nmissed, 0);
}

/*
 * An ftrace site moves between our two ftrace_ops as a post_handler comes
 * and goes (the IPMODIFY one only while a probe there has one): every
 * handler keeps firing across the switches, and the function's result
 * never changes.
 */
static void ftrace_ops_switch(struct kunit *test)
{
	struct kprobe kp1, kp2;
	int want = 3 * 31 + 4;

	if (!IS_ENABLED(CONFIG_KPROBES_ON_FTRACE)) {
		kunit_mark_skipped(test, KPT_NO_FTRACE_SITES);
		return;
	}
	kpt_target_probe(&kp1, false);
	if (!KPT_CHECK_EQ(test, register_kprobe(&kp1), 0))
		return;
	KUNIT_EXPECT_TRUE(test, kp1.flags & KPROBE_FLAG_FTRACE);
	kpt_reset();
	KUNIT_EXPECT_EQ(test, kpt_call_target(3, 4), want);
	KUNIT_EXPECT_EQ(test, kpt_h.pre, 1);
	if (upstream) {
		/*
		 * Seen on 6.12: once the post_handler probe has left, disabling
		 * (or unregistering) the other fails to disarm ftrace (-ENOENT,
		 * WARN in disarm_kprobe_ftrace) and the kernel faults soon after.
		 */
		unregister_kprobe(&kp1);
		kunit_mark_skipped(test, "upstream WARNs, then faults (not run)");
		return;
	}

	kpt_target_probe(&kp2, true);		/* to the IPMODIFY ops */
	if (!KPT_CHECK_EQ(test, register_kprobe(&kp2), 0)) {
		unregister_kprobe(&kp1);
		return;
	}
	kpt_reset();
	KUNIT_EXPECT_EQ(test, kpt_call_target(3, 4), want);
	KUNIT_EXPECT_EQ(test, kpt_h.pre, 2);
	KUNIT_EXPECT_EQ(test, kpt_h.post, 1);

	unregister_kprobe(&kp2);	/* back to the plain ops */
	kpt_reset();
	KUNIT_EXPECT_EQ(test, kpt_call_target(3, 4), want);
	KUNIT_EXPECT_EQ(test, kpt_h.pre, 1);
	KUNIT_EXPECT_EQ(test, kpt_h.post, 0);

	KUNIT_EXPECT_EQ(test, disable_kprobe(&kp1), 0);	/* unhooked */
	kpt_reset();
	KUNIT_EXPECT_EQ(test, kpt_call_target(3, 4), want);
	KUNIT_EXPECT_EQ(test, kpt_h.pre, 0);
	KUNIT_EXPECT_EQ(test, enable_kprobe(&kp1), 0);
	KUNIT_EXPECT_EQ(test, kpt_call_target(3, 4), want);
	KUNIT_EXPECT_EQ(test, kpt_h.pre, 1);
	unregister_kprobe(&kp1);
	kpt_reset();
	KUNIT_EXPECT_EQ(test, kpt_call_target(3, 4), want);
	KUNIT_EXPECT_EQ(test, kpt_h.pre, 0);
}

/*
 * A case about the hooks, with carriers off: the site is hooked on
 * ftrace.  The case must not end its thread (assert, kunit_skip()), so
 * that carriers always come back.
 */
static void carriers_off(struct kunit *test, void (*fn)(struct kunit *test))
{
	KUNIT_EXPECT_EQ(test, kpt_set_carriers(0), 0);
	fn(test);
	KUNIT_EXPECT_EQ(test, kpt_set_carriers(1), 0);
}

void kpt_ftrace_leave_and_return(struct kunit *test)
{
	carriers_off(test, ftrace_leave_and_return);
}

void kpt_ftrace_ops_switch(struct kunit *test)
{
	carriers_off(test, ftrace_ops_switch);
}

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
	unsigned long tiny = (unsigned long)kpt_call_tiny +
			     (kpt_has_endbr((void *)kpt_call_tiny) ? 4 : 0);
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
		ok += kpt_call_target(i, 2) == want;
	}
	return ok;
}

#define KPT_X86_32_DIVERT \
	"32-bit x86's ftrace keeps the original beside a kprobe (stock too)"

void kpt_ftrace_divert(struct kunit *test)
{
	unsigned long fentry = kpt_target_entry +
			       (kpt_has_endbr((void *)kpt_target_entry) ? 4 : 0);
	u8 *next = (u8 *)fentry + MCOUNT_INSN_SIZE, orig = *next;
	struct kprobe kp;
	int kind, order, ret, i;

	/*
	 * Measured on 32-bit x86: the calls keep running the original while
	 * the probe sees each of them, on stock as on ours, so ftrace there
	 * does not carry out the IPMODIFY ops' new ip beside a kprobe.
	 */
	if (IS_ENABLED(CONFIG_X86_32))
		kunit_skip(test, KPT_X86_32_DIVERT);
	KUNIT_ASSERT_EQ(test, ftrace_set_filter_ip(&divert_ops, fentry, 0, 1), 0);
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
			kpt_target_probe(&kp, false);
			if (order == 0) {
				/*
				 * The hook a probe before left lingering would
				 * be taken over: on ours, wait for it to go, so
				 * that the probe is carried.
				 */
				if (!upstream)
					msleep(600);
				if (!KPT_CHECK_EQ(test, register_kprobe(&kp), 0))
					goto out;
#if defined(KPROBES_ANEW) && defined(CONFIG_KPROBE_CARRIERS)
				/* from the carrier's jump, on ours */
				wait_for_kprobe_optimizer();
				if (kpt_carriers_now())	/* carried */
					KUNIT_EXPECT_TRUE(test, *next != orig);
#endif
			}
			if (!KPT_CHECK_EQ(test, divert_on(kind, order, fentry), 0)) {
				if (order == 0)
					unregister_kprobe(&kp);
				goto out;
			}
			if (kind == DIVERT_GROW) {
#if defined(KPROBES_ANEW) && defined(CONFIG_KPROBE_CARRIERS)
				/* still carried: the ops is on kpt_tiny() only */
				if (order == 0 && kpt_carriers_now())
					KUNIT_EXPECT_TRUE(test, *next != orig);
#endif
				/* by the function's address, not its fentry site */
				ret = ftrace_set_filter_ip(&divert_ops,
							   kpt_target_entry, 0, 0);
				if (!KPT_CHECK_EQ(test, ret, 0)) {
					divert_off(kind, order, fentry);
					if (order == 0)
						unregister_kprobe(&kp);
					goto out;
				}
			}
			if (order == 1 &&
			    !KPT_CHECK_EQ(test, register_kprobe(&kp), 0)) {
				divert_off(kind, order, fentry);
				goto out;
			}
			kpt_reset();
			KUNIT_EXPECT_EQ(test, divert_calls(1000, kind), 1000);
			kunit_info(test, "%s, %s first: %d hits of 1000 diverted calls\n",
				   divert_names[kind], order ? "it" : "the probe",
				   kpt_h.pre);
			KUNIT_EXPECT_EQ(test, kpt_h.pre, 1000);
			KUNIT_EXPECT_EQ(test, kpt_h.pre_ip, fentry + 1);
			KUNIT_EXPECT_EQ(test, kpt_h.pre_di, 999);
			KUNIT_EXPECT_EQ(test, kpt_h.pre_si, 2);
			/*
			 * nothing past the fentry call stands for the probe,
			 * once ours has moved it in the background (the user
			 * waited for none of it: the calls above were made
			 * with the carrier there)
			 */
			for (i = 0; i < 500 && READ_ONCE(*next) != orig; i++)
				usleep_range(10000, 20000);
			KUNIT_EXPECT_EQ(test, *next, orig);
			KUNIT_EXPECT_EQ(test, divert_off(kind, order, fentry), 0);
			kpt_reset();
			KUNIT_EXPECT_EQ(test, divert_calls(10, -1), 10);
			KUNIT_EXPECT_EQ(test, kpt_h.pre, 10);
			unregister_kprobe(&kp);
			KUNIT_EXPECT_EQ(test, kp.nmissed, 0);
		}
	}
#if defined(KPROBES_ANEW) && defined(CONFIG_KPROBE_CARRIERS)
	/*
	 * The users gone, an entry probe registered alone is carried again
	 * (once the last probe's hook has stopped lingering).
	 */
	msleep(600);
	kpt_target_probe(&kp, false);
	if (KPT_CHECK_EQ(test, register_kprobe(&kp), 0)) {
		if (kpt_carriers_now())
			KUNIT_EXPECT_EQ(test, *next, INT3_INSN_OPCODE);
		unregister_kprobe(&kp);
	}
#endif
	kpt_reset();
	KUNIT_EXPECT_EQ(test, divert_calls(10, -1), 10);
	KUNIT_EXPECT_EQ(test, kpt_h.pre, 0);
	KUNIT_EXPECT_EQ(test, *next, orig);
out:
	ftrace_free_filter(&divert_ops);
}

/*
 * A direct trampoline that runs the function's body by a call past its
 * fentry call, as BPF's trampolines do for fexit and fmod_ret programs
 * (kpt_direct_body), beside an entry probe, in both orders: each call
 * seen once, with the entry's registers.  On ours, with the probe first,
 * the trampoline comes while the probe's carrier is still there (its
 * move onto the hook finishes in the background), and its call of the
 * body reaches the carrier after the hook ran the probe.
 */
void kpt_ftrace_divert_body(struct kunit *test)
{
#if defined(CONFIG_X86_64) && defined(CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS)
	int (*fn)(int, int) = kpt_body_target;
	static struct ftrace_ops ops[2];
	unsigned long fentry;
	int order, i, ok, ret;
	bool carried, stop;
	u8 *next, orig;
	struct kprobe kp;

	/* through a variable: objtool would take +4 for a call past ENDBR */
	OPTIMIZER_HIDE_VAR(fn);
	fentry = (unsigned long)fn + (kpt_has_endbr(fn) ? 4 : 0);
	next = (u8 *)fentry + MCOUNT_INSN_SIZE;
	orig = *next;
	for (order = 0; order < 2; order++) {
		kpt_init_probe(&kp);
		kp.addr = (kprobe_opcode_t *)fn;
		kp.pre_handler = kpt_pre_record;
		stop = true;	/* until the probe and trampoline are in */
		if (order == 0) {
			if (!upstream)
				msleep(600);	/* no hook left lingering */
			KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
#ifdef KPROBES_ANEW
			wait_for_kprobe_optimizer();
#endif
		}
		ret = ftrace_set_filter_ip(&ops[order], fentry, 0, 1);
		if (!KPT_CHECK_EQ(test, ret, 0))
			goto out_probe;
		ret = register_ftrace_direct(&ops[order],
					     (unsigned long)kpt_direct_body);
		if (!KPT_CHECK_EQ(test, ret, 0)) {
			ftrace_free_filter(&ops[order]);
			goto out_probe;
		}
		if (order == 1 && !KPT_CHECK_EQ(test, register_kprobe(&kp), 0)) {
			unregister_ftrace_direct(&ops[order],
						 (unsigned long)kpt_direct_body, true);
			return;
		}
		stop = false;
		carried = READ_ONCE(*next) != orig;
#if defined(KPROBES_ANEW) && defined(CONFIG_KPROBE_CARRIERS)
		/* ours: the trampoline came while the carrier was there */
		if (order == 0 && kpt_carriers_now())
			KUNIT_EXPECT_TRUE(test, carried);
#endif
		kpt_reset();
		for (i = 0, ok = 0; i < 1000; i++)
			ok += fn(i, 2) == i * 3 + 2;
		kunit_info(test, "%s first: %d of 1000 results, %d hits%s\n",
			   order ? "the trampoline" : "the probe", ok, kpt_h.pre,
			   carried ? ", the carrier there" : "");
		KUNIT_EXPECT_EQ(test, ok, 1000);
		KUNIT_EXPECT_EQ(test, kpt_h.pre, 1000);
		KUNIT_EXPECT_EQ(test, kpt_h.pre_ip, fentry + 1);
		KUNIT_EXPECT_EQ(test, kpt_h.pre_di, 999);
		ret = unregister_ftrace_direct(&ops[order],
					       (unsigned long)kpt_direct_body,
					       true);
		KUNIT_EXPECT_EQ(test, ret, 0);
out_probe:
		unregister_kprobe(&kp);
		KUNIT_EXPECT_EQ(test, kp.nmissed, 0);
		if (stop || kpt_failed(test))
			break;
	}
#else
	kunit_skip(test, "no direct ftrace trampolines here (x86_64's)");
#endif
}
#elif defined(CONFIG_X86)
void kpt_ftrace_divert(struct kunit *test)
{
	kunit_skip(test, KPT_NO_FTRACE_SITES);
}

void kpt_ftrace_divert_body(struct kunit *test)
{
	kunit_skip(test, KPT_NO_FTRACE_SITES);
}
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
static void afar_case(struct kunit *test, int (*fn)(int, int),
		      int (*afar)(int, int))
{
	u8 *next = (u8 *)fn + (kpt_has_endbr(fn) ? 4 : 0) + MCOUNT_INSN_SIZE;
	int i, calls = 0, want;
	u8 orig = *next;
	struct kprobe kp;

	if (!IS_ENABLED(CONFIG_KPROBES_ON_FTRACE))
		kunit_skip(test, KPT_NO_FTRACE_SITES);
	msleep(600);	/* no hook an earlier case left lingering */
	kpt_init_probe(&kp);
	kp.addr = (kprobe_opcode_t *)fn;
	kp.pre_handler = kpt_pre_record;
	if (!KPT_CHECK_EQ(test, register_kprobe(&kp), 0))
		return;
	KUNIT_EXPECT_TRUE(test, kp.flags & KPROBE_FLAG_FTRACE);
#ifdef KPROBES_ANEW
	wait_for_kprobe_optimizer();	/* a carrier would have its jump now */
#endif
	KUNIT_EXPECT_EQ(test, *next, orig);		/* no carrier's int3 or jump */
	if (!afar)
		static_branch_enable(&kpt_jl_key);
	kpt_reset();
	for (i = 0; i < 10; i++) {
		want = afar ? i + 1 : i;
		KUNIT_EXPECT_EQ(test, fn(i, 1), want);
		calls++;
		if (afar)
			KUNIT_EXPECT_EQ(test, afar(i, 1), want);
	}
	if (!afar)
		static_branch_disable(&kpt_jl_key);
	KUNIT_EXPECT_EQ(test, kpt_h.pre, calls);
	KUNIT_EXPECT_EQ(test, kpt_h.pre_ip, (unsigned long)kp.addr + KPT_TRAP_IP_OFF);
	KUNIT_EXPECT_EQ(test, kpt_h.pre_di, 9);
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, kp.nmissed, 0);
	KUNIT_EXPECT_EQ(test, *next, orig);
}

void kpt_entry_cold_part(struct kunit *test)
{
	afar_case(test, kpt_cold_target, kpt_cold_part);
}

void kpt_entry_static_branch(struct kunit *test)
{
	afar_case(test, kpt_jl_target, NULL);
}
#elif defined(CONFIG_X86)
void kpt_no_fentry(struct kunit *test)
{
	kunit_skip(test, KPT_NO_FTRACE_SITES);
}
#endif
