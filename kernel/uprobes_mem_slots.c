// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Per-process uprobes, memory engine: the slots.  A probed instruction
 * that is not emulated runs from a slot of its own, which the arch
 * builds (arch_uprobe_mem_build_slot()): a copy that goes on at the next
 * instruction by itself, so no second trap ends it, and a second copy
 * followed by a breakpoint.  Slots are in pages this engine maps into the
 * process ("[uprobes-mem]", a special mapping), within UPROBE_MEM_REACH
 * of the probed code, so that the copy reaches what the original did.
 * A signal never shows an ip in a slot (uprobe_mem_signal()), nor a trap
 * an si_addr (uprobe_mem_trap_addr()).
 *
 * Locks: uprobe_mem_lock guards the changes of the list of pages (taken
 * under mmap_lock by the fault and close handlers); the list is RCU, so
 * that a trap may look a slot up with interrupts off (slot_find()), and
 * a page's entry is freed after a grace period.
 */
#include <linux/mm.h>
#include <linux/highmem.h>
#include <linux/ptrace.h>
#include <linux/rculist.h>
#include <linux/sched/signal.h>
#include <linux/sched/task_stack.h>
#include <linux/security.h>
#include <linux/slab.h>

#include "uprobes_process.h"
#include "uprobes_mem.h"

/* UPROBE_MEM_SLOT_SIZE, _SLOT_TRAP and _REACH are the arch's */
#define UPROBE_MEM_SLOTS	(PAGE_SIZE / UPROBE_MEM_SLOT_SIZE)
#define UPROBE_MEM_AREAS	16	/* slot pages per process, at most */
static_assert(UPROBE_MEM_SLOT_SIZE == 2 * UPROBE_MEM_SLOT_TRAP);

/* One page of slots in a process: a special mapping of this engine. */
struct uprobe_mem_area {
	struct list_head node;		/* on uprobe_mem_areas, RCU */
	struct mm_struct *mm;
	unsigned long vaddr;
	struct page *page;
	unsigned int used;		/* slots handed out: release/acquire */
	bool tramp;			/* the return trampoline's page: no slots */
	struct {			/* whose each slot is, for signals */
		unsigned long vaddr;
		u8 len;
		bool falls;		/* goes on at vaddr + len */
	} slot[UPROBE_MEM_SLOTS];
	struct rcu_head rcu;
};

static LIST_HEAD(uprobe_mem_areas);
/* return trampoline pages unmapped so far: uprobe_mem_tramp_gen_read() */
static atomic_t uprobe_mem_tramp_gen;

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
 * whose slots were there are lost, and their breakpoints are taken out when
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
	if (gone && gone->tramp)
		atomic_inc(&uprobe_mem_tramp_gen);
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
	unsigned long top = min(mm->task_size, UPROBE_MEM_MAP_TOP);
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
 * Lists @a (its page, mm and vaddr set) and maps its page into @mm at
 * a->vaddr, as this engine's special mapping.  False if the mapping
 * failed, @a unlisted again for area_free().  Called with @mm's mmap_lock
 * held for writing.
 */
static bool area_map(struct mm_struct *mm, struct uprobe_mem_area *a)
{
	struct vm_area_struct *vma;

	spin_lock(&uprobe_mem_lock);
	list_add_rcu(&a->node, &uprobe_mem_areas);
	spin_unlock(&uprobe_mem_lock);
	vma = _install_special_mapping(mm, a->vaddr, PAGE_SIZE,
				       VM_READ | VM_EXEC | VM_MAYREAD |
				       VM_MAYEXEC | VM_DONTCOPY | VM_IO,
				       &uprobe_mem_mapping);
	if (!IS_ERR(vma))
		return true;
	spin_lock(&uprobe_mem_lock);
	list_del_rcu(&a->node);
	spin_unlock(&uprobe_mem_lock);
	return false;
}

/* an area that was never mapped, or NULL */
static void area_free(struct uprobe_mem_area *a)
{
	if (!a)
		return;
	if (a->page)
		__free_page(a->page);
	kfree_rcu(a, rcu);	/* slot_find() may have seen it listed */
}

