// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Per-process uprobes, memory engine: the slots.  A probed instruction
 * that is not emulated runs from a slot of its own, a copy followed by
 * "jmp *0(%rip)" and the address of the next instruction, so no second
 * trap ends it.  Slots are in pages this engine maps into the process
 * ("[uprobes-mem]", a special mapping), within UPROBE_MEM_REACH of the
 * probed code, so that a RIP-relative displacement can be rebased.
 *
 * A slot is never handed out again while the mm lives: a thread may be
 * preempted, stopped or in a signal handler between a slot's instruction
 * and its jump back, for as long as it likes.  A slot whose bytes would be
 * the same (the same instruction probed again at the same address) is
 * reused; a process has at most UPROBE_MEM_AREAS pages of them.  The pages
 * go with the mm (uprobe_mem_slots_exit()), or when the program unmaps one
 * (its sites are then lost).  A signal never shows an ip in a slot
 * (uprobe_mem_signal()), nor a trap an si_addr (uprobe_mem_trap_addr()).
 *
 * Locks: uprobe_mem_lock guards the changes of the list of pages (taken
 * under mmap_lock by the fault and close handlers); the list is RCU, so
 * that a trap may look a slot up with interrupts off (slot_owner()), and
 * a page's entry is freed after a grace period.  uprobe_mem_slot_get() is
 * called under the layer's mutex and takes the mm's mmap_lock for
 * writing, under which a page's slots are handed out (->used, published
 * with release after the slot's entry).
 */
#include <linux/mm.h>
#include <linux/highmem.h>
#include <linux/ptrace.h>
#include <linux/rculist.h>
#include <linux/sched/signal.h>
#include <linux/sched/task_stack.h>
#include <linux/security.h>
#include <linux/slab.h>
#include <linux/unaligned.h>

#include "uprobes_process.h"
#include "uprobes_mem.h"

#define UPROBE_MEM_SLOT_SIZE	64	/* a copy with a jump back, one with an int3 */
#define UPROBE_MEM_SLOT_TRAP	32	/* the second copy's offset */
#define UPROBE_MEM_SLOTS	(PAGE_SIZE / UPROBE_MEM_SLOT_SIZE)
#define UPROBE_MEM_AREAS	16	/* slot pages per process, at most */
#define UPROBE_MEM_REACH	(SZ_1G)	/* slot to probed code, at most */

/* One page of slots in a process: a special mapping of this engine. */
struct uprobe_mem_area {
	struct list_head node;		/* on uprobe_mem_areas, RCU */
	struct mm_struct *mm;
	unsigned long vaddr;
	struct page *page;
	unsigned int used;		/* slots handed out: release/acquire */
	struct {			/* whose each slot is, for signals */
		unsigned long vaddr;
		u8 len;
	} slot[UPROBE_MEM_SLOTS];
	struct rcu_head rcu;
};

static LIST_HEAD(uprobe_mem_areas);

static vm_fault_t slot_fault(const struct vm_special_mapping *sm,
			     struct vm_area_struct *vma, struct vm_fault *vmf)
{
	struct uprobe_mem_area *a;
	struct page *page = NULL;

	if (vmf->pgoff)
		return VM_FAULT_SIGSEGV;
	spin_lock(&uprobe_mem_lock);
	list_for_each_entry(a, &uprobe_mem_areas, node) {
		if (a->mm == vma->vm_mm && a->vaddr == vma->vm_start) {
			page = a->page;
			get_page(page);
			break;
		}
	}
	spin_unlock(&uprobe_mem_lock);
	if (!page)
		return VM_FAULT_SIGSEGV;
	vmf->page = page;
	return 0;
}

/*
 * The program unmapped a page of slots (or mapped over it): the sites
 * whose slots were there are lost, and their int3s are taken out when
 * next hit.  At exit_mmap() the area is gone already.
 */
static void slot_close(const struct vm_special_mapping *sm,
		       struct vm_area_struct *vma)
{
	struct uprobe_mem_area *a, *gone = NULL;
	struct uprobe_mem_site *s;

	spin_lock(&uprobe_mem_lock);
	list_for_each_entry(a, &uprobe_mem_areas, node) {
		if (a->mm == vma->vm_mm && a->vaddr == vma->vm_start) {
			list_del_rcu(&a->node);
			gone = a;
			break;
		}
	}
	list_for_each_entry(s, &uprobe_mem_sites, node) {
		if (gone && s->mm == gone->mm && s->mi->slot >= gone->vaddr &&
		    s->mi->slot < gone->vaddr + PAGE_SIZE)
			uprobe_mem_site_lost(s);
	}
	spin_unlock(&uprobe_mem_lock);
	if (gone) {
		put_page(gone->page);
		kfree_rcu(gone, rcu);
	}
}

