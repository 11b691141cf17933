// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Per-process uprobes, engine binding: a probepoint of one process made
 * into a consumer of the kernel's inode-based uprobes
 * (kernel/events/uprobes.c), whose filter admits that process alone.
 * What that engine cannot probe (anonymous and writable memory) goes to
 * the memory engine instead.
 */
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/fs.h>
#include <linux/file.h>
#include <linux/ptrace.h>
#include <linux/seq_file.h>
#include <linux/uprobes.h>

#include "uprobes_process.h"

/*
 * Only the point's process: the engine writes the breakpoint into that mm
 * alone (with the same copy-on-write as ptrace: other processes mapping
 * the file keep their page).
 */
static bool site_filter(struct uprobe_consumer *uc, struct mm_struct *mm)
{
	struct uprobe_point *pp = container_of(uc, struct uprobe_point, site.ino.uc);

	return mm == pp->proc->mm;
}

/*
 * The consumer's handler: hands the hit to uprobe_point_hit() when the
 * current mm is the target's and the trap is at the registered address.
 * It runs in the probed task, under rcu_read_lock_trace(), and may sleep.
 *
 * A fork child inherits the probed page.  Its first hit reaches us with
 * another mm: we answer UPROBE_HANDLER_REMOVE, the engine asks our
 * filter, which refuses that mm, and removes the breakpoint from the
 * child.  The child never reaches a handler; it takes one extra trap per
 * probepoint (utrace-based uprobes stripped the child at fork;
 * Documentation/trace/uprobes-process.rst says so).
 */
static int site_handler(struct uprobe_consumer *uc, struct pt_regs *regs)
{
	struct uprobe_point *pp = container_of(uc, struct uprobe_point, site.ino.uc);

	/* another process with the page: a fork child; strip it there */
	if (current->mm != pp->proc->mm)
		return UPROBE_HANDLER_REMOVE;
	/*
	 * The same file offset mapped at a second address of this process
	 * traps into the same inode probe: only our address is ours.  The
	 * engine has set ip back to the breakpoint's address.
	 */
	if (instruction_pointer(regs) == pp->vaddr)
		uprobe_point_hit(pp, regs);
	return 0;
}

static int read_byte(struct mm_struct *mm, unsigned long vaddr, u8 *b)
{
	return access_remote_vm(mm, vaddr, b, 1, FOLL_FORCE) == 1 ? 0 : -EFAULT;
}

/*
 * Looks up what @mm maps at pp->vaddr.  Read-only private file text is
 * the inode engine's: then pp->site.ino holds a reference to the file.
 * Anonymous and writable private memory is the memory engine's: 1, with
 * *@file (a reference, or NULL for anonymous memory) and *@offset set.
 * Shared and hugetlb executable mappings get -EOPNOTSUPP, since a
 * breakpoint there would change bytes another mapping or process reads.
 * The vma is looked up once, at registration; a later munmap is the
 * caller's job, as the API documents.
 */
static int site_resolve(struct uprobe_point *pp, struct mm_struct *mm,
			struct file **file, loff_t *offset)
{
	struct vm_area_struct *vma;
	int ret = 0;

	if (mmap_read_lock_killable(mm))
		return -EINTR;
	vma = vma_lookup(mm, pp->vaddr);
	if (!vma)
		ret = -EFAULT;
	else if (!(vma->vm_flags & VM_EXEC))
		ret = -EINVAL;
	else if (vma->vm_flags & (VM_MAYSHARE | VM_HUGETLB))
		ret = -EOPNOTSUPP;	/* other mappings may read the bytes */
	else if (!vma->vm_file || (vma->vm_flags & VM_WRITE))
		ret = 1;		/* anonymous or writable: not a file's text */
	if (ret >= 0 && vma->vm_file) {
		*file = get_file(vma->vm_file);
		*offset = ((loff_t)vma->vm_pgoff << PAGE_SHIFT) +
			  (pp->vaddr - vma->vm_start);
	}
	mmap_read_unlock(mm);
	return ret;
}

/**
 * uprobe_site_attach - place the breakpoint of a new probepoint
 * @pp: the point; pp->proc and pp->vaddr are set
 * @mm: the target address space, with a reference (mm_users) held
 *
 * For file text the kernel keeps one breakpoint engine: a probe is a
 * (file, offset) pair, and each consumer's filter says in which address
 * spaces the breakpoint goes.  uprobe_events, perf and BPF use it; a
 * second engine writing its own int3s there would fight it for them.  So
 * the point, (process, address), becomes:
 *
 *  1. the file and offset the process maps at that address
 *     (site_resolve(), which sends what the inode engine cannot probe to
 *     the memory engine before we ask it);
 *  2. a consumer whose filter admits only that process's mm
 *     (site_filter());
 *  3. a handler that hands the process's hits to uprobe_point_hit()
 *     (site_handler()).
 *
 * A breakpoint already in memory that no inode probe placed (a
 * debugger's, or one in the program itself) gets -EBUSY: the engine
 * would take it as its own and silently share it.
 *
 * Context: sleeps; under the layer's mutex.
 *
 * Return: 0 once the breakpoint is in @mm, or -errno and nothing changed.
 */
