// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Per-process uprobes, memory engine: breakpoints in the executable
 * memory the inode engine cannot patch, anonymous memory (JIT code) and
 * writable private mappings.  What a program sees is described in
 * Documentation/trace/uprobes-process.rst.  The arch decodes, emulates
 * and builds slots behind the arch_uprobe_mem_* interface
 * (<linux/uprobes_mem.h>); nothing here knows an instruction set.
 *
 * A site is keyed by (mm, address), not (inode, offset), and its
 * breakpoint is written into that mm alone, with ptrace's copy-on-write;
 * never into a shared mapping (swap_opcode()), whose other users would
 * read it.  A hit is taken in the breakpoint exception, in one pass: the
 * steps are at uprobe_mem_swbp().
 *
 * Locks: uprobe_mem_lock (a spinlock: the unmap and fork hooks run under
 * mmap_lock) guards the lists and the hash table's writers.  Attach and
 * detach are called under the layer's uprobes_mutex and sleep.  The hit
 * path takes no lock: it runs under uprobe_mem_srcu (uprobe_mem_int3()).
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
static int uprobe_mem_lost;		/* lost sites; moved_bp()'s */
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
		    !test_bit(UPROBE_MEM_EXITED, &s->flags))
			return s;
	}
	return NULL;
}

/**
 * uprobe_mem_site_lost - the program took a site's code back
 * @s: the site, which a hit may hold after it left uprobe_mem_sites
 *
 * Counted, so that a breakpoint at no site looks for a lost one (moved_bp())
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
	if (!test_and_set_bit(UPROBE_MEM_GONE, &s->flags))
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
	if (test_bit(UPROBE_MEM_GONE, &s->flags))
		WRITE_ONCE(uprobe_mem_lost, uprobe_mem_lost - 1);
}

/* ---- decode --------------------------------------------------------- */

/**
 * uprobe_mem_insn_analyze - decode an instruction, and say how it will run
 * @mi: its bytes in mi->insn
 * @mm: the address space it is probed in
 * @vaddr: ... and its address there
 * @n: how many bytes of mi->insn are the program's
 *
 * The arch decodes it (arch_uprobe_mem_analyze()); one it does not only
 * emulate gets a slot.
 *
 * Return: 0 once it is emulated or has a slot; -EOPNOTSUPP for one that
 * neither can run, -EFAULT for a truncated one, -ENOMEM.
 */
int uprobe_mem_insn_analyze(struct uprobe_mem_insn *mi, struct mm_struct *mm,
			    unsigned long vaddr, int n)
{
	int ret;

	ret = arch_uprobe_mem_analyze(&mi->arch, mi->insn, n, &mi->len, mm,
				      vaddr);
	if (ret <= 0)
		return ret;	/* refused, or emulated with no slot */
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
	if (uprobe_mem_is_bp(mi->insn))
		return -EBUSY;		/* a breakpoint we did not place */
	return uprobe_mem_insn_analyze(mi, mm, vaddr, n);
}

/* ---- the engine binding's calls ----------------------------------- */

/*
 * Changes the opcode (UPROBE_SWBP_INSN_SIZE bytes) of @mm's code at
 * @vaddr from @old to @new, with ptrace's copy-on-write, and only where
 * the mapping is private: the mapping checked at registration may have
 * been replaced since, and a breakpoint in a shared one would reach the
 * file and every other process mapping it.  The opcode is compared and
 * written at once (the page the program writes its code to is the one
 * changed here), so code the program writes meanwhile (a JIT) is never
 * overwritten with a stale byte.  Returns 0, -EAGAIN if the opcode was
 * not @old, or -EFAULT or -EINTR.
 */
static int swap_opcode(struct mm_struct *mm, unsigned long vaddr,
		       uprobe_opcode_t old, uprobe_opcode_t new)
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
		ret = try_cmpxchg((uprobe_opcode_t *)(kaddr +
						      offset_in_page(vaddr)),
				  &old, new) ? 0 : -EAGAIN;
		kunmap_local(kaddr);
		if (!ret)
			set_page_dirty_lock(page);
		put_page(page);
	}
	mmap_read_unlock(mm);
	return ret;
}

/*
 * Our breakpoint at @vaddr goes, @orig back in its place; a breakpoint
 * the program has overwritten meanwhile was not ours any more: 0 as well.
 */
static int restore_opcode(struct mm_struct *mm, unsigned long vaddr,
			  uprobe_opcode_t orig)
{
	int ret = swap_opcode(mm, vaddr, UPROBE_SWBP_INSN, orig);

	return ret == -EAGAIN ? 0 : ret;
}

/*
 * Is the breakpoint at @vaddr still the one a site put there?  Its
 * opcode is, and the rest is the instruction: all of it where @whole (a
 * lost site, whose address new code may reuse), as much of it as is
 * still mapped otherwise (the rest may be on a page gone).  A breakpoint
 * the program wrote itself (padding in freed code) is then not taken for
 * ours.
 */