/* the slots' addresses are in the sites: the page must not move */
static int slot_mremap(const struct vm_special_mapping *sm,
		       struct vm_area_struct *new_vma)
{
	return -EINVAL;
}

static const struct vm_special_mapping uprobe_mem_mapping = {
	.name = "[uprobes-mem]",
	.fault = slot_fault,
	.mremap = slot_mremap,
	.close = slot_close,
};

/*
 * A free page in @mm within [lo, hi), as close to @near as there is, with
 * a free page on either side (and a stack's guard gap below a stack).
 * Called with mmap_lock held for writing.
 */
static unsigned long area_find_gap(struct mm_struct *mm, unsigned long lo,
				   unsigned long hi, unsigned long near)
{
	VMA_ITERATOR(vmi, mm, 0);
	unsigned long prev = PAGE_ALIGN(mmap_min_addr) ?: PAGE_SIZE;
	unsigned long best = 0, bestd = ULONG_MAX;
	unsigned long top = min(mm->task_size, DEFAULT_MAP_WINDOW);
	struct vm_area_struct *vma;
	bool last = false;

	near &= PAGE_MASK;
	while (!last) {
		unsigned long g0 = prev + PAGE_SIZE, g1;

		vma = vma_next(&vmi);
		if (vma) {
			g1 = vma->vm_start - PAGE_SIZE;
			if (vma->vm_flags & VM_GROWSDOWN)
				g1 -= min(g1, stack_guard_gap);
			prev = vma->vm_end;
		} else {
			g1 = top - PAGE_SIZE;
			last = true;
		}
		g0 = max(g0, lo);
		g1 = min(g1, hi);
		if (g0 < g1) {		/* pages g0 .. g1 - PAGE_SIZE are free */
			unsigned long c = clamp(near, g0, g1 - PAGE_SIZE);
			unsigned long d = c > near ? c - near : near - c;

			if (d < bestd) {
				best = c;
				bestd = d;
			}
		}
	}
	return best;
}

/*
 * A copy of @mi's instruction, probed at @vaddr, at @at (@b's bytes): a
 * RIP-relative displacement is rebased to reach the same target from
 * there.  False if it cannot reach.
 */
static bool slot_copy(struct uprobe_mem_insn *mi, unsigned long vaddr,
		      unsigned long at, u8 *b)
{
	memcpy(b, mi->insn, mi->len);
	if (mi->disp_off) {
		s64 disp = (s32)get_unaligned((u32 *)(b + mi->disp_off));

		disp += (s64)vaddr - (s64)at;
		if (disp != (s32)disp)
			return false;
		put_unaligned((u32)disp, (u32 *)(b + mi->disp_off));
	}
	return true;
}

/*
 * The slot's bytes for @mi, probed at @vaddr, placed at @slot: the
 * instruction, then "jmp *0(%rip)" and the address of the next
 * instruction; at UPROBE_MEM_SLOT_TRAP a second copy followed by an int3,
 * which a thread runs when a signal came before the first copy ran
 * (uprobe_mem_signal()).  False if a displacement cannot reach.
 */
static bool slot_fill(struct uprobe_mem_insn *mi, unsigned long vaddr,
		      unsigned long slot, u8 *b)
{
	u64 next = vaddr + mi->len;

	memset(b, UPROBE_SWBP_INSN, UPROBE_MEM_SLOT_SIZE);
	if (!slot_copy(mi, vaddr, slot, b) ||
	    !slot_copy(mi, vaddr, slot + UPROBE_MEM_SLOT_TRAP,
		       b + UPROBE_MEM_SLOT_TRAP))
		return false;
	b[mi->len] = 0xff;			/* jmp *0(%rip) */
	b[mi->len + 1] = 0x25;
	memset(b + mi->len + 2, 0, 4);
	memcpy(b + mi->len + 6, &next, sizeof(next));
	return true;
}

/*
 * A slot in @mm for @mi at @vaddr: one already holding the same bytes if
 * there is one, else a new one, in a page of slots already there or a
 * new page mapped near @vaddr.  Called under the layer's mutex.
 * Returns its address, or 0.
 */
unsigned long uprobe_mem_slot_get(struct mm_struct *mm,
				  struct uprobe_mem_insn *mi, unsigned long vaddr)
{
	unsigned long lo = vaddr > UPROBE_MEM_REACH ? vaddr - UPROBE_MEM_REACH : 0;
	unsigned long hi = vaddr + UPROBE_MEM_REACH, slot = 0, at;
	struct uprobe_mem_area *a, *found = NULL, *na = NULL;
	u8 b[UPROBE_MEM_SLOT_SIZE];
	int nr = 0, i;
	void *kaddr;