/* The slot's bytes for @mi, probed at @vaddr, placed at @slot: the arch's. */
static bool slot_fill(struct uprobe_mem_insn *mi, unsigned long vaddr,
		      unsigned long slot, u8 *b)
{
	return arch_uprobe_mem_build_slot(&mi->arch, mi->insn, mi->len, vaddr,
					  slot, b);
}

/*
 * A slot in @mm for @mi at @vaddr, or 0.  Called under the layer's mutex:
 *
 * 1. Under the mm's mmap_lock for writing, under which a page's slots
 *    are handed out, a slot of a page within UPROBE_MEM_REACH of @vaddr
 *    that holds the same bytes (the same instruction probed again at the
 *    same address) is reused.
 * 2. Else a slot never used before is taken, in a page of slots already
 *    there or a new page mapped near @vaddr; a process has at most
 *    UPROBE_MEM_AREAS pages of them.
 * 3. Its bytes are written, then its entry (whose it is, for signals),
 *    then ->used, with release: slot_find() reads them after it.
 *
 * A slot is never handed out again while the mm lives: a thread may be
 * preempted, stopped or in a signal handler between a slot's instruction
 * and its way back, for as long as it likes.  The pages go with the mm
 * (uprobe_mem_slots_exit()), or when the program unmaps one (its sites
 * are then lost).
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
		if (a->tramp || a->vaddr < lo || a->vaddr + PAGE_SIZE > hi)
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
		unsigned long addr = area_find_gap(mm, lo, hi, vaddr);

		na = kzalloc(sizeof(*na), GFP_KERNEL);
		if (!addr || !na || !slot_fill(mi, vaddr, addr, b))
			goto out;
		na->page = alloc_page(GFP_HIGHUSER | __GFP_ZERO);
		if (!na->page)
			goto out;
		na->mm = mm;
		na->vaddr = addr;
		if (!area_map(mm, na))
			goto out;
		found = na;
		na = NULL;
	}
	at = found ? found->vaddr + found->used * UPROBE_MEM_SLOT_SIZE : 0;
	if (at && slot_fill(mi, vaddr, at, b)) {
		/*
		 * A slot never used before: no CPU has fetched from it.  The
		 * breakpoint that leads there is written after this.  Written
		 * as the inode engine writes its slots, with whatever cache
		 * maintenance the arch needs.
		 */
		arch_uprobe_copy_ixol(found->page, at, b, sizeof(b));
		WRITE_ONCE(found->slot[found->used].vaddr, vaddr);
		WRITE_ONCE(found->slot[found->used].len, mi->len);
		WRITE_ONCE(found->slot[found->used].falls,
			   arch_uprobe_mem_falls(mi->insn, mi->len));
		/* slot_find() reads the entry after ->used */
		smp_store_release(&found->used, found->used + 1);
		slot = at;
	}
out:
	mmap_write_unlock(mm);
	area_free(na);
	return slot;
}

/*
 * @mm's return trampoline (uprobes_ret.c), or 0: a page of this engine
 * filled with breakpoints, so that any address in it traps.  A process
 * has one; it counts as one of its UPROBE_MEM_AREAS pages, and holds no
 * slot (slot_find() never finds one in it: ->used stays 0).  Mapped on
 * the first call of the process's first return probe, anywhere.
 *
 * Context: process context, may sleep (takes @mm's mmap_lock to write).
 */
unsigned long uprobe_mem_ret_tramp(struct mm_struct *mm)
{
	struct uprobe_mem_area *a, *na = NULL;
	unsigned long tramp = 0, addr;
	uprobe_opcode_t bp = UPROBE_SWBP_INSN;
	unsigned int i, nr = 0;
	void *kaddr;

	if (mmap_write_lock_killable(mm))
		return 0;
	spin_lock(&uprobe_mem_lock);
	list_for_each_entry(a, &uprobe_mem_areas, node) {
		if (a->mm != mm)
			continue;
		nr++;
		if (a->tramp)
			tramp = a->vaddr;
	}
	spin_unlock(&uprobe_mem_lock);
	if (tramp || nr >= UPROBE_MEM_AREAS)
		goto out;
	addr = area_find_gap(mm, 0, ULONG_MAX, mm->mmap_base);
	na = kzalloc(sizeof(*na), GFP_KERNEL);
	if (!addr || !na)
		goto out;
	na->page = alloc_page(GFP_HIGHUSER);
	if (!na->page)
		goto out;
	kaddr = kmap_local_page(na->page);
	for (i = 0; i < PAGE_SIZE / sizeof(bp); i++)
		memcpy(kaddr + i * sizeof(bp), &bp, sizeof(bp));
	kunmap_local(kaddr);
	na->mm = mm;
	na->vaddr = addr;
	na->tramp = true;
	if (!area_map(mm, na))
		goto out;
	tramp = addr;
	na = NULL;
out:
	mmap_write_unlock(mm);
	area_free(na);
	return tramp;
}