static bool bp_is_ours(struct mm_struct *mm, unsigned long vaddr,
		       const u8 *insn, int len, bool whole)
{
	u8 cur[MAX_UINSN_BYTES];
	int n = access_remote_vm(mm, vaddr, cur, len, FOLL_FORCE);

	if (n < (whole ? len : UPROBE_SWBP_INSN_SIZE) || !uprobe_mem_is_bp(cur))
		return false;
	return !memcmp(cur + UPROBE_SWBP_INSN_SIZE, insn + UPROBE_SWBP_INSN_SIZE,
		       min(n, len) - UPROBE_SWBP_INSN_SIZE);
}

/**
 * uprobe_mem_attach - place a point's breakpoint in anonymous or writable memory
 * @pp: the point; pp->proc and pp->vaddr are set
 * @mm: its address space, with a reference (mm_users) held
 * @file: the private file mapping's file (a reference this takes), or NULL
 * @offset: ... and the instruction's offset in it
 *
 * Return: 0 once the breakpoint is in @mm; -EOPNOTSUPP for a process
 * (arch_uprobe_mem_mm_ok()) or an instruction this engine cannot run;
 * -EBUSY for a breakpoint already there; -EAGAIN if the program changed
 * the instruction's opcode while it was being read and the breakpoint
 * written; -EFAULT, -ENOMEM; on
 * error nothing is changed (a slot made for the instruction stays for a
 * later try).
 */
int uprobe_mem_attach(struct uprobe_point *pp, struct mm_struct *mm,
		      struct file *file, loff_t offset)
{
	struct uprobe_mem_site *s = &pp->site.m;
	struct uprobe_mem_insn *mi;
	int ret;

	if (!arch_uprobe_mem_mm_ok(mm))
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
	/* hashed (and seen by a fork) before the breakpoint can be hit */
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

	ret = swap_opcode(mm, s->vaddr, uprobe_mem_opcode(mi->insn),
			  UPROBE_SWBP_INSN);
	if (!ret)
		return 0;
	spin_lock(&uprobe_mem_lock);
	uprobe_mem_site_unlist(s);
	spin_unlock(&uprobe_mem_lock);
	uprobe_mem_sync();	/* a lookup of a foreign breakpoint there */
out_free:
	kfree(mi);
	return ret;
}

/**
 * uprobe_mem_detach - take a point's breakpoint out
 * @pp: a point uprobe_mem_attach() placed
 *
 * The original opcode goes back where the breakpoint still is (the
 * program may have rewritten the code, the breakpoint with it); for a
 * lost site, only if the rest of the instruction is still there too.
 * A hit already in the trap may still find the site; the caller waits
 * with uprobe_site_sync() before uprobe_mem_release().
 */
void uprobe_mem_detach(struct uprobe_point *pp)
{
	struct uprobe_mem_site *s = &pp->site.m;
	struct uprobe_mem_insn *mi = s->mi;

	if (!test_bit(UPROBE_MEM_EXITED, &s->flags) && mmget_not_zero(s->mm)) {
		if (bp_is_ours(s->mm, s->vaddr, mi->insn, mi->len,
			       test_bit(UPROBE_MEM_GONE, &s->flags)))
			restore_opcode(s->mm, s->vaddr,
				       uprobe_mem_opcode(mi->insn));
		mmput(s->mm);
	}
	/* after the opcode: a trap that finds no site sees it back */
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
	if (test_bit(UPROBE_MEM_GONE, &s->flags))
		seq_puts(m, "(lost)");
}

/* ---- the inode engine's calls ------------------------------------- */

/*
 * The program changed the instruction under the breakpoint, or the site
 * was lost: the opcode goes back (the program never wrote it) and the
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
	return restore_opcode(current->mm, s->vaddr,
			      uprobe_mem_opcode(s->mi->insn));
}

/*
 * A breakpoint at no site that is no longer there (a probe of either
 * engine, or a debugger's, removed while its hit was on the way): the
 * thread goes back to run what is there now, as the inode engine's
 * handle_swbp() would after the die chain and the way back to user
 * space.  A shortcut only: the same holds for any process with
 * MMF_HAS_UPROBES.
 */
static bool gone_bp(struct pt_regs *regs, unsigned long bp_vaddr)
{
	uprobe_opcode_t b;

	if (get_user(b, (uprobe_opcode_t __user *)bp_vaddr) ||
	    b == UPROBE_SWBP_INSN)
		return false;
	instruction_pointer_set(regs, bp_vaddr);
	return true;
}

