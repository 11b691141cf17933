// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * x86 kprobes: the int3 hit path, carrying out the probed instruction
 * (emulated, boosted or single-stepped out of line), faults taken while
 * a probe runs, the kretprobe trampoline, and the x86 blacklist.
 */
#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/kprobes.h>
#include <linux/kprobes_backend.h>
#include <linux/ptrace.h>
#include <linux/string.h>
#include <linux/slab.h>
#include <linux/kallsyms.h>
#include <linux/memory.h>
#include <linux/objtool.h>
#include <linux/extable.h>
#include <linux/jump_label.h>
#include <linux/module.h>
#include <linux/ftrace.h>
#include <asm/extable.h>
#include <asm/asm.h>

#include <asm/text-patching.h>
#include <asm/insn.h>
#include <asm/insn-eval.h>
#include <asm/ibt.h>
#include <asm/sections.h>
#include <asm/set_memory.h>
#include <asm/trapnr.h>
#include <asm/nospec-branch.h>

#include "common.h"

/* ---- the hit path ----------------------------------------------------------- */

static nokprobe_inline unsigned long reg_value(struct pt_regs *regs, int off)
{
	return *(unsigned long *)((char *)regs + off);
}

/*
 * Emulate the site's instruction on regs; nothing runs out of line.
 * Emulated are the IP-changing instructions (jmp, jcc, call, ret,
 * loop/jrcxz, indirect jmp/call), cli, and register pushes and
 * register-to-register moves (push %rbp, mov %rsp,%rbp, argument
 * shuffles: most functions' first instructions), so that a probe there
 * costs one trap per hit even with a post_handler.
 *
 * regs->ip is addr + 1 on entry (as the int3 left it).  An indirect
 * jmp/call through memory loads its target with a plain load: if the
 * operand is unmapped, the fault happens here, as it would have in the
 * original instruction.
 */
static void kprobe_emulate(struct kprobe_site *s, struct pt_regs *regs)
{
	struct arch_specific_insn *ai = &s->ainsn;
	unsigned long next = s->addr + ai->len;
	unsigned long target;

	switch (ai->kind) {
	case KP_EMULATE_JMP:
		int3_emulate_jmp(regs, next + ai->rel);
		break;
	case KP_EMULATE_JCC:
		int3_emulate_jcc(regs, ai->cond, next, ai->rel);
		break;
	case KP_EMULATE_CALL:
		int3_emulate_push(regs, next);
		int3_emulate_jmp(regs, next + ai->rel);
		break;
	case KP_EMULATE_RET:
		int3_emulate_ret(regs);
		regs->sp += ai->rel;
		break;
	case KP_EMULATE_LOOP: {
		bool taken;

		if (ai->cond == 0xe3) {		/* jrcxz */
			taken = !regs->cx;
		} else {
			regs->cx--;
			taken = regs->cx != 0;
			if (ai->cond == 0xe1)	/* loope */
				taken &= !!(regs->flags & X86_EFLAGS_ZF);
			else if (ai->cond == 0xe0)	/* loopne */
				taken &= !(regs->flags & X86_EFLAGS_ZF);
		}
		int3_emulate_jmp(regs, taken ? next + ai->rel : next);
		break;
	}
	case KP_EMULATE_INDIRECT: {
		struct insn insn;

		/* the bytes decoded at registration: cannot fail here */
		if (WARN_ON_ONCE(insn_decode_kernel(&insn, ai->orig) < 0)) {
			target = next;
		} else if (X86_MODRM_MOD(insn.modrm.value) == 3) {
			target = reg_value(regs, insn_get_modrm_rm_off(&insn, regs));
		} else {
			/* rip-relative operands count from the original insn */
			unsigned long ip = regs->ip;
			unsigned long *ea;

			regs->ip = s->addr;
			ea = (unsigned long __force *)insn_get_addr_ref(&insn, regs);
			regs->ip = ip;
			/* an operand it cannot resolve (kprobe_insn_classify()) */
			if (WARN_ON_ONCE(ea == (unsigned long *)-1L))
				target = next;
			else
				target = READ_ONCE(*ea);
		}
		if (ai->indirect_call)
			int3_emulate_push(regs, next);
		int3_emulate_jmp(regs, target);
		break;
	}
	case KP_EMULATE_CLI:
		regs->flags &= ~X86_EFLAGS_IF;
		int3_emulate_jmp(regs, next);
		break;
	case KP_EMULATE_PUSH:
		int3_emulate_push(regs, reg_value(regs, ai->src));
		int3_emulate_jmp(regs, next);
		break;
	case KP_EMULATE_MOV: {
		unsigned long v = reg_value(regs, ai->src);

		*(unsigned long *)((char *)regs + ai->dst) = ai->wide ? v : (u32)v;
		int3_emulate_jmp(regs, next);
		break;
	}
	}
}

