// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * x86 kprobes backend: decoding, arming, the int3 hit path, out-of-line
 * single-step, emulation of IP-changing instructions, faults, and the
 * kretprobe trampoline.
 *
 * Entry.  do_int3() calls kprobe_int3_handler() directly, before the
 * die-notifier chain: a hit then costs no chain walk (uprobes, kgdb and
 * others sit on that chain), the order against them is fixed, and the
 * hook exists as long as CONFIG_KPROBES does.  It runs NMI-like
 * (irqentry_nmi_enter, interrupts off); so does everything it calls, all
 * NOKPROBE.
 *
 * How the probed instruction is carried out after the pre_handlers
 * (decided once, at registration, from the decoded instruction):
 *
 *  - IP-changing instructions (jmp, jcc, call, ret, loop/jrcxz, indirect
 *    jmp/call) are emulated on pt_regs; nothing runs out of line.  So
 *    are register pushes and register-to-register moves (push %rbp,
 *    mov %rsp,%rbp, argument shuffles: most functions' first
 *    instructions), which makes a probe there one trap per hit even with
 *    a post_handler.
 *  - Everything else is single-stepped out of line: a copy sits in a slot
 *    (kernel/kprobes_slots.c) followed by a call to kprobe_step_trampoline
 *    (or, where that call does not fit or the copy is a popf, by an int3).
 *    We point regs->ip at the copy with IF cleared and return from the
 *    trap; the copy runs and calls the trampoline, which builds pt_regs
 *    as a trap would and hands them to kprobe_step_callback(): one trap
 *    per hit, not two (no TF/#DB trap either way: no DR6 bookkeeping,
 *    and the debug registers stay the debugger's).  There we move ip back
 *    to the instruction after the original, restore IF, and run the
 *    post_handlers.  Interrupts stay off from the int3 to the end of the
 *    post_handlers, so the hit's frame stays this CPU's, as with a trap.
 *    A RIP-relative operand in the copy has its displacement adjusted so
 *    it still addresses what the original did; slots are allocated within
 *    +-2GB of kernel text for that reason.  pushf/popf get their IF fixed.
 *  - Boost: when no probe at the site has a post_handler, nothing is left
 *    to do after the instruction, so the trap returns straight into a
 *    second copy in the slot that ends in a jump back to the next original
 *    instruction: one trap per hit instead of two.  Decided per
 *    instruction at registration (insn_boostable(): not with an exception
 *    table entry, not popf) and per hit (has_post of the site).
 *
 * Refused: int3/int n/into/int1, iret, far transfers, syscall/sysret/
 * sysenter/sysexit, hlt (would stop with IF off), sti (its interrupt
 * shadow cannot be kept), ud2, system instructions of 0f 01 (but
 * clac/stac/rdtscp), and anything with an emulate prefix.
 *
 * Carriers (kernel/kprobes_carriers.c): an int3 on the instruction after
 * a fentry nop standing for the fentry site's ftrace hook.  Its hit runs
 * nothing in the trap: it returns into the carrier's hit stub, which
 * calls the optimizer's trampoline (arch_prepare_carrier(),
 * kprobe_int3_carrier()).
 *
 * Per-CPU state (struct kprobe_ctlblk) is a stack of frames, so a hit
 * inside a handler or inside a single-step (an NMI) nests cleanly: the
 * nested hit counts nmissed, runs no handler, and carries out its
 * instruction on a frame of its own.
 */
#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/kprobes.h>
#include <linux/kprobes_core.h>
#include <linux/ptrace.h>
#include <linux/string.h>
#include <linux/slab.h>
#include <linux/kallsyms.h>
#include <linux/memory.h>
#include <linux/objtool.h>
#include <linux/extable.h>
#include <linux/jump_label.h>
#include <linux/module.h>
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
#include <asm/ftrace.h>

#include "common.h"

/* ---- reading and decoding original instructions ------------------------- */

/*
 * Fetch the original bytes at addr: if we armed a probe there, its first
 * byte is our int3, so take the saved copy instead; bytes under an
 * optimized probe's jump come from its saved region.  Returns how many
 * bytes were read: fewer than MAX_INSN_SIZE when the page after addr's
 * is not mapped (the last instructions of a module's text, which
 * kallsyms sizes up to the end of that text), or -EFAULT.
 */
static int kprobe_read_orig(unsigned long addr, u8 *buf)
{
	int n = MAX_INSN_SIZE;
	struct kprobe_site *s;

	if (copy_from_kernel_nofault(buf, (void *)addr, n)) {
		n = PAGE_SIZE - offset_in_page(addr);
		if (n >= MAX_INSN_SIZE ||
		    copy_from_kernel_nofault(buf, (void *)addr, n))
			return -EFAULT;
		memset(buf + n, 0, MAX_INSN_SIZE - n);
	}
	kprobe_opt_fix_bytes(addr, buf, n);
	s = kprobe_site_lookup(addr);
	if (s && !(s->flags & KPROBE_SITE_FTRACE))
		buf[0] = s->ainsn.orig[0];
	return n;
}

int kprobe_decode_at(unsigned long addr, struct insn *insn, u8 *buf)
{
	int n = kprobe_read_orig(addr, buf);

	if (n < 0)
		return n;
	return insn_decode(insn, buf, n, INSN_MODE_KERN) < 0 ? -EILSEQ : 0;
}

/**
 * arch_check_insn_boundary() - is addr where an instruction starts?
 * @addr: the probe address
 *
 * Decodes the containing function from its first byte.
 *
 * Return: 0 if it is, -EILSEQ if @addr is inside an instruction (or the
 * function cannot be decoded up to it), -EINVAL if it is in no function.
 */