	if (mmap_write_lock_killable(mm))
		return 0;
	spin_lock(&uprobe_mem_lock);
	list_for_each_entry(a, &uprobe_mem_areas, node) {
		if (a->mm != mm)
			continue;
		nr++;
		if (a->vaddr < lo || a->vaddr + PAGE_SIZE > hi)
			continue;
		kaddr = kmap_local_page(a->page);
		for (i = 0; i < a->used && !slot; i++) {
			at = a->vaddr + i * UPROBE_MEM_SLOT_SIZE;
			if (slot_fill(mi, vaddr, at, b) &&
			    !memcmp(kaddr + i * UPROBE_MEM_SLOT_SIZE, b, sizeof(b)))
				slot = at;
		}
		kunmap_local(kaddr);
		if (slot)
			break;
		if (a->used < UPROBE_MEM_SLOTS && !found &&
		    slot_fill(mi, vaddr, a->vaddr + a->used * UPROBE_MEM_SLOT_SIZE, b))
			found = a;
	}
	spin_unlock(&uprobe_mem_lock);
	if (slot)
		goto out;

	if (!found && nr < UPROBE_MEM_AREAS) {
		struct vm_area_struct *vma;
		unsigned long addr = area_find_gap(mm, lo, hi, vaddr);

		na = kzalloc(sizeof(*na), GFP_KERNEL);
		if (!addr || !na || !slot_fill(mi, vaddr, addr, b))
			goto out;
		na->page = alloc_page(GFP_HIGHUSER | __GFP_ZERO);
		if (!na->page)
			goto out;
		na->mm = mm;
		na->vaddr = addr;
		spin_lock(&uprobe_mem_lock);
		list_add_rcu(&na->node, &uprobe_mem_areas);
		spin_unlock(&uprobe_mem_lock);
		vma = _install_special_mapping(mm, addr, PAGE_SIZE,
					       VM_READ | VM_EXEC | VM_MAYREAD |
					       VM_MAYEXEC | VM_DONTCOPY | VM_IO,
					       &uprobe_mem_mapping);
		if (IS_ERR(vma)) {
			spin_lock(&uprobe_mem_lock);
			list_del_rcu(&na->node);
			spin_unlock(&uprobe_mem_lock);
			goto out;
		}
		found = na;
		na = NULL;
	}
	at = found ? found->vaddr + found->used * UPROBE_MEM_SLOT_SIZE : 0;
	if (at && slot_fill(mi, vaddr, at, b)) {
		/*
		 * A slot never used before: no CPU has fetched from it.  The
		 * int3 that leads there is written after this.
		 */
		kaddr = kmap_local_page(found->page);
		memcpy(kaddr + found->used * UPROBE_MEM_SLOT_SIZE, b, sizeof(b));
		kunmap_local(kaddr);
		WRITE_ONCE(found->slot[found->used].vaddr, vaddr);
		WRITE_ONCE(found->slot[found->used].len, mi->len);
		/* slot_owner() reads the entry after ->used */
		smp_store_release(&found->used, found->used + 1);
		slot = at;
	}
out:
	mmap_write_unlock(mm);
	if (na) {
		if (na->page)
			__free_page(na->page);
		kfree_rcu(na, rcu);	/* slot_owner() may have seen it listed */
	}
	return slot;
}

/*
 * The slot of current's memory that holds @ip: false if none, else the
 * probed instruction's address and length, and @ip's offset in the slot.
 * Lockless (RCU), so that a trap may ask with interrupts off.
 */
static bool slot_find(unsigned long ip, unsigned long *vaddr,
		      unsigned int *len, unsigned long *off)
{
	struct uprobe_mem_area *a;
	bool found = false;
	unsigned long i;

	if (list_empty(&uprobe_mem_areas))
		return false;
	rcu_read_lock();
	list_for_each_entry_rcu(a, &uprobe_mem_areas, node) {
		if (a->mm != current->mm || ip < a->vaddr ||
		    ip >= a->vaddr + PAGE_SIZE)
			continue;
		i = (ip - a->vaddr) / UPROBE_MEM_SLOT_SIZE;
		*off = (ip - a->vaddr) % UPROBE_MEM_SLOT_SIZE;
		/* paired with uprobe_mem_slot_get(): the entry, then ->used */
		if (i < smp_load_acquire(&a->used)) {
			*vaddr = READ_ONCE(a->slot[i].vaddr);
			*len = READ_ONCE(a->slot[i].len);
			found = true;
		}
		break;
	}
	rcu_read_unlock();
	return found;
}

/* is the copy that @off is in done with?  (@off on its jump or int3) */
static bool slot_done(unsigned long off, unsigned int len)
{
	return off % UPROBE_MEM_SLOT_TRAP >= len;
}

