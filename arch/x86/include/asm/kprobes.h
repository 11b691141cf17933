/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef _ASM_X86_KPROBES_H
#define _ASM_X86_KPROBES_H
/*
 * x86 kprobes: what the arch-neutral core (kernel/kprobes.c) needs to know
 * about a probed instruction and about this CPU's hit state.  The code is
 * in arch/x86/kernel/kprobes/.
 */
#include <asm-generic/kprobes.h>

#ifdef CONFIG_KPROBES
#include <linux/types.h>
#include <linux/ptrace.h>
#include <linux/percpu.h>
#include <asm/text-patching.h>
#include <asm/insn.h>
#include <asm/ibt.h>

#define BREAKPOINT_INSTRUCTION	INT3_INSN_OPCODE
typedef u8 kprobe_opcode_t;

/*
 * How the probed instruction is carried out after the pre_handlers:
 *  KP_STEP     run the copy in the slot, then trap on the int3 after it
 *              (no TF trap)
 *  KP_EMULATE  the instruction changes IP (jmp, jcc, call, ret, ...),
 *              or is a register push/move (the usual first instructions
 *              of a function): emulate it on regs, no slot execution at
 *              all, so one trap per hit even with a post_handler
 */
enum kprobe_insn_kind {
	KP_STEP = 0,
	KP_EMULATE_JMP,		/* jmp rel8/rel32: ip = target */
	KP_EMULATE_JCC,		/* jcc rel8/rel32: ip = cond ? target : next */
	KP_EMULATE_CALL,	/* call rel32: push next, ip = target */
	KP_EMULATE_RET,		/* ret [imm16]: ip = pop, sp += imm */
	KP_EMULATE_INDIRECT,	/* jmp/call *reg or *mem */
	KP_EMULATE_LOOP,	/* loop/loope/loopne/jrcxz */
	KP_EMULATE_CLI,		/* cli: clear IF in regs */
	KP_EMULATE_PUSH,	/* push %reg */
	KP_EMULATE_MOV,		/* mov %reg, %reg (64 or 32 bits) */
};

/*
 * A KP_STEP instruction may also be boosted: when no probe at the site has
 * a post_handler, a second copy at KPROBE_BOOST_OFFSET in the slot, followed
 * by a jump back to the next original instruction, runs straight after
 * the pre_handlers, with no second trap.
 */
#define KPROBE_SLOT_SIZE	32
/* the longest region a detour (one slot) replaces: see opt.c */
#define KPROBE_OPT_MAX_LEN	14
#define KPROBE_BOOST_OFFSET	16

/* Fix-ups after a KP_STEP single-step. */
#define KP_FIX_PUSHF	0x01	/* pushf: the pushed IF must be the real one */
#define KP_FIX_POPF	0x02	/* popf: IF comes from the popped value */

struct arch_specific_insn {
	/*
	 * the slot: a copy of the insn (RIP-relative fixed) + a call to
	 * kprobe_step_trampoline (or an int3), and if boostable another
	 * copy + jmp back at KPROBE_BOOST_OFFSET
	 */
	kprobe_opcode_t *insn;
	/* the original instruction bytes, for decoding and disarming */
	u8 orig[MAX_INSN_SIZE];
	u8 len;
	u8 kind;		/* enum kprobe_insn_kind */
	u8 fixups;		/* KP_FIX_* */
	u8 cond;		/* jcc: condition nibble; loop: opcode */
	s32 rel;		/* jmp/jcc/call: displacement; ret: imm16 */
	bool indirect_call;	/* KP_EMULATE_INDIRECT: call, not jmp */
	bool boostable;		/* KP_STEP with a boost copy in the slot */
	bool stepless;		/* emulated or boostable: no single-step */
	bool step_call;		/* the step copy ends in a call, not an int3 */
	u8 src, dst;		/* push/mov: pt_regs offsets of the registers */
	bool wide;		/* mov: 64 bits (else 32, zero-extended) */
	/* jump optimization (opt.c): the detour, and the bytes it replaces */
	kprobe_opcode_t *opt_stub;
	u8 opt_len;
	u8 opt_orig[KPROBE_OPT_MAX_LEN];
};

/*
 * Where a function's return address is when a probe on its first
 * instruction hits: the word on top of the stack.  A kretprobe records
 * it (that slot is also the frame's identity) and diverts it through that
 * slot to kretprobe_trampoline.  Inline: it is on every kretprobe hit.
 */
static __always_inline unsigned long *arch_kretprobe_ret_slot(struct pt_regs *regs)
{
	return (unsigned long *)regs->sp;
}

/*
 * A jprobe handler sees the probed function's stack arguments in a mirror
 * of this many bytes from its return address up (jprobes.c): the return
 * address and 15 stack words on x86_64, so functions of up to 21
 * word-sized arguments (6 in registers), or 31 on i386 (34, 3 in
 * registers).  Beyond it the handler reads its own frame.
 */
#define JPROBE_MAX_STACK_SIZE	128
/* the name older modules use */
#define MAX_STACK_SIZE		JPROBE_MAX_STACK_SIZE

/* One level of hit state; nested hits (re-entry, NMI) push another. */
struct kprobe_frame {
	struct kprobe *kp;		/* current_kprobe while this level runs */
	struct kprobe_site *site;
	unsigned int status;		/* KPROBE_HIT_* / KPROBE_REENTER */
	unsigned long saved_if;		/* X86_EFLAGS_IF of the trapped context */
	/* where a handled #PF resumes (kprobe_fault_handler()); 0: none */
	unsigned long fault_ip, fault_flags;
};

#define KPROBE_NEST_MAX	4

struct kprobe_ctlblk {
	unsigned int depth;
	struct kprobe_frame frame[KPROBE_NEST_MAX];
};

int kprobe_fault_handler(struct pt_regs *regs, int trapnr);
int kprobe_int3_handler(struct pt_regs *regs);

/* The backend's assembly, and the C it calls; not for probe modules. */
void kprobe_fault_landing(void);		/* core.c: #PF handled */
extern const u8 kprobe_fault_resume[];
void kprobe_step_trampoline(void);		/* core.c: a step copy's end */
void kprobe_step_callback(struct pt_regs *regs);
void jprobe_trampoline(void);			/* jprobes.c */
extern const u8 jprobe_return_break[];		/* jprobe_return()'s int3 */
void *jprobe_trampoline_enter(unsigned long *mirror);
void kprobe_opt_trampoline(void);			/* opt.c */
struct kprobe_site;
__noendbr int kprobe_opt_callback(struct pt_regs *regs, struct kprobe_site *s);
void jprobe_return_prepare(void);
unsigned long kprobe_carrier_resume(struct kprobe_site *c);	/* carrier.c */

#else

static inline int kprobe_debug_handler(struct pt_regs *regs) { return 0; }

#endif /* CONFIG_KPROBES */
#endif /* _ASM_X86_KPROBES_H */