NOKPROBE_SYMBOL(kprobe_emulate);

/*
 * Carry out the probed instruction for the top frame f, after the
 * pre_handlers.  What the instruction allows is decided once, at
 * registration, from the decoded instruction (decode.c); the site's
 * state picks the way on each hit:
 *
 *  - Detoured (the site is optimized or being (un)optimized): the
 *    detour's copy runs.
 *  - Emulated (kprobe_emulate()): the frame is finished at once, its
 *    post_handlers included.
 *  - Boosted: when no probe at the site has a post_handler, nothing is
 *    left to do after the instruction, so the trap returns straight into
 *    the slot's second copy, which ends in a jump back to the next
 *    original instruction: one trap per hit instead of two.  Per
 *    instruction insn_boostable() decides (not with an exception table
 *    entry, not popf), per hit the site's has_post.
 *  - Everything else is single-stepped out of line, from a copy in a
 *    slot followed by a call to kprobe_step_trampoline (or, where that
 *    call does not fit or the copy is a popf, by an int3):
 *     1. Here: regs->ip goes to the copy, IF saved in the frame and
 *        cleared, and we return from the trap.
 *     2. The copy runs and calls the trampoline, which builds pt_regs as
 *        a trap would and hands them to kprobe_step_callback() (or it
 *        reaches the int3, and kprobe_int3_nested() sees it).
 *     3. kprobe_finish_step() moves ip to the instruction after the
 *        original, restores IF (pushf/popf get theirs fixed) and runs
 *        the post_handlers.
 *    With the call that is one trap per hit, not two, and no TF/#DB
 *    trap either way: no DR6 bookkeeping, and the debug registers stay
 *    the debugger's.  Interrupts stay off from the int3 to the end of
 *    the post_handlers, so the hit's frame stays this CPU's, as with a
 *    trap.  A RIP-relative operand in the copy has its displacement
 *    adjusted so that it still addresses what the original did, which is
 *    why slots must lie within +-2GB of kernel text.
 *
 * Instructions none of these can carry out are refused at registration
 * (kprobe_insn_refused()): int3/int n/into/int1, iret, far transfers,
 * syscall/sysret/sysenter/sysexit, hlt (would stop with IF off), sti
 * (its interrupt shadow cannot be kept), ud0/ud1/ud2, the system
 * instructions of 0f 01 (but clac/stac/rdtscp), and anything with an
 * emulate prefix.
 */
static nokprobe_inline void kprobe_execute(struct kprobe_site *s,
					   struct pt_regs *regs,
					   struct kprobe_ctlblk *kcb,
					   struct kprobe_frame *f)
{
	if (kprobe_site_detoured(s)) {
		/*
		 * Being (un)optimized, or optimized and reached through the
		 * int3 text_poke_bp() keeps while it writes: the bytes after
		 * the first may be the jump's, so never go back into the
		 * region; the detour's copy of it runs and jumps past it.
		 * No post_handler here (such sites are never optimized).
		 */
		regs->ip = kprobe_opt_copy(s);
		kprobe_frame_pop(kcb);
		return;
	}
	if (s->ainsn.kind != KP_STEP) {
		kprobe_emulate(s, regs);
		if (f->status != KPROBE_REENTER) {
			f->status = KPROBE_HIT_SSDONE;
			kprobe_site_post(s, f, regs);
		}
		kprobe_frame_pop(kcb);
		return;
	}
	if (s->ainsn.boostable && !kprobe_site_has_post(s)) {
		/*
		 * Boost: nothing to do after the copy, so run it as plain
		 * code, interrupts as they were, and let its jump bring it
		 * back.  The hit is over as we return from the trap.
		 */
		regs->ip = (unsigned long)s->ainsn.insn + KPROBE_BOOST_OFFSET;
		kprobe_frame_pop(kcb);
		return;
	}
	if (f->status != KPROBE_REENTER)
		f->status = KPROBE_HIT_SS;
	f->saved_if = regs->flags & X86_EFLAGS_IF;
	/* nothing may interrupt the copy: this frame is per-CPU */
	regs->flags &= ~X86_EFLAGS_IF;
	regs->ip = (unsigned long)s->ainsn.insn;
}

