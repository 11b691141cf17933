/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the files of kprobes_api share: the targets that several areas
 * probe, the handler bookkeeping, and the cases kprobes_api_main.c's
 * table runs.  They make one module, with one KTAP state (kpt_ktap.h).
 */
#ifndef KPROBES_API_H
#define KPROBES_API_H

#include <linux/jump_label.h>
#include <linux/kprobes.h>
#include <linux/types.h>

/* one KTAP state for all the module's files (kpt_ktap.h) */
#ifdef KPT_KTAP_H
#error "kprobes_api.h must come before kpt_ktap.h: its state would be per file"
#endif
#define KPT_KTAP_SHARED
#include "kpt_ktap.h"
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
#define kpt_asm_mov ((char *)call_asm + kpt_asm_off_mov)
#define kpt_asm_add ((char *)call_asm + kpt_asm_off_add)
#define kpt_asm_ret ((char *)call_asm + kpt_asm_off_ret)
#define kpt_target_entry ((unsigned long)call_target)

#define KPT_NO_FTRACE_SITES \
	"this boot: no kprobes on ftrace (CONFIG_KPROBES_ON_FTRACE is off)"

/* the targets more than one area probes, and the pointers they are called through */
int kpt_target(int a, int b);
int kpt_alt(int a, int b);
extern int (*call_target)(int a, int b);
extern int (*call_tiny)(int a, int b);
#ifdef CONFIG_X86
extern long (*call_asm)(long x);
#endif

/* ---- handler bookkeeping (kprobes_api_main.c) --------------------------- */

/* what pre_record() and post_record() saw since reset() */
struct kpt_hits {
	int pre, post, seq;
	int order[8];
	int norder;
	unsigned long pre_ip, pre_di, pre_si, pre_ax, pre_x;
	unsigned long post_ip, post_ax, post_load;
	bool pre_preemptible, post_preemptible;
	int pre_seq, post_seq;
};

extern struct kpt_hits h;

void reset(void);
int pre_record(struct kprobe *p, struct pt_regs *regs);
void post_record(struct kprobe *p, struct pt_regs *regs, unsigned long flags);
void init_probe(struct kprobe *kp);
void target_probe(struct kprobe *kp, bool post);
bool registered(struct kprobe *kp);
bool has_endbr(const void *addr);

/* kallsyms_lookup_name(), found through a probe on it (kprobes_api_main.c) */
unsigned long kpt_lookup(const char *name);

/* debug.kprobes-carriers on or off (kprobes_api_main.c) */
int kpt_set_carriers(int on);

/* ---- the cases, by file --------------------------------------------------- */

/*
 * cases[] (kprobes_api_main.c) runs them in its order.  The X86_CASE()
 * ones exist on x86 only, where kprobes_api_targets.S is built; elsewhere
 * the table names them, as strings, and reports a skip.
 */

/* kprobes_api_basic.c */
int t_register_by_addr(void);
int t_register_by_symbol(void);
int t_pre_handler_changes_ip(void);
int t_reentry_ftrace_counts_nmissed(void);
int t_fault_handler_where_served(void);
#ifdef CONFIG_X86
int t_symbol_offset_single_step(void);
int t_step_post_context(void);
int t_reentry_counts_nmissed(void);
int t_disable_enable(void);
int t_batch_register(void);
int t_batch_rollback(void);
int t_batch_null_entry(void);
int t_double_register(void);
#endif

/* kprobes_api_kretprobes.c */
int t_kretprobe_return_value(void);
int t_kretprobe_disable_enable(void);
int t_kretprobe_nmissed_recursion(void);
int t_kretprobe_spare_bound(void);
int t_kretprobe_hot_instance_reachable(void);
int t_kretprobe_sleeping_function(void);
int t_kretprobe_absurd_maxactive(void);
int t_kretprobe_unregister_while_live(void);
#ifdef CONFIG_X86
int t_kretprobe_bad_input(void);
int t_kretprobe_frame_published(void);
#endif

#ifdef CONFIG_X86
/* kprobes_api_aggregate.c */
int t_site_probes_change(void);
int t_aggregate_probes(void);
int t_aggregate_order_and_post(void);
int t_post_joins_hit_in_flight(void);

/* kprobes_api_ftrace.c */
int t_ftrace_ops_switch(void);
int t_ftrace_leave_and_return(void);
int t_ftrace_divert(void);
int t_ftrace_divert_body(void);
#ifdef CONFIG_FUNCTION_TRACER
int t_entry_cold_part(void);
int t_entry_static_branch(void);
#else
int t_no_fentry(void);
#define t_entry_cold_part	t_no_fentry
#define t_entry_static_branch	t_no_fentry
#endif

/* kprobes_api_carriers.c: where there are none, each case says why */
#if defined(KPROBES_ANEW) && defined(CONFIG_KPROBE_CARRIERS)
int t_carrier_entry(void);
int t_carrier_move_exact(void);
int t_carrier_background_move(void);
int t_carrier_move_reader_window(void);
int t_carrier_divert_during_move(void);
int t_carrier_move_unlocked(void);
int t_carrier_settle_generations(void);
int t_carrier_sysctl_off(void);
int t_carrier_region_probe(void);
#else
int t_carrier_none(void);
#define t_carrier_entry			t_carrier_none
#define t_carrier_move_exact		t_carrier_none
#define t_carrier_background_move	t_carrier_none
#define t_carrier_move_reader_window	t_carrier_none
#define t_carrier_divert_during_move	t_carrier_none
#define t_carrier_move_unlocked		t_carrier_none
#define t_carrier_settle_generations	t_carrier_none
#define t_carrier_sysctl_off		t_carrier_none
#define t_carrier_region_probe		t_carrier_none
#endif

/* kprobes_api_text.c */
int t_bad_input(void);
int t_bad_input_patched_sites(void);
int t_core_patched_sites(void);
int t_alternatives_lock_prefix(void);

/* kprobes_api_insn.c */
int t_emulated_instructions(void);
int t_emulated_indirect_call_mem(void);
int t_emulated_transfers(void);
int t_fault_in_single_step(void);
int t_boost_and_single_step_agree(void);
int t_gp_in_single_step(void);
int t_fault_in_handler(void);

/* kprobes_api_smp.c */
int t_concurrent_hits_while_registering(void);
int t_batch_unregister_optimized(void);
int t_post_joins_pre_only_walk(void);
#endif /* CONFIG_X86 */

#endif /* KPROBES_API_H */
