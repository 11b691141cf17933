/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the files of kprobes_api share: the targets that several areas
 * probe, the handler bookkeeping, and the cases that the suites of
 * kprobes_api_main.c run.
 */
#ifndef KPROBES_API_H
#define KPROBES_API_H

#include <linux/jump_label.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/types.h>

#include "kprobes_kunit.h"
#include "kprobes_api_targets.h"

/*
 * Built against upstream's <linux/kprobes.h>, the few expectations where
 * ours promises more than stock 6.12 (each says how) are skipped, with what
 * upstream did printed as the reason.  Our header defines KPROBES_ANEW.
 */
#ifdef KPROBES_ANEW
static const bool upstream __maybe_unused;
#else
static const bool upstream __maybe_unused = true;
#endif
/*
 * Kretprobe instances from spare pools beyond maxactive: ours, where it
 * keeps its own instance pools (not where kretprobes return through
 * rethook, whose node pool stays what 6.12 makes it: the classic arches)
 */
#define KPT_SPARES (!upstream && !IS_ENABLED(CONFIG_KRETPROBE_ON_RETHOOK))

/* ---- targets (kprobes_api_main.c) --------------------------------------- */

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

#ifdef CONFIG_X86
/* where a pre_handler sees the IP: just past the int3 */
#define KPT_TRAP_IP_OFF		1
#else
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
#define kpt_asm_mov ((char *)kpt_call_asm + kpt_asm_off_mov)
#define kpt_asm_add ((char *)kpt_call_asm + kpt_asm_off_add)
#define kpt_asm_ret ((char *)kpt_call_asm + kpt_asm_off_ret)
#define kpt_target_entry ((unsigned long)kpt_call_target)

#define KPT_NO_FTRACE_SITES \
	"this boot: no kprobes on ftrace (CONFIG_KPROBES_ON_FTRACE is off)"

/* the targets more than one area probes, and the pointers they are called through */
int kpt_target(int a, int b);
int kpt_alt(int a, int b);
extern int (*kpt_call_target)(int a, int b);
extern int (*kpt_call_tiny)(int a, int b);
#ifdef CONFIG_X86
extern long (*kpt_call_asm)(long x);
#endif

/* ---- handler bookkeeping (kprobes_api_main.c) --------------------------- */

/* what kpt_pre_record() and kpt_post_record() saw since kpt_reset() */
struct kpt_hits {
	int pre, post, seq;
	int order[8];
	int norder;
	unsigned long pre_ip, pre_di, pre_si, pre_ax, pre_x;
	unsigned long post_ip, post_ax, post_load;
	bool pre_preemptible, post_preemptible;
	int pre_seq, post_seq;
};

extern struct kpt_hits kpt_h;

void kpt_reset(void);
int kpt_pre_record(struct kprobe *p, struct pt_regs *regs);
void kpt_post_record(struct kprobe *p, struct pt_regs *regs, unsigned long flags);
void kpt_init_probe(struct kprobe *kp);
void kpt_target_probe(struct kprobe *kp, bool post);
bool kpt_registered(struct kprobe *kp);
bool kpt_has_endbr(const void *addr);

/* kallsyms_lookup_name(), found through a probe on it (kprobes_api_main.c) */
unsigned long kpt_lookup(const char *name);

/* debug.kprobes-carriers on or off (kprobes_api_main.c) */
int kpt_set_carriers(int on);

/* ---- the cases, by file --------------------------------------------------- */

/*
 * The suites (kprobes_api_main.c) run them.  The X86_CASE() ones exist
 * on x86 only, where kprobes_api_targets.S is built; elsewhere the suites
 * name them, as strings, and report a skip.
 */

/* kprobes_api_basic.c */
void kpt_register_by_addr(struct kunit *test);
void kpt_register_by_symbol(struct kunit *test);
void kpt_register_by_module_symbol(struct kunit *test);
void kpt_pre_handler_changes_ip(struct kunit *test);
void kpt_reentry_ftrace_counts_nmissed(struct kunit *test);
void kpt_fault_handler_where_served(struct kunit *test);
#ifdef CONFIG_X86
void kpt_symbol_offset_single_step(struct kunit *test);
void kpt_step_post_context(struct kunit *test);
void kpt_reentry_counts_nmissed(struct kunit *test);
void kpt_disable_enable(struct kunit *test);
void kpt_batch_register(struct kunit *test);
void kpt_batch_rollback(struct kunit *test);
void kpt_batch_null_entry(struct kunit *test);
void kpt_double_register(struct kunit *test);
#endif