int uprobe_site_attach(struct uprobe_point *pp, struct mm_struct *mm)
{
	struct uprobe_inode_site *site = &pp->site.ino;
	struct file *file = NULL;
	struct inode *inode;
	loff_t offset = 0;
	u8 b;
	int ret;

	ret = site_resolve(pp, mm, &file, &offset);
	if (ret < 0)
		return ret;
	if (ret) {
		pp->site.mem = true;
		ret = uprobe_mem_attach(pp, mm, file, offset);
		if (ret) {
			pp->site.mem = false;
			if (file)
				fput(file);
		}
		return ret;
	}
	site->file = file;
	site->offset = offset;
	inode = file_inode(site->file);

	ret = read_byte(mm, pp->vaddr, &b);
	if (ret)
		goto out_put;
	/* a breakpoint no uprobe placed is someone else's: leave it alone */
	if (b == UPROBE_SWBP_INSN && !uprobe_inode_registered(inode, site->offset)) {
		ret = -EBUSY;
		goto out_put;
	}

	site->uc.handler = site_handler;
	site->uc.filter = site_filter;
	site->iu = uprobe_register(inode, site->offset, 0, &site->uc);
	if (IS_ERR(site->iu)) {
		ret = PTR_ERR(site->iu);
		/*
		 * The engine refuses an instruction it will not step with a
		 * kernel-internal code (linux/errno.h's block from EBADHANDLE
		 * up, "not supported" among them), never meant for a caller.
		 */
		if (ret <= -EBADHANDLE)
			ret = -EOPNOTSUPP;
		goto out_put;
	}

	/*
	 * The engine skips an address space that is going away; then the
	 * process is exiting and there is nothing to probe.
	 */
	if (read_byte(mm, pp->vaddr, &b) || b != UPROBE_SWBP_INSN) {
		uprobe_unregister_nosync(site->iu, &site->uc);
		uprobe_unregister_sync();
		ret = -ESRCH;
		goto out_put;
	}
	uprobe_mem_front_attach(pp, mm);
	return 0;

out_put:
	fput(site->file);
	site->file = NULL;
	return ret;
}

/**
 * uprobe_site_detach - remove the breakpoint of a probepoint
 * @pp: a point uprobe_site_attach() placed
 *
 * The engine may still be running its handler on another CPU; call
 * uprobe_site_sync() and then uprobe_site_release() before freeing @pp.
 *
 * Context: sleeps; under the layer's mutex.
 */
void uprobe_site_detach(struct uprobe_point *pp)
{
	if (pp->site.mem) {
		uprobe_mem_detach(pp);
		return;
	}
	uprobe_mem_front_detach(pp);	/* first: no hit passes us by */
	uprobe_unregister_nosync(pp->site.ino.iu, &pp->site.ino.uc);
}

/**
 * uprobe_site_sync - wait until no handler of a detached point runs
 *
 * The inode engine's handlers run under rcu_read_lock_trace(), which
 * uprobe_unregister_sync() waits for; the memory engine's under an SRCU
 * of its own, which uprobe_mem_sync() waits for.
 *
 * Context: sleeps; called outside the layer's mutex.
 */
void uprobe_site_sync(void)
{
	uprobe_unregister_sync();
	uprobe_mem_sync();
}

/**
 * uprobe_site_release - drop what a detached, synced point holds
 * @pp: the point
 */
void uprobe_site_release(struct uprobe_point *pp)
{
	if (pp->site.mem) {
		uprobe_mem_release(pp);
		return;
	}
	uprobe_mem_front_release(pp);
	if (pp->site.ino.file)
		fput(pp->site.ino.file);
	pp->site.ino.file = NULL;
}

/**
 * uprobe_site_show - print which engine holds a point, and where it is
 * @m: the seq_file
 * @pp: the point
 *
 * "inode  FILE+0xOFFSET" for the inode engine; the memory engine prints
 * "mem  FILE+0xOFFSET" or "mem  [anon]".
 */
void uprobe_site_show(struct seq_file *m, struct uprobe_point *pp)
{
	if (pp->site.mem) {
		uprobe_mem_show(m, pp);
		return;
	}
	seq_puts(m, "inode  ");
	seq_file_path(m, pp->site.ino.file, " \t\n\\");
	seq_printf(m, "+0x%llx", (unsigned long long)pp->site.ino.offset);
}

/**
 * uprobe_site_in_handler - is current running uprobe handlers?
 *
 * Both engines set utask->auprobe around the handlers they run.  An
 * operation the API says must wait until the probepoint's handlers have
 * run is asked from there.
 *
 * Return: true inside a handler.
 */
bool uprobe_site_in_handler(void)
{
	return current->utask && current->utask->auprobe;
}