/* the slot a frame is single-stepping in, or NULL */
static nokprobe_inline kprobe_opcode_t *kprobe_frame_slot(struct kprobe_frame *f)
{
	if (!f || !f->site ||
	    (f->status != KPROBE_HIT_SS && f->status != KPROBE_REENTER))
		return NULL;
	return f->site->ainsn.insn;
}

/* the post_handlers of a finished step's site, then its frame popped */
static noinline void kprobe_finish_post(struct pt_regs *regs,
					struct kprobe_ctlblk *kcb,
					struct kprobe_frame *f)
{
	kprobe_site_post(f->site, f, regs);
	kprobe_frame_pop(kcb);
}

NOKPROBE_SYMBOL(kprobe_finish_post);

/*
 * The copy's call (or the int3 after it) was reached: the single-step of
 * the top frame is done.  Inline, with the walk of several probes out of
 * line, so that the common hit (one probe) needs few registers.
 */
static nokprobe_inline int kprobe_finish_step(struct pt_regs *regs,
					      struct kprobe_ctlblk *kcb,
					      struct kprobe_frame *f)
{
	struct kprobe_site *s = f->site;
	struct arch_specific_insn *ai = &s->ainsn;
	struct kprobe *kp = kprobe_site_solo_post(s);

	regs->ip = s->addr + ai->len;
	if (unlikely(ai->fixups & KP_FIX_PUSHF)) {
		unsigned long *tos = (unsigned long *)regs->sp;

		*tos = (*tos & ~X86_EFLAGS_IF) | f->saved_if;
	}
	if (likely(!(ai->fixups & KP_FIX_POPF)))
		regs->flags = (regs->flags & ~X86_EFLAGS_IF) | f->saved_if;
	if (f->status == KPROBE_REENTER) {
		kprobe_frame_pop(kcb);
		return 1;
	}
	f->status = KPROBE_HIT_SSDONE;
	if (kp == f->kp && kcb->depth == 1) {
		/* kprobe_int3_solo_post()'s hit: its one probe, no list walk */
		kp->post_handler(kp, regs, 0);
		kprobe_solo_done(kcb);
		return 1;
	}
	kprobe_finish_post(regs, kcb, f);
	return 1;
}

NOKPROBE_SYMBOL(kprobe_finish_step);

/* pt_regs offsets the trampolines use (no asm-offsets in a C file) */
static_assert(offsetof(struct pt_regs, sp) == KP_REGS_SP);
static_assert(sizeof(struct pt_regs) == KP_REGS_SIZE);
static_assert(sizeof(long) == KP_WORD);

/*
 * The end of a single-step copy: it calls here, interrupts off since the
 * int3 (the copy cannot have set IF: popf ends in an int3 instead).  We
 * build pt_regs below the return address the call pushed, regs->sp the
 * stack pointer the copy left, and kprobe_step_callback() finishes the
 * hit (as kprobe_finish_step() does at the int3 it replaces), then writes
 * where to go on over that return address.  The unwinder is told that
 * the stack pointer points at full pt_regs, so a stack trace from a
 * post_handler goes from here to the probed function and its callers, as
 * from the int3.
 */