int arch_check_insn_boundary(unsigned long addr)
{
	unsigned long size, offset, a;
	u8 buf[MAX_INSN_SIZE];
	struct insn insn;

	if (!kprobe_sym_size_offset(addr, &size, &offset))
		return -EINVAL;
	for (a = addr - offset; a < addr; a += insn.length) {
		if (kprobe_decode_at(a, &insn, buf))
			return -EILSEQ;
	}
	return a == addr ? 0 : -EILSEQ;
}

/**
 * arch_adjust_kprobe_addr() - step over an ENDBR at a function's entry
 * @addr: the requested address
 * @offset: its offset into the function
 * @on_func_entry: set if the probe is on the function's entry
 *
 * With IBT the first instruction is an ENDBR that must not be replaced;
 * a probe at +0 (or +4) goes to the instruction after it.
 *
 * Return: the address to probe.
 */
kprobe_opcode_t *arch_adjust_kprobe_addr(unsigned long addr, unsigned long offset,
					 bool *on_func_entry)
{
	unsigned long func = addr - offset;
	u32 first = 0;

	if (!copy_from_kernel_nofault(&first, (void *)func, sizeof(first)) &&
	    is_endbr(first)) {
		*on_func_entry = !offset || offset == ENDBR_INSN_SIZE;
		if (*on_func_entry)
			return (kprobe_opcode_t *)(func + ENDBR_INSN_SIZE);
		return (kprobe_opcode_t *)addr;
	}
	*on_func_entry = !offset;
	return (kprobe_opcode_t *)addr;
}

/* ---- what in a function can reach an address ------------------------------- */

#ifdef CONFIG_MITIGATION_RETPOLINE
/* one thunk per register (asm/GEN-for-each-reg.h) */
#define KP_THUNK_REGS	(IS_ENABLED(CONFIG_64BIT) ? 16 : 8)

static bool in_thunk_array(unsigned long target, void *array, unsigned int sz)
{
	unsigned long t = (unsigned long)array;

	return target >= t && target < t + KP_THUNK_REGS * sz;
}

/*
 * A thunk that stands for an indirect jump: a jump there is one.  Each
 * array exists only with the mitigation that builds it (the other two
 * depend on retpolines).
 */
static bool in_indirect_thunk(unsigned long target)
{
	if (in_thunk_array(target, __x86_indirect_thunk_array,
			   RETPOLINE_THUNK_SIZE))
		return true;
#ifdef CONFIG_MITIGATION_CALL_DEPTH_TRACKING
	if (in_thunk_array(target, __x86_indirect_jump_thunk_array,
			   RETPOLINE_THUNK_SIZE))
		return true;
#endif
#ifdef CONFIG_MITIGATION_ITS
	if (in_thunk_array(target, __x86_indirect_its_thunk_array,
			   ITS_THUNK_SIZE))
		return true;
#endif
	return false;
}
#else
static bool in_indirect_thunk(unsigned long target)
{
	return false;
}
#endif

/**
 * kprobe_insn_jumps_into() - can this instruction send execution into a range?
 * @insn: the decoded instruction
 * @a: its address
 * @from: the range's first byte
 * @to: the byte after the range
 *
 * A relative jump, call, loop or jcc aiming inside, or an indirect jump
 * (a jump table may aim anywhere; a retpolined one is a jump to a thunk).
 * Used on every instruction of a function by the optimizer (nothing may
 * land inside a region) and by carriers (nothing may reach the carrier).
 *
 * Return: true if it can.
 */
bool kprobe_insn_jumps_into(struct insn *insn, unsigned long a,
			    unsigned long from, unsigned long to)
{
	u8 op = insn->opcode.bytes[0];
	unsigned long target;

	switch (op) {
	case 0xeb: case 0xe9: case 0xe8:		/* jmp, call rel */
	case 0x70 ... 0x7f:				/* jcc rel8 */
	case 0xe0 ... 0xe3:				/* loop, jrcxz */
		break;
	case 0x0f:
		if ((insn->opcode.bytes[1] & 0xf0) != 0x80)	/* jcc rel32 */
			return false;
		break;
	case 0xff:
		/* jmp *r/m: a jump table may aim anywhere */
		return X86_MODRM_REG(insn->modrm.bytes[0]) == 4 ||
		       X86_MODRM_REG(insn->modrm.bytes[0]) == 5;
	default:
		return false;
	}
	target = a + insn->length + insn->immediate.value;
	if (in_indirect_thunk(target))
		return op != 0xe8;		/* a retpolined jmp *%reg */
	return target >= from && target < to;
}

/* ---- classifying an instruction at registration ----------------------------- */

static bool insn_has_opsize_prefix(struct insn *insn)
{
	insn_byte_t p;
	int i;

	for_each_insn_prefix(insn, i, p) {
		if (p == 0x66)
			return true;
	}
	return false;
}

/*
 * A near branch with an operand-size prefix: on 32-bit x86 (and on AMD
 * in 64-bit mode) it truncates the instruction pointer to 16 bits, which
 * neither the emulation nor a copy run elsewhere reproduces.  Compilers
 * never emit one.
 */
static bool insn_is_branch16(struct insn *insn)
{
	u8 op = insn->opcode.bytes[0];

	if (!insn_has_opsize_prefix(insn))
		return false;
	switch (op) {
	case 0xeb: case 0xe9: case 0xe8: case 0xc2: case 0xc3:
	case 0x70 ... 0x7f: case 0xe0 ... 0xe3:
		return true;
	case 0x0f:
		return (insn->opcode.bytes[1] & 0xf0) == 0x80;
	case 0xff:
		return X86_MODRM_REG(insn->modrm.value) == 2 ||
		       X86_MODRM_REG(insn->modrm.value) == 4;
	}
	return false;
}

