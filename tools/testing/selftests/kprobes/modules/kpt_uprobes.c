// SPDX-License-Identifier: GPL-2.0
/*
 * kpt_uprobes: drives register_uprobe()/unregister_uprobe() for the
 * uprobes suite (uprobes.sh) through /sys/kernel/debug/kpt_uprobes/ctl:
 * eight probe slots whose handlers count, record, sleep, change
 * registers, or (un)register probes from the handler.
 */
#include <linux/module.h>
#include <linux/debugfs.h>
#include <linux/uaccess.h>
#include <linux/uprobes.h>
#include <linux/uprobes_process.h>
#include <linux/kprobes.h>
#include <linux/ptrace.h>
#include <linux/delay.h>
#include <linux/seq_file.h>

#define NSLOTS	8
#define NSEQ	32

enum mode { M_COUNT, M_SLEEP, M_SETDI, M_SETIP, M_SELFUNREG, M_REGOTHER,
	    M_UNREGOTHER, M_KPROBE, M_NONE, M_FAST };
static const char * const mode_names[] = {
	"count", "sleep", "setdi", "setip", "selfunreg", "regother",
	"unregother", "kprobe", "none", "fast",
};

struct slot {
	struct process_uprobe u;
	int id, mode;
	unsigned long arg, arg2;
	atomic_t hits;
	unsigned long fast_hits;
	unsigned long last_ip, last_di;
	int ret, hret;
	atomic_t cb_reg, cb_unreg;
	int cb_result;
	bool kp_on;
	int kp_ret;
	long churn_ok, churn_fail;
};

static struct slot slots[NSLOTS];

/* uretprobe slots: register_uretprobe() on a function's first instruction */
#define NRSLOTS	4
enum rmode { R_COUNT, R_SELFUNREG, R_NONE, R_SLEEP, R_FAST };
static const char * const rmode_names[] = {
	"count", "selfunreg", "none", "sleep", "fast",
};

struct rslot {
	struct uretprobe rp;
	int mode;
	atomic_t hits;
	unsigned long fast_hits;	/* R_FAST: one thread, plain count */
	unsigned long last_ax, last_ra, last_ip;
	long ip_bad;		/* handler runs with ip != ri->ret_addr */
	int ret;
	atomic_t cb_reg, cb_unreg;
	int cb_result;
};

static struct rslot rslots[NRSLOTS];
static DEFINE_MUTEX(ctl_mutex);
static atomic_t seq_n;
static int seq[NSEQ];

static struct dentry *dir;
static atomic_t kp_hits;

static noinline void kpt_uprobes_ktarget(void)
{
	asm volatile("");
}

static int kp_pre(struct kprobe *p, struct pt_regs *regs)
{
	atomic_inc(&kp_hits);
	return 0;
}

static struct kprobe kp = {
	.symbol_name = "kpt_uprobes_ktarget",
	.pre_handler = kp_pre,
};

static void handler(struct process_uprobe *u, struct pt_regs *regs)
{
	struct slot *s = container_of(u, struct slot, u);
	int n = atomic_inc_return(&s->hits);
	int i = atomic_inc_return(&seq_n) - 1;

	if (i < NSEQ)
		seq[i] = s->id;
	s->last_ip = regs->ip;
	s->last_di = regs->di;

	switch (s->mode) {
	case M_SLEEP:
		usleep_range(500, 1000);
		break;
	case M_SETDI:
		regs->di = s->arg;
		break;
	case M_SETIP:
		regs->ip = s->arg;
		regs->ax = s->arg2;
		break;
	case M_SELFUNREG:
		if (n == 1)
			unregister_uprobe(u);
		break;
	case M_REGOTHER:
		if (n == 1 && s->arg < NSLOTS)
			s->hret = register_uprobe(&slots[s->arg].u);
		break;
	case M_UNREGOTHER:
		if (n == 1 && s->arg < NSLOTS)
			unregister_uprobe(&slots[s->arg].u);
		break;
	case M_KPROBE:
		if (n == 1) {
			kp.addr = NULL;
			kp.flags = 0;
			s->kp_ret = register_kprobe(&kp);
			s->kp_on = !s->kp_ret;
			kpt_uprobes_ktarget();
		}
		break;
	}
}