asm(".pushsection .kprobes.text, \"ax\"\n"
	".global kprobe_step_trampoline\n"
	".type kprobe_step_trampoline, @function\n"
	"kprobe_step_trampoline:\n"
	ANNOTATE_NOENDBR	/* reached by direct calls from slots only */
	UNWIND_HINT_FUNC
	KP_REGS_OPEN				/* regs->ss, sp, flags */
	/* regs->cs .. regs->bx/r15; ip is the hit's once the callback ran */
	SAVE_REGS_STRING_AT("kprobe_step_trampoline")
	"	lea " __stringify(KP_REGS_SIZE + KP_WORD) "(" KP_SP "), " KP_AX "\n"
	"	mov " KP_AX ", " __stringify(KP_REGS_SP) "(" KP_SP ")\n"
	UNWIND_HINT(UNWIND_HINT_TYPE_REGS, ORC_REG_SP, 0, 1)
	"	mov " KP_SP ", " KP_ARG1 "\n"
	"	call kprobe_step_callback\n"
	KP_REGS_CLOSE				/* IF as before the int3 */
	UNWIND_HINT_FUNC
	ASM_RET
	".size kprobe_step_trampoline, .-kprobe_step_trampoline\n"
	".popsection\n"
);
NOKPROBE_SYMBOL(kprobe_step_trampoline);
STACK_FRAME_NON_STANDARD_FP(kprobe_step_trampoline);

/*
 * Called by kprobe_step_trampoline with the pt_regs it built.  The top
 * frame on this CPU is the hit whose copy just ran: interrupts have been
 * off since its int3, so nothing else ran here but complete nested hits
 * (an NMI's), and a fault in the copy drops the frame without reaching
 * the call.  notrace: a function tracer here would run mid-hit.
 */
__used __visible notrace void kprobe_step_callback(struct pt_regs *regs)
{
	unsigned long *ret = (unsigned long *)(regs + 1);
	struct kprobe_ctlblk *kcb = get_kprobe_ctlblk();
	struct kprobe_frame *f = kprobe_frame_top(kcb);

	/*
	 * lockdep saw the int3's exit restore the interrupted state; the
	 * copy ran with IF clear, as the post_handlers do (they ran in the
	 * second trap before).  The popf gives IF back.
	 */
	if (IS_ENABLED(CONFIG_TRACE_IRQFLAGS) && f->saved_if)
		trace_hardirqs_off();
	kprobe_regs_fill(regs);
	kprobe_finish_step(regs, kcb, f);
	*ret = regs->ip;
	if (IS_ENABLED(CONFIG_TRACE_IRQFLAGS) && (regs->flags & X86_EFLAGS_IF))
		trace_hardirqs_on();
}

NOKPROBE_SYMBOL(kprobe_step_callback);

/*
 * A fault_handler that handled a #PF.  The #PF path WARNs when the
 * kprobes hook returns 1 (it expects only the single-step fixup, done
 * with 0), so we answer 0 and let its exception-table search find an
 * entry of ours: the fault "happened" at kprobe_fault_landing, whose
 * fixup is kprobe_fault_resume, an int3 where kprobe_fault_resumed() puts
 * back the ip and flags the fault_handler chose.  AC is set meanwhile so
 * that a fault on a user address is not refused before that search (the
 * SMAP check, arch/x86/mm/fault.c).
 */
asm(".pushsection .kprobes.text, \"ax\"\n"
	".type kprobe_fault_landing, @function\n"
	"kprobe_fault_landing:\n"
	ANNOTATE_NOENDBR	/* never run: an address with a fixup */
	"	nop\n"
	"kprobe_fault_resume:\n"
	ANNOTATE_NOENDBR	/* reached by the fixup, an iret */
	"	int3\n"
	"	ud2\n"
	_ASM_EXTABLE(kprobe_fault_landing, kprobe_fault_resume)
	".size kprobe_fault_landing, .-kprobe_fault_landing\n"
	".popsection\n"
);
NOKPROBE_SYMBOL(kprobe_fault_landing);
STACK_FRAME_NON_STANDARD(kprobe_fault_landing);