bool kprobe_insn_refused(struct insn *insn)
{
	u8 op = insn->opcode.bytes[0];
	u8 op2 = insn->opcode.bytes[1];

	if (insn_has_emulate_prefix(insn) || insn_is_branch16(insn))
		return true;
	/*
	 * pop %ss (32-bit only) and mov to %ss: the instruction after them
	 * runs in their interrupt shadow, and after a copy run out of line
	 * that is the int3 which ends the step.  (VEX 0f38 8e is vpmaskmov.)
	 */
	if (IS_ENABLED(CONFIG_X86_32) && op == 0x17)
		return true;
	if (op == 0x8e && !insn->vex_prefix.nbytes &&
	    X86_MODRM_REG(insn->modrm.value) == 2)
		return true;
	switch (op) {
	case 0xcc: case 0xcd: case 0xce: case 0xf1:	/* int3, int, into, int1 */
	case 0xcf:					/* iret */
	case 0xca: case 0xcb: case 0x9a: case 0xea:	/* far ret/call/jmp */
	case 0xf4:					/* hlt */
	case 0xfb:					/* sti */
	case 0x62:					/* EVEX/bound: not in kernel text */
		return true;
	case 0xc7:	/* xbegin: its abort target is IP-relative */
		return insn->modrm.value == 0xf8;
	case 0xff:	/* far indirect call/jmp */
		return X86_MODRM_REG(insn->modrm.value) == 3 ||
		       X86_MODRM_REG(insn->modrm.value) == 5;
	case 0x0f:
		switch (op2) {
		case 0x0b: case 0xb9: case 0xff:		/* ud2, ud1, ud0 */
		case 0x05: case 0x07: case 0x34: case 0x35:	/* sys* */
			return true;
		case 0x01:	/* system group: allow clac, stac, rdtscp */
			return !(insn->modrm.value == 0xca ||
				 insn->modrm.value == 0xcb ||
				 insn->modrm.value == 0xf9);
		}
	}
	return false;
}

/*
 * pt_regs offset of general register n (modrm/opcode numbering + REX;
 * 32-bit code has no REX, so n < 8 there)
 */
static const u8 gpr_off[16] = {
	offsetof(struct pt_regs, ax), offsetof(struct pt_regs, cx),
	offsetof(struct pt_regs, dx), offsetof(struct pt_regs, bx),
	offsetof(struct pt_regs, sp), offsetof(struct pt_regs, bp),
	offsetof(struct pt_regs, si), offsetof(struct pt_regs, di),
#ifdef CONFIG_X86_64
	offsetof(struct pt_regs, r8), offsetof(struct pt_regs, r9),
	offsetof(struct pt_regs, r10), offsetof(struct pt_regs, r11),
	offsetof(struct pt_regs, r12), offsetof(struct pt_regs, r13),
	offsetof(struct pt_regs, r14), offsetof(struct pt_regs, r15),
#endif
};

/*
 * push %reg and mov %reg,%reg with no legacy prefix: plain register
 * transfers, emulated exactly on pt_regs (a push writes below the trapped
 * stack pointer, into the gap the int3 entry leaves for that, as a call's
 * emulation does).  Anything else with a memory operand, flags or a
 * 16-bit size is single-stepped.
 */
static bool classify_transfer(struct insn *insn, struct arch_specific_insn *ai)
{
	u8 op = insn->opcode.bytes[0], rex = insn->rex_prefix.value;
	u8 modrm = insn->modrm.value, reg, rm;

	if (insn->prefixes.nbytes || insn->opcode.nbytes != 1)
		return false;
	if (op >= 0x50 && op <= 0x57) {
		ai->kind = KP_EMULATE_PUSH;
		ai->src = gpr_off[(op & 7) + (X86_REX_B(rex) ? 8 : 0)];
		return true;
	}
	if ((op != 0x89 && op != 0x8b) || X86_MODRM_MOD(modrm) != 3)
		return false;
	reg = X86_MODRM_REG(modrm) + (X86_REX_R(rex) ? 8 : 0);
	rm = X86_MODRM_RM(modrm) + (X86_REX_B(rex) ? 8 : 0);
	/*
	 * A move to the stack pointer is stepped on 32-bit x86: a kernel
	 * trap there returns to a new sp by writing the return frame below
	 * it (IRET_FRAME), where nothing may live once sp has moved down on
	 * the same stack.  64-bit returns with iret and switches stacks.
	 */
	if (IS_ENABLED(CONFIG_X86_32) && (op == 0x89 ? rm : reg) == 4)
		return false;
	ai->kind = KP_EMULATE_MOV;
	ai->src = gpr_off[op == 0x89 ? reg : rm];
	ai->dst = gpr_off[op == 0x89 ? rm : reg];
	ai->wide = X86_REX_W(rex);
	return true;
}

void kprobe_insn_classify(struct insn *insn, struct arch_specific_insn *ai)
{
	u8 op = insn->opcode.bytes[0];

	ai->kind = KP_STEP;
	switch (op) {
	case 0xeb: case 0xe9:
		ai->kind = KP_EMULATE_JMP;
		ai->rel = insn->immediate.value;
		break;
	case 0x70 ... 0x7f:
		ai->kind = KP_EMULATE_JCC;
		ai->cond = op & 0xf;
		ai->rel = insn->immediate.value;
		break;
	case 0x0f:
		if (insn->opcode.bytes[1] >= 0x80 && insn->opcode.bytes[1] <= 0x8f) {
			ai->kind = KP_EMULATE_JCC;
			ai->cond = insn->opcode.bytes[1] & 0xf;
			ai->rel = insn->immediate.value;
		}
		break;
	case 0xe8:
		ai->kind = KP_EMULATE_CALL;
		ai->rel = insn->immediate.value;
		break;
	case 0xc3:
		ai->kind = KP_EMULATE_RET;
		ai->rel = 0;
		break;
	case 0xc2:
		ai->kind = KP_EMULATE_RET;
		ai->rel = (u16)insn->immediate.value;
		break;
	case 0xe0 ... 0xe3:
		ai->kind = KP_EMULATE_LOOP;
		ai->cond = op;
		ai->rel = insn->immediate.value;
		break;
	case 0xff:
		/*
		 * Emulated: the target is read from regs, or from memory at
		 * an address insn_get_addr_ref() resolves (segment bases
		 * included: on 32-bit x86, fs from the trap frame, gs live).
		 */
		if (X86_MODRM_REG(insn->modrm.value) == 2 ||
		    X86_MODRM_REG(insn->modrm.value) == 4) {
			ai->kind = KP_EMULATE_INDIRECT;
			ai->indirect_call = X86_MODRM_REG(insn->modrm.value) == 2;
		}
		break;
	case 0xfa:
		ai->kind = KP_EMULATE_CLI;
		break;
	case 0x9c:
		ai->fixups |= KP_FIX_PUSHF;
		break;
	case 0x9d:
		ai->fixups |= KP_FIX_POPF;
		break;
	default:
		classify_transfer(insn, ai);
		break;
	}
}

