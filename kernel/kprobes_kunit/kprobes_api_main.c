// SPDX-License-Identifier: GPL-2.0
/*
 * kprobes_api: KUnit suites of the public kprobes API, one per area.  It
 * uses only what <linux/kprobes.h> exports to modules, so the same source
 * runs on this kernel and, built out of tree, on stock 6.12, and both must
 * pass it.  Built in (kunit.py), the cases that need a module skip.
 *
 * Targets: kpt_target() is a C function with an fentry site (so a probe
 * at its entry may be ftrace-based); kpt_asm() (kprobes_api_targets.S) is
 * assembly with a known layout and no fentry, so probes there take the
 * int3 path and the tests can check registers before and after a single
 * instruction.  Targets are called through pointers the compiler cannot
 * see through (global, or hidden with OPTIMIZER_HIDE_VAR()), so it can
 * neither inline nor specialise them.
 *
 * This file holds the targets and the handler bookkeeping that several
 * areas share (declared in kprobes_api.h), and the suites, whose cases
 * live in kprobes_api_<area>.c.
 */
#define pr_fmt(fmt) fmt

#include <linux/fs.h>
#include <linux/module.h>
#include <linux/kprobes.h>
#include <linux/preempt.h>
#include <linux/ptrace.h>
#include <linux/string.h>
#ifdef CONFIG_X86_KERNEL_IBT
#include <asm/ibt.h>
#endif

#include "kprobes_api.h"

/* ---- targets ------------------------------------------------------------ */

noinline int kpt_target(int a, int b)
{
	return a * 31 + b;
}

/* too short for a jump after its fentry nop: an entry probe goes to the hook */
static noinline int kpt_tiny(int a, int b)
{
	return a + b;
}

noinline int kpt_alt(int a, int b)
{
	return a * 1000 + b;
}

int (*kpt_call_target)(int, int) = kpt_target;
int (*kpt_call_tiny)(int, int) = kpt_tiny;
#ifdef CONFIG_X86
long (*kpt_call_asm)(long) = kpt_asm;
#endif

/*
 * The cases that probe kprobes_api_targets.S (x86 instructions, in 64-bit
 * and 32-bit form) run on x86 only; elsewhere (make arm64-test) they
 * report a skip saying so.  The others use the arch-neutral register
 * accessors.
 */
#ifdef CONFIG_X86
#define X86_CASE(c)	KPT_CASE(c)
#define X86_CASE_SLOW(c) KPT_CASE_SLOW(c)
#else
static void __maybe_unused kpt_x86_only(struct kunit *test)
{
	kunit_skip(test, "probes x86 instructions (kprobes_api_targets.S)");
}

