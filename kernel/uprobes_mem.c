// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Per-process uprobes, memory engine: breakpoints in executable memory
 * that the inode engine cannot patch, anonymous memory (JIT code) and
 * writable private mappings, of 64-bit x86 processes.
 *
 * The inode engine keys a probe by (inode, offset) and writes its int3
 * into every mm that maps the page; memory with no file, or whose bytes
 * the program itself may rewrite, has no such key.  Here a site is keyed
 * by (mm, address), and the int3 is written into that mm alone, with the
 * same FOLL_FORCE copy-on-write as ptrace: a page other processes share
 * after a fork is copied first.  Shared executable mappings never come
 * here (uprobes_inode.c refuses them): other mappings would read the int3.
 *
 * A hit.  The inode engine's handle_swbp() asks uprobe_mem_swbp() first.
 * The site is found in an RCU hash table (tasks trace RCU, the flavour
 * the handlers already run under), without mmap_lock.  After the
 * handlers, the instruction runs in one of two ways, neither of which
 * takes a second trap:
 *  - emulated, by the arch's uprobe emulation (relative jumps and calls,
 *    conditional jumps, nops, push of a register);
 *  - out of line in the site's slot, a copy of the instruction followed
 *    by an absolute jump back to the next one, in a page of the process
 *    that this engine maps ("[uprobes-mem]") near the probed code, so
 *    that a RIP-relative displacement can be rebased.  A slot is the
 *    instruction alone: any number of threads may be in it at once.
 *
 * Slots are never handed out again while the mm lives: a thread may be
 * preempted, stopped or in a signal handler between a slot's instruction
 * and its jump back, for as long as it likes.  A slot whose bytes would
 * be the same (the same instruction probed again at the same address) is
 * reused instead; a process has at most UPROBE_MEM_AREAS pages of them.
 *
 * Instructions refused (-EOPNOTSUPP): those the arch will not step;
 * those that behave differently at another address and are not emulated
 * (loop/jrcxz, xbegin, indirect calls, which push the slot's address);
 * system calls and software interrupts (a fork from the slot would leave
 * the child, which does not inherit the slot page, nowhere to return).
 *
 * JIT semantics.  The program owns its code:
 *  - it reads the int3 back at the probed address while the probe is
 *    registered, as under a debugger;
 *  - if it writes that byte, the probe stops firing and the new code runs
 *    as written; if it rewrites the rest of the instruction but not the
 *    byte, the next hit finds the bytes changed, puts the original first
 *    byte back and runs the code as it now is: the probe is lost (both
 *    are checked on every hit, so a stale copy never runs);
 *  - if it unmaps the memory (munmap, mremap, MADV_DONTNEED), the site is
 *    lost: its handlers never run again, and an int3 found there later is
 *    taken out only if the whole instruction is still the probed one
 *    (new code with an int3 of its own gets SIGTRAP, as unprobed); so is
 *    the int3 mremap() carried to another address (moved_int3());
 *  - unregistration puts the original byte back only where the int3 and
 *    the rest of the instruction are still there; otherwise it leaves the
 *    program's bytes alone.
 * A write racing with registration is the program's race, as with any
 * breakpoint a debugger sets.
 *
 * Fork: the child inherits the int3s (private memory is copied).  Before
 * it first returns to user space it puts back the original bytes of the
 * sites its parent had at fork time (uprobe_mem_dup_mmap() notes them,
 * a task work of the child strips them): the child is never probed.
 *
 * Locks: uprobe_mem_lock (a spinlock: the munmap and fork hooks run under
 * mmap_lock) guards the lists and the hash table's writers.  Attach and
 * detach are called under the layer's uprobes_mutex and sleep.  The hit
 * path takes no lock.  Handlers run under rcu_read_lock_trace(); the
 * layer's uprobe_site_sync() (synchronize_rcu_tasks_trace()) waits for
 * them before a detached site is released.
 */
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/sched/task_stack.h>
#include <linux/hashtable.h>
#include <linux/ptrace.h>
#include <linux/highmem.h>
#include <linux/file.h>
#include <linux/security.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/task_work.h>
#include <linux/uprobes.h>
#include <linux/unaligned.h>
#include <asm/insn.h>
#include <asm/mmu_context.h>

#include "uprobes_process.h"

#define UPROBE_MEM_SLOT_SIZE	32	/* an instruction and a jump back */
#define UPROBE_MEM_SLOTS	(PAGE_SIZE / UPROBE_MEM_SLOT_SIZE)
#define UPROBE_MEM_AREAS	16	/* slot pages per process, at most */
#define UPROBE_MEM_REACH	(SZ_1G)	/* slot to probed code, at most */

/* struct uprobe_mem_site.flags */
#define UPROBE_MEM_LOST		0	/* the program took the code back */
#define UPROBE_MEM_DEAD		1	/* its mm is gone */

/* What runs in place of a site's int3. */
struct uprobe_mem_insn {
	struct arch_uprobe arch;	/* the arch's decode and emulation */
	u8 insn[MAX_UINSN_BYTES];	/* the instruction as it was */
	u8 len;
	u8 disp_off;			/* of a RIP-relative displacement, or 0 */
	unsigned long slot;		/* its slot, or 0: emulated only */
};

/* One page of slots in a process: a special mapping of this engine. */
struct uprobe_mem_area {
	struct list_head node;		/* on uprobe_mem_areas */
	struct mm_struct *mm;
	unsigned long vaddr;
	struct page *page;
	unsigned int used;		/* slots handed out */
	struct {			/* whose each slot is, for signals */
		unsigned long vaddr;
		u8 len;
	} slot[UPROBE_MEM_SLOTS];
};

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

static DEFINE_SPINLOCK(uprobe_mem_lock);
static LIST_HEAD(uprobe_mem_sites);
static LIST_HEAD(uprobe_mem_areas);
static LIST_HEAD(uprobe_mem_strips);
static DEFINE_HASHTABLE(uprobe_mem_table, 8);
static int uprobe_mem_nr;		/* sites; the hooks' fast way out */

static u32 site_hash(struct mm_struct *mm, unsigned long vaddr)
{
	return hash_long((unsigned long)mm ^ vaddr, HASH_BITS(uprobe_mem_table));
}

static struct uprobe_mem_site *site_lookup(struct mm_struct *mm,
					   unsigned long vaddr)
{
	struct uprobe_mem_site *s;

	/* under the inode engine's RCU read side (tasks trace), unchecked */
	hash_for_each_possible_rcu_notrace(uprobe_mem_table, s, hnode,
					   site_hash(mm, vaddr)) {
		if (s->mm == mm && s->vaddr == vaddr &&
		    !test_bit(UPROBE_MEM_DEAD, &s->flags))
			return s;
	}
	return NULL;
}

/* ---- slots ---------------------------------------------------------- */

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
			list_del(&a->node);
			gone = a;
			break;
		}
	}
	list_for_each_entry(s, &uprobe_mem_sites, node) {
		if (gone && s->mm == gone->mm && s->mi->slot >= gone->vaddr &&
		    s->mi->slot < gone->vaddr + PAGE_SIZE)
			set_bit(UPROBE_MEM_LOST, &s->flags);
	}
	spin_unlock(&uprobe_mem_lock);
	if (gone) {
		put_page(gone->page);
		kfree(gone);
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
 * The slot's bytes for @mi, probed at @vaddr, placed at @slot: the
 * instruction (a RIP-relative displacement rebased to reach the same
 * target from there), then "jmp *0(%rip)" and the address of the next
 * instruction.  False if the displacement cannot reach from @slot.
 */
static bool slot_fill(struct uprobe_mem_insn *mi, unsigned long vaddr,
		      unsigned long slot, u8 *b)
{
	u64 next = vaddr + mi->len;

	memset(b, UPROBE_SWBP_INSN, UPROBE_MEM_SLOT_SIZE);
	memcpy(b, mi->insn, mi->len);
	if (mi->disp_off) {
		s64 disp = (s32)get_unaligned((u32 *)(b + mi->disp_off));

		disp += (s64)vaddr - (s64)slot;
		if (disp != (s32)disp)
			return false;
		put_unaligned((u32)disp, (u32 *)(b + mi->disp_off));
	}
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
static unsigned long slot_get(struct mm_struct *mm, struct uprobe_mem_insn *mi,
			      unsigned long vaddr)
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
		list_add(&na->node, &uprobe_mem_areas);
		spin_unlock(&uprobe_mem_lock);
		vma = _install_special_mapping(mm, addr, PAGE_SIZE,
					       VM_READ | VM_EXEC | VM_MAYREAD |
					       VM_MAYEXEC | VM_DONTCOPY | VM_IO,
					       &uprobe_mem_mapping);
		if (IS_ERR(vma)) {
			spin_lock(&uprobe_mem_lock);
			list_del(&na->node);
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
		found->slot[found->used].vaddr = vaddr;
		found->slot[found->used].len = mi->len;
		found->used++;
		slot = at;
	}
out:
	mmap_write_unlock(mm);
	if (na) {
		if (na->page)
			__free_page(na->page);
		kfree(na);
	}
	return slot;
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

/* emulated by the arch: relative jumps, calls, jccs (and nops) */
static bool insn_is_branch(struct insn *insn)
{
	u8 op1 = insn->opcode.bytes[0], op2 = insn->opcode.bytes[1];

	return op1 == 0xe8 || op1 == 0xe9 || op1 == 0xeb ||
	       (op1 >= 0x70 && op1 <= 0x7f) ||
	       (op1 == 0x0f && op2 >= 0x80 && op2 <= 0x8f);
}

static int insn_prepare(struct uprobe_mem_insn *mi, struct mm_struct *mm,
			unsigned long vaddr)
{
	struct insn insn;
	int n, ret;

	n = access_remote_vm(mm, vaddr, mi->insn, sizeof(mi->insn), FOLL_FORCE);
	if (n <= 0)
		return -EFAULT;
	if (mi->insn[0] == UPROBE_SWBP_INSN)
		return -EBUSY;		/* a breakpoint we did not place */
	if (insn_decode(&insn, mi->insn, n, INSN_MODE_64) < 0)
		return n < sizeof(mi->insn) ? -EFAULT : -EOPNOTSUPP;
	mi->len = insn.length;
	if (insn_needs_home(&insn))
		return -EOPNOTSUPP;
	memcpy(mi->arch.insn, mi->insn, sizeof(mi->insn));
	ret = arch_uprobe_analyze_insn(&mi->arch, mm, vaddr);
	if (ret)
		return ret <= -EBADHANDLE ? -EOPNOTSUPP : ret;
	if (insn_is_branch(&insn))
		return 0;		/* emulated, no slot */
	if (insn_rip_relative(&insn))
		mi->disp_off = insn_offset_displacement(&insn);
	mi->slot = slot_get(mm, mi, vaddr);
	return mi->slot ? 0 : -ENOMEM;
}

/* ---- the engine binding's calls ----------------------------------- */

/*
 * Writes one byte of @mm's code, with ptrace's copy-on-write, and only
 * where the mapping is private: the mapping checked at registration may
 * have been replaced since, and an int3 in a shared one would reach the
 * file and every other process mapping it.
 */
static int write_byte(struct mm_struct *mm, unsigned long vaddr, u8 b)
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
		*(u8 *)(kaddr + offset_in_page(vaddr)) = b;
		kunmap_local(kaddr);
		set_page_dirty_lock(page);
		put_page(page);
		ret = 0;
	}
	mmap_read_unlock(mm);
	return ret;
}