/*
 * Does the instruction load a segment register?  Only mov to sreg exists
 * in 64-bit code; 32-bit code also has pops and far-pointer loads.
 */
static bool insn_loads_segment(struct insn *insn)
{
	u8 op = insn->opcode.bytes[0], op2 = insn->opcode.bytes[1];

	if (op == 0x8e)					/* mov to sreg */
		return true;
	if (!IS_ENABLED(CONFIG_X86_32))
		return false;
	switch (op) {
	case 0x07: case 0x17: case 0x1f:		/* pop %es, %ss, %ds */
		return true;
	case 0xc4: case 0xc5:				/* les, lds */
		return !insn->vex_prefix.nbytes;
	case 0x0f:	/* pop %fs, %gs; lss, lfs, lgs */
		return op2 == 0xa1 || op2 == 0xa9 || op2 == 0xb2 ||
		       op2 == 0xb4 || op2 == 0xb5;
	}
	return false;
}

/*
 * May the copy run with no trap after it (boost)?  It then runs as plain
 * code: interrupts as they were, no kprobe state, outside the probe's
 * reach.  So not if a fault in it needs the fixup recorded for the
 * original address (the exception table knows only that), nor popf
 * (changes IF: its effect must be seen at the original place, under our
 * fixup), nor a segment load (mov to %ss has an interrupt shadow).  It
 * must also fit in the second half of the slot with its jump back.
 */
static bool insn_boostable(struct kprobe_site *s, struct insn *insn)
{
	struct arch_specific_insn *ai = &s->ainsn;

	if (ai->kind != KP_STEP || (ai->fixups & KP_FIX_POPF))
		return false;
	if (ai->len + JMP32_INSN_SIZE > KPROBE_SLOT_SIZE - KPROBE_BOOST_OFFSET)
		return false;
	if (insn_loads_segment(insn))
		return false;
	return !search_exception_tables(s->addr);
}

/*
 * Put a copy of the instruction at @to, its RIP-relative displacement
 * adjusted so it addresses what the original at s->addr did.
 */
static int copy_insn(struct kprobe_site *s, struct insn *insn,
		     kprobe_opcode_t *to, u8 *buf)
{
	struct arch_specific_insn *ai = &s->ainsn;

	memcpy(buf, ai->orig, ai->len);
	if (insn_rip_relative(insn)) {
		/* target = addr + len + disp == to + len + new disp */
		s64 disp = (long)s->addr + insn->displacement.value - (long)to;
		unsigned int off = insn_offset_displacement(insn);

		if (disp != (s32)disp)
			return -ERANGE;
		*(s32 *)(buf + off) = (s32)disp;
	}
	return 0;
}

/*
 * May the single-step copy end in a call to kprobe_step_trampoline rather
 * than an int3?  Not after a popf: it may set IF, and an interrupt
 * before the call would find this CPU's frame mid-hit (an int3 traps
 * before any).  The copy and the call must fit before the boost copy,
 * and the call must reach.
 */
static bool step_call_fits(struct arch_specific_insn *ai, kprobe_opcode_t *slot)
{
	/* a long: rel32 wraps around on 32-bit x86, so every call reaches */
	long rel = (long)kprobe_step_trampoline -
		   (long)(slot + ai->len + CALL_INSN_SIZE);

	return !(ai->fixups & KP_FIX_POPF) &&
	       ai->len + CALL_INSN_SIZE <= KPROBE_BOOST_OFFSET &&
	       rel == (s32)rel;
}

/*
 * Write the copies for out-of-line execution into the slot: at 0 the
 * instruction followed by the call (or int3) that brings us back
 * (single-step), and
 * if it is boostable, at KPROBE_BOOST_OFFSET the instruction followed by
 * a jump to the next original instruction.
 */
