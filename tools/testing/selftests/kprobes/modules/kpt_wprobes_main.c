// SPDX-License-Identifier: GPL-2.0
/*
 * kpt_wprobes: drives register_wprobe() and friends for the wprobes suite
 * (wprobes.sh) through /sys/kernel/debug/kpt_wprobes/ctl: eight wprobe
 * slots, accesses to the watched targets on chosen CPUs, and a kprobe
 * whose handler writes to a watched variable.
 */
#include <linux/module.h>
#include <linux/debugfs.h>
#include <linux/uaccess.h>
#include <linux/wprobes.h>
#include <linux/kprobes.h>
#include <linux/ptrace.h>
#include <linux/seq_file.h>
#include <linux/kthread.h>
#include <linux/workqueue.h>
#include <linux/cpu.h>

#include "kpt_wprobes_targets.h"

#define NSLOTS	8
#define NCPUS	8

struct slot {
	struct wprobe wp;
	char where[64];
	atomic_t hits;
	atomic_t cpu_hits[NCPUS];
	unsigned long last_ip;
	u32 last_val;
	int ret;
};

static struct slot slots[NSLOTS];
static DEFINE_MUTEX(ctl_mutex);
static struct dentry *dir;
static struct task_struct *hammer;
static atomic_long_t hammer_stores;
static int kp_ret = 1;
static bool kp_on;

static void wp_handler(struct wprobe *wp, struct pt_regs *regs)
{
	struct slot *s = container_of(wp, struct slot, wp);
	int cpu = smp_processor_id();

	s->last_ip = instruction_pointer(regs);
	if (wp->type != WPROBE_X)
		s->last_val = READ_ONCE(*(u32 *)wp->addr);
	if (cpu < NCPUS)
		atomic_inc(&s->cpu_hits[cpu]);
	atomic_inc(&s->hits);
}

static int kp_pre(struct kprobe *p, struct pt_regs *regs)
{
	WRITE_ONCE(kpt_wp_var, 0x5a5a);
	return 0;
}

/* set up by "kprobe on", each time: a kprobe is not registered twice */
static struct kprobe kp;

static int parse_type(const char *t, unsigned int *type)
{
	if (!strcmp(t, "w"))
		*type = WPROBE_W;
	else if (!strcmp(t, "rw"))
		*type = WPROBE_RW;
	else if (!strcmp(t, "r"))
		*type = WPROBE_R;
	else if (!strcmp(t, "x"))
		*type = WPROBE_X;
	else
		return kstrtouint(t, 0, type);
	return 0;
}

/* set ID WHERE LEN TYPE [MODE] */
static int cmd_set(struct slot *s, char *where, char *len, char *type,
		   char *mode)
{
	struct wprobe *wp = &s->wp;
	unsigned long addr;
	char *at, *plus;
	int ret;

	if (wp->state)
		return -EBUSY;
	memset(wp, 0, sizeof(*wp));
	strscpy(s->where, where, sizeof(s->where));
	ret = kstrtouint(len, 0, &wp->len);
	if (!ret)
		ret = parse_type(type, &wp->type);
	if (ret)
		return ret;
	wp->handler = mode && !strcmp(mode, "none") ? NULL : wp_handler;

	if (!strcmp(s->where, "-"))
		return 0;
	at = strchr(s->where, '@');
	if (at) {
		*at = '\0';
		ret = kstrtoul(at + 1, 0, &addr);
		if (ret)
			return ret;
		wp->addr = (void *)addr;
	}
	plus = strchr(s->where, '+');
	if (plus) {
		*plus = '\0';
		ret = kstrtouint(plus + 1, 0, &wp->offset);
		if (ret)
			return ret;
	}
	if (s->where[0])
		wp->symbol_name = s->where;
	return 0;
}

static void run_target(const char *what, unsigned long n, u32 v)
{
	unsigned long i;

	for (i = 0; i < n; i++) {
		if (!strcmp(what, "store")) {
			kpt_wp_store(v);
		} else if (!strcmp(what, "load")) {
			kpt_wp_load();
		} else if (!strcmp(what, "adj")) {
			kpt_wp_adj(v);
		} else if (!strcmp(what, "xfn")) {
			kpt_wp_xfn(i);
		} else if (!strcmp(what, "storeall")) {
			kpt_wp_store(v);
			WRITE_ONCE(kpt_wp_more[0], v);
			WRITE_ONCE(kpt_wp_more[1], v);
			WRITE_ONCE(kpt_wp_more[2], v);
		}
	}
}

struct oncpu_args {
	char what[12];
	unsigned long n;
	u32 v;
};

