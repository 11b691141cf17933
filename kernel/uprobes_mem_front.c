// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Per-process uprobes, memory engine: fronts.  A point on read-only file
 * text stays the inode engine's: its breakpoint is shared with
 * uprobe_events, perf and BPF, whose probes on the same instruction must
 * go on seeing every hit, and whose removal must not take ours out (or
 * ours theirs).  But that engine takes a hit in two passes: the die
 * notifiers mark the task, and on its way back to user space the engine
 * looks the breakpoint up under mmap_lock, runs its consumers, and then
 * single-steps the instruction out of line, a second trap.  A front is a
 * site of the memory engine in front of such a point, which takes its
 * hits in one pass where it can (uprobe_mem_front_takes()).
 *
 * Locks: fronts are added and removed under the layer's mutex, their
 * list and the hit table under uprobe_mem_lock; a hit finds one under
 * uprobe_mem_srcu, which uprobe_site_sync() waits for before
 * uprobe_mem_front_release().
 */
#include <linux/fs.h>
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/mmu_context.h>
#include <linux/ptrace.h>
#include <linux/pagemap.h>
#include <linux/shmem_fs.h>
#include <linux/slab.h>
#include <linux/uprobes_mem.h>

#include "uprobes_process.h"
#include "uprobes_mem.h"

/* the fronts, under uprobe_mem_lock; the munmap hook loses them */
static LIST_HEAD(uprobe_mem_fronts);

/*
 * Up to @n bytes of @file at @pos, read from the page cache as the inode
 * engine reads its copy (no read permission hook, no fsnotify event, no
 * fanotify daemon to wait for under the layer's mutex); fewer at the end
 * of the file.  Returns how many, or -errno.
 */
static int front_read(struct file *file, loff_t pos, u8 *buf, int n)
{
	struct address_space *mapping = file->f_mapping;
	struct folio *folio;
	int done = 0, c;

	n = min_t(loff_t, n, i_size_read(file_inode(file)) - pos);
	while (done < n) {
		/* shmem's (memfd) has no ->read_folio */
		folio = shmem_mapping(mapping) ?
			shmem_read_folio(mapping, (pos + done) >> PAGE_SHIFT) :
			read_mapping_folio(mapping, (pos + done) >> PAGE_SHIFT, file);
		if (IS_ERR(folio))
			return PTR_ERR(folio);
		c = min_t(size_t, n - done,
			  folio_size(folio) - offset_in_folio(folio, pos + done));
		memcpy_from_folio(buf + done, folio,
				  offset_in_folio(folio, pos + done), c);
		folio_put(folio);
		done += c;
	}
	return done;
}

/**
 * uprobe_mem_front_attach - take an inode point's hits where it can
 * @pp: a point the inode engine has just placed in @mm
 * @mm: its address space, with a reference (mm_users) held
 *
 * The front is in the same hit table as the engine's own sites, keyed by
 * (mm, address), with the instruction read from the file and made ready
 * as for them (emulated, or run from a slot and jumped back from).  It
 * writes no byte: the breakpoint is the inode engine's, placed for our
 * consumer.  A fork child has no front (the hit table is keyed by mm):
 * the inode engine strips it.
 *
 * Optional: a point with no front (a process the arch cannot probe,
 * arch_uprobe_mem_mm_ok(); an instruction this engine cannot run; no
 * memory) keeps every hit on the inode engine's way, as before.
 */
void uprobe_mem_front_attach(struct uprobe_point *pp, struct mm_struct *mm)
{
	struct uprobe_inode_site *ino = &pp->site.ino;
	struct uprobe_mem_site *s;
	int n;

	ino->front = NULL;
	if (!arch_uprobe_mem_mm_ok(mm))
		return;
	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return;
	s->mi = kzalloc(sizeof(*s->mi), GFP_KERNEL);
	if (!s->mi)
		goto out_free;
	/* the file's bytes: memory holds the breakpoint already */
	n = front_read(ino->file, ino->offset, s->mi->insn, sizeof(s->mi->insn));
	if (n <= 0 || uprobe_mem_is_bp(s->mi->insn) ||
	    uprobe_mem_insn_analyze(s->mi, mm, pp->vaddr, n))
		goto out_free;
	s->pp = pp;
	s->mm = mm;
	s->vaddr = pp->vaddr;
	s->flags = BIT(UPROBE_MEM_FRONT);
	spin_lock(&uprobe_mem_lock);
	uprobe_mem_site_list(s, &uprobe_mem_fronts);
	spin_unlock(&uprobe_mem_lock);
	ino->front = s;
	return;

out_free:
	kfree(s->mi);
	kfree(s);
}