static int prepare_slot(struct kprobe_site *s, struct insn *insn)
{
	struct arch_specific_insn *ai = &s->ainsn;
	u8 buf[KPROBE_SLOT_SIZE];
	kprobe_opcode_t *slot, *boost;
	unsigned int step_len;
	int ret;

	slot = get_insn_slot();
	if (!slot)
		return -ENOMEM;
	memset(buf, INT3_INSN_OPCODE, sizeof(buf));
	ret = copy_insn(s, insn, slot, buf);
	if (ret) {
		free_insn_slot(slot, 0);
		return ret;
	}
	buf[ai->len] = INT3_INSN_OPCODE;
	step_len = ai->len + INT3_INSN_SIZE;
	if (step_call_fits(ai, slot)) {
		__text_gen_insn(buf + ai->len, CALL_INSN_OPCODE, slot + ai->len,
				kprobe_step_trampoline, CALL_INSN_SIZE);
		ai->step_call = true;
		step_len = ai->len + CALL_INSN_SIZE;
	}

	boost = slot + KPROBE_BOOST_OFFSET;
	ai->boostable = insn_boostable(s, insn) &&
			!copy_insn(s, insn, boost, buf + KPROBE_BOOST_OFFSET);
	if (ai->boostable) {
		unsigned long from = (unsigned long)boost + ai->len;
		s64 rel = (s64)(s->addr + ai->len) - (s64)(from + JMP32_INSN_SIZE);

		if (rel == (s32)rel)
			__text_gen_insn(buf + KPROBE_BOOST_OFFSET + ai->len,
					JMP32_INSN_OPCODE, (void *)from,
					(void *)(s->addr + ai->len), JMP32_INSN_SIZE);
		else
			ai->boostable = false;
	}
	mutex_lock(&text_mutex);
	text_poke(slot, buf, ai->boostable ? KPROBE_SLOT_SIZE : step_len);
	mutex_unlock(&text_mutex);
	ai->insn = slot;
	return 0;
}

/**
 * arch_prepare_site() - decode and prepare the instruction at a new site
 * @s: the site; s->addr is on an instruction boundary
 *
 * Return: 0, -EINVAL (an instruction we refuse), -EILSEQ (undecodable),
 * -EBUSY (an int3 someone else placed), -ENOMEM.
 */
int arch_prepare_site(struct kprobe_site *s)
{
	struct arch_specific_insn *ai = &s->ainsn;
	u8 buf[MAX_INSN_SIZE];
	struct insn insn, *insn_ptr = &insn;
	insn_byte_t prefix;
	int ret, i;

	if (copy_from_kernel_nofault(buf, (void *)s->addr, MAX_INSN_SIZE))
		return -EFAULT;
	/* an int3 here is another patcher's, in mid-flight, or a real one */
	if (buf[0] == INT3_INSN_OPCODE)
		return -EBUSY;
	ret = insn_decode_kernel(&insn, buf);
	if (ret < 0)
		return -EILSEQ;
	if (kprobe_insn_refused(&insn))
		return -EINVAL;
	/* address-size overrides change what loop/jrcxz and rip-relative mean */
	for_each_insn_prefix(insn_ptr, i, prefix)
		if (prefix == 0x67)
			return -EINVAL;
	memset(ai, 0, sizeof(*ai));
	memcpy(ai->orig, buf, insn.length);
	ai->len = insn.length;
	kprobe_insn_classify(&insn, ai);
	if (ai->kind == KP_STEP) {
		ret = prepare_slot(s, &insn);
		if (ret)
			return ret;
	}
	ai->stepless = ai->kind != KP_STEP || ai->boostable;
	return 0;
}

#ifdef CONFIG_KPROBE_CARRIERS
/*
 * A carrier's hit stub, in its slot, laid out as a detour (opt.c): the
 * fentry site it carries, a call to kprobe_opt_trampoline, then a copy of
 * the carrier's instruction and a jump back after it.  A hit on the int3
 * returns from the trap into the call, so the probes run as an optimized
 * probe's do, out of the trap: as they would on ftrace's hook, not in
 * the NMI-like context of a trap (lockdep and in_nmi() see what they
 * would see there).  The copy is also where a call skips the int3 while
 * the site moves onto the hook.
 */
static int prepare_hit_stub(struct kprobe_site *c)
{
	struct arch_specific_insn *ai = &c->ainsn;
	unsigned long from, slot = (unsigned long)ai->insn;
	u8 buf[KPROBE_SLOT_SIZE];
	struct insn insn;
	s64 rel;
	int ret;

	if (!IS_ENABLED(CONFIG_OPTPROBES))
		return -EOPNOTSUPP;	/* no kprobe_opt_trampoline */
	if (OPT_COPY_OFFSET + ai->len + JMP32_INSN_SIZE > KPROBE_SLOT_SIZE)
		return -E2BIG;
	if (insn_decode_kernel(&insn, ai->orig) < 0)
		return -EILSEQ;
	if (!slot) {
		slot = (unsigned long)get_insn_slot();
		if (!slot)
			return -ENOMEM;
		ai->insn = (kprobe_opcode_t *)slot;
	}
	memset(buf, INT3_INSN_OPCODE, sizeof(buf));
	memcpy(buf, &c->carried, sizeof(c->carried));
#ifdef CONFIG_OPTPROBES
	__text_gen_insn(buf + OPT_CALL_OFFSET, CALL_INSN_OPCODE,
			(void *)(slot + OPT_CALL_OFFSET), kprobe_opt_trampoline,
			CALL_INSN_SIZE);
#endif
	ret = copy_insn(c, &insn, (kprobe_opcode_t *)slot + OPT_COPY_OFFSET,
			buf + OPT_COPY_OFFSET);
	if (ret)
		return ret;
	from = slot + OPT_COPY_OFFSET + ai->len;
	rel = (s64)(c->addr + ai->len) - (s64)(from + JMP32_INSN_SIZE);
	if (rel != (s32)rel)
		return -ERANGE;
	__text_gen_insn(buf + OPT_COPY_OFFSET + ai->len, JMP32_INSN_OPCODE,
			(void *)from, (void *)(c->addr + ai->len),
			JMP32_INSN_SIZE);
	mutex_lock(&text_mutex);
	text_poke((void *)slot, buf, KPROBE_SLOT_SIZE);
	mutex_unlock(&text_mutex);
	return 0;
}

/* nopl/nopw (0f 1f /0) or a prefixed 90: the forms of a disabled static branch */
static bool carrier_insn_nop(struct insn *insn)
{
	if (insn->opcode.nbytes == 2)
		return insn->opcode.bytes[0] == 0x0f && insn->opcode.bytes[1] == 0x1f;
	return insn->opcode.bytes[0] == 0x90;
}