static int kprobe_fault_via_extable(struct pt_regs *regs, struct kprobe_frame *f)
{
	f->fault_ip = regs->ip;
	f->fault_flags = regs->flags;
	regs->ip = (unsigned long)kprobe_fault_landing;
	regs->flags |= X86_EFLAGS_AC;
	return 0;
}

NOKPROBE_SYMBOL(kprobe_fault_via_extable);

static int kprobe_fault_resumed(struct pt_regs *regs, struct kprobe_frame *f)
{
	regs->ip = f->fault_ip;
	regs->flags = f->fault_flags;
	f->fault_ip = 0;
	return 1;
}

NOKPROBE_SYMBOL(kprobe_fault_resumed);

/*
 * Every int3 at depth 0 but the fast path's: sites with several probes or
 * a post_handler or jprobe, or an instruction to single-step; and (s NULL)
 * our own int3s in .kprobes.text and int3s that are not ours.  Nested
 * int3s come here from kprobe_int3_nested().  s is the site at the int3.
 *
 * A carrier's int3 (on the instruction after a fentry nop, standing for
 * the fentry site's ftrace hook) runs nothing in the trap:
 * kprobe_int3_carrier() returns into the carrier's hit stub, which calls
 * the optimizer's trampoline.
 */
static noinline int kprobe_int3_slow(struct pt_regs *regs,
				     struct kprobe_ctlblk *kcb,
				     struct kprobe_site *s)
{
	unsigned long addr = regs->ip - INT3_INSN_SIZE;
	struct kprobe_frame *f = kprobe_frame_top(kcb);
	struct kprobe *first;

	/*
	 * An ftrace site is never ours to trap on: an int3 there is ftrace
	 * patching its fentry call (text_poke_bp), met late.
	 */
	if (!s || kprobe_site_is_ftrace(s)) {
		/*
		 * Our other int3s, in .kprobes.text (never a site): the end
		 * of a jprobe's handler (jprobe_return_trap()), and the way
		 * back from a #PF a fault_handler handled.
		 */
		if (jprobe_return_trap(regs, kcb, addr))
			return 1;
		if (addr == (unsigned long)kprobe_fault_resume && f && f->fault_ip)
			return kprobe_fault_resumed(regs, f);
		/*
		 * Removed between the trap and this lookup (ours disarmed,
		 * or another patcher done): the byte is no longer an int3,
		 * so run what is there now.
		 */
		if (*(u8 *)addr != INT3_INSN_OPCODE &&
		    (core_kernel_text(addr) || is_module_text_address(addr))) {
			regs->ip = addr;
			return 1;
		}
		return 0;
	}

#ifdef CONFIG_KPROBE_CARRIERS
	if (unlikely(kprobe_site_carried(s)))
		return kprobe_int3_carrier(regs, s);
#endif
	if (kprobe_running()) {
		/* a probe hit inside a handler or a single-step: no handlers */
		first = kprobe_site_first(s);
		if (first)
			kprobes_inc_nmissed_count(first);
		f = kprobe_frame_push(kcb, s, kprobe_running(), KPROBE_REENTER);
		kprobe_execute(s, regs, kcb, f);
		return 1;
	}

	/*
	 * While no handler runs, the site's first probe stands for it; a
	 * site whose probes are all being removed is still stepped over,
	 * under the busy placeholder.
	 */
	first = kprobe_site_standin(s);
	f = kprobe_frame_push(kcb, s, first, KPROBE_HIT_ACTIVE);
	if (kprobe_site_pre(s, f, regs)) {
		/*
		 * A pre_handler moved ip: the probed instruction is skipped.
		 * A jprobe did: the frame stays until its handler is done.
		 */
		if (f->status != KPROBE_HIT_JPROBE)
			kprobe_frame_pop(kcb);
		return 1;
	}
	if (f->kp != first)
		kprobe_frame_set_kp(f, first);
	kprobe_execute(s, regs, kcb, f);
	return 1;
}

NOKPROBE_SYMBOL(kprobe_int3_slow);