/**
 * uprobe_mem_signal - a signal for current: no ip in a slot shows
 *
 * Called by get_signal() before it delivers, stops for ptrace or dumps
 * core.  A thread in a slot is put where it would be without the probe:
 * at the probed instruction if that has not completed (its instruction
 * faulted: it runs, and is probed, again when the handler returns, as
 * after a fault under the inode engine), at the next one if it has.
 *
 * A thread that the handlers sent to a slot and that has not run its
 * instruction yet (a signal came on its way there) would run them a
 * second time from the probed address: that instruction runs first,
 * from the slot's second copy, with signals held as the inode engine
 * holds them while it single-steps; the int3 after that copy
 * (uprobe_mem_slot_trap()) lets them in, at the next instruction.
 *
 * Return: true if the signals wait until then.
 */
bool uprobe_mem_signal(void)
{
	struct pt_regs *regs = current_pt_regs();
	unsigned long ip, vaddr, off;
	unsigned int len;

	if (!user_mode(regs))
		return false;
	ip = instruction_pointer(regs);
	if (!slot_find(ip, &vaddr, &len, &off))
		return false;
	/* at either copy's first byte, and it has not trapped: held */
	if (!(off % UPROBE_MEM_SLOT_TRAP) &&
	    (current->thread.trap_nr == UPROBE_MEM_TRAP_NR ||
	     current->thread.trap_nr == UPROBE_MEM_HELD_NR) &&
	    !fatal_signal_pending(current)) {
		spin_lock_irq(&current->sighand->siglock);
		clear_tsk_thread_flag(current, TIF_SIGPENDING);
		spin_unlock_irq(&current->sighand->siglock);
		current->thread.trap_nr = UPROBE_MEM_HELD_NR;
		instruction_pointer_set(regs, ip - off + UPROBE_MEM_SLOT_TRAP);
		return true;
	}
	instruction_pointer_set(regs, vaddr + (slot_done(off, len) ? len : 0));
	return false;
}

/**
 * uprobe_mem_slot_trap - the int3 after a slot's second copy?
 * @regs: a user int3's registers, ip after the int3
 *
 * The instruction has run: the thread goes on at the next one, and the
 * signals uprobe_mem_signal() held are let in.  Asked for every user
 * int3 of a process with uprobes: only a held thread looks further.
 *
 * Context: the int3 exception, from user mode; interrupts on or off.
 * Return: true if the int3 was one of those.
 */
bool uprobe_mem_slot_trap(struct pt_regs *regs)
{
	unsigned long vaddr, off, flags;
	unsigned int len;

	if (current->thread.trap_nr != UPROBE_MEM_HELD_NR ||
	    !slot_find(instruction_pointer(regs) - 1, &vaddr, &len, &off) ||
	    off < UPROBE_MEM_SLOT_TRAP || !slot_done(off, len))
		return false;
	current->thread.trap_nr = UPROBE_MEM_TRAP_NR;
	instruction_pointer_set(regs, vaddr + len);
	spin_lock_irqsave(&current->sighand->siglock, flags);
	recalc_sigpending();
	spin_unlock_irqrestore(&current->sighand->siglock, flags);
	return true;
}

/**
 * uprobe_mem_trap_addr - the address a trap in user mode reports
 * @regs: the trap's registers
 *
 * For uprobe_get_trap_addr(), which gives si_addr of SIGFPE, SIGILL and
 * the like, from the exception's entry (interrupts may be off): an
 * instruction that trapped in its slot reports the probed instruction's
 * address, as it would unprobed.  Any other trap reports its ip.
 */
unsigned long uprobe_mem_trap_addr(struct pt_regs *regs)
{
	unsigned long ip = instruction_pointer(regs), vaddr, off;
	unsigned int len;

	if (!user_mode(regs) || !slot_find(ip, &vaddr, &len, &off))
		return ip;
	return vaddr + (slot_done(off, len) ? len : 0);
}

/**
 * uprobe_mem_slots_exit - free @mm's pages of slots
 * @mm: an address space going away
 *
 * Called from uprobe_mem_mm_exit(), before exit_mmap(): the ptes hold
 * their own references to the pages until then.
 */
void uprobe_mem_slots_exit(struct mm_struct *mm)
{
	struct uprobe_mem_area *a, *na;

	spin_lock(&uprobe_mem_lock);
	list_for_each_entry_safe(a, na, &uprobe_mem_areas, node) {
		if (a->mm != mm)
			continue;
		list_del_rcu(&a->node);
		put_page(a->page);
		kfree_rcu(a, rcu);	/* slot_owner() of another mm may see it */
	}
	spin_unlock(&uprobe_mem_lock);
}