static void rhandler(struct uretprobe_instance *ri, struct pt_regs *regs)
{
	struct rslot *r = container_of(ri->rp, struct rslot, rp);
	int n;

	if (r->mode == R_FAST) {	/* the benchmark's: as kpt_uconsumer's */
		r->fast_hits++;
		return;
	}
	n = atomic_inc_return(&r->hits);

	r->last_ax = regs->ax;
	r->last_ra = ri->ret_addr;
	r->last_ip = regs->ip;
	if (regs->ip != ri->ret_addr)
		r->ip_bad++;
	if (r->mode == R_SELFUNREG && n == 1)
		unregister_uretprobe(ri->rp);
	else if (r->mode == R_SLEEP)
		usleep_range(200, 400);
}

static void rcallback(struct process_uprobe *u, int reg, int result)
{
	struct rslot *r = container_of(u, struct rslot, rp.up);

	atomic_inc(reg ? &r->cb_reg : &r->cb_unreg);
	r->cb_result = result;
}

/*
 * "rset ID PID VADDR MODE [MAXACTIVE]": a fresh uretprobe on the function
 * at VADDR; modes: count (record ax, the return address and ip), sleep,
 * selfunreg (unregister_uretprobe() from its first return), none (no
 * handler: register_uretprobe() must refuse), fast (count only, one
 * thread: the benchmark's).
 */
static int cmd_rset(struct rslot *r, char *mode, long pid, unsigned long vaddr,
		    long maxactive)
{
	int m = match_string(rmode_names, ARRAY_SIZE(rmode_names), mode);

	if (m < 0)
		return -EINVAL;
	if (READ_ONCE(r->rp.pool))
		return -EBUSY;	/* registered: "runreg" it first */
	memset(&r->rp, 0, sizeof(r->rp));
	r->rp.up.pid = pid;
	r->rp.up.vaddr = vaddr;
	r->rp.up.registration_callback = rcallback;
	r->rp.handler = m == R_NONE ? NULL : rhandler;
	r->rp.maxactive = maxactive;
	r->mode = m;
	atomic_set(&r->hits, 0);
	r->fast_hits = 0;
	atomic_set(&r->cb_reg, 0);
	atomic_set(&r->cb_unreg, 0);
	r->last_ax = 0;
	r->last_ra = 0;
	r->last_ip = 0;
	r->ip_bad = 0;
	r->ret = 0;
	r->cb_result = 0;
	return 0;
}

static void fast_handler(struct process_uprobe *u, struct pt_regs *regs)
{
	container_of(u, struct slot, u)->fast_hits++;
}

static void reg_callback(struct process_uprobe *u, int reg, int result)
{
	struct slot *s = container_of(u, struct slot, u);

	if (reg)
		atomic_inc(&s->cb_reg);
	else
		atomic_inc(&s->cb_unreg);
	s->cb_result = result;
}

static void reset(struct slot *s)
{
	atomic_set(&s->hits, 0);
	s->fast_hits = 0;
	atomic_set(&s->cb_reg, 0);
	atomic_set(&s->cb_unreg, 0);
	atomic_set(&kp_hits, 0);
	s->last_ip = 0;
	s->last_di = 0;
	s->ret = 0;
	s->hret = 0;
	s->cb_result = 0;
	s->kp_ret = 0;
	s->churn_ok = 0;
	s->churn_fail = 0;
}