/*
 * A count of return trampoline pages that went away (unmapped, or mapped
 * over): a trampoline address cached at an older count is looked up again.
 */
unsigned int uprobe_mem_tramp_gen_read(void)
{
	return atomic_read(&uprobe_mem_tramp_gen);
}

/* is @addr in @mm's return trampoline?  Lockless (RCU). */
bool uprobe_mem_is_ret_tramp(struct mm_struct *mm, unsigned long addr)
{
	struct uprobe_mem_area *a;
	bool ret = false;

	rcu_read_lock();
	list_for_each_entry_rcu(a, &uprobe_mem_areas, node) {
		if (a->mm == mm && a->tramp && addr >= a->vaddr &&
		    addr < a->vaddr + PAGE_SIZE) {
			ret = true;
			break;
		}
	}
	rcu_read_unlock();
	return ret;
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
 * The thread's trap number (arch_uprobe_mem_trap_nr()), which a signal
 * frame may show, loses the value a slot left there (unless a trap has
 * set it since): a new thread's.  The trap number before the hit is not
 * kept: no field of the thread is free for it.  Not while the inode
 * engine single-steps the thread (its own mark there may be the same).
 */
static void trap_nr_restore(void)
{
	struct uprobe_task *utask = current->utask;
	unsigned int nr = arch_uprobe_mem_trap_nr();

	if ((nr == UPROBE_MEM_TRAP_NR || nr == UPROBE_MEM_HELD_NR) &&
	    !(utask && utask->active_uprobe))
		arch_uprobe_mem_set_trap_nr(UPROBE_MEM_NEW_TRAP_NR);
}

/*
 * Holds current's signals, if the thread is at the first byte of a
 * copy that has not trapped (the handlers ran, the instruction did not)
 * and that goes on at the next instruction: the thread runs the second
 * copy, whose breakpoint lets them in.  Not a fatal one, checked under
 * siglock as the flag is cleared.
 */
static bool slot_hold(struct pt_regs *regs, struct slot_at *at)
{
	unsigned int nr = arch_uprobe_mem_trap_nr();
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
	arch_uprobe_mem_set_trap_nr(UPROBE_MEM_HELD_NR);
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
 * holds them while it single-steps; the breakpoint after that copy
 * (uprobe_mem_slot_trap()) lets them in, at the next instruction.  An
 * instruction that does not go on there (a return, an indirect jump) is
 * not held (arch_uprobe_mem_falls()).
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
 * Until a trap sets the thread's trap number, it says that the thread is
 * on its way to, or in, a slot (uprobe_mem_signal()).
 */
void uprobe_mem_slot_enter(struct pt_regs *regs, unsigned long slot)
{
	arch_uprobe_mem_set_trap_nr(UPROBE_MEM_TRAP_NR);
	instruction_pointer_set(regs, slot);
}

/**
 * uprobe_mem_slot_trap - the breakpoint after a slot's second copy?
 * @regs: a user breakpoint's registers, as its trap left them
 *
 * The instruction has run: the thread goes on at the next one, and the
 * signals uprobe_mem_signal() held are let in.  Asked for a user
 * breakpoint of a thread whose trap number says it is held.
 *
 * Context: the breakpoint exception, from user mode, interrupts on.
 * Return: true if the breakpoint was one of those.
 */
bool uprobe_mem_slot_trap(struct pt_regs *regs)
{
	struct slot_at at;

	if (arch_uprobe_mem_trap_nr() != UPROBE_MEM_HELD_NR ||
	    !slot_find(uprobe_get_swbp_addr(regs), &at) ||
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
