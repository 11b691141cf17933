// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * x86 kprobes backend: what registration decides about an instruction,
 * and the text it writes.
 *
 * A site's instruction is read as it was before any probe (the original
 * bytes behind an int3 or a jump of ours), decoded, refused or
 * classified once (kprobe_execute() in core.c says what each class
 * costs on a hit): emulated on pt_regs, single-stepped out of line from a slot, and
 * boostable or not.  kprobe_insn_jumps_into() answers, for the optimizer
 * and for carriers, whether code can reach an address other than by
 * running through the instruction before it.  Arming writes one byte.
 *
 * Context: registration, under kprobe_mutex (text_mutex around each
 * poke); nothing here runs on the hit path.
 */
#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/kprobes.h>
#include <linux/kprobes_backend.h>
#include <linux/ptrace.h>
#include <linux/string.h>
#include <linux/slab.h>
#include <linux/kallsyms.h>
#include <linux/memory.h>
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
#include <asm/nospec-branch.h>

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
	if (s && !kprobe_site_is_ftrace(s))
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
 * arch_site_opcode() - the byte a probe at this site reports as its opcode
 * @s: the site, prepared
 *
 * Return: the original first byte of the probed instruction.
 */
kprobe_opcode_t arch_site_opcode(struct kprobe_site *s)
{
	return s->ainsn.orig[0];
}

/**
 * arch_kprobe_text_patched() - do alternatives own bytes in [start, end)?
 * @start: first byte
 * @end: the byte after the last
 *
 * Alternatives (lock prefixes included) rewrite text at boot and at CPU
 * hotplug.  Called with text_mutex held, which alternatives' own lookup
 * asserts.
 *
 * Return: true if they do.
 */
bool arch_kprobe_text_patched(unsigned long start, unsigned long end)
{
	lockdep_assert_held(&text_mutex);
	return alternatives_text_reserved((void *)start, (void *)end);
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
 * @addr: the function's start (its symbol)
 * @offset: the requested offset into it
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
	u32 first = 0;

	if (!copy_from_kernel_nofault(&first, (void *)addr, sizeof(first)) &&
	    is_endbr(first)) {
		*on_func_entry = !offset || offset == ENDBR_INSN_SIZE;
		if (*on_func_entry)
			return (kprobe_opcode_t *)(addr + ENDBR_INSN_SIZE);
		return (kprobe_opcode_t *)(addr + offset);
	}
	*on_func_entry = !offset;
	return (kprobe_opcode_t *)(addr + offset);
}

/* ---- what in a function can reach an address ------------------------------- */

#ifdef CONFIG_MITIGATION_RETPOLINE
/* one thunk per register (asm/GEN-for-each-reg.h) */
#define KP_THUNK_REGS	(IS_ENABLED(CONFIG_64BIT) ? 16 : 8)

static bool in_thunk_array(unsigned long target, void *array, unsigned int sz)
{
	unsigned long t = (unsigned long)array;

	/* the end computed here: a symbol + size relocation upsets objtool */
	OPTIMIZER_HIDE_VAR(t);
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
int kprobe_copy_insn(struct kprobe_site *s, struct insn *insn,
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
	ret = kprobe_copy_insn(s, insn, slot, buf);
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
			!kprobe_copy_insn(s, insn, boost, buf + KPROBE_BOOST_OFFSET);
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

	kprobe_assert_locked();
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

	kprobe_assert_locked();
	mutex_lock(&text_mutex);
	text_poke((void *)s->addr, &int3, INT3_INSN_SIZE);
	mutex_unlock(&text_mutex);
}

void arch_disarm_site(struct kprobe_site *s)
{
	kprobe_assert_locked();
	mutex_lock(&text_mutex);
	text_poke((void *)s->addr, s->ainsn.orig, INT3_INSN_SIZE);
	mutex_unlock(&text_mutex);
}

void arch_kprobe_poke_sync(bool wait_hits)
{
	/* its IPI round also waits out the hits under way (kernel/kprobes.c) */
	text_poke_sync();
}