/**
 * uprobe_mem_front_detach - the inode engine takes every hit again
 * @pp: an inode point, before its consumer is unregistered
 *
 * A hit that found the front may still be running; uprobe_site_sync()
 * waits for it.  It reads our consumer's list node, never the inode
 * probe, which may go with our consumer meanwhile.
 */
void uprobe_mem_front_detach(struct uprobe_point *pp)
{
	struct uprobe_mem_site *s = pp->site.ino.front;

	if (!s)
		return;
	spin_lock(&uprobe_mem_lock);
	uprobe_mem_site_unlist(s);
	spin_unlock(&uprobe_mem_lock);
}

/**
 * uprobe_mem_front_release - free a detached, synced front
 * @pp: its point
 */
void uprobe_mem_front_release(struct uprobe_point *pp)
{
	struct uprobe_mem_site *s = pp->site.ino.front;

	if (!s)
		return;
	kfree(s->mi);
	kfree(s);
	pp->site.ino.front = NULL;
}

/**
 * uprobe_mem_front_takes - is a hit at front @s this engine's to take?
 * @s: the front the hit found
 * @regs: the hit's registers
 * @same: whether the instruction behind the breakpoint is the one @s read
 *
 * 1. The breakpoint exception finds the front first (uprobe_mem_int3()).
 * 2. While our consumer is the inode probe's only one, and the
 *    instruction behind the breakpoint is the file's, the hit is taken
 *    there in one pass, as for the engine's own sites.
 * 3. Otherwise (another consumer came: a uprobe_events, perf or BPF
 *    probe, a uretprobe; the bytes there are not what the front read;
 *    the front is gone) the exception goes on to the die notifiers, and
 *    the inode engine runs all its consumers, ours among them.
 *
 * Either way our handlers run once per hit, by one engine or the other,
 * and the other consumers see every hit they would have seen: one that
 * registers while a hit is being taken here may miss that hit, as if it
 * had come just before it registered.  A hit reads only our consumer's
 * list node (uprobe_sole_consumer()), never the inode probe, which may go
 * with our consumer while the hit runs.
 *
 * Context: the hit, under uprobe_mem_srcu.
 * Return: true if our consumer is the inode probe's only one and @s can
 * run the instruction; false leaves the hit to the inode engine.
 */
bool uprobe_mem_front_takes(struct uprobe_mem_site *s, struct pt_regs *regs,
			    bool same)
{
	struct uprobe_inode_site *ino = &s->pp->site.ino;

	return same && !test_bit(UPROBE_MEM_FRONT_GONE, &s->flags) &&
	       arch_uprobe_mem_regs_ok(regs) &&
	       uprobe_sole_consumer(ino->iu, &ino->uc);
}

/**
 * uprobe_mem_fronts_lost - @mm's memory in [@start, @end) goes away
 * @mm: the address space
 * @start: ...
 * @end: ...
 * @slots: the fronts whose slots were there (a page of slots), rather
 *	than those probing there
 *
 * A front is gone (UPROBE_MEM_FRONT_GONE) when its memory is unmapped, since
 * the address may then hold other text, whose breakpoint would not be
 * our probe's, or its slot's page is.
 *
 * Context: from uprobe_mem_munmap() and the slot pages' close, under
 * uprobe_mem_lock.
 */
void uprobe_mem_fronts_lost(struct mm_struct *mm, unsigned long start,
			    unsigned long end, bool slots)
{
	struct uprobe_mem_site *s;
	unsigned long at;

	/* not the engine's lost sites: no breakpoint of ours to look for */
	lockdep_assert_held(&uprobe_mem_lock);
	list_for_each_entry(s, &uprobe_mem_fronts, node) {
		at = slots ? s->mi->slot : s->vaddr;
		if (s->mm == mm && at >= start && at < end)
			set_bit(UPROBE_MEM_FRONT_GONE, &s->flags);
	}
}
