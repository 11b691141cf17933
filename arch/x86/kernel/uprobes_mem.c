// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * x86's part of the per-process uprobes memory engine (kernel/uprobes_mem*.c):
 * which instructions it takes and how they run (decoded with the insn
 * decoder), and the bytes of a slot, with a RIP-relative displacement
 * rebased and an absolute jump back.  The interface is in
 * <linux/uprobes_mem.h>, the hit-path inlines in <asm/uprobes_mem.h>.
 */
#include <linux/errno.h>
#include <linux/ptrace.h>
#include <linux/sched/signal.h>
#include <linux/sched/task_stack.h>
#include <linux/string.h>
#include <linux/unaligned.h>
#include <linux/uprobes.h>
#include <linux/uprobes_mem.h>
#include <asm/insn.h>
#include <asm/mmu_context.h>
#include <asm/shstk.h>

/* arch_uprobe_mem_mm_ok(): the engine runs 64-bit code only */
bool arch_uprobe_mem_mm_ok(struct mm_struct *mm)
{
	return is_64bit_mm(mm);
}

/* runs wrongly anywhere but at its own address, and is not emulated */
static bool insn_needs_home(struct insn *insn)
{
	u8 op1 = insn->opcode.bytes[0], op2 = insn->opcode.bytes[1];
	u8 reg = X86_MODRM_REG(insn->modrm.value);

	switch (op1) {
	case 0xe0 ... 0xe3:	/* loop*, jrcxz: rel8 */
	case 0xcc ... 0xce:	/* int3, int n, into */
	case 0xcf:		/* iret */
	case 0xca: case 0xcb:	/* far ret */
	case 0x9a: case 0xea:	/* far call/jmp */
		return true;
	case 0xc7:
		return insn->modrm.value == 0xf8;	/* xbegin rel32 */
	case 0xff:
		return reg == 2 || reg == 3;	/* call indirect, near/far */
	case 0x0f:
		return op2 == 0x05 || op2 == 0x34 || op2 == 0x07; /* syscall */
	}
	return false;
}

/*
 * Relative jumps, calls and jccs: the arch emulates them and a copy could
 * not run elsewhere, so they get no slot.  A VEX or EVEX instruction is
 * none, whatever its opcode byte (vpshufd is 0x70 in its map): the arch's
 * branch decode looks at that byte alone, so the engine never asks the
 * arch to emulate anything else (arch_uprobe_mem_insn.emulated).
 */
static bool insn_is_branch(struct insn *insn)
{
	u8 op1 = insn->opcode.bytes[0], op2 = insn->opcode.bytes[1];

	if (insn->vex_prefix.nbytes)
		return false;
	return op1 == 0xe8 || op1 == 0xe9 || op1 == 0xeb ||
	       (op1 >= 0x70 && op1 <= 0x7f) ||
	       (op1 == 0x0f && op2 >= 0x80 && op2 <= 0x8f);
}

/*
 * push %reg, with or without a REX prefix (no other prefix): emulated by
 * arch_uprobe_mem_push() with one put_user(), the commonest first
 * instruction of a function.  Returns 1 + the register's offset in
 * pt_regs, or 0.
 */
static u8 insn_push_reg(struct insn *insn)
{
	static const u8 push_regs[16] = {
		offsetof(struct pt_regs, ax), offsetof(struct pt_regs, cx),
		offsetof(struct pt_regs, dx), offsetof(struct pt_regs, bx),
		offsetof(struct pt_regs, sp), offsetof(struct pt_regs, bp),
		offsetof(struct pt_regs, si), offsetof(struct pt_regs, di),
		offsetof(struct pt_regs, r8), offsetof(struct pt_regs, r9),
		offsetof(struct pt_regs, r10), offsetof(struct pt_regs, r11),
		offsetof(struct pt_regs, r12), offsetof(struct pt_regs, r13),
		offsetof(struct pt_regs, r14), offsetof(struct pt_regs, r15),
	};
	u8 op = insn->opcode.bytes[0];

	/*
	 * no legacy prefix, no REX2 (whose B4 bit would name r16-r31), no
	 * VEX (c5 f8 57 c0 is vxorps)
	 */
	if (insn->prefixes.nbytes || insn->rex_prefix.nbytes > 1 ||
	    insn->vex_prefix.nbytes || insn->opcode.nbytes != 1 ||
	    op < 0x50 || op > 0x57)
		return 0;
	return 1 + push_regs[(op & 7) |
			     (X86_REX_B(insn->rex_prefix.value) ? 8 : 0)];
}

/*
 * arch_uprobe_mem_analyze(): a branch is emulated by uprobes' emulation
 * with no slot; a nop is emulated by it too, a push of a register here
 * (arch_uprobe_mem_push()), each with its slot for when that cannot be.
 */
int arch_uprobe_mem_analyze(struct arch_uprobe_mem_insn *ai, const u8 *bytes,
			    int n, u8 *len, struct mm_struct *mm,
			    unsigned long vaddr)
{
	struct insn insn;
	int ret;

	if (insn_decode(&insn, bytes, n, INSN_MODE_64) < 0)
		return n < MAX_UINSN_BYTES ? -EFAULT : -EOPNOTSUPP;
	*len = insn.length;
	if (insn_needs_home(&insn))
		return -EOPNOTSUPP;
	memcpy(ai->auprobe.insn, bytes, sizeof(ai->auprobe.insn));
	ret = arch_uprobe_analyze_insn(&ai->auprobe, mm, vaddr);
	if (ret)
		return ret <= -EBADHANDLE ? -EOPNOTSUPP : ret;
	if (insn_is_branch(&insn)) {
		ai->emulated = true;	/* no slot */
		return 0;
	}
	/* a plain nop: the arch's emulation moves ip on */
	ai->emulated = insn.length == 1 && insn.opcode.bytes[0] == 0x90;
	ai->push = insn_push_reg(&insn);
	if (insn_rip_relative(&insn))
		ai->disp_off = insn_offset_displacement(&insn);
	return 1;
}