/*
 * Is the int3 at @vaddr still the one a site put there?  Its first byte
 * is; the rest must be the instruction too where @whole (a lost site,
 * whose address new code may reuse).
 */
static bool int3_is_ours(struct mm_struct *mm, unsigned long vaddr,
			 const u8 *insn, int len, bool whole)
{
	u8 cur[MAX_UINSN_BYTES];
	int n = whole ? len : 1;	/* the rest may be on a page gone */

	if (access_remote_vm(mm, vaddr, cur, n, FOLL_FORCE) != n ||
	    cur[0] != UPROBE_SWBP_INSN)
		return false;
	return !whole || !memcmp(cur + 1, insn + 1, len - 1);
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
 * there; -EFAULT, -ENOMEM; on error nothing is changed (a slot made for
 * the instruction stays for a later try).
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

	s->mm = mm;
	s->vaddr = pp->vaddr;
	s->mi = mi;
	s->flags = 0;
	s->file = file;
	s->offset = offset;
	/* hashed (and seen by a fork) before the int3 can be hit */
	spin_lock(&uprobe_mem_lock);
	list_add_tail(&s->node, &uprobe_mem_sites);
	hash_add_rcu(uprobe_mem_table, &s->hnode, site_hash(mm, s->vaddr));
	WRITE_ONCE(uprobe_mem_nr, uprobe_mem_nr + 1);
	spin_unlock(&uprobe_mem_lock);
	/*
	 * The inode engine recalculates (and may clear) the flag under
	 * mmap_lock; set with it held for writing, after the site is
	 * listed, the flag stays (uprobe_mem_has_sites()).
	 */
	mmap_write_lock(mm);
	set_bit(MMF_HAS_UPROBES, &mm->flags);
	mmap_write_unlock(mm);

	ret = write_byte(mm, s->vaddr, UPROBE_SWBP_INSN);
	if (!ret)
		return 0;
	spin_lock(&uprobe_mem_lock);
	hash_del_rcu(&s->hnode);
	list_del(&s->node);
	WRITE_ONCE(uprobe_mem_nr, uprobe_mem_nr - 1);
	spin_unlock(&uprobe_mem_lock);
	uprobe_unregister_sync();	/* a lookup of a foreign int3 there */
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
			write_byte(s->mm, s->vaddr, mi->insn[0]);
		mmput(s->mm);
	}
	/* after the byte: a trap that finds no site sees it back */
	spin_lock(&uprobe_mem_lock);
	hash_del_rcu(&s->hnode);
	list_del(&s->node);
	WRITE_ONCE(uprobe_mem_nr, uprobe_mem_nr - 1);
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
 * code runs as it is now, unprobed from then on.
 */