/* kpt_<c> is x86 code, absent here: named (as a string), never linked */
#define X86_CASE(c)							\
	{ .run_case = kpt_x86_only, .name = #c, .module_name = KBUILD_MODNAME }
#define X86_CASE_SLOW(c) X86_CASE(c)
#endif

/* ---- handler bookkeeping ------------------------------------------------ */

struct kpt_hits kpt_h;

void kpt_reset(void)
{
	memset(&kpt_h, 0, sizeof(kpt_h));
}

int kpt_pre_record(struct kprobe *p, struct pt_regs *regs)
{
	kpt_h.pre++;
	kpt_h.pre_seq = ++kpt_h.seq;
	kpt_h.pre_ip = instruction_pointer(regs);
	kpt_h.pre_di = regs_get_kernel_argument(regs, 0);
#ifdef CONFIG_X86
	kpt_h.pre_x = KPT_ASM_X(regs);
#endif
	kpt_h.pre_si = regs_get_kernel_argument(regs, 1);
	kpt_h.pre_ax = regs_return_value(regs);
	kpt_h.pre_preemptible = preemptible();
	return 0;
}

void kpt_post_record(struct kprobe *p, struct pt_regs *regs, unsigned long flags)
{
	kpt_h.post++;
	kpt_h.post_seq = ++kpt_h.seq;
	kpt_h.post_ip = instruction_pointer(regs);
	kpt_h.post_ax = regs_return_value(regs);
#ifdef CONFIG_X86
	kpt_h.post_load = KPT_RIPREL_REG(regs);
#endif
	kpt_h.post_preemptible = preemptible();
}

void kpt_init_probe(struct kprobe *kp)
{
	memset(kp, 0, sizeof(*kp));
	INIT_HLIST_NODE(&kp->hlist);
	INIT_LIST_HEAD(&kp->list);
}

/* a probe on kpt_target() (an ftrace site where the arch has those) */
void kpt_target_probe(struct kprobe *kp, bool post)
{
	kpt_init_probe(kp);
	kp->addr = (kprobe_opcode_t *)kpt_target;
	kp->pre_handler = kpt_pre_record;
	kp->post_handler = post ? kpt_post_record : NULL;
}

/* The registered-ness test trace_kprobe relies on. */
bool kpt_registered(struct kprobe *kp)
{
	return !(list_empty(&kp->list) && hlist_unhashed(&kp->hlist));
}

bool kpt_has_endbr(const void *addr)
{
	/* f3 0f 1e fa */
	return IS_ENABLED(CONFIG_X86) && *(const u32 *)addr == 0xfa1e0ff3;
}

/*
 * kallsyms_lookup_name() is not exported to modules; registering a probe
 * on it resolves its address (moved past an ENDBR, as every entry probe).
 */
unsigned long kpt_lookup(const char *name)
{
	static unsigned long (*kln)(const char *name);
	struct kprobe kp;

	if (!kln) {
		kpt_init_probe(&kp);
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

/*
 * Ours arms an entry probe registered (or enabled) on its own by a
 * "carrier", an int3 on the instruction after the fentry nop, not by an
 * ftrace hook; debug.kprobes-carriers = 0 makes it hook the site, as
 * upstream always does.  The cases about the hooks set it to 0 meanwhile.
 */
int kpt_set_carriers(int on)
{
#ifdef KPROBES_ANEW
	struct file *f;
	char c = on ? '1' : '0';
	loff_t pos = 0;
	ssize_t n;

	/*
	 * Where this boot makes no carriers, there is nothing to turn: the
	 * kernel has none (no sysctl), or the suites run built in, before
	 * /proc is mounted and before a carrier can be made in the kernel's
	 * text (kpt_carriers_now()).
	 */
	f = filp_open("/proc/sys/debug/kprobes-carriers", O_WRONLY, 0);
	if (IS_ERR(f))
		return PTR_ERR(f) == -ENOENT && !kpt_carriers_now() ? 0 : PTR_ERR(f);
	n = kernel_write(f, &c, 1, &pos);
	filp_close(f, NULL);
	return n == 1 ? 0 : -EIO;
#else
	return 0;
#endif
}

/* Registration by address, by symbol and offset, and what it refuses */
static struct kunit_case kprobes_api_register_cases[] = {
	KPT_CASE(register_by_addr),
	KPT_CASE(register_by_symbol),
	KPT_CASE(register_by_module_symbol),
	X86_CASE(symbol_offset_single_step),
	X86_CASE(double_register),
	X86_CASE(bad_input),
	X86_CASE(bad_input_patched_sites),
	X86_CASE(core_patched_sites),
	X86_CASE(alternatives_lock_prefix),
	{}
};

static struct kunit_suite kprobes_api_register_suite = {
	.name = "kprobes_api_register",
	.test_cases = kprobes_api_register_cases,
};

/* What pre and post handlers see, re-entry, faults, disabling */
static struct kunit_case kprobes_api_handlers_cases[] = {
	X86_CASE(step_post_context),
	KPT_CASE(pre_handler_changes_ip),
	X86_CASE(reentry_counts_nmissed),
	KPT_CASE(reentry_ftrace_counts_nmissed),
	KPT_CASE(fault_handler_where_served),
	X86_CASE(disable_enable),
	X86_CASE(fault_in_single_step),
	X86_CASE(gp_in_single_step),
	X86_CASE(fault_in_handler),
	{}
};

static struct kunit_suite kprobes_api_handlers_suite = {
	.name = "kprobes_api_handlers",
	.test_cases = kprobes_api_handlers_cases,
};

/* Instructions run out of line, emulated or boosted */
static struct kunit_case kprobes_api_insn_cases[] = {
	X86_CASE(emulated_instructions),
	X86_CASE(emulated_indirect_call_mem),
	X86_CASE(emulated_transfers),
	X86_CASE(boost_and_single_step_agree),
	{}
};

static struct kunit_suite kprobes_api_insn_suite = {
	.name = "kprobes_api_insn",
	.test_cases = kprobes_api_insn_cases,
};

/* Several probes on one site, and hits while its probes change */
static struct kunit_case kprobes_api_aggregate_cases[] = {
	X86_CASE(site_probes_change),
	X86_CASE(aggregate_probes),
	X86_CASE(aggregate_order_and_post),
	X86_CASE(post_joins_hit_in_flight),
	X86_CASE_SLOW(post_joins_pre_only_walk),
	X86_CASE_SLOW(concurrent_hits_while_registering),
	{}
};

static struct kunit_suite kprobes_api_aggregate_suite = {
	.name = "kprobes_api_aggregate",
	.test_cases = kprobes_api_aggregate_cases,
};

/* register_kprobes() and unregister_kprobes() */
static struct kunit_case kprobes_api_batch_cases[] = {
	X86_CASE(batch_register),
	X86_CASE(batch_rollback),
	X86_CASE(batch_null_entry),
	X86_CASE_SLOW(batch_unregister_optimized),
	{}
};

static struct kunit_suite kprobes_api_batch_suite = {
	.name = "kprobes_api_batch",
	.test_cases = kprobes_api_batch_cases,
};

/* Probes on ftrace sites beside other ftrace users */
static struct kunit_case kprobes_api_ftrace_cases[] = {
	X86_CASE(ftrace_ops_switch),
	X86_CASE(ftrace_leave_and_return),
	X86_CASE(entry_cold_part),
	X86_CASE(entry_static_branch),
	X86_CASE_SLOW(ftrace_divert),
	X86_CASE(ftrace_divert_body),
	{}
};

static struct kunit_suite kprobes_api_ftrace_suite = {
	.name = "kprobes_api_ftrace",
	.test_cases = kprobes_api_ftrace_cases,
};

/* Entry probes carried by an int3 or a jump after the fentry site */
static struct kunit_case kprobes_api_carriers_cases[] = {
	X86_CASE(carrier_entry),
	X86_CASE(carrier_move_exact),
	X86_CASE(carrier_background_move),
	X86_CASE_SLOW(carrier_move_reader_window),
	X86_CASE(carrier_divert_during_move),
	X86_CASE_SLOW(carrier_move_unlocked),
	X86_CASE(carrier_settle_generations),
	X86_CASE(carrier_sysctl_off),
	X86_CASE(carrier_region_probe),
	{}
};

static struct kunit_suite kprobes_api_carriers_suite = {
	.name = "kprobes_api_carriers",
	.test_cases = kprobes_api_carriers_cases,
};

/* Kretprobes and their instance pools */
static struct kunit_case kprobes_api_kretprobes_cases[] = {
	KPT_CASE(kretprobe_return_value),
	KPT_CASE(kretprobe_disable_enable),
	KPT_CASE(kretprobe_nmissed_recursion),
	KPT_CASE(kretprobe_spare_bound),
	KPT_CASE(kretprobe_hot_instance_reachable),
	KPT_CASE(kretprobe_sleeping_function),
	X86_CASE(kretprobe_bad_input),
	X86_CASE(kretprobe_frame_published),
	KPT_CASE(kretprobe_absurd_maxactive),
	KPT_CASE(kretprobe_unregister_while_live),
	{}
};

static struct kunit_suite kprobes_api_kretprobes_suite = {
	.name = "kprobes_api_kretprobes",
	.test_cases = kprobes_api_kretprobes_cases,
};

kunit_test_suites(&kprobes_api_register_suite,
		  &kprobes_api_handlers_suite,
		  &kprobes_api_insn_suite,
		  &kprobes_api_aggregate_suite,
		  &kprobes_api_batch_suite,
		  &kprobes_api_ftrace_suite,
		  &kprobes_api_carriers_suite,
		  &kprobes_api_kretprobes_suite);

MODULE_DESCRIPTION("KUnit tests of the kprobes API");
MODULE_LICENSE("GPL");