/*
 * An int3 while a hit is under way on this CPU (kcb->depth > 0).  The
 * per-CPU state (struct kprobe_ctlblk) is a stack of frames, so a hit
 * inside a handler or inside a single-step (an NMI's) nests cleanly: the
 * nested hit counts nmissed, runs no handler, and carries out its
 * instruction on a frame of its own.
 */
static noinline int kprobe_int3_nested(struct pt_regs *regs,
				       struct kprobe_ctlblk *kcb)
{
	unsigned long addr = regs->ip - INT3_INSN_SIZE;
	struct kprobe_frame *f = kprobe_frame_top(kcb);
	kprobe_opcode_t *slot = kprobe_frame_slot(f);

	/* the int3 after the copy being single-stepped by the top frame? */
	if (slot && addr == (unsigned long)slot + f->site->ainsn.len)
		return kprobe_finish_step(regs, kcb, f);
	return kprobe_int3_slow(regs, kcb, __kprobe_site_lookup(addr));
}

NOKPROBE_SYMBOL(kprobe_int3_nested);

/* the fast path's hit: kp is the site's solo probe, and no hit is under way */
static noinline int kprobe_int3_solo(struct pt_regs *regs,
				     struct kprobe_ctlblk *kcb,
				     struct kprobe_site *s, struct kprobe *kp)
{
	kprobe_solo_begin(kcb, s, kp);
	/* a pre_handler that returns 1 moved ip: the instruction is skipped */
	if (!kp->pre_handler(kp, regs)) {
		/* as kprobe_execute() does it, in the hit's frame */
		if (unlikely(kprobe_site_detoured(s)))
			regs->ip = kprobe_opt_copy(s);
		else if (s->ainsn.kind != KP_STEP)
			kprobe_emulate(s, regs);
		else
			regs->ip = (unsigned long)s->ainsn.insn + KPROBE_BOOST_OFFSET;
	}
	kprobe_solo_done(kcb);
	return 1;
}

NOKPROBE_SYMBOL(kprobe_int3_solo);

/*
 * The second shortcut: kp is s->fast.solo_post, the site's one probe, with a
 * post_handler, and no hit is under way.  The general path's steps with
 * the answers known left out; the instruction is carried out as there.
 */
static noinline int kprobe_int3_solo_post(struct pt_regs *regs,
					  struct kprobe_ctlblk *kcb,
					  struct kprobe_site *s, struct kprobe *kp)
{
	kprobe_solo_begin(kcb, s, kp);
	if (kp->pre_handler && kp->pre_handler(kp, regs)) {
		kprobe_solo_done(kcb);
		return 1;
	}
	kprobe_execute(s, regs, kcb, &kcb->frame[0]);
	return 1;
}

NOKPROBE_SYMBOL(kprobe_int3_solo_post);

/**
 * kprobe_int3_handler() - an int3 trapped in kernel mode: is it ours?
 * @regs: registers at the trap; regs->ip is the int3's address + 1
 *
 * Called by do_int3() directly, before the die-notifier chain: a hit then
 * costs no walk of that chain (uprobes, kgdb and others sit on it), the
 * order against them is fixed, and the hook exists as long as
 * CONFIG_KPROBES does.  Returns 0 for every int3 that is not ours
 * (int3_selftest at boot, kgdb, uprobes' user-mode ones, a real int3
 * instruction).
 *
 * It only sorts int3s, with tail calls, so that it needs no stack frame
 * of its own.  The fast path is the common hit: no hit under way on this
 * CPU, a site with one pre-only probe (struct kprobe_site.fast.solo) on an
 * instruction that needs no single-step; kprobe_int3_solo() does the
 * general path's steps for that case with every test whose answer is
 * known left out: one frame, one call, then the instruction boosted,
 * emulated, or (while the optimizer patches the site) the detour's copy.
 * A site whose one probe has a post_handler (struct kprobe_site.fast.solo_post)
 * takes kprobe_int3_solo_post(), the same idea for that case.
 *
 * Context: NMI-like (irqentry_nmi_enter, interrupts off); so is
 * everything it calls, all NOKPROBE.
 *
 * Return: 1 if handled.
 */