/*
 * Does an instruction of [start, start + size) aim at addr?  *nops is
 * set if a 2- or 5-byte nop other than the fentry site's is among them:
 * maybe a static branch, whose target the text does not show.
 */
static bool carrier_aimed_from(unsigned long start, unsigned long size,
			       unsigned long addr, bool *nops)
{
	const struct exception_table_entry *e;
	u8 ibuf[MAX_INSN_SIZE];
	struct insn insn;
	unsigned long a;

	for (a = start; a < start + size; a += insn.length) {
		if (kprobe_decode_at(a, &insn, ibuf))
			return true;	/* not known: as good as yes */
		if (kprobe_insn_jumps_into(&insn, a, addr, addr + 1))
			return true;
		/* (the fentry nop, right before addr, is not a branch) */
		if (carrier_insn_nop(&insn) && a + insn.length != addr &&
		    (insn.length == 2 || insn.length == 5))
			*nops = true;
		e = search_exception_tables(a);
		/* x86's relative entries: the fixup's offset from its field */
		if (e && (unsigned long)&e->fixup + e->fixup == addr)
			return true;
	}
	return false;
}

/* a cold part's candidate: does it aim at the carrier's instruction? */
struct carrier_cold {
	unsigned long addr;	/* the carrier's instruction */
	const char *name;	/* "<name>.cold" */
	size_t len;		/* its length */
	bool aimed;
	bool nops;
};

static int carrier_cold_check(void *data, unsigned long cold)
{
	struct carrier_cold *cc = data;
	unsigned long size, offset;

	/*
	 * A static function's name may be another file's too: every part
	 * so named is checked, and one whose extent is not known refuses.
	 */
	if (!kprobe_sym_size_offset(cold, &size, &offset) ||
	    carrier_aimed_from(cold - offset, size, cc->addr, &cc->nops))
		cc->aimed = true;
	return cc->aimed;
}

/*
 * a module's symbol: one of its cold parts, "<name>.cold" or gcc 8/9's
 * "<name>.cold.N"? (called under module_mutex)
 */
static int carrier_cold_mod(void *data, const char *name, unsigned long addr)
{
	struct carrier_cold *cc = data;
	size_t len = cc->len;

	if (strncmp(name, cc->name, len) || (name[len] && name[len] != '.'))
		return 0;
	return carrier_cold_check(cc, addr);
}

/*
 * Does a cold part of the function at cc->addr (gcc's "<name>.cold",
 * placed far away, jumping back into it) aim at it?  Every part so named:
 * the kernel's from kprobes_index.c (gcc 8's "<name>.cold.N" too), or
 * the one module's.
 */
static void carrier_cold_part(struct carrier_cold *cc)
{
	struct {
		char sym[KSYM_NAME_LEN];
		char cold[KSYM_NAME_LEN + 8];			/* sym.cold */
		char mod[MODULE_NAME_LEN];
	} *buf;
	unsigned long size, offset;
	char *modname;

	buf = kmalloc(sizeof(*buf), GFP_KERNEL);
	if (!buf || !kallsyms_lookup(cc->addr, &size, &offset, &modname,
				     buf->sym)) {
		cc->aimed = true;	/* not known: as good as yes */
		kfree(buf);
		return;
	}
	cc->len = snprintf(buf->cold, sizeof(buf->cold), "%s.cold", buf->sym);
	cc->name = buf->cold;
	if (modname) {
		/* a module of several objects may name two parts so */
		strscpy(buf->mod, modname, sizeof(buf->mod));
		module_kallsyms_on_each_symbol(buf->mod, carrier_cold_mod, cc);
	} else if (kprobe_cold_parts(buf->sym, carrier_cold_check,
				     cc) == -ENOENT) {
		/* no index yet: by name, the exact "<name>.cold" only */
		kallsyms_on_each_match_symbol(carrier_cold_check, buf->cold, cc);
	}
	kfree(buf);
}

/*
 * What the decode of the function cannot see: its cold part, and a
 * static branch, whose jump is a nop while its key is off (looked for
 * when the function or its cold part holds a nop one could be).
 */
static bool carrier_aimed_from_afar(unsigned long addr, bool nops)
{
	struct carrier_cold cc = { .addr = addr, .nops = nops };

	carrier_cold_part(&cc);
	return cc.aimed || (cc.nops && kprobe_jump_target(addr));
}

/**
 * arch_prepare_carrier() - may this new site carry the fentry site before it?
 * @c: a site prepared by arch_prepare_site() at the instruction right
 *     after a function's fentry nop, not in the hash table yet;
 *     c->carried is that fentry site
 *
 * Its int3 then stands for the fentry site's ftrace hook
 * (kernel/kprobes_carriers.c explains carriers), so every hit on it must
 * be a call of the function and every call must hit it: nothing in the
 * function may reach c->addr but the nop before it, run through (no
 * jump, call, loop or jcc aims there, no indirect jump could, no
 * exception fixup lands there; nor a static branch or the function's
 * cold part), and no other patcher may own its bytes.  Its instruction
 * must run anywhere: one that could be boosted, or a push or register
 * move.  Builds the hit stub (prepare_hit_stub()); needs the optimizer's
 * trampoline.
 *
 * Return: 0; -EBUSY (another patcher's bytes), -EINVAL (something may
 * reach it, or an instruction that must run in place), -EOPNOTSUPP (no
 * optimizer), -EILSEQ, -E2BIG, -ERANGE, -ENOMEM.
 */
