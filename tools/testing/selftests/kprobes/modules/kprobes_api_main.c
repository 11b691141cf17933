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
 *
 * This file holds the targets and the handler bookkeeping that several
 * areas share (declared in kprobes_api.h), and the table of the cases,
 * which live in kprobes_api_<area>.c.
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

/* the state of the case running, which every file's expectations set */
int kpt_failed;
const char *kpt_skip_why;

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

int (*call_target)(int, int) = kpt_target;
int (*call_tiny)(int, int) = kpt_tiny;
#ifdef CONFIG_X86
long (*call_asm)(long) = kpt_asm;
#endif

/*
 * The cases that probe kprobes_api_targets.S (x86 instructions, in 64-bit
 * and 32-bit form) run on x86 only; elsewhere (make arm64-test) they
 * report a skip saying so.  The others use the arch-neutral register
 * accessors.
 */
#ifdef CONFIG_X86
#define X86_CASE(name, fn)	{ name, fn }
#else
static int __maybe_unused t_x86_only(void)
{
	return KPT_SKIP_BECAUSE("probes x86 instructions (kprobes_api_targets.S)");
}

/* fn is x86 code, absent here: named (as a string) but never linked */
#define X86_CASE(name, fn)	{ (name) + 0 * sizeof(#fn), t_x86_only }
#endif

/* ---- handler bookkeeping ------------------------------------------------ */

struct kpt_hits h;

void reset(void)
{
	memset(&h, 0, sizeof(h));
}

int pre_record(struct kprobe *p, struct pt_regs *regs)
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

void post_record(struct kprobe *p, struct pt_regs *regs, unsigned long flags)
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

void init_probe(struct kprobe *kp)
{
	memset(kp, 0, sizeof(*kp));
	INIT_HLIST_NODE(&kp->hlist);
	INIT_LIST_HEAD(&kp->list);
}

/* a probe on kpt_target() (an ftrace site where the arch has those) */
void target_probe(struct kprobe *kp, bool post)
{
	init_probe(kp);
	kp->addr = (kprobe_opcode_t *)kpt_target;
	kp->pre_handler = pre_record;
	kp->post_handler = post ? post_record : NULL;
}

/* The registered-ness test trace_kprobe relies on. */
bool registered(struct kprobe *kp)
{
	return !(list_empty(&kp->list) && hlist_unhashed(&kp->hlist));
}

bool has_endbr(const void *addr)
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

static const struct kpt_case cases[] = {
	{ "register_by_addr", t_register_by_addr },
	{ "register_by_symbol", t_register_by_symbol },
	X86_CASE("symbol_offset_single_step", t_symbol_offset_single_step),
	X86_CASE("step_post_context", t_step_post_context),
	{ "pre_handler_changes_ip", t_pre_handler_changes_ip },
	X86_CASE("reentry_counts_nmissed", t_reentry_counts_nmissed),
	{ "reentry_ftrace_counts_nmissed", t_reentry_ftrace_counts_nmissed },
	{ "fault_handler_where_served", t_fault_handler_where_served },
	X86_CASE("site_probes_change", t_site_probes_change),
	X86_CASE("disable_enable", t_disable_enable),
	X86_CASE("aggregate_probes", t_aggregate_probes),
	X86_CASE("aggregate_order_and_post", t_aggregate_order_and_post),
	X86_CASE("post_joins_hit_in_flight", t_post_joins_hit_in_flight),
	X86_CASE("batch_register", t_batch_register),
	X86_CASE("batch_rollback", t_batch_rollback),
	X86_CASE("batch_null_entry", t_batch_null_entry),
	X86_CASE("ftrace_ops_switch", t_ftrace_ops_switch),
	X86_CASE("ftrace_leave_and_return", t_ftrace_leave_and_return),
	X86_CASE("carrier_entry", t_carrier_entry),
	X86_CASE("carrier_move_exact", t_carrier_move_exact),
	X86_CASE("carrier_background_move", t_carrier_background_move),
	X86_CASE("carrier_move_reader_window", t_carrier_move_reader_window),
	X86_CASE("carrier_divert_during_move", t_carrier_divert_during_move),
	X86_CASE("carrier_move_unlocked", t_carrier_move_unlocked),
	X86_CASE("carrier_settle_generations", t_carrier_settle_generations),
	X86_CASE("carrier_sysctl_off", t_carrier_sysctl_off),
	X86_CASE("carrier_region_probe", t_carrier_region_probe),
	X86_CASE("entry_cold_part", t_entry_cold_part),
	X86_CASE("entry_static_branch", t_entry_static_branch),
	X86_CASE("ftrace_divert", t_ftrace_divert),
	X86_CASE("ftrace_divert_body", t_ftrace_divert_body),
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
	{ "kretprobe_hot_instance_reachable", t_kretprobe_hot_instance_reachable },
	{ "kretprobe_sleeping_function", t_kretprobe_sleeping_function },
	X86_CASE("kretprobe_bad_input", t_kretprobe_bad_input),
	X86_CASE("kretprobe_frame_published", t_kretprobe_frame_published),
	{ "kretprobe_absurd_maxactive", t_kretprobe_absurd_maxactive },
	{ "kretprobe_unregister_while_live", t_kretprobe_unregister_while_live },
	X86_CASE("concurrent_hits_while_registering", t_concurrent_hits_while_registering),
	X86_CASE("batch_unregister_optimized", t_batch_unregister_optimized),
	X86_CASE("post_joins_pre_only_walk", t_post_joins_pre_only_walk),
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