/*
 * A breakpoint at no site: one mremap() moved?  mremap() moves the pages,
 * breakpoint and all, and only the old range is unmapped (the site is
 * lost there).  If the breakpoint is at a lost site's offset in its page,
 * followed by the rest of that site's instruction (a byte or more), in
 * memory the inode engine never patches (anonymous or writable: its own
 * breakpoints are not taken for ours), the opcode goes back.  A
 * debugger's breakpoint in such memory with the same bytes after it
 * would be taken for one.  Returns true if it did (restart at @bp_vaddr).
 */
static bool moved_bp(struct pt_regs *regs, unsigned long bp_vaddr)
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
		any |= s->mm == current->mm && test_bit(UPROBE_MEM_GONE, &s->flags);
	spin_unlock(&uprobe_mem_lock);
	if (!any)
		return false;
	n = MAX_UINSN_BYTES - copy_from_user(cur, (void __user *)bp_vaddr,
					     MAX_UINSN_BYTES);
	if (n <= UPROBE_SWBP_INSN_SIZE || !uprobe_mem_is_bp(cur))
		return false;
	spin_lock(&uprobe_mem_lock);
	list_for_each_entry(s, &uprobe_mem_sites, node) {
		if (s->mm == current->mm &&
		    s->mi->len > UPROBE_SWBP_INSN_SIZE && s->mi->len <= n &&
		    test_bit(UPROBE_MEM_GONE, &s->flags) &&
		    offset_in_page(s->vaddr) == offset_in_page(bp_vaddr) &&
		    !memcmp(cur + UPROBE_SWBP_INSN_SIZE,
			    s->mi->insn + UPROBE_SWBP_INSN_SIZE,
			    s->mi->len - UPROBE_SWBP_INSN_SIZE)) {
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
	if (!found || restore_opcode(current->mm, bp_vaddr,
				     uprobe_mem_opcode(found->mi->insn)))
		return false;
	instruction_pointer_set(regs, bp_vaddr);
	return true;
}

/* insn_unchanged()'s way for any length, out of its fast path */
static noinline bool insn_tail_unchanged(struct uprobe_mem_insn *mi,
					 unsigned long vaddr)
{
	u8 tail[MAX_UINSN_BYTES];

	return !copy_from_user(tail, (void __user *)vaddr + UPROBE_SWBP_INSN_SIZE,
			       mi->len - UPROBE_SWBP_INSN_SIZE) &&
	       !memcmp(tail, mi->insn + UPROBE_SWBP_INSN_SIZE,
		       mi->len - UPROBE_SWBP_INSN_SIZE);
}

/*
 * Is the instruction behind a site's breakpoint at @vaddr still the one
 * probed?  For one of up to eight bytes, one load that stays within the
 * breakpoint's page compares it (the bytes after it are the program's
 * too), as little-endian words whatever the CPU's byte order.
 */
static bool insn_unchanged(struct uprobe_mem_insn *mi, unsigned long vaddr)
{
	__le64 now;

	if (mi->len <= UPROBE_SWBP_INSN_SIZE)
		return true;
	if (mi->len <= sizeof(now) &&
	    offset_in_page(vaddr) <= PAGE_SIZE - sizeof(now) &&
	    !get_user(now, (__le64 __user *)vaddr))
		return !((le64_to_cpu(now) ^ get_unaligned_le64(mi->insn)) &
			 GENMASK_ULL(mi->len * 8 - 1,
				     UPROBE_SWBP_INSN_SIZE * 8));
	return insn_tail_unchanged(mi, vaddr);
}

/*
 * A breakpoint hit at @bp_vaddr, if it is one of this engine's, under
 * uprobe_mem_srcu.  Returns true if the hit was this engine's.  Out of
 * line: every user breakpoint of a process with uprobes passes through
 * uprobe_mem_int3(), which should not pay this one's frame to leave.
 *
 * The hit, in one pass, where the inode engine would mark the task in
 * the die notifiers and look its breakpoint up on the way back to user
 * space:
 *
 * 1. The site is found in a hash table keyed by (mm, address), without
 *    mmap_lock.  At no site, the breakpoint may be gone already
 *    (gone_bp()) or moved by mremap() (moved_bp()).
 * 2. The program owns its code: the hit checks that the breakpoint is
 *    still in front of the probed instruction, so a stale copy never
 *    runs.  A site whose code was rewritten or unmapped is lost, and its
 *    breakpoint is taken out (not left to SIGTRAP) when next met; the
 *    instruction then runs as it is now.  A front may leave the hit to
 *    the inode engine (uprobe_mem_front_takes()).
 * 3. The point's handlers run, with utask->auprobe set as the inode
 *    engine sets it; a handler that moved ip took the instruction's place.
 * 4. The instruction runs with no second trap: emulated by the arch
 *    (arch_uprobe_mem_emulate()), or from the site's slot, a copy of it
 *    that goes on at the next instruction by itself, in a page this
 *    engine maps near the code (uprobe_mem_slot_get()).  A signal never
 *    shows an ip in a slot (uprobe_mem_signal()).
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
		return gone_bp(regs, bp_vaddr) || moved_bp(regs, bp_vaddr);
	mi = s->mi;
	same = insn_unchanged(mi, bp_vaddr);
	lost = test_bit(UPROBE_MEM_GONE, &s->flags);	/* read once */
	if (test_bit(UPROBE_MEM_FRONT, &s->flags) &&
	    !uprobe_mem_front_takes(s, regs, same && !lost))
		return false;	/* the inode engine's, by the die notifiers */
	if (lost && !same)
		return false;	/* new code at a lost site's address */
	if (lost || !same || !arch_uprobe_mem_regs_ok(regs)) {
		/* if the opcode cannot go back, the breakpoint is SIGTRAP's */
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
	utask->auprobe = &mi->arch.auprobe;
	uprobe_point_hit(s->pp, regs);
	utask->auprobe = NULL;

	/* a handler that moved ip took the instruction's place */
	if (instruction_pointer(regs) != bp_vaddr ||
	    arch_uprobe_mem_emulate(&mi->arch, mi->len, regs))
		goto out;
	if (mi->slot) {
		uprobe_mem_slot_enter(regs, mi->slot);
	} else {
		/* not emulated, and no slot: what running it would do */
		instruction_pointer_set(regs, bp_vaddr);
		arch_uprobe_mem_no_slot(&mi->arch, regs);
	}
out:
	return true;
}

/**
 * uprobe_mem_int3 - a user breakpoint: one of this engine's?
 * @regs: the user registers, as the breakpoint trap left them
 *
 * Called from the arch's breakpoint exception of a task in user mode,
 * with interrupts off, before the die notifiers.  Through those, the
 * inode engine only marks the task and looks its breakpoint up on the
 * way back to user space; this engine takes its hits here, in one pass
 * (uprobe_mem_swbp()).  The exception of a user task runs in a
 * context like a system call's: interrupts are on while the handlers
 * run, and they may sleep.  Sites are looked up and handlers run under
 * uprobe_mem_srcu (sleepable, as the inode engine's tasks trace RCU);
 * the layer's uprobe_site_sync() waits for both (uprobe_mem_sync())
 * before a detached site is released.  A breakpoint that is not this
 * engine's goes on to the die notifiers as before.
 *
 * Context: the breakpoint exception, from user mode, interrupts off;
 * enables them while it looks (and disables them again), and may sleep.
 * Return: true if the breakpoint was this engine's, or is no longer
 * there (@regs say where to go on).
 */
bool uprobe_mem_int3(struct pt_regs *regs)
{
	struct mm_struct *mm = current->mm;
	bool ours, held;
	int idx;

	/* a site's process has MMF_HAS_UPROBES; a held thread, a slot */
	held = arch_uprobe_mem_trap_nr() == UPROBE_MEM_HELD_NR;
	/*
	 * A return trampoline's breakpoint is met while the thread has
	 * instances in flight, which may outlive every site of its process
	 */
	if (!held && uprobe_ret_trap_possible()) {
		local_irq_enable();
		idx = srcu_read_lock(&uprobe_mem_srcu);
		ours = uprobe_ret_trap(regs, uprobe_get_swbp_addr(regs));
		srcu_read_unlock(&uprobe_mem_srcu, idx);
		local_irq_disable();
		if (ours)
			return true;
	}
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
 * which leaves a private copy, and our breakpoint with it, in place).
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
	 * has no breakpoint in memory yet: its write waits for oldmm's mmap_lock.
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
		st->e[st->nr].lost = test_bit(UPROBE_MEM_GONE, &s->flags);
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
		if (bp_is_ours(current->mm, st->e[i].vaddr, st->e[i].insn,
			       st->e[i].len, st->e[i].lost))
			restore_opcode(current->mm, st->e[i].vaddr,
				       uprobe_mem_opcode(st->e[i].insn));
	}
	kfree(st);
}

/**
 * uprobe_mem_fork - a new task @t: a fork child strips its copies
 * @t: the child, not yet running
 * @flags: its clone flags
 *
 * A fork child strips the breakpoints it inherited (uprobe_mem_dup_mmap()
 * noted them) before it first returns to user space.
 */
void uprobe_mem_fork(struct task_struct *t, unsigned long flags)
{
	struct uprobe_mem_strip *st;
	struct callback_head *work;
	bool strip = false;

	uprobe_ret_fork(t, flags);
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
		return;		/* its breakpoints stay: SIGTRAP on a hit */
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
			set_bit(UPROBE_MEM_EXITED, &s->flags);
	}
	spin_unlock(&uprobe_mem_lock);
	uprobe_mem_slots_exit(mm);
	st = strip_take(mm);
	kfree(st);
}