/* arch_uprobe_mem_no_slot(): a call whose push faulted, as the call would */
void arch_uprobe_mem_no_slot(struct arch_uprobe_mem_insn *ai,
			     struct pt_regs *regs)
{
	force_sig_fault(SIGSEGV, SEGV_MAPERR,
			(void __user *)(regs->sp - sizeof(long)));
}

/*
 * arch_uprobe_mem_falls(): a return or an indirect jump does not go on
 * at the next instruction.
 */
bool arch_uprobe_mem_falls(const u8 *bytes, unsigned int len)
{
	struct insn insn;
	u8 op;

	/* a VEX opcode byte is one of its map's (vcmpps is 0xc2) */
	if (insn_decode(&insn, bytes, len, INSN_MODE_64) < 0 ||
	    insn.opcode.nbytes != 1 || insn.vex_prefix.nbytes)
		return true;
	op = insn.opcode.bytes[0];
	if (op == 0xc2 || op == 0xc3 || op == 0xca || op == 0xcb || op == 0xcf)
		return false;			/* ret, lret, iret */
	return op != 0xff || X86_MODRM_REG(insn.modrm.value) < 2 ||
	       X86_MODRM_REG(insn.modrm.value) == 6;	/* not call/jmp * */
}

/*
 * A copy of the instruction @bytes, probed at @vaddr, at @at (@b's
 * bytes): a RIP-relative displacement is rebased to reach the same
 * target from there.  False if it cannot reach.
 */
static bool slot_copy(const struct arch_uprobe_mem_insn *ai, const u8 *bytes,
		      unsigned int len, unsigned long vaddr, unsigned long at,
		      u8 *b)
{
	memcpy(b, bytes, len);
	if (ai->disp_off) {
		s64 disp = (s32)get_unaligned((u32 *)(b + ai->disp_off));

		disp += (s64)vaddr - (s64)at;
		if (disp != (s32)disp)
			return false;
		put_unaligned((u32)disp, (u32 *)(b + ai->disp_off));
	}
	return true;
}

/*
 * arch_uprobe_mem_build_slot(): the instruction, then "jmp *0(%rip)" and
 * the address of the next instruction; at UPROBE_MEM_SLOT_TRAP a second
 * copy followed by an int3; int3s everywhere else.
 */
bool arch_uprobe_mem_build_slot(const struct arch_uprobe_mem_insn *ai,
				const u8 *bytes, unsigned int len,
				unsigned long vaddr, unsigned long slot, u8 *b)
{
	u64 next = vaddr + len;

	memset(b, UPROBE_SWBP_INSN, UPROBE_MEM_SLOT_SIZE);
	if (!slot_copy(ai, bytes, len, vaddr, slot, b) ||
	    !slot_copy(ai, bytes, len, vaddr, slot + UPROBE_MEM_SLOT_TRAP,
		       b + UPROBE_MEM_SLOT_TRAP))
		return false;
	b[len] = 0xff;				/* jmp *0(%rip) */
	b[len + 1] = 0x25;
	memset(b + len + 2, 0, 4);
	memcpy(b + len + 6, &next, sizeof(next));
	return true;
}

/* the return address's size: a 32-bit process's call pushes four bytes */
static unsigned int ret_word(struct pt_regs *regs)
{
	return user_64bit_mode(regs) ? 8 : 4;
}

/*
 * arch_uprobe_ret_hijack(): the word at sp, then the shadow stack's last
 * frame (shstk_update_last_frame() does nothing for a thread without
 * one); the word is put back if that fails.
 */
int arch_uprobe_ret_hijack(struct pt_regs *regs, unsigned long tramp,
			   unsigned long *ret)
{
	unsigned int n = ret_word(regs);
	unsigned long orig = 0, left;

	if (copy_from_user(&orig, (void __user *)regs->sp, n))
		return -EFAULT;
	if (orig == tramp) {
		*ret = orig;
		return 0;
	}
	left = copy_to_user((void __user *)regs->sp, &tramp, n);
	if (left) {
		if (left != n)	/* half written: as 6.12's uretprobes, kill */
			force_sig(SIGSEGV);
		return -EFAULT;
	}
	if (shstk_update_last_frame(tramp)) {
		if (copy_to_user((void __user *)regs->sp, &orig, n))
			force_sig(SIGSEGV);
		return -EFAULT;
	}
	*ret = orig;
	return 0;
}

/* arch_uprobe_ret_restore(): the word alone (see uprobe_ret_fork()) */
void arch_uprobe_ret_restore(unsigned long stack, unsigned long tramp,
			     unsigned long ret)
{
	unsigned int n = ret_word(current_pt_regs());
	unsigned long cur = 0;

	if (copy_from_user(&cur, (void __user *)stack, n) || cur != tramp)
		return;
	/* if it fails, the child gets SIGSEGV there, should it return */
	if (copy_to_user((void __user *)stack, &ret, n))
		return;
}