static long oncpu_fn(void *arg)
{
	struct oncpu_args *a = arg;

	run_target(a->what, a->n, a->v);
	return 0;
}

static int hammer_fn(void *arg)
{
	while (!kthread_should_stop()) {
		kpt_wp_store(atomic_long_inc_return(&hammer_stores));
		cond_resched();
	}
	return 0;
}

static struct slot *slot_of(const char *id)
{
	unsigned int i;

	if (kstrtouint(id, 0, &i) || i >= NSLOTS)
		return NULL;
	return &slots[i];
}

static void slot_reset(struct slot *s)
{
	int c;

	atomic_set(&s->hits, 0);
	for (c = 0; c < NCPUS; c++)
		atomic_set(&s->cpu_hits[c], 0);
	s->last_ip = 0;
	s->last_val = 0;
}

/*
 * One command per write to ctl:
 *   set ID WHERE LEN TYPE [MODE]  configure a slot (not registered):
 *                    WHERE is SYM[+OFF] (symbol_name and offset),
 *                    @ADDR (addr), - (neither) or SYM@ADDR (both);
 *                    TYPE w, rw, r, x or a number; MODE count (the
 *                    default) or none (no handler)
 *   reg ID / unreg ID / enable ID / disable ID / reset ID
 *   regn ID N        register_wprobes() of slots ID..ID+N-1
 *   unregn ID N      unregister_wprobes() of the same
 *   store N V / load N / adj N / xfn N / storeall N V
 *                    run the target N times on this CPU (storeall:
 *                    kpt_wp_store() and a store to each kpt_wp_more[])
 *   oncpu CPU CMD... run one of those five in a worker on CPU
 *   hammer CPU       a thread on CPU stores in a loop until "stop"
 *   stop             stop it
 *   kprobe on|off    a kprobe on kpt_wp_store whose handler stores to
 *                    kpt_wp_var itself (so a wprobe sees a write from a
 *                    probe handler)
 */
static int do_cmd(int argc, char **argv)
{
	struct wprobe *wps[NSLOTS];
	struct slot *s = argc > 1 ? slot_of(argv[1]) : NULL;
	unsigned long n = 0, v = 0;
	unsigned int i, cnt;
	int ret;

	if (!strcmp(argv[0], "set") && s && argc >= 5)
		return cmd_set(s, argv[2], argv[3], argv[4],
			       argc > 5 ? argv[5] : NULL);
	if (!strcmp(argv[0], "reg") && s) {
		slot_reset(s);
		s->ret = register_wprobe(&s->wp);
		return 0;
	}
	if (!strcmp(argv[0], "unreg") && s) {
		unregister_wprobe(&s->wp);
		return 0;
	}
	if (!strcmp(argv[0], "enable") && s) {
		s->ret = enable_wprobe(&s->wp);
		return 0;
	}
	if (!strcmp(argv[0], "disable") && s) {
		s->ret = disable_wprobe(&s->wp);
		return 0;
	}
	if (!strcmp(argv[0], "reset") && s) {
		slot_reset(s);
		return 0;
	}
	if ((!strcmp(argv[0], "regn") || !strcmp(argv[0], "unregn")) && s &&
	    argc == 3) {
		if (kstrtouint(argv[2], 0, &cnt) || s - slots + cnt > NSLOTS)
			return -EINVAL;
		for (i = 0; i < cnt; i++) {
			wps[i] = &s[i].wp;
			if (argv[0][0] == 'r')
				slot_reset(&s[i]);
		}
		if (argv[0][0] == 'r')
			s->ret = register_wprobes(wps, cnt);
		else
			unregister_wprobes(wps, cnt);
		return 0;
	}
	if (!strcmp(argv[0], "oncpu") && argc >= 4) {
		struct oncpu_args a = { };
		unsigned int cpu;

		if (kstrtouint(argv[1], 0, &cpu) || kstrtoul(argv[3], 0, &a.n))
			return -EINVAL;
		if (argc > 4 && kstrtoul(argv[4], 0, &v))
			return -EINVAL;
		a.v = v;
		strscpy(a.what, argv[2], sizeof(a.what));
		cpus_read_lock();
		ret = cpu_online(cpu) ? work_on_cpu(cpu, oncpu_fn, &a) : -ENODEV;
		cpus_read_unlock();
		return ret;
	}
	if ((!strcmp(argv[0], "store") || !strcmp(argv[0], "load") ||
	     !strcmp(argv[0], "adj") || !strcmp(argv[0], "xfn") ||
	     !strcmp(argv[0], "storeall")) && argc >= 2) {
		if (kstrtoul(argv[1], 0, &n))
			return -EINVAL;
		if (argc > 2 && kstrtoul(argv[2], 0, &v))
			return -EINVAL;
		run_target(argv[0], n, v);
		return 0;
	}
	if (!strcmp(argv[0], "hammer") && argc == 2 && !hammer) {
		unsigned int cpu;

		if (kstrtouint(argv[1], 0, &cpu) || !cpu_online(cpu))
			return -EINVAL;
		atomic_long_set(&hammer_stores, 0);
		hammer = kthread_create_on_cpu(hammer_fn, NULL, cpu, "kpt_wp_hammer");
		if (IS_ERR(hammer)) {
			ret = PTR_ERR(hammer);
			hammer = NULL;
			return ret;
		}
		wake_up_process(hammer);
		return 0;
	}
	if (!strcmp(argv[0], "stop") && hammer) {
		kthread_stop(hammer);
		hammer = NULL;
		return 0;
	}
	if (!strcmp(argv[0], "kprobe") && argc == 2) {
		if (!strcmp(argv[1], "on") && !kp_on) {
			memset(&kp, 0, sizeof(kp));
			kp.symbol_name = "kpt_wp_store";
			kp.pre_handler = kp_pre;
			kp_ret = register_kprobe(&kp);
			kp_on = !kp_ret;
		} else if (!strcmp(argv[1], "off") && kp_on) {
			unregister_kprobe(&kp);
			kp_on = false;
		}
		return 0;
	}
	return -EINVAL;
}