/*
 * "set": configure slot @s, not registered.  Modes (what the handler
 * does, besides counting and recording ip, di and the slot number in the
 * order record):
 *   count          nothing more
 *   fast           count only, non-atomically, nothing recorded: the
 *                  benchmark's handler (one thread), the same work as
 *                  its uprobe_consumer reference (bench/kpt_uconsumer.c)
 *   sleep          usleep_range(): handlers may block
 *   setdi V        regs->di = V
 *   setip A V      regs->ip = A, regs->ax = V: the instruction is skipped
 *   selfunreg      on its first hit, unregister_uprobe() itself
 *   regother J     on its first hit, register_uprobe() slot J
 *   unregother J   on its first hit, unregister_uprobe() slot J
 *   kprobe         on its first hit, register_kprobe() on a function of
 *                  this module and call it; unregistered by "unreg"
 *   none           no handler at all (register_uprobe must refuse)
 */
static int cmd_set(struct slot *s, char *mode, long pid, unsigned long vaddr,
		   unsigned long arg, unsigned long arg2)
{
	int m;

	m = match_string(mode_names, ARRAY_SIZE(mode_names), mode);
	if (m < 0)
		return -EINVAL;
	/* a fresh, zeroed probe object each time, as the API asks */
	memset(&s->u, 0, sizeof(s->u));
	s->u.pid = pid;
	s->u.vaddr = vaddr;
	s->u.handler = m == M_NONE ? NULL : m == M_FAST ? fast_handler : handler;
	s->u.registration_callback = reg_callback;
	s->mode = m;
	s->arg = arg;
	s->arg2 = arg2;
	reset(s);
	return 0;
}

static void churn(struct slot *s, long n, long ms)
{
	while (n-- > 0) {
		if (register_uprobe(&s->u)) {
			s->churn_fail++;
		} else {
			s->churn_ok++;
			/*
			 * a window the target's threads can hit (TCG runs
			 * one vCPU at a time, for a slice)
			 */
			if (ms > 0)
				msleep(ms);
			unregister_uprobe(&s->u);
		}
		cond_resched();
	}
}

/*
 * Commands, one per write:
 *   set ID PID VADDR MODE [ARG [ARG2]]   configure a slot (cmd_set())
 *   reg ID / unreg ID                    register_uprobe / unregister_uprobe
 *   reset ID                             zero its counters
 *   churn ID N [MS]                      N x (register, unregister), each
 *                                        held MS milliseconds (default 0)
 *   seq                                  clear the order record
 *   rset ID PID VADDR MODE [MAXACTIVE]   configure a uretprobe slot
 *   rreg ID / runreg ID                  register_ / unregister_uretprobe
 */
static ssize_t ctl_write(struct file *f, const char __user *ubuf,
			 size_t len, loff_t *ppos)
{
	char buf[160], mode[16];
	unsigned long vaddr = 0, arg = 0, arg2 = 0;
	long pid = 0, n = 0, ms = 0;
	unsigned int id;
	struct slot *s;
	int ret = 0;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = 0;

	/* without the lock: the suite drives the target meanwhile */
	if (sscanf(buf, "churn %u %ld %ld", &id, &n, &ms) >= 2 && id < NSLOTS) {
		churn(&slots[id], n, ms);
		return len;
	}

	mutex_lock(&ctl_mutex);
	if (!strncmp(buf, "seq", 3)) {
		atomic_set(&seq_n, 0);
		goto out;
	}
	if (buf[0] == 'r' && sscanf(buf, "%*s %u", &id) == 1 && id < NRSLOTS &&
	    (!strncmp(buf, "rset ", 5) || !strncmp(buf, "rreg ", 5) ||
	     !strncmp(buf, "runreg ", 7))) {
		struct rslot *r = &rslots[id];

		n = 0;
		if (sscanf(buf, "rset %u %ld %lx %15s %ld", &id, &pid, &vaddr,
			   mode, &n) >= 4)
			ret = cmd_rset(r, mode, pid, vaddr, n);
		else if (!strncmp(buf, "rreg ", 5))
			r->ret = register_uretprobe(&r->rp);
		else if (!strncmp(buf, "runreg ", 7))
			unregister_uretprobe(&r->rp);
		else
			ret = -EINVAL;
		goto out;
	}
	if (sscanf(buf, "%*s %u", &id) != 1 || id >= NSLOTS) {
		ret = -EINVAL;
		goto out;
	}
	s = &slots[id];
	if (sscanf(buf, "set %u %ld %lx %15s %lx %lx", &id, &pid, &vaddr,
		   mode, &arg, &arg2) >= 4) {
		ret = cmd_set(s, mode, pid, vaddr, arg, arg2);
	} else if (!strncmp(buf, "reg ", 4)) {
		s->ret = register_uprobe(&s->u);
	} else if (!strncmp(buf, "unreg ", 6)) {
		unregister_uprobe(&s->u);
		if (s->kp_on)
			unregister_kprobe(&kp);
		s->kp_on = false;
	} else if (!strncmp(buf, "reset ", 6)) {
		reset(s);
	} else {
		ret = -EINVAL;
	}
out:
	mutex_unlock(&ctl_mutex);
	return ret ?: len;
}