int arch_prepare_carrier(struct kprobe_site *c)
{
	struct arch_specific_insn *ai = &c->ainsn;
	unsigned long size, offset;
	bool nops = false;

	if (!IS_ENABLED(CONFIG_OPTPROBES))
		return -EOPNOTSUPP;
	if (!ai->boostable && ai->kind != KP_EMULATE_PUSH &&
	    ai->kind != KP_EMULATE_MOV)
		return -EINVAL;
	if (kprobe_text_reserved(c->addr, c->addr + ai->len - 1))
		return -EBUSY;
	if (!kprobe_sym_size_offset(c->addr, &size, &offset))
		return -EINVAL;
	if (carrier_aimed_from(c->addr - offset, size, c->addr, &nops) ||
	    carrier_aimed_from_afar(c->addr, nops))
		return -EINVAL;
	return prepare_hit_stub(c);
}

/* where a hit on carrier c goes on from its int3: a stub's call */
static nokprobe_inline unsigned long kprobe_carrier_stub(struct kprobe_site *c)
{
	/* the optimizer is writing or undoing the jump: never back into the region */
	if (READ_ONCE(c->opt_state) >= KPROBE_OPT_READY)
		return (unsigned long)c->ainsn.opt_stub + OPT_CALL_OFFSET;
	return (unsigned long)c->ainsn.insn + OPT_CALL_OFFSET;
}

/**
 * kprobe_carrier_resume() - where a call skips a carrier's int3
 * @c: a carrier (see arch_prepare_carrier())
 *
 * Return: its optimized detour's copy of the region while that is in use,
 * else its hit stub's copy of its instruction (which jumps back after it).
 */
unsigned long kprobe_carrier_resume(struct kprobe_site *c)
{
	if (READ_ONCE(c->opt_state) >= KPROBE_OPT_READY)
		return kprobe_opt_copy(c);
	return (unsigned long)c->ainsn.insn + OPT_COPY_OFFSET;
}

NOKPROBE_SYMBOL(kprobe_carrier_resume);

/**
 * kprobe_carried_post() - a carried fentry site's post_handlers
 * @s: the fentry site
 * @f: the hit's frame
 * @regs: the registers at the carrier
 *
 * As its ftrace hook runs them: right after the pre_handlers, ip past the
 * fentry nop (which is the carrier's address), before the carrier's
 * instruction is carried out.  regs->ip is left as it was.
 */
void kprobe_carried_post(struct kprobe_site *s, struct kprobe_frame *f,
			 struct pt_regs *regs)
{
	unsigned long ip = regs->ip;

	regs->ip = s->addr + MCOUNT_INSN_SIZE;
	f->status = KPROBE_HIT_SSDONE;
	kprobe_site_post(s, f, regs);
	f->status = KPROBE_HIT_ACTIVE;
	regs->ip = ip;
}

NOKPROBE_SYMBOL(kprobe_carried_post);
#endif /* CONFIG_KPROBE_CARRIERS */

/**
 * arch_release_site() - free what arch_prepare_site() allocated
 * @s: the site, disarmed, a grace period ago
 */
void arch_release_site(struct kprobe_site *s)
{
	arch_release_opt(s);
	if (s->ainsn.insn) {
		free_insn_slot(s->ainsn.insn, 0);
		s->ainsn.insn = NULL;
	}
}

/*
 * Arming writes one byte, so no CPU can ever fetch a torn instruction: it
 * sees the old first byte or the int3.  Each poke is made visible to all
 * CPUs by the batch's arch_kprobe_poke_sync().  The site is in the hash
 * table before its int3 is written and leaves it only after the int3 is
 * gone and a grace period passed, so every trap on it finds it.
 */
void arch_arm_site(struct kprobe_site *s)
{
	u8 int3 = INT3_INSN_OPCODE;

	mutex_lock(&text_mutex);
	text_poke((void *)s->addr, &int3, INT3_INSN_SIZE);
	mutex_unlock(&text_mutex);
}

void arch_disarm_site(struct kprobe_site *s)
{
	mutex_lock(&text_mutex);
	text_poke((void *)s->addr, s->ainsn.orig, INT3_INSN_SIZE);
	mutex_unlock(&text_mutex);
}

void arch_kprobe_poke_sync(bool wait_hits)
{
	/* its IPI round also waits out the hits under way (kernel/kprobes.c) */
	text_poke_sync();
}

/* ---- the hit path ----------------------------------------------------------- */

static nokprobe_inline unsigned long reg_value(struct pt_regs *regs, int off)
{
	return *(unsigned long *)((char *)regs + off);
}

/*
 * Emulate an IP-changing instruction on regs.  regs->ip is addr + 1 on
 * entry (as the int3 left it).  An indirect jmp/call through memory loads
 * its target with a plain load: if the operand is unmapped, the fault
 * happens here, as it would have in the original instruction.
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
 * Carry out the probed instruction for the top frame f: emulate it (and
 * finish the frame at once) or start its out-of-line single-step.
 */
