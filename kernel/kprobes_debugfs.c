// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Kprobes' debugfs files, /sys/kernel/debug/kprobes/: list (one line per
 * probe, then the lines other kinds of probe add through
 * kprobe_list_add_source()), enabled (arm or disarm every probe at once)
 * and blacklist (the ranges no probe may enter; perf reads it).  Readers
 * take kprobe_mutex: the files are slow paths and see a consistent set of
 * sites.
 */
#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/kprobes.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/kallsyms.h>
#include <linux/module.h>
#include <linux/uaccess.h>

#include "kprobes_internal.h"

#ifdef CONFIG_DEBUG_FS

/* the type letter of a probe: 'r' a kretprobe's, 'j' a jprobe's, 'k' */
static char kprobe_type_char(struct kprobe *p)
{
	if (kprobe_is_kretprobe(p))
		return 'r';
	return kprobe_is_jprobe(p) ? 'j' : 'k';
}

static void report_probe(struct seq_file *m, struct kprobe *p)
{
	char namebuf[KSYM_NAME_LEN];
	unsigned long offset = 0;
	unsigned long addr = kprobe_shown_addr(m, p->addr);
	const char *sym = NULL;
	char *modname = NULL;

	if (!kprobe_gone(p))
		sym = kallsyms_lookup((unsigned long)p->addr, NULL, &offset,
				      &modname, namebuf);
	if (sym)
		seq_printf(m, "%0*lx  %c  %s+0x%lx  %s ", KPROBE_ADDR_WIDTH, addr,
			   kprobe_type_char(p), sym, offset, modname ? modname : " ");
	else
		seq_printf(m, "%0*lx  %c  %0*lx ", KPROBE_ADDR_WIDTH, addr,
			   kprobe_type_char(p), KPROBE_ADDR_WIDTH, addr);
	seq_printf(m, "%s%s%s%s%s\n",
		   kprobe_gone(p) ? "[GONE]" : "",
		   (p->flags & KPROBE_FLAG_DISABLED) ? "[DISABLED]" : "",
		   kprobe_optimized(p) ? "[OPTIMIZED]" : "",
		   p->site && kprobe_site_carrier(p->site) ? "[CARRIED]" : "",
		   kprobe_ftrace(p) ? "[FTRACE]" : "");
}

/*
 * kprobes/list, one line per probe, in the order of the sites' creation:
 * "ADDR  TYPE  SYM+OFF  [MOD] [GONE][DISABLED][OPTIMIZED][CARRIED][FTRACE]".
 * TYPE is k, r (a kretprobe's entry probe) or j (a jprobe).  A gone probe
 * shows its old address and no symbol.  [OPTIMIZED]: the jump is in place;
 * [CARRIED]: an entry probe armed by an int3 (or jump) on the instruction
 * after the fentry nop instead of an ftrace hook.  The sources of other
 * kinds of probe follow (wprobes: type w).
 */
static int list_show(struct seq_file *m, void *v)
{
	struct kprobe_site *s;
	struct kprobe *p;

	scoped_guard(mutex, &kprobe_mutex) {
		list_for_each_entry(s, &kprobe_sites, all)
			list_for_each_entry(p, &s->probes, list)
				report_probe(m, p);
	}
	/* then the other kinds of probe, each under its own lock */
	kprobe_list_show_sources(m);
	return 0;
}

/*
 * The optimizer works a moment after a probe is armed, so that a batch of
 * registrations shares one grace period.  A reader wants the state those
 * probes settle in, not a snapshot taken in between: let the queued work
 * finish first (one grace period; nothing when none is queued; never more
 * than a few seconds, see kprobe_opt_settle()).
 */
static int list_open(struct inode *inode, struct file *file)
{
	kprobe_opt_settle();
	return single_open(file, list_show, inode->i_private);
}

static const struct file_operations list_fops = {
	.owner		= THIS_MODULE,
	.open		= list_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= single_release,
};

static int blacklist_show(struct seq_file *m, void *v)
{
	struct kprobe_blacklist_entry *ent;

	guard(mutex)(&kprobe_mutex);
	list_for_each_entry(ent, &kprobe_blacklist, list)
		seq_printf(m, "0x%0*lx-0x%0*lx\t%ps\n", KPROBE_ADDR_WIDTH,
			   kprobe_shown_addr(m, (void *)ent->start_addr),
			   KPROBE_ADDR_WIDTH,
			   kprobe_shown_addr(m, (void *)ent->end_addr),
			   (void *)ent->start_addr);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(blacklist);

static ssize_t enabled_read(struct file *file, char __user *buf, size_t count,
			    loff_t *ppos)
{
	char out[2] = { READ_ONCE(kprobes_all_disarmed) ? '0' : '1', '\n' };

	return simple_read_from_buffer(buf, count, ppos, out, sizeof(out));
}

/*
 * kprobes/enabled: 0 disarms every site (each probe keeps its own
 * disabled state), 1 re-arms those that want to be.
 */
static void kprobes_set_all_armed(bool arm)
{
	struct kprobe_batch b;
	struct kprobe_site *s;

	kprobe_batch_init(&b);
	mutex_lock(&kprobe_mutex);
	if (kprobes_all_disarmed == !arm)
		goto out;
	kprobes_all_disarmed = !arm;
	list_for_each_entry(s, &kprobe_sites, all)
		kprobe_site_sync(s, &b);
	/* 6.12's words */
	pr_info("Kprobes globally %s\n", arm ? "enabled" : "disabled");
	kprobe_batch_ftrace(&b);
out:
	mutex_unlock(&kprobe_mutex);
	kprobe_batch_commit(&b);
}

static ssize_t enabled_write(struct file *file, const char __user *buf,
			     size_t count, loff_t *ppos)
{
	bool arm;
	int ret;

	ret = kstrtobool_from_user(buf, count, &arm);
	if (ret)
		return ret;
	kprobes_set_all_armed(arm);
	return count;
}

static const struct file_operations enabled_fops = {
	.read = enabled_read,
	.write = enabled_write,
	.llseek = default_llseek,
};

static int __init kprobes_debugfs_init(void)
{
	struct dentry *dir = debugfs_create_dir("kprobes", NULL);

	debugfs_create_file("list", 0400, dir, NULL, &list_fops);
	debugfs_create_file("enabled", 0600, dir, NULL, &enabled_fops);
	debugfs_create_file("blacklist", 0400, dir, NULL, &blacklist_fops);
	return 0;
}
late_initcall(kprobes_debugfs_init);

#endif /* CONFIG_DEBUG_FS */