/* kprobes_api_kretprobes.c */
void kpt_kretprobe_return_value(struct kunit *test);
void kpt_kretprobe_disable_enable(struct kunit *test);
void kpt_kretprobe_nmissed_recursion(struct kunit *test);
void kpt_kretprobe_spare_bound(struct kunit *test);
void kpt_kretprobe_hot_instance_reachable(struct kunit *test);
void kpt_kretprobe_sleeping_function(struct kunit *test);
void kpt_kretprobe_absurd_maxactive(struct kunit *test);
void kpt_kretprobe_unregister_while_live(struct kunit *test);
#ifdef CONFIG_X86
void kpt_kretprobe_bad_input(struct kunit *test);
void kpt_kretprobe_frame_published(struct kunit *test);
#endif

#ifdef CONFIG_X86
/* kprobes_api_aggregate.c */
void kpt_site_probes_change(struct kunit *test);
void kpt_aggregate_probes(struct kunit *test);
void kpt_aggregate_order_and_post(struct kunit *test);
void kpt_post_joins_hit_in_flight(struct kunit *test);

/* kprobes_api_ftrace.c */
void kpt_ftrace_ops_switch(struct kunit *test);
void kpt_ftrace_leave_and_return(struct kunit *test);
void kpt_ftrace_divert(struct kunit *test);
void kpt_ftrace_divert_body(struct kunit *test);
#ifdef CONFIG_FUNCTION_TRACER
void kpt_entry_cold_part(struct kunit *test);
void kpt_entry_static_branch(struct kunit *test);
#else
void kpt_no_fentry(struct kunit *test);
#define kpt_entry_cold_part	kpt_no_fentry
#define kpt_entry_static_branch	kpt_no_fentry
#endif

/* kprobes_api_carriers.c: where there are none, each case says why */
#if defined(KPROBES_ANEW) && defined(CONFIG_KPROBE_CARRIERS)
void kpt_carrier_entry(struct kunit *test);
void kpt_carrier_move_exact(struct kunit *test);
void kpt_carrier_background_move(struct kunit *test);
void kpt_carrier_move_reader_window(struct kunit *test);
void kpt_carrier_divert_during_move(struct kunit *test);
void kpt_carrier_move_unlocked(struct kunit *test);
void kpt_carrier_settle_generations(struct kunit *test);
void kpt_carrier_sysctl_off(struct kunit *test);
void kpt_carrier_region_probe(struct kunit *test);
#else
void kpt_carrier_none(struct kunit *test);
#define kpt_carrier_entry			kpt_carrier_none
#define kpt_carrier_move_exact		kpt_carrier_none
#define kpt_carrier_background_move	kpt_carrier_none
#define kpt_carrier_move_reader_window	kpt_carrier_none
#define kpt_carrier_divert_during_move	kpt_carrier_none
#define kpt_carrier_move_unlocked		kpt_carrier_none
#define kpt_carrier_settle_generations	kpt_carrier_none
#define kpt_carrier_sysctl_off		kpt_carrier_none
#define kpt_carrier_region_probe		kpt_carrier_none
#endif

/* kprobes_api_text.c */
void kpt_bad_input(struct kunit *test);
void kpt_bad_input_patched_sites(struct kunit *test);
void kpt_core_patched_sites(struct kunit *test);
void kpt_alternatives_lock_prefix(struct kunit *test);

/* kprobes_api_insn.c */
void kpt_emulated_instructions(struct kunit *test);
void kpt_emulated_indirect_call_mem(struct kunit *test);
void kpt_emulated_transfers(struct kunit *test);
void kpt_fault_in_single_step(struct kunit *test);
void kpt_boost_and_single_step_agree(struct kunit *test);
void kpt_gp_in_single_step(struct kunit *test);
void kpt_fault_in_handler(struct kunit *test);

/* kprobes_api_smp.c */
void kpt_concurrent_hits_while_registering(struct kunit *test);
void kpt_batch_unregister_optimized(struct kunit *test);
void kpt_post_joins_pre_only_walk(struct kunit *test);
#endif /* CONFIG_X86 */

#endif /* KPROBES_API_H */