/*
 * One line per slot,
 *   "ID ret=R hits=H ip=0x.. di=D cbreg=N cbunreg=N cbres=R hret=R
 *    kp=R kphits=N churnok=N churnfail=N"
 * (hret: what a call made from the handler returned) and "seq: ..." with
 * the first 32 slot numbers in hit order.
 */
static int ctl_show(struct seq_file *m, void *v)
{
	int i, n = min(atomic_read(&seq_n), NSEQ);

	for (i = 0; i < NSLOTS; i++) {
		struct slot *s = &slots[i];

		seq_printf(m, "%d ret=%d hits=%d ip=0x%lx di=%ld cbreg=%d cbunreg=%d cbres=%d hret=%d kp=%d kphits=%d churnok=%ld churnfail=%ld\n",
			   i, s->ret, atomic_read(&s->hits) + (int)s->fast_hits, s->last_ip,
			   (long)s->last_di, atomic_read(&s->cb_reg),
			   atomic_read(&s->cb_unreg), s->cb_result, s->hret,
			   s->kp_ret, atomic_read(&kp_hits), s->churn_ok,
			   s->churn_fail);
	}
	for (i = 0; i < NRSLOTS; i++) {
		struct rslot *r = &rslots[i];

		seq_printf(m, "r%d ret=%d hits=%d ax=%ld ra=0x%lx ip=0x%lx ipbad=%ld nmissed=%lu cbreg=%d cbunreg=%d cbres=%d\n",
			   i, r->ret, atomic_read(&r->hits) + (int)r->fast_hits,
			   (long)r->last_ax,
			   r->last_ra, r->last_ip, r->ip_bad, r->rp.nmissed,
			   atomic_read(&r->cb_reg), atomic_read(&r->cb_unreg),
			   r->cb_result);
	}
	seq_puts(m, "seq:");
	for (i = 0; i < n; i++)
		seq_printf(m, " %d", seq[i]);
	seq_putc(m, '\n');
	return 0;
}

static int ctl_open(struct inode *inode, struct file *file)
{
	return single_open(file, ctl_show, NULL);
}

static const struct file_operations ctl_fops = {
	.owner = THIS_MODULE,
	.open = ctl_open,
	.read = seq_read,
	.write = ctl_write,
	.llseek = seq_lseek,
	.release = single_release,
};

static int __init kpt_uprobes_init(void)
{
	int i;

	for (i = 0; i < NSLOTS; i++)
		slots[i].id = i;
	dir = debugfs_create_dir("kpt_uprobes", NULL);
	debugfs_create_file("ctl", 0600, dir, NULL, &ctl_fops);
	return 0;
}

static void __exit kpt_uprobes_exit(void)
{
	int i;

	debugfs_remove_recursive(dir);
	for (i = 0; i < NRSLOTS; i++)
		unregister_uretprobe(&rslots[i].rp);
	for (i = 0; i < NSLOTS; i++) {
		unregister_uprobe(&slots[i].u);
		if (slots[i].kp_on)
			unregister_kprobe(&kp);
	}
}

module_init(kpt_uprobes_init);
module_exit(kpt_uprobes_exit);
MODULE_DESCRIPTION("uprobes suite driver: register_uprobe() through debugfs");
MODULE_LICENSE("GPL");