int kprobe_int3_handler(struct pt_regs *regs)
{
	struct kprobe_ctlblk *kcb;
	struct kprobe_site *s;
	struct kprobe *kp;

	if (user_mode(regs))
		return 0;
	kcb = get_kprobe_ctlblk();
	if (unlikely(kcb->depth))
		return kprobe_int3_nested(regs, kcb);
	s = __kprobe_site_lookup(regs->ip - INT3_INSN_SIZE);
	kp = s ? kprobe_site_solo(s) : NULL;
	/* (an ftrace site is never stepless: it has no instruction prepared) */
	if (unlikely(!kp || !s->ainsn.stepless)) {
		kp = s ? kprobe_site_solo_post(s) : NULL;
		if (kp)
			return kprobe_int3_solo_post(regs, kcb, s, kp);
		return kprobe_int3_slow(regs, kcb, s);
	}
	return kprobe_int3_solo(regs, kcb, s, kp);
}

NOKPROBE_SYMBOL(kprobe_int3_handler);

/**
 * kprobe_jprobe_resume() - go on with a hit after a jprobe's handler
 * @regs: the probed function's registers again
 * @kcb: this CPU's hit state
 * @f: the hit's frame; f->kp is the jprobe
 *
 * Runs the pre_handlers of the probes after the jprobe (another jprobe
 * leaves again), then carries out the probed instruction as a hit would:
 * on an ftrace site that is the fentry call, so ip moves past it.
 *
 * Return: 1 (the int3 of jprobe_return() is handled).
 */
int kprobe_jprobe_resume(struct pt_regs *regs, struct kprobe_ctlblk *kcb,
			 struct kprobe_frame *f)
{
	struct kprobe_site *s = f->site;
	struct kprobe *first;

	f->status = KPROBE_HIT_ACTIVE;
	if (kprobe_site_pre_from(s, f, regs,
				 list_entry_rcu(f->kp->list.next, struct kprobe, list))) {
		if (f->status != KPROBE_HIT_JPROBE)
			kprobe_frame_pop(kcb);
		return 1;
	}
#ifdef CONFIG_KPROBES_ON_FTRACE
	if (kprobe_site_is_ftrace(s)) {
		/* the fentry call "executed" */
		regs->ip = s->addr + MCOUNT_INSN_SIZE;
		f->status = KPROBE_HIT_SSDONE;
		kprobe_site_post(s, f, regs);
		kprobe_frame_pop(kcb);
		return 1;
	}
#endif
	first = kprobe_site_standin(s);
	kprobe_frame_set_kp(f, first);
	kprobe_execute(s, regs, kcb, f);
	return 1;
}

NOKPROBE_SYMBOL(kprobe_jprobe_resume);

/**
 * kprobe_fault_handler() - a fault while this CPU runs a probe
 * @regs: registers at the fault
 * @trapnr: X86_TRAP_PF, X86_TRAP_GP, ...
 *
 * Called only while kprobe_running().  A fault in the copied instruction
 * is turned into a fault of the original one: ip goes back to the probe
 * address and the frame is dropped.  For #PF the fault path then goes on
 * and applies the original's exception-table fixup itself; for #GP (and
 * #VE), which tried the fixups before asking us, we apply it here.
 * A fault in a handler (a jprobe's included) goes to that probe's
 * fault_handler first; if it fixed things up (returned 1) the fault is
 * done, resuming where the fault_handler set regs->ip: at once for #GP,
 * through kprobe_fault_landing for #PF.  If it returned 0, the kernel's
 * own handling goes on (an exception-table fixup of the faulting
 * instruction, or an oops).
 *
 * Return: 1 if the fault was handled here.
 */
