// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Per-process uprobes, memory engine: breakpoints in the executable
 * memory the inode engine cannot patch, anonymous memory (JIT code) and
 * writable private mappings, of 64-bit x86 processes.  What a program
 * sees is described in Documentation/trace/uprobes-process.rst.
 *
 * A site is keyed by (mm, address), not (inode, offset), and its int3 is
 * written into that mm alone, with ptrace's copy-on-write; never into a
 * shared mapping (swap_byte()), whose other users would read it.
 *
 * A hit: the int3 exception of a user task asks uprobe_mem_int3() first,
 * before the die notifiers through which the inode engine would mark the
 * task and look its own breakpoint up on the way back to user space: the
 * hit is taken there and then, in one pass.  The site is found in a hash
 * table without mmap_lock.  After the handlers the instruction runs with
 * no second trap: emulated (a push here, branches by the arch's uprobe
 * emulation), or from the site's slot, a copy of it followed by an
 * absolute jump back, in a page this engine maps near the code
 * ("[uprobes-mem]") so that a RIP-relative displacement can be rebased.
 * A slot is never handed out again while the mm lives (a thread may stay
 * between its instruction and the jump back for as long as it likes);
 * the same bytes reuse it.  A signal never shows an ip in a slot
 * (uprobe_mem_signal()).
 *
 * The program owns its code: every hit checks that the int3 is still in
 * front of the probed instruction, so a stale copy never runs; a site
 * whose code was rewritten or unmapped is lost, and its int3 is taken
 * out (not left to SIGTRAP) when next met.  A fork child strips the
 * int3s it inherited before it first returns to user space.
 *
 * Locks: uprobe_mem_lock (a spinlock: the unmap and fork hooks run under
 * mmap_lock) guards the lists and the hash table's writers.  Attach and
 * detach are called under the layer's uprobes_mutex and sleep.  The hit
 * path takes no lock.  It runs in the exception of a task that was in
 * user mode, a context like a system call's: interrupts are enabled for
 * it, it may sleep.  It looks sites up and runs handlers under
 * uprobe_mem_srcu (sleepable, as the inode engine's tasks trace RCU); the
 * layer's uprobe_site_sync() waits for both (uprobe_mem_sync()) before a
 * detached site is released.
 */
#include <linux/mm.h>
#include <linux/mmu_context.h>
#include <linux/sched/mm.h>
#include <linux/sched/task_stack.h>
#include <linux/hashtable.h>
#include <linux/ptrace.h>
#include <linux/highmem.h>
#include <linux/file.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/task_work.h>
#include <linux/unaligned.h>
#include <linux/srcu.h>
#include <linux/uprobes.h>
#include <asm/insn.h>

#include "uprobes_process.h"
#include "uprobes_mem.h"

/* The sites a fork child must take out of its copy of the memory. */
struct uprobe_mem_strip {
	struct list_head node;		/* on uprobe_mem_strips */
	struct mm_struct *mm;		/* the child's */
	unsigned int nr;
	struct {
		unsigned long vaddr;
		u8 len;
		bool lost;
		u8 insn[MAX_UINSN_BYTES];
	} e[];
};

DEFINE_SPINLOCK(uprobe_mem_lock);
LIST_HEAD(uprobe_mem_sites);
static LIST_HEAD(uprobe_mem_strips);
static DEFINE_HASHTABLE(uprobe_mem_table, 8);
static int uprobe_mem_nr;		/* sites; the hooks' fast way out */
static int uprobe_mem_lost;		/* lost sites; moved_int3()'s */
DEFINE_STATIC_SRCU(uprobe_mem_srcu);	/* the hits' read side */

/* the hash table's key of a site: hash_add_rcu() and site_lookup() */
static unsigned long site_key(struct mm_struct *mm, unsigned long vaddr)
{
	return (unsigned long)mm ^ vaddr;
}

static struct uprobe_mem_site *site_lookup(struct mm_struct *mm,
					   unsigned long vaddr)
{
	struct uprobe_mem_site *s;

	hash_for_each_possible_rcu(uprobe_mem_table, s, hnode,
				   site_key(mm, vaddr),
				   srcu_read_lock_held(&uprobe_mem_srcu)) {
		if (s->mm == mm && s->vaddr == vaddr &&
		    !test_bit(UPROBE_MEM_DEAD, &s->flags))
			return s;
	}
	return NULL;
}

/**
 * uprobe_mem_site_lost - the program took a site's code back
 * @s: the site, which a hit may hold after it left uprobe_mem_sites
 *
 * Counted, so that an int3 at no site looks for a lost one (moved_int3())
 * only while there is one: the inode engine's hits pass there too.
 * Called under uprobe_mem_lock, as uprobe_mem_site_unlist(), which
 * uncounts it.  A hit may still hold a site that was unlisted meanwhile:
 * that one is detach's now, and is left alone.
 *
 * Return: false if @s was no longer listed.
 */
bool uprobe_mem_site_lost(struct uprobe_mem_site *s)
{
	lockdep_assert_held(&uprobe_mem_lock);
	if (hlist_unhashed(&s->hnode))
		return false;
	if (!test_and_set_bit(UPROBE_MEM_LOST, &s->flags))
		WRITE_ONCE(uprobe_mem_lost, uprobe_mem_lost + 1);
	return true;
}

/* @s (mm, vaddr set) goes into the hit table and on @list; under the lock */
void uprobe_mem_site_list(struct uprobe_mem_site *s, struct list_head *list)
{
	lockdep_assert_held(&uprobe_mem_lock);
	list_add_tail(&s->node, list);
	hash_add_rcu(uprobe_mem_table, &s->hnode, site_key(s->mm, s->vaddr));
	WRITE_ONCE(uprobe_mem_nr, uprobe_mem_nr + 1);
}

/* ... and leaves them; a hit may hold it until uprobe_mem_sync() */
void uprobe_mem_site_unlist(struct uprobe_mem_site *s)
{
	lockdep_assert_held(&uprobe_mem_lock);
	hash_del_rcu(&s->hnode);
	list_del(&s->node);
	WRITE_ONCE(uprobe_mem_nr, uprobe_mem_nr - 1);
	if (test_bit(UPROBE_MEM_LOST, &s->flags))
		WRITE_ONCE(uprobe_mem_lost, uprobe_mem_lost - 1);
}

/* ---- decode --------------------------------------------------------- */

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
 * arch to emulate anything else (uprobe_mem_insn.emulated).
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
 * emulate_push() with one put_user(), the commonest first instruction of
 * a function.  Returns 1 + the register's offset in pt_regs, or 0.
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

/**
 * uprobe_mem_insn_analyze - decode an instruction, and say how it will run
 * @mi: its bytes in mi->insn
 * @mm: the address space it is probed in
 * @vaddr: ... and its address there
 * @n: how many bytes of mi->insn are the program's
 *
 * Return: 0 once it is emulated or has a slot; -EOPNOTSUPP for one that
 * neither can run, -EFAULT for a truncated one, -ENOMEM.
 */
int uprobe_mem_insn_analyze(struct uprobe_mem_insn *mi, struct mm_struct *mm,
			    unsigned long vaddr, int n)
{
	struct insn insn;
	int ret;

	if (insn_decode(&insn, mi->insn, n, INSN_MODE_64) < 0)
		return n < sizeof(mi->insn) ? -EFAULT : -EOPNOTSUPP;
	mi->len = insn.length;
	if (insn_needs_home(&insn))
		return -EOPNOTSUPP;
	memcpy(mi->arch.insn, mi->insn, sizeof(mi->insn));
	ret = arch_uprobe_analyze_insn(&mi->arch, mm, vaddr);
	if (ret)
		return ret <= -EBADHANDLE ? -EOPNOTSUPP : ret;
	if (insn_is_branch(&insn)) {
		mi->emulated = true;	/* no slot */
		return 0;
	}
	/* a plain nop: the arch's emulation moves ip on */
	mi->emulated = insn.length == 1 && insn.opcode.bytes[0] == 0x90;
	mi->push = insn_push_reg(&insn);
	if (insn_rip_relative(&insn))
		mi->disp_off = insn_offset_displacement(&insn);
	mi->slot = uprobe_mem_slot_get(mm, mi, vaddr);
	return mi->slot ? 0 : -ENOMEM;
}

static int insn_prepare(struct uprobe_mem_insn *mi, struct mm_struct *mm,
			unsigned long vaddr)
{
	int n;

	n = access_remote_vm(mm, vaddr, mi->insn, sizeof(mi->insn), FOLL_FORCE);
	if (n <= 0)
		return -EFAULT;
	if (mi->insn[0] == UPROBE_SWBP_INSN)
		return -EBUSY;		/* a breakpoint we did not place */
	return uprobe_mem_insn_analyze(mi, mm, vaddr, n);
}

/* ---- the engine binding's calls ----------------------------------- */

/*
 * Changes one byte of @mm's code from @old to @new, with ptrace's
 * copy-on-write, and only where the mapping is private: the mapping
 * checked at registration may have been replaced since, and an int3 in a
 * shared one would reach the file and every other process mapping it.
 * The byte is compared and written at once (the page the program writes
 * its code to is the one changed here), so code the program writes
 * meanwhile (a JIT) is never overwritten with a stale byte.  Returns 0,
 * -EAGAIN if the byte was not @old, or -EFAULT or -EINTR.
 */
static int swap_byte(struct mm_struct *mm, unsigned long vaddr, u8 old, u8 new)
{
	struct vm_area_struct *vma;
	struct page *page;
	int ret = -EFAULT;
	void *kaddr;

	if (mmap_read_lock_killable(mm))
		return -EINTR;
	vma = vma_lookup(mm, vaddr);
	if (vma && !(vma->vm_flags & (VM_MAYSHARE | VM_HUGETLB)) &&
	    get_user_pages_remote(mm, vaddr, 1, FOLL_FORCE | FOLL_WRITE,
				  &page, NULL) == 1) {
		kaddr = kmap_local_page(page);
		ret = try_cmpxchg((u8 *)kaddr + offset_in_page(vaddr), &old,
				  new) ? 0 : -EAGAIN;
		kunmap_local(kaddr);
		if (!ret)
			set_page_dirty_lock(page);
		put_page(page);
	}
	mmap_read_unlock(mm);
	return ret;
}

/*
 * Our int3 at @vaddr goes, @orig back in its place; an int3 the program
 * has overwritten meanwhile was not ours any more: 0 as well.
 */
static int restore_byte(struct mm_struct *mm, unsigned long vaddr, u8 orig)
{
	int ret = swap_byte(mm, vaddr, UPROBE_SWBP_INSN, orig);

	return ret == -EAGAIN ? 0 : ret;
}

/*
 * Is the int3 at @vaddr still the one a site put there?  Its first byte
 * is, and the rest is the instruction: all of it where @whole (a lost
 * site, whose address new code may reuse), as much of it as is still
 * mapped otherwise (the rest may be on a page gone).  An int3 the program
 * wrote itself (padding in freed code) is then not taken for ours.
 */
static bool int3_is_ours(struct mm_struct *mm, unsigned long vaddr,
			 const u8 *insn, int len, bool whole)
{
	u8 cur[MAX_UINSN_BYTES];
	int n = access_remote_vm(mm, vaddr, cur, len, FOLL_FORCE);

	if (n < (whole ? len : 1) || cur[0] != UPROBE_SWBP_INSN)
		return false;
	return !memcmp(cur + 1, insn + 1, min(n, len) - 1);
}

/**
 * uprobe_mem_attach - place a point's breakpoint in anonymous or writable memory
 * @pp: the point; pp->proc and pp->vaddr are set
 * @mm: its address space, with a reference (mm_users) held
 * @file: the private file mapping's file (a reference this takes), or NULL
 * @offset: ... and the instruction's offset in it
 *
 * Return: 0 once the int3 is in @mm; -EOPNOTSUPP for a 32-bit process or
 * an instruction this engine cannot run; -EBUSY for a breakpoint already
 * there; -EAGAIN if the program changed the instruction's first byte
 * while it was being read and the int3 written; -EFAULT, -ENOMEM; on
 * error nothing is changed (a slot made for the instruction stays for a
 * later try).
 */
int uprobe_mem_attach(struct uprobe_point *pp, struct mm_struct *mm,
		      struct file *file, loff_t offset)
{
	struct uprobe_mem_site *s = &pp->site.m;
	struct uprobe_mem_insn *mi;
	int ret;

	if (!is_64bit_mm(mm))
		return -EOPNOTSUPP;
	mi = kzalloc(sizeof(*mi), GFP_KERNEL);
	if (!mi)
		return -ENOMEM;
	ret = insn_prepare(mi, mm, pp->vaddr);
	if (ret)
		goto out_free;

	s->pp = pp;
	s->mm = mm;
	s->vaddr = pp->vaddr;
	s->mi = mi;
	s->flags = 0;
	s->file = file;
	s->offset = offset;
	/* hashed (and seen by a fork) before the int3 can be hit */
	spin_lock(&uprobe_mem_lock);
	uprobe_mem_site_list(s, &uprobe_mem_sites);
	spin_unlock(&uprobe_mem_lock);
	/*
	 * The inode engine recalculates (and may clear) the flag under
	 * mmap_lock; set with it held for writing, after the site is
	 * listed, the flag stays (uprobe_mem_has_sites()).
	 */
	mmap_write_lock(mm);
	set_bit(MMF_HAS_UPROBES, &mm->flags);
	mmap_write_unlock(mm);

	ret = swap_byte(mm, s->vaddr, mi->insn[0], UPROBE_SWBP_INSN);
	if (!ret)
		return 0;
	spin_lock(&uprobe_mem_lock);
	uprobe_mem_site_unlist(s);
	spin_unlock(&uprobe_mem_lock);
	uprobe_mem_sync();	/* a lookup of a foreign int3 there */
out_free:
	kfree(mi);
	return ret;
}

/**
 * uprobe_mem_detach - take a point's breakpoint out
 * @pp: a point uprobe_mem_attach() placed
 *
 * The original byte goes back where the int3 still is (the program may
 * have rewritten the code, the int3 with it); for a lost site, only if
 * the rest of the instruction is still there too.
 * A hit already in the trap may still find the site; the caller waits
 * with uprobe_site_sync() before uprobe_mem_release().
 */
void uprobe_mem_detach(struct uprobe_point *pp)
{
	struct uprobe_mem_site *s = &pp->site.m;
	struct uprobe_mem_insn *mi = s->mi;

	if (!test_bit(UPROBE_MEM_DEAD, &s->flags) && mmget_not_zero(s->mm)) {
		if (int3_is_ours(s->mm, s->vaddr, mi->insn, mi->len,
				 test_bit(UPROBE_MEM_LOST, &s->flags)))
			restore_byte(s->mm, s->vaddr, mi->insn[0]);
		mmput(s->mm);
	}
	/* after the byte: a trap that finds no site sees it back */
	spin_lock(&uprobe_mem_lock);
	uprobe_mem_site_unlist(s);
	spin_unlock(&uprobe_mem_lock);
}

/**
 * uprobe_mem_release - free what a detached, synced point holds
 * @pp: the point
 */
void uprobe_mem_release(struct uprobe_point *pp)
{
	struct uprobe_mem_site *s = &pp->site.m;

	kfree(s->mi);
	s->mi = NULL;
	if (s->file)
		fput(s->file);
	s->file = NULL;
}

/**
 * uprobe_mem_show - "mem  FILE+0xOFFSET" or "mem  [anon]", "(lost)" after
 * @m: the seq_file
 * @pp: the point
 */
void uprobe_mem_show(struct seq_file *m, struct uprobe_point *pp)
{
	struct uprobe_mem_site *s = &pp->site.m;

	seq_puts(m, "mem  ");
	if (s->file) {
		seq_file_path(m, s->file, " \t\n\\");
		seq_printf(m, "+0x%llx", (unsigned long long)s->offset);
	} else {
		seq_puts(m, "[anon]");
	}
	if (test_bit(UPROBE_MEM_LOST, &s->flags))
		seq_puts(m, "(lost)");
}

/* ---- the inode engine's calls ------------------------------------- */

/*
 * The program changed the instruction under the int3, or the site was
 * lost: the first byte goes back (the program never wrote it) and the
 * code runs as it is now, unprobed from then on.  A site detached since
 * the hit found it is detach's to restore (a new site may be at the same
 * address already): nothing is written.
 */
static int site_lose(struct uprobe_mem_site *s)
{
	bool listed;

	spin_lock(&uprobe_mem_lock);
	listed = uprobe_mem_site_lost(s);
	spin_unlock(&uprobe_mem_lock);
	if (!listed)
		return 0;
	return restore_byte(current->mm, s->vaddr, s->mi->insn[0]);
}

/*
 * An int3 at no site that is no longer there (a probe of either engine,
 * or a debugger's, removed while its hit was on the way): the thread goes
 * back to run what is there now, as the inode engine's handle_swbp()
 * would after the die chain and the way back to user space.  A shortcut
 * only: the same holds for any process with MMF_HAS_UPROBES.
 */
static bool gone_int3(struct pt_regs *regs, unsigned long bp_vaddr)
{
	u8 b;

	if (get_user(b, (u8 __user *)bp_vaddr) || b == UPROBE_SWBP_INSN)
		return false;
	instruction_pointer_set(regs, bp_vaddr);
	return true;
}

/*
 * An int3 at no site: one mremap() moved?  mremap() moves the pages, int3
 * and all, and only the old range is unmapped (the site is lost there).
 * If the int3 is at a lost site's offset in its page, followed by the
 * rest of that site's instruction (two bytes or more), in memory the
 * inode engine never patches (anonymous or writable: its own int3s are
 * not taken for ours), the first byte goes back.  A debugger's int3 in
 * such memory with the same bytes after it would be taken for one.
 * Returns true if it did (restart at @bp_vaddr).
 */
static bool moved_int3(struct pt_regs *regs, unsigned long bp_vaddr)
{
	struct uprobe_mem_site *s, *found = NULL;
	struct vm_area_struct *vma;
	u8 cur[MAX_UINSN_BYTES];
	bool any = false;
	int n;

	if (!READ_ONCE(uprobe_mem_lost))
		return false;
	spin_lock(&uprobe_mem_lock);
	list_for_each_entry(s, &uprobe_mem_sites, node)
		any |= s->mm == current->mm && test_bit(UPROBE_MEM_LOST, &s->flags);
	spin_unlock(&uprobe_mem_lock);
	if (!any)
		return false;
	n = MAX_UINSN_BYTES - copy_from_user(cur, (void __user *)bp_vaddr,
					     MAX_UINSN_BYTES);
	if (n < 2 || cur[0] != UPROBE_SWBP_INSN)
		return false;
	spin_lock(&uprobe_mem_lock);
	list_for_each_entry(s, &uprobe_mem_sites, node) {
		if (s->mm == current->mm && s->mi->len >= 2 && s->mi->len <= n &&
		    test_bit(UPROBE_MEM_LOST, &s->flags) &&
		    offset_in_page(s->vaddr) == offset_in_page(bp_vaddr) &&
		    !memcmp(cur + 1, s->mi->insn + 1, s->mi->len - 1)) {
			found = s;	/* freed only after the hit's grace period */
			break;
		}
	}
	spin_unlock(&uprobe_mem_lock);
	if (!found)
		return false;
	mmap_read_lock(current->mm);
	vma = vma_lookup(current->mm, bp_vaddr);
	if (!vma || (vma->vm_file && !(vma->vm_flags & VM_WRITE)))
		found = NULL;		/* the inode engine's kind of memory */
	mmap_read_unlock(current->mm);
	if (!found || restore_byte(current->mm, bp_vaddr, found->mi->insn[0]))
		return false;
	instruction_pointer_set(regs, bp_vaddr);
	return true;
}

/* insn_unchanged()'s way for any length, out of its fast path */
static noinline bool insn_tail_unchanged(struct uprobe_mem_insn *mi,
					 unsigned long vaddr)
{
	u8 tail[MAX_UINSN_BYTES];

	return !copy_from_user(tail, (void __user *)vaddr + 1, mi->len - 1) &&
	       !memcmp(tail, mi->insn + 1, mi->len - 1);
}

/*
 * Is the instruction behind a site's int3 at @vaddr still the one
 * probed?  For one of up to eight bytes, one load that stays within the
 * int3's page compares it (the bytes after it are the program's too).
 */
static bool insn_unchanged(struct uprobe_mem_insn *mi, unsigned long vaddr)
{
	u64 now;

	if (mi->len == 1)
		return true;
	if (mi->len <= sizeof(now) &&
	    offset_in_page(vaddr) <= PAGE_SIZE - sizeof(now) &&
	    !get_user(now, (u64 __user *)vaddr))
		return !((now ^ get_unaligned((u64 *)mi->insn)) &
			 GENMASK_ULL(mi->len * 8 - 1, 8));
	return insn_tail_unchanged(mi, vaddr);
}

/*
 * A push, as the CPU would run it, ip at @mi's int3: false if it cannot
 * be done here (no push, a debugger single-stepping, the stack not
 * writable), and the slot runs it (where it traps or faults as the
 * program's own push would).
 */
static bool emulate_push(struct uprobe_mem_insn *mi, struct pt_regs *regs)
{
	unsigned long sp = regs->sp - sizeof(long);

	if (!mi->push || (regs->flags & X86_EFLAGS_TF) ||
	    put_user(regs_get_register(regs, mi->push - 1),
		     (unsigned long __user *)sp))
		return false;
	regs->sp = sp;
	regs->ip += mi->len;
	return true;
}

/*
 * A breakpoint hit at @bp_vaddr, if it is one of this engine's, under
 * uprobe_mem_srcu: runs the point's handlers, then the instruction
 * (emulated, or from its slot; an instruction changed under the int3 is
 * run again as it is now).  Returns true if the hit was this engine's.
 * Out of line: every user int3 of a process with uprobes passes through
 * uprobe_mem_int3(), which should not pay this one's frame to leave.
 */
static noinline bool uprobe_mem_swbp(struct pt_regs *regs,
				     unsigned long bp_vaddr)
{
	struct uprobe_mem_insn *mi;
	struct uprobe_mem_site *s;
	struct uprobe_task *utask;
	bool same, lost;

	s = site_lookup(current->mm, bp_vaddr);
	if (!s)
		return gone_int3(regs, bp_vaddr) || moved_int3(regs, bp_vaddr);
	mi = s->mi;
	same = insn_unchanged(mi, bp_vaddr);
	lost = test_bit(UPROBE_MEM_LOST, &s->flags);	/* read once */
	if (test_bit(UPROBE_MEM_FRONT, &s->flags) &&
	    !uprobe_mem_front_takes(s, regs, same && !lost))
		return false;	/* the inode engine's, by the die notifiers */
	if (lost && !same)
		return false;	/* new code at a lost site's address */
	if (lost || !same || !user_64bit_mode(regs)) {
		/* if the byte cannot go back, the int3 is left to SIGTRAP */
		if (site_lose(s))
			return false;
		instruction_pointer_set(regs, bp_vaddr);
		return true;
	}
	instruction_pointer_set(regs, bp_vaddr);

	/*
	 * handlers are known by utask->auprobe: without it, try again; a
	 * signal already pending would be delivered with ip in the slot,
	 * where uprobe_mem_signal() would send the thread back here: take
	 * it first, then the hit
	 */
	utask = uprobe_get_utask();
	if (!utask || task_sigpending(current))
		goto out;
	utask->auprobe = &mi->arch;
	uprobe_point_hit(s->pp, regs);
	utask->auprobe = NULL;

	/* a handler that moved ip took the instruction's place */
	if (instruction_pointer(regs) != bp_vaddr || emulate_push(mi, regs) ||
	    (mi->emulated && arch_uprobe_skip_sstep(&mi->arch, regs)))
		goto out;
	if (mi->slot) {
		uprobe_mem_slot_enter(regs, mi->slot);
	} else {
		/* a call whose push faulted, as the call itself would */
		instruction_pointer_set(regs, bp_vaddr);
		force_sig_fault(SIGSEGV, SEGV_MAPERR,
				(void __user *)(regs->sp - sizeof(long)));
	}
out:
	return true;
}

/**
 * uprobe_mem_int3 - a user int3: one of this engine's breakpoints?
 * @regs: the user registers, ip after the int3
 *
 * Called from the int3 exception of a task in user mode, with interrupts
 * off, before the die notifiers.  Through those, the inode engine only
 * marks the task and looks its breakpoint up on the way back to user
 * space; this engine takes its hits here, in one pass.  The exception of
 * a user task runs in a context like a system call's: interrupts are on
 * while the handlers run, and they may sleep.  An int3 that is not this
 * engine's goes on to the die notifiers as before.
 *
 * Context: the int3 exception, from user mode, interrupts off; enables
 * them while it looks (and disables them again), and may sleep.
 * Return: true if the int3 was this engine's, or is no longer there
 * (@regs say where to go on).
 */
bool uprobe_mem_int3(struct pt_regs *regs)
{
	struct mm_struct *mm = current->mm;
	bool ours, held;
	int idx;

	/* a site's process has MMF_HAS_UPROBES; a held thread, a slot */
	held = current->thread.trap_nr == UPROBE_MEM_HELD_NR;
	if (!held && (!READ_ONCE(uprobe_mem_nr) || !mm ||
		      !test_bit(MMF_HAS_UPROBES, &mm->flags)))
		return false;
	local_irq_enable();
	ours = held && uprobe_mem_slot_trap(regs);
	if (!ours) {
		idx = srcu_read_lock(&uprobe_mem_srcu);
		ours = uprobe_mem_swbp(regs, uprobe_get_swbp_addr(regs));
		srcu_read_unlock(&uprobe_mem_srcu, idx);
	}
	local_irq_disable();
	return ours;
}

/**
 * uprobe_mem_sync - wait until no hit of this engine runs
 *
 * For the layer's uprobe_site_sync(): a hit that found a site before it
 * was detached may still be running its handlers.
 *
 * Context: process context, may sleep (an SRCU grace period).
 */
void uprobe_mem_sync(void)
{
	synchronize_srcu(&uprobe_mem_srcu);
}

/**
 * uprobe_mem_munmap - memory of @vma in [@start, @end) goes away
 * @vma: the mapping
 * @start: ...
 * @end: ...
 *
 * Its sites are lost: whatever is mapped there later is not probed.
 * Called where the pages themselves go (not for page cache invalidation,
 * which leaves a private copy, and our int3 with it, in place).
 */
void uprobe_mem_munmap(struct vm_area_struct *vma, unsigned long start,
		       unsigned long end)
{
	struct uprobe_mem_site *s;

	if (!READ_ONCE(uprobe_mem_nr))
		return;
	spin_lock(&uprobe_mem_lock);
	list_for_each_entry(s, &uprobe_mem_sites, node) {
		if (s->mm == vma->vm_mm && s->vaddr >= start && s->vaddr < end)
			uprobe_mem_site_lost(s);
	}
	uprobe_mem_fronts_lost(vma->vm_mm, start, end, false);
	spin_unlock(&uprobe_mem_lock);
}

/**
 * uprobe_mem_has_sites - does @mm have sites of this engine?
 * @mm: the address space
 *
 * The inode engine then keeps MMF_HAS_UPROBES set.
 *
 * Return: true if it has.
 */
bool uprobe_mem_has_sites(struct mm_struct *mm)
{
	struct uprobe_mem_site *s;
	bool ret = false;

	if (!READ_ONCE(uprobe_mem_nr))
		return false;
	spin_lock(&uprobe_mem_lock);
	list_for_each_entry(s, &uprobe_mem_sites, node) {
		if (s->mm == mm) {
			ret = true;
			break;
		}
	}
	spin_unlock(&uprobe_mem_lock);
	return ret;
}

/**
 * uprobe_mem_dup_mmap - note what a fork child must strip
 * @oldmm: the parent's
 * @newmm: the child's, being copied from it
 *
 * Called by dup_mmap() with both mms' mmap_lock held for writing, before
 * the copy: a site added later is not in the child.
 */
void uprobe_mem_dup_mmap(struct mm_struct *oldmm, struct mm_struct *newmm)
{
	struct uprobe_mem_strip *st;
	struct uprobe_mem_site *s;
	unsigned int nr = 0;

	if (!READ_ONCE(uprobe_mem_nr))
		return;
	spin_lock(&uprobe_mem_lock);
	list_for_each_entry(s, &uprobe_mem_sites, node)
		nr += s->mm == oldmm;
	spin_unlock(&uprobe_mem_lock);
	if (!nr)
		return;
	/*
	 * A site added meanwhile (at the list's tail, past the nr counted)
	 * has no int3 in memory yet: its write waits for oldmm's mmap_lock.
	 */
	st = kzalloc(struct_size(st, e, nr), GFP_KERNEL);
	if (!st)
		return;
	st->mm = newmm;
	spin_lock(&uprobe_mem_lock);
	list_for_each_entry(s, &uprobe_mem_sites, node) {
		if (s->mm != oldmm || st->nr == nr)
			continue;
		st->e[st->nr].vaddr = s->vaddr;
		st->e[st->nr].len = s->mi->len;
		st->e[st->nr].lost = test_bit(UPROBE_MEM_LOST, &s->flags);
		memcpy(st->e[st->nr].insn, s->mi->insn, s->mi->len);
		st->nr++;
	}
	list_add(&st->node, &uprobe_mem_strips);
	spin_unlock(&uprobe_mem_lock);
}

static struct uprobe_mem_strip *strip_take(struct mm_struct *mm)
{
	struct uprobe_mem_strip *st, *ret = NULL;

	spin_lock(&uprobe_mem_lock);
	list_for_each_entry(st, &uprobe_mem_strips, node) {
		if (st->mm == mm) {
			list_del(&st->node);
			ret = st;
			break;
		}
	}
	spin_unlock(&uprobe_mem_lock);
	return ret;
}

/* task work of a fork child, before its first return to user space */
static void strip_work(struct callback_head *head)
{
	struct uprobe_mem_strip *st = strip_take(current->mm);
	unsigned int i;

	kfree(head);
	if (!st)
		return;
	for (i = 0; i < st->nr; i++) {
		if (int3_is_ours(current->mm, st->e[i].vaddr, st->e[i].insn,
				 st->e[i].len, st->e[i].lost))
			restore_byte(current->mm, st->e[i].vaddr,
				     st->e[i].insn[0]);
	}
	kfree(st);
}

/**
 * uprobe_mem_fork - a new task @t: a fork child strips its copies
 * @t: the child, not yet running
 * @flags: its clone flags
 */
void uprobe_mem_fork(struct task_struct *t, unsigned long flags)
{
	struct uprobe_mem_strip *st;
	struct callback_head *work;
	bool strip = false;

	/* not uprobe_mem_nr: the parent's last site may be gone already */
	if ((flags & CLONE_VM) || list_empty(&uprobe_mem_strips))
		return;
	spin_lock(&uprobe_mem_lock);
	list_for_each_entry(st, &uprobe_mem_strips, node)
		strip |= st->mm == t->mm;
	spin_unlock(&uprobe_mem_lock);
	if (!strip)
		return;
	work = kmalloc(sizeof(*work), GFP_KERNEL);
	if (!work)
		return;		/* its int3s stay: it gets SIGTRAP on a hit */
	init_task_work(work, strip_work);
	if (task_work_add(t, work, TWA_RESUME))
		kfree(work);
}

/**
 * uprobe_mem_mm_exit - @mm is going away
 * @mm: the address space
 *
 * Its sites are dead (the layer detaches them later), its slot pages and
 * a fork's strip list are freed.  Called from uprobe_clear_state().
 */
void uprobe_mem_mm_exit(struct mm_struct *mm)
{
	struct uprobe_mem_site *s;
	struct uprobe_mem_strip *st;

	spin_lock(&uprobe_mem_lock);
	list_for_each_entry(s, &uprobe_mem_sites, node) {
		if (s->mm == mm)
			set_bit(UPROBE_MEM_DEAD, &s->flags);
	}
	spin_unlock(&uprobe_mem_lock);
	uprobe_mem_slots_exit(mm);
	st = strip_take(mm);
	kfree(st);
}