static nokprobe_inline void kprobe_execute(struct kprobe_site *s,
					   struct pt_regs *regs,
					   struct kprobe_ctlblk *kcb,
					   struct kprobe_frame *f)
{
	if (READ_ONCE(s->opt_state) >= KPROBE_OPT_READY) {
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
	if (s->ainsn.boostable && !READ_ONCE(s->has_post)) {
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
	struct kprobe *kp = READ_ONCE(s->solo_post);

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
	SAVE_REGS_STRING			/* regs->cs .. regs->bx/r15 */
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

#ifdef CONFIG_KPROBE_CARRIERS
/*
 * An int3 on a carrier c: a call of the function whose fentry site c
 * carries.  Nothing runs here: the trap returns into c's hit stub, whose
 * call to kprobe_opt_trampoline runs the fentry site's probes as an
 * optimized probe's (a hit already under way on this CPU is counted
 * there), with the registers of the function's entry (the nop changed
 * none) and ip at the entry + 1; the stub then runs c's instruction.
 */
static noinline int kprobe_int3_carrier(struct pt_regs *regs,
					struct kprobe_site *c)
{
	regs->ip = kprobe_carrier_stub(c);
	return 1;
}

NOKPROBE_SYMBOL(kprobe_int3_carrier);
#endif

/*
 * Every int3 at depth 0 but the fast path's: sites with several probes or
 * a post_handler or jprobe, or an instruction to single-step; and (s NULL)
 * our own int3s in .kprobes.text and int3s that are not ours.  Nested
 * int3s come here from kprobe_int3_nested().  s is the site at the int3.
 */
static noinline int kprobe_int3_general(struct pt_regs *regs,
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
	if (!s || (s->flags & KPROBE_SITE_FTRACE)) {
		/*
		 * Our other int3s, in .kprobes.text (never a site): the end
		 * of a jprobe's handler (or jprobe_return() called outside
		 * one, stepped over with a warning), and the way back from a
		 * #PF a fault_handler handled.
		 */
		if (addr == (unsigned long)jprobe_return_break)
			return arch_jprobe_longjmp(regs, kcb);
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
	if (unlikely(s->carried))
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
	first = kprobe_site_first(s) ?: &kprobe_busy;
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

NOKPROBE_SYMBOL(kprobe_int3_general);

/* an int3 while a hit is under way on this CPU (kcb->depth > 0) */
static noinline int kprobe_int3_nested(struct pt_regs *regs,
				       struct kprobe_ctlblk *kcb)
{
	unsigned long addr = regs->ip - INT3_INSN_SIZE;
	struct kprobe_frame *f = kprobe_frame_top(kcb);
	kprobe_opcode_t *slot = kprobe_frame_slot(f);

	/* the int3 after the copy being single-stepped by the top frame? */
	if (slot && addr == (unsigned long)slot + f->site->ainsn.len)
		return kprobe_finish_step(regs, kcb, f);
	return kprobe_int3_general(regs, kcb, __kprobe_site_lookup(addr));
}

NOKPROBE_SYMBOL(kprobe_int3_nested);

/* the fast path's hit: kp is s->solo, and no hit is under way */
static noinline int kprobe_int3_solo(struct pt_regs *regs,
				     struct kprobe_ctlblk *kcb,
				     struct kprobe_site *s, struct kprobe *kp)
{
	kprobe_solo_begin(kcb, s, kp);
	/* a pre_handler that returns 1 moved ip: the instruction is skipped */
	if (!kp->pre_handler(kp, regs)) {
		/* as kprobe_execute() does it, in the hit's frame */
		if (unlikely(READ_ONCE(s->opt_state) >= KPROBE_OPT_READY))
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
 * The second shortcut: kp is s->solo_post, the site's one probe, with a
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
 * Called by do_int3() before the die-notifier chain, NMI-like.  Returns 0
 * for every int3 that is not ours (int3_selftest at boot, kgdb, uprobes'
 * user-mode ones, a real int3 instruction).
 *
 * It only sorts int3s, with tail calls, so that it needs no stack frame
 * of its own.  The fast path is the common hit: no hit under way on this
 * CPU, a site with one pre-only probe (struct kprobe_site.solo) on an
 * instruction that needs no single-step; kprobe_int3_solo() does the
 * general path's steps for that case with every test whose answer is
 * known left out: one frame, one call, then the instruction boosted,
 * emulated, or (while the optimizer patches the site) the detour's copy.
 * A site whose one probe has a post_handler (struct kprobe_site.solo_post)
 * takes kprobe_int3_solo_post(), the same idea for that case.
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
	kp = s ? READ_ONCE(s->solo) : NULL;
	/* (an ftrace site is never stepless: it has no instruction prepared) */
	if (unlikely(!kp || !s->ainsn.stepless)) {
		kp = s ? READ_ONCE(s->solo_post) : NULL;
		if (kp)
			return kprobe_int3_solo_post(regs, kcb, s, kp);
		return kprobe_int3_general(regs, kcb, s);
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
	if (s->flags & KPROBE_SITE_FTRACE) {
		/* the fentry call "executed" */
		regs->ip = s->addr + MCOUNT_INSN_SIZE;
		f->status = KPROBE_HIT_SSDONE;
		kprobe_site_post(s, f, regs);
		kprobe_frame_pop(kcb);
		return 1;
	}
#endif
	first = kprobe_site_first(s) ?: &kprobe_busy;
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
 * for the real one; then a struct pt_regs.  The C callback writes the real
 * return address over that slot and we return through it, so no trap is
 * taken on the way back.
 */
asm(".pushsection .kprobes.text, \"ax\"\n"
	".global kretprobe_trampoline\n"
	".type kretprobe_trampoline, @function\n"
	"kretprobe_trampoline:\n"
	ANNOTATE_NOENDBR	/* reached by ret only */
	"	push $kretprobe_trampoline\n"
	UNWIND_HINT_FUNC
	/* regs->ss, regs->sp */
	"	sub $" __stringify(2 * KP_WORD) ", " KP_SP "\n"
	"	pushf\n"			/* regs->flags */
	SAVE_REGS_STRING			/* regs->cs .. regs->bx/r15 */
	"	mov " KP_SP ", " KP_ARG1 "\n"
	"	call kretprobe_trampoline_callback\n"
	KP_REGS_CLOSE
	ASM_RET
	".size kretprobe_trampoline, .-kretprobe_trampoline\n"
	".popsection\n"
);
NOKPROBE_SYMBOL(kretprobe_trampoline);
STACK_FRAME_NON_STANDARD_FP(kretprobe_trampoline);

__used __visible void kretprobe_trampoline_callback(struct pt_regs *regs)
{
	/* the fake return-address slot sits right above the pt_regs */
	unsigned long *fp = (unsigned long *)(regs + 1);

	regs->sp = (unsigned long)(fp + 1);	/* as after the ret */
	kprobe_regs_fill(regs);
	*fp = kretprobe_trampoline_handler(regs, fp);
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