int kprobe_fault_handler(struct pt_regs *regs, int trapnr)
{
	struct kprobe_ctlblk *kcb = get_kprobe_ctlblk();
	struct kprobe_frame *f = kprobe_frame_top(kcb);
	kprobe_opcode_t *slot = kprobe_frame_slot(f);
	struct kprobe *kp;

	if (!f)
		return 0;
	if (slot && regs->ip >= (unsigned long)slot &&
	    regs->ip < (unsigned long)slot + f->site->ainsn.len) {
		regs->ip = f->site->addr;
		regs->flags = (regs->flags & ~X86_EFLAGS_IF) | f->saved_if;
		kprobe_frame_pop(kcb);
		if (trapnr != X86_TRAP_PF)
			return fixup_exception(regs, trapnr, 0, 0);
		return 0;
	}
	kp = f->kp;
	if ((f->status == KPROBE_HIT_ACTIVE || f->status == KPROBE_HIT_SSDONE ||
	     f->status == KPROBE_HIT_JPROBE) &&
	    kp && kp->fault_handler && kp->fault_handler(kp, regs, trapnr)) {
		if (trapnr == X86_TRAP_PF)
			return kprobe_fault_via_extable(regs, f);
		return 1;
	}
	return 0;
}

NOKPROBE_SYMBOL(kprobe_fault_handler);

/* ---- kretprobes ------------------------------------------------------------ */

#ifdef CONFIG_KRETPROBES
/*
 * The trampoline a kretprobed function returns into.  Its frame, from the
 * top: the slot the diverted return address sat in (fp), where we push
 * our own address so an unwinder meeting it asks kretprobe_find_ret_addr()
 * for the real one; then a struct pt_regs.  kretprobe_slot_return()
 * writes the real return address over that slot before it runs any
 * handler (an unwind from a handler or a preemption finds it there), and
 * we return through it, so no trap is taken on the way back.
 */
asm(".pushsection .kprobes.text, \"ax\"\n"
	".global kretprobe_trampoline\n"
	".type kretprobe_trampoline, @function\n"
	"kretprobe_trampoline:\n"
	ANNOTATE_NOENDBR	/* reached by ret only */
	"	push $kretprobe_trampoline\n"
	UNWIND_HINT_FUNC
	/* regs->ss, regs->sp (a lea: the flags stay the function's), flags */
	KP_REGS_OPEN
	/*
	 * regs->cs .. regs->bx/r15, ip the trampoline's own address until
	 * kretprobe_slot_return() knows the caller: an NMI unwinding through
	 * the frame meanwhile reads defined words, not old stack
	 */
	SAVE_REGS_STRING_AT("kretprobe_trampoline")
	"	mov " KP_SP ", " KP_ARG1 "\n"
	"	call kretprobe_trampoline_callback\n"
	/* the slot above the pt_regs now holds the real return address */
	KP_REGS_CLOSE
	ASM_RET
	".size kretprobe_trampoline, .-kretprobe_trampoline\n"
	".popsection\n"
);
NOKPROBE_SYMBOL(kretprobe_trampoline);
STACK_FRAME_NON_STANDARD_FP(kretprobe_trampoline);

/*
 * kretprobe_slot_return() writes the real return address over the slot,
 * on every path (the common return, the walk, the nested one), so no
 * result comes back: on x86_64 a tail call, no register kept here
 * across the handlers.  notrace, as the rest of the return path: one
 * call less on every return.
 */
__used __visible notrace void
kretprobe_trampoline_callback(struct pt_regs *regs)
{
	/* the fake return-address slot sits right above the pt_regs */
	unsigned long *fp = (unsigned long *)(regs + 1);

	regs->sp = (unsigned long)(fp + 1);	/* as after the ret */
	kprobe_regs_fill(regs);
	kretprobe_slot_return(regs, fp);
}

NOKPROBE_SYMBOL(kretprobe_trampoline_callback);
#endif /* CONFIG_KRETPROBES */

/* ---- blacklist, init --------------------------------------------------------- */

/**
 * arch_populate_kprobe_blacklist() - x86 code kprobes must not touch
 *
 * Entry text runs before the kernel has a sane state to take a trap in.
 *
 * Return: 0 or -ENOMEM.
 */
int arch_populate_kprobe_blacklist(void)
{
	return kprobe_add_area_blacklist((unsigned long)__entry_text_start,
					 (unsigned long)__entry_text_end);
}

int __init arch_init_kprobes(void)
{
	return 0;
}