static ssize_t ctl_write(struct file *file, const char __user *ubuf,
			 size_t count, loff_t *ppos)
{
	char buf[160], *argv[8], *p = buf, *tok;
	int argc = 0, ret;

	if (count >= sizeof(buf))
		return -E2BIG;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	while ((tok = strsep(&p, " \t\n")) && argc < ARRAY_SIZE(argv))
		if (*tok)
			argv[argc++] = tok;
	if (!argc)
		return -EINVAL;
	mutex_lock(&ctl_mutex);
	ret = do_cmd(argc, argv);
	mutex_unlock(&ctl_mutex);
	return ret ? ret : count;
}

static const char *state_name(struct slot *s)
{
	if (!s->wp.state)
		return "free";
	return wprobe_yielded(&s->wp) ? "yielded" : "armed";
}

/*
 * Reading ctl gives
 *   "addrs var=.. store_after=.. load_after=.. xfn=.."
 *   one line per slot: "ID ret=R hits=H ip=0x.. val=V cpu0=N cpu1=N
 *                       missed=M yielded=Y state=S"
 *   (S: free, armed, yielded; val: the watched u32 seen by the handler)
 *   and "hammer=N kprobe=R" (stores the hammer made, kprobe's register
 *   result).
 */
static int ctl_show(struct seq_file *m, void *v)
{
	int i;

	seq_printf(m, "addrs var=0x%lx store_after=0x%lx load_after=0x%lx xfn=0x%lx\n",
		   (unsigned long)&kpt_wp_var,
		   (unsigned long)kpt_wp_store + kpt_wp_store_after_off,
		   (unsigned long)kpt_wp_load + kpt_wp_load_after_off,
		   (unsigned long)kpt_wp_xfn);
	for (i = 0; i < NSLOTS; i++) {
		struct slot *s = &slots[i];

		seq_printf(m, "%d ret=%d hits=%d ip=0x%lx val=%u cpu0=%d cpu1=%d missed=%lu yielded=%lu state=%s\n",
			   i, s->ret, atomic_read(&s->hits), s->last_ip,
			   s->last_val, atomic_read(&s->cpu_hits[0]),
			   atomic_read(&s->cpu_hits[1]), s->wp.nmissed,
			   s->wp.nyielded, state_name(s));
	}
	seq_printf(m, "hammer=%ld kprobe=%d\n", atomic_long_read(&hammer_stores),
		   kp_ret);
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

static int __init kpt_wprobes_init(void)
{
	dir = debugfs_create_dir("kpt_wprobes", NULL);
	debugfs_create_file("ctl", 0600, dir, NULL, &ctl_fops);
	return 0;
}

static void __exit kpt_wprobes_exit(void)
{
	int i;

	debugfs_remove_recursive(dir);
	if (hammer)
		kthread_stop(hammer);
	if (kp_on)
		unregister_kprobe(&kp);
	for (i = 0; i < NSLOTS; i++)
		unregister_wprobe(&slots[i].wp);
}

module_init(kpt_wprobes_init);
module_exit(kpt_wprobes_exit);
MODULE_DESCRIPTION("wprobes suite driver");
MODULE_LICENSE("GPL");