static int site_lose(struct uprobe_mem_site *s)
{
	set_bit(UPROBE_MEM_LOST, &s->flags);
	return write_byte(current->mm, s->vaddr, s->mi->insn[0]);
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
	if (!found || write_byte(current->mm, bp_vaddr, found->mi->insn[0]))
		return false;
	instruction_pointer_set(regs, bp_vaddr);
	return true;
}

/**
 * uprobe_mem_swbp - a breakpoint hit, if it is one of this engine's
 * @regs: the user registers
 * @bp_vaddr: the breakpoint's address
 *
 * Called from handle_swbp() in the task that hit it, under its
 * rcu_read_lock_trace(), before the inode engine's lookup.  Runs the
 * point's handlers, then the instruction (emulated, or from its slot; an
 * instruction changed under the int3 is run again as it is now).
 *
 * Return: true if the hit was this engine's.
 */
bool uprobe_mem_swbp(struct pt_regs *regs, unsigned long bp_vaddr)
{
	struct uprobe_mem_insn *mi;
	struct uprobe_mem_site *s;
	struct uprobe_task *utask;
	u8 tail[MAX_UINSN_BYTES];
	bool same;

	if (!READ_ONCE(uprobe_mem_nr))
		return false;
	s = site_lookup(current->mm, bp_vaddr);
	if (!s)
		return moved_int3(regs, bp_vaddr);
	mi = s->mi;
	same = mi->len == 1 ||
	       (!copy_from_user(tail, (void __user *)bp_vaddr + 1, mi->len - 1) &&
		!memcmp(tail, mi->insn + 1, mi->len - 1));
	if (test_bit(UPROBE_MEM_LOST, &s->flags) && !same) {
		/* new code at a lost site's address: its int3 is not ours */
		return false;
	}
	if (test_bit(UPROBE_MEM_LOST, &s->flags) || !same ||
	    !user_64bit_mode(regs)) {
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
	uprobe_point_hit(container_of(s, struct uprobe_point, site.m), regs);
	utask->auprobe = NULL;

	/* a handler that moved ip took the instruction's place */
	if (instruction_pointer(regs) != bp_vaddr ||
	    arch_uprobe_skip_sstep(&mi->arch, regs))
		goto out;
	if (mi->slot) {
		instruction_pointer_set(regs, mi->slot);
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
 * uprobe_mem_signal - a signal for current: no ip in a slot shows
 *
 * Called by get_signal() before it delivers, stops for ptrace or dumps
 * core.  A thread in a slot (its instruction faulted, or a signal came
 * before or after it ran) is put where it would be without the probe:
 * at the probed instruction if that has not completed (it runs, and is
 * probed, again when the handler returns, as after a fault under the
 * inode engine), at the next one if it has.
 */
void uprobe_mem_signal(void)
{
	struct pt_regs *regs = current_pt_regs();
	unsigned long ip = instruction_pointer(regs), i, off;
	struct uprobe_mem_area *a;

	if (list_empty(&uprobe_mem_areas) || !user_mode(regs))
		return;
	spin_lock(&uprobe_mem_lock);
	list_for_each_entry(a, &uprobe_mem_areas, node) {
		if (a->mm != current->mm || ip < a->vaddr ||
		    ip >= a->vaddr + PAGE_SIZE)
			continue;
		i = (ip - a->vaddr) / UPROBE_MEM_SLOT_SIZE;
		off = (ip - a->vaddr) % UPROBE_MEM_SLOT_SIZE;
		if (i < a->used)
			instruction_pointer_set(regs, a->slot[i].vaddr +
						(off < a->slot[i].len ? 0 : a->slot[i].len));
		break;
	}
	spin_unlock(&uprobe_mem_lock);
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
			set_bit(UPROBE_MEM_LOST, &s->flags);
	}
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
			write_byte(current->mm, st->e[i].vaddr, st->e[i].insn[0]);
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
	struct uprobe_mem_area *a, *na;
	struct uprobe_mem_site *s;
	struct uprobe_mem_strip *st;
	LIST_HEAD(gone);

	spin_lock(&uprobe_mem_lock);
	list_for_each_entry(s, &uprobe_mem_sites, node) {
		if (s->mm == mm)
			set_bit(UPROBE_MEM_DEAD, &s->flags);
	}
	list_for_each_entry_safe(a, na, &uprobe_mem_areas, node) {
		if (a->mm == mm)
			list_move(&a->node, &gone);
	}
	spin_unlock(&uprobe_mem_lock);
	list_for_each_entry_safe(a, na, &gone, node) {
		put_page(a->page);	/* the ptes hold theirs until exit_mmap() */
		kfree(a);
	}
	st = strip_take(mm);
	kfree(st);
}
