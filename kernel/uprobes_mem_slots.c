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
 * that a trap may look a slot up with interrupts off (slot_find()), and
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
#include <asm/insn.h>

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
		bool falls;		/* goes on at vaddr + len */
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
	if (gone)
		uprobe_mem_fronts_lost(gone->mm, gone->vaddr,
				       gone->vaddr + PAGE_SIZE, true);
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
 * Does @mi's instruction go on at the next one?  A return or an indirect
 * jump does not: a thread whose signals wait for it is not held.
 */
static bool insn_falls(struct uprobe_mem_insn *mi)
{
	struct insn insn;
	u8 op;

	/* a VEX opcode byte is one of its map's (vcmpps is 0xc2) */
	if (insn_decode(&insn, mi->insn, mi->len, INSN_MODE_64) < 0 ||
	    insn.opcode.nbytes != 1 || insn.vex_prefix.nbytes)
		return true;
	op = insn.opcode.bytes[0];
	if (op == 0xc2 || op == 0xc3 || op == 0xca || op == 0xcb || op == 0xcf)
		return false;			/* ret, lret, iret */
	return op != 0xff || X86_MODRM_REG(insn.modrm.value) < 2 ||
	       X86_MODRM_REG(insn.modrm.value) == 6;	/* not call/jmp * */
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
		WRITE_ONCE(found->slot[found->used].falls, insn_falls(mi));
		/* slot_find() reads the entry after ->used */
		smp_store_release(&found->used, found->used + 1);
		slot = at;
	}
out:
	mmap_write_unlock(mm);
	if (na) {
		if (na->page)
			__free_page(na->page);
		kfree_rcu(na, rcu);	/* slot_find() may have seen it listed */
	}
	return slot;
}

/* What slot_find() found: whose slot, and where in it. */
struct slot_at {
	unsigned long vaddr;		/* the probed instruction */
	unsigned int len;
	bool falls;			/* it goes on at vaddr + len */
	unsigned long off;		/* of the ip in the slot */
};

/*
 * The slot of current's memory that holds @ip, in *@at: false if none.
 * Lockless (RCU), so that a trap may ask with interrupts off.
 */
static bool slot_find(unsigned long ip, struct slot_at *at)
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
		at->off = (ip - a->vaddr) % UPROBE_MEM_SLOT_SIZE;
		/* paired with uprobe_mem_slot_get(): the entry, then ->used */
		if (i < smp_load_acquire(&a->used)) {
			at->vaddr = READ_ONCE(a->slot[i].vaddr);
			at->len = READ_ONCE(a->slot[i].len);
			at->falls = READ_ONCE(a->slot[i].falls);
			found = true;
		}
		break;
	}
	rcu_read_unlock();
	return found;
}

/* where the thread would be unprobed: the copy it is in is done or not */
static unsigned long slot_unprobed(struct slot_at *at)
{
	return at->vaddr + (at->off % UPROBE_MEM_SLOT_TRAP >= at->len ? at->len : 0);
}

/*
 * thread.trap_nr, which a signal frame shows as trapno, loses the value
 * a slot left there (unless a trap has set it since): 0, a new thread's.
 * The trap number before the hit is not kept: no field of the thread is
 * free for it.  Not while the inode engine single-steps the thread
 * (its own UPROBE_TRAP_NR is the same value).
 */
static void trap_nr_restore(void)
{
	struct uprobe_task *utask = current->utask;
	unsigned int nr = current->thread.trap_nr;

	if ((nr == UPROBE_MEM_TRAP_NR || nr == UPROBE_MEM_HELD_NR) &&
	    !(utask && utask->active_uprobe))
		current->thread.trap_nr = 0;
}

/*
 * Holds current's signals, if the thread is at the first byte of a
 * copy that has not trapped (the handlers ran, the instruction did not)
 * and that goes on at the next instruction: the thread runs the second
 * copy, whose int3 lets them in.  Not a fatal one, checked under
 * siglock as the flag is cleared.
 */
static bool slot_hold(struct pt_regs *regs, struct slot_at *at)
{
	unsigned int nr = current->thread.trap_nr;
	bool held = false;

	if (at->off % UPROBE_MEM_SLOT_TRAP || !at->falls ||
	    (nr != UPROBE_MEM_TRAP_NR && nr != UPROBE_MEM_HELD_NR))
		return false;
	spin_lock_irq(&current->sighand->siglock);
	if (!__fatal_signal_pending(current)) {
		clear_tsk_thread_flag(current, TIF_SIGPENDING);
		held = true;
	}
	spin_unlock_irq(&current->sighand->siglock);
	if (!held)
		return false;
	current->thread.trap_nr = UPROBE_MEM_HELD_NR;
	instruction_pointer_set(regs, instruction_pointer(regs) - at->off +
			       UPROBE_MEM_SLOT_TRAP);
	return true;
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
 * (uprobe_mem_slot_trap()) lets them in, at the next instruction.  An
 * instruction that does not go on there (ret, jmp *) is not held.
 *
 * Return: true if the signals wait until then.
 */
bool uprobe_mem_signal(void)
{
	struct pt_regs *regs = current_pt_regs();
	struct slot_at at;

	if (!user_mode(regs))
		return false;
	if (!slot_find(instruction_pointer(regs), &at)) {
		trap_nr_restore();
		return false;
	}
	if (slot_hold(regs, &at))
		return true;
	trap_nr_restore();
	instruction_pointer_set(regs, slot_unprobed(&at));
	return false;
}

/**
 * uprobe_mem_slot_enter - send a thread whose handlers ran to @slot
 * @regs: its registers
 * @slot: the slot of the instruction it hit
 *
 * Until a trap sets thread.trap_nr, it says that the thread is on its
 * way to, or in, a slot (uprobe_mem_signal()).
 */
void uprobe_mem_slot_enter(struct pt_regs *regs, unsigned long slot)
{
	current->thread.trap_nr = UPROBE_MEM_TRAP_NR;
	instruction_pointer_set(regs, slot);
}

/**
 * uprobe_mem_slot_trap - the int3 after a slot's second copy?
 * @regs: a user int3's registers, ip after the int3
 *
 * The instruction has run: the thread goes on at the next one, and the
 * signals uprobe_mem_signal() held are let in.  Asked for a user int3 of
 * a thread whose thread.trap_nr says it is held.
 *
 * Context: the int3 exception, from user mode, interrupts on.
 * Return: true if the int3 was one of those.
 */
bool uprobe_mem_slot_trap(struct pt_regs *regs)
{
	struct slot_at at;

	if (current->thread.trap_nr != UPROBE_MEM_HELD_NR ||
	    !slot_find(instruction_pointer(regs) - 1, &at) ||
	    at.off < UPROBE_MEM_SLOT_TRAP || at.off % UPROBE_MEM_SLOT_TRAP < at.len)
		return false;
	trap_nr_restore();
	instruction_pointer_set(regs, at.vaddr + at.len);
	spin_lock_irq(&current->sighand->siglock);
	recalc_sigpending();
	spin_unlock_irq(&current->sighand->siglock);
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
	unsigned long ip = instruction_pointer(regs);
	struct slot_at at;

	if (!user_mode(regs) || !slot_find(ip, &at))
		return ip;
	return slot_unprobed(&at);
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
		kfree_rcu(a, rcu);	/* slot_find() of another mm may see it */
	}
	spin_unlock(&uprobe_mem_lock);
}
