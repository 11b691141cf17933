// SPDX-License-Identifier: GPL-2.0
/*
 * kprobes_stress: the load behind `make stress` (driven by stress.sh in
 * the guest).  Public API only, so the same source runs on IMPL=ours and
 * IMPL=upstream.  One phase per insmod (phase=):
 *
 *  hammer      every online CPU calls probed functions in a loop while
 *              two threads register, enable, disable and unregister
 *              kprobes, kretprobes and aggregate probes on the same
 *              functions, for secs= seconds (churn_cases= picks which of
 *              the three kinds of churn run, as bits; churn_post=0 leaves
 *              post_handlers out).  A witness kprobe and a
 *              witness kretprobe stay on each function throughout: their
 *              hit counts must equal the calls exactly, with no miss.
 *              init fails (-EFAULT) if they do not.
 *  everything  a kprobe on every function named in funcs= (one per line,
 *              "name" or "name module"), registered in batches within
 *              budget_s= seconds; init reports accepted and refused (by
 *              errno) and fails if a refusal is not a clean errno.  The
 *              probes stay armed until rmmod, which reports their hits.
 *              kret_every=N also puts a kretprobe on every Nth accepted
 *              function.
 *  sweep       a kprobe at every instruction boundary of sweep_funcs=
 *              functions from funcs=, and every other offset refused;
 *              armed until rmmod, which reports which were hit.
 *  modprobe    a kprobe and a kretprobe on two functions of the module
 *              kprobes_stress_target, until rmmod, which reports their
 *              hits; stress.sh loads and unloads both modules in a loop,
 *              in either order (module churn).
 *  kretpressure  recursion deeper than maxactive, more sleepers than
 *              instances, and tasks that exit with an instance live:
 *              ours must miss none (spare instances), upstream exactly
 *              the shortfall, and the exited tasks' instances must come
 *              back to their pool.
 */
#define pr_fmt(fmt) "kprobes_stress: " fmt

#include <linux/module.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/delay.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/fs.h>
#include <linux/kernel_read_file.h>
#include <linux/completion.h>
#include <linux/atomic.h>
#include <linux/random.h>
#include <linux/sched/signal.h>
#include <linux/kallsyms.h>
#include <linux/bitmap.h>
#include <asm/insn.h>

static char *phase = "hammer";
module_param(phase, charp, 0444);
static int secs = 30;
module_param(secs, int, 0444);
static char *funcs;
module_param(funcs, charp, 0444);
static int budget_s = 120;
module_param(budget_s, int, 0444);
static int kret_every;
module_param(kret_every, int, 0444);
static int churn_cases = 7;	/* hammer: which churner cases run (bits) */
module_param(churn_cases, int, 0444);
static bool churn_post = true;	/* hammer: churn probes may have post_handlers */
module_param(churn_post, bool, 0444);

/* ---- hammer ------------------------------------------------------------- */

static noinline long st_fn0(long x)
{
	return x * 7 + 1;
}

static noinline notrace long st_fn1(long x)
{
	return x * 11 + 3;
}

#define NFN 2
long (*st_fns[NFN])(long) = { st_fn0, st_fn1 };
static const long mul[NFN] = { 7, 11 }, add[NFN] = { 1, 3 };

static atomic64_t calls[NFN], w_hits[NFN], wr_hits[NFN], churn_hits;
static atomic64_t bad_results, churn_ops, churn_errors;
static bool stop;

/* the witnesses: on each function for the whole run */
static struct kprobe w[NFN];
static struct kretprobe wr[NFN];

static int w_pre(struct kprobe *p, struct pt_regs *regs)
{
	atomic64_inc(&w_hits[p - w]);
	return 0;
}

static int wr_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kretprobe *rp = get_kretprobe(ri);

	if (rp)
		atomic64_inc(&wr_hits[rp - wr]);
	return 0;
}

static int c_pre(struct kprobe *p, struct pt_regs *regs)
{
	atomic64_inc(&churn_hits);
	return 0;
}

static void c_post(struct kprobe *p, struct pt_regs *regs, unsigned long f)
{
	atomic64_inc(&churn_hits);
}

static int c_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	atomic64_inc(&churn_hits);
	return 0;
}

static int caller(void *data)
{
	long n = 0;
	int i;

	while (!READ_ONCE(stop)) {
		for (i = 0; i < NFN; i++) {
			if (st_fns[i](n) != n * mul[i] + add[i])
				atomic64_inc(&bad_results);
			atomic64_inc(&calls[i]);
		}
		n++;
		if (!(n & 1023))
			cond_resched();
	}
	return 0;
}

static void churn_err(int ret)
{
	if (ret)
		atomic64_inc(&churn_errors);
}

static int churner(void *data)
{
	struct kprobe *kp = kzalloc(3 * sizeof(*kp), GFP_KERNEL);
	struct kretprobe *rp = kzalloc(sizeof(*rp), GFP_KERNEL);
	struct kprobe *agg[2];
	unsigned long it = (long)data;
	int i;

	if (!kp || !rp)
		goto out;
	while (!kthread_should_stop()) {
		i = it % NFN;
		if (!(churn_cases & BIT((it / NFN) % 3))) {
			it++;
			continue;
		}
		switch ((it / NFN) % 3) {
		case 0:		/* a kprobe: register, disable, enable, remove */
			memset(kp, 0, sizeof(*kp));
			kp->addr = (kprobe_opcode_t *)st_fns[i];
			kp->pre_handler = c_pre;
			kp->post_handler = (churn_post && (it & 8)) ? c_post : NULL;
			churn_err(register_kprobe(kp));
			churn_err(disable_kprobe(kp));
			churn_err(enable_kprobe(kp));
			unregister_kprobe(kp);
			break;
		case 1:		/* a kretprobe */
			memset(rp, 0, sizeof(*rp));
			rp->kp.addr = (kprobe_opcode_t *)st_fns[i];
			rp->handler = c_ret;
			rp->maxactive = 8;
			churn_err(register_kretprobe(rp));
			churn_err(disable_kretprobe(rp));
			churn_err(enable_kretprobe(rp));
			unregister_kretprobe(rp);
			break;
		case 2:		/* two more at the same address, in one batch */
			memset(&kp[1], 0, 2 * sizeof(*kp));
			kp[1].addr = (kprobe_opcode_t *)st_fns[i];
			kp[2].addr = kp[1].addr;
			kp[1].pre_handler = c_pre;
			kp[2].post_handler = c_post;
			agg[0] = &kp[1];
			agg[1] = &kp[2];
			churn_err(register_kprobes(agg, 2));
			churn_err(disable_kprobe(&kp[2]));
			unregister_kprobes(agg, 2);
			break;
		}
		atomic64_inc(&churn_ops);
		it++;
		cond_resched();
	}
out:
	kfree(kp);
	kfree(rp);
	return 0;
}

static int phase_hammer(void)
{
	static struct task_struct *callers[NR_CPUS];
	struct task_struct *churn[2] = { };
	int i, cpu, ret = 0, ncall = 0;
	u64 t0, ms;

	for (i = 0; i < NFN; i++) {
		w[i].addr = (kprobe_opcode_t *)st_fns[i];
		w[i].pre_handler = w_pre;
		wr[i].kp.addr = (kprobe_opcode_t *)st_fns[i];
		wr[i].handler = wr_ret;
		wr[i].maxactive = 4 * num_possible_cpus() + 8;
		ret = register_kprobe(&w[i]);
		if (!ret)
			ret = register_kretprobe(&wr[i]);
		if (ret) {
			pr_info("# witness registration failed: %d\n", ret);
			goto out;
		}
	}
	WRITE_ONCE(stop, false);
	t0 = ktime_get_ns();
	for_each_online_cpu(cpu) {
		callers[cpu] = kthread_create_on_cpu(caller, NULL, cpu, "kps_call/%u");
		if (!IS_ERR(callers[cpu])) {
			wake_up_process(callers[cpu]);
			ncall++;
		} else {
			callers[cpu] = NULL;
		}
	}
	for (i = 0; i < 2; i++) {
		churn[i] = kthread_run(churner, (void *)(long)(i * 5), "kps_churn%d", i);
		if (IS_ERR(churn[i]))
			churn[i] = NULL;
	}
	msleep(secs * 1000);
	for (i = 0; i < 2; i++)
		if (churn[i])
			kthread_stop(churn[i]);
	WRITE_ONCE(stop, true);
	for_each_online_cpu(cpu)
		if (callers[cpu])
			kthread_stop(callers[cpu]);
	ms = div_u64(ktime_get_ns() - t0, NSEC_PER_MSEC) ?: 1;
out:
	for (i = 0; i < NFN; i++) {
		unregister_kretprobe(&wr[i]);
		unregister_kprobe(&w[i]);
	}
	if (ret)
		return ret;
	pr_info("hammer: %d callers, %d s, churn ops %lld (%lld/s), churn errors %lld, churn hits %lld\n",
		ncall, secs, atomic64_read(&churn_ops),
		atomic64_read(&churn_ops) * 1000 / ms,
		atomic64_read(&churn_errors), atomic64_read(&churn_hits));
	for (i = 0; i < NFN; i++) {
		pr_info("hammer: fn%d calls %lld witness kprobe hits %lld nmissed %lu, kretprobe hits %lld nmissed %d\n",
			i, atomic64_read(&calls[i]), atomic64_read(&w_hits[i]),
			w[i].nmissed, atomic64_read(&wr_hits[i]), wr[i].nmissed);
		if (atomic64_read(&calls[i]) != atomic64_read(&w_hits[i]) ||
		    atomic64_read(&calls[i]) != atomic64_read(&wr_hits[i]) ||
		    w[i].nmissed || wr[i].nmissed || !atomic64_read(&calls[i]))
			ret = -EFAULT;
	}
	if (atomic64_read(&bad_results) || atomic64_read(&churn_errors)) {
		pr_info("# bad results %lld, churn errors %lld\n",
			atomic64_read(&bad_results), atomic64_read(&churn_errors));
		ret = -EFAULT;
	}
	return ret;
}

/* ---- everything: many probes, armed until rmmod ----------------------- */

static struct kprobe *many;
static u8 *many_hit;		/* per probe of many: was it hit */
static int nmany;
static struct kretprobe *rets;
static int nrets;
static atomic64_t many_hits;
static void *file_buf;

static int many_pre(struct kprobe *p, struct pt_regs *regs)
{
	atomic64_inc(&many_hits);
	WRITE_ONCE(many_hit[p - many], 1);
	return 0;
}

static int many_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	atomic64_inc(&many_hits);
	return 0;
}

static char *read_funcs(size_t *len)
{
	ssize_t n;

	if (!funcs)
		return NULL;
	n = kernel_read_file_from_path(funcs, 0, &file_buf, INT_MAX, NULL,
				       READING_UNKNOWN);
	if (n < 0)
		return NULL;
	*len = n;
	return file_buf;
}

/* the errnos a refusal may have: anything else is a bug */
static bool clean_errno(int e)
{
	return e == -EINVAL || e == -EILSEQ || e == -EBUSY || e == -ENOENT ||
	       e == -EOPNOTSUPP || e == -EEXIST || e == -E2BIG;
}

#define NERR 140
#define EVERY_BATCH 256
static int refused[NERR];

static void report_refused(const char *what, int *count)
{
	int e;

	for (e = 1; e < NERR; e++)
		if (count[e])
			pr_info("%s: refused with -%d: %d\n", what, e, count[e]);
}

static char **many_sym;	/* the name each slot of many was tried on */
static u8 *many_ok;		/* per slot of many: registered */
static int ntried, unclean;

/* slot i of many, ready to be registered (again, after a rolled-back batch) */
static struct kprobe *many_fresh(int i)
{
	memset(&many[i], 0, sizeof(many[i]));
	many[i].symbol_name = many_sym[i];
	many[i].pre_handler = many_pre;
	return &many[i];
}

/*
 * Register probes [lo, lo + n) (fresh(i) makes probe i ready, again after
 * a rolled-back batch) as one batch; if register_kprobes() refuses it (and
 * rolls it all back), each half again, down to single probes, whose
 * refusal is counted in refused[].  A few refusals among thousands cost
 * a few log2(n) extra batches instead of n single registrations.
 * Return: how many were registered; ok[i] says which.
 */
static int batch_register(int lo, int n, struct kprobe *(*fresh)(int),
			  u8 *ok, int *refused)
{
	static struct kprobe *pp[EVERY_BATCH];
	struct kprobe *kp;
	int i, ret;

	for (i = 0; i < n; i++)
		pp[i] = fresh(lo + i);
	ret = register_kprobes(pp, n);
	if (!ret) {
		memset(&ok[lo], 1, n);
		return n;
	}
	if (n > 1)
		return batch_register(lo, n / 2, fresh, ok, refused) +
		       batch_register(lo + n / 2, n - n / 2, fresh, ok, refused);
	if (-ret > 0 && -ret < NERR)
		refused[-ret]++;
	if (!clean_errno(ret)) {
		kp = pp[0];
		unclean++;
		pr_info("# %s%pS refused with %d\n", kp->symbol_name ?: "",
			kp->addr, ret);
	}
	return 0;
}

static int phase_everything(void)
{
	int count = 0, i, ret;
	char *buf, *p, *line;
	size_t len;
	u64 t0 = ktime_get_ns(), budget = (u64)budget_s * NSEC_PER_SEC;

	buf = read_funcs(&len);
	if (!buf)
		return -ENOENT;
	for (i = 0; i < len; i++)
		if (buf[i] == '\n')
			count++;
	many = kvcalloc(count, sizeof(*many), GFP_KERNEL);
	many_hit = kvcalloc(count, 1, GFP_KERNEL);
	many_ok = kvcalloc(count, 1, GFP_KERNEL);
	many_sym = kvcalloc(count, sizeof(*many_sym), GFP_KERNEL);
	if (!many || !many_hit || !many_ok || !many_sym)
		return -ENOMEM;
	p = buf;
	buf[len - 1] = '\0';
	/* in batches of EVERY_BATCH, one text-patch batch each */
	while (p && ntried < count && ktime_get_ns() - t0 <= budget) {
		int first = ntried, n = 0;

		while (first + n < count && n < EVERY_BATCH &&
		       (line = strsep(&p, "\n"))) {
			if (!*line)
				continue;
			strreplace(line, ' ', '\0');	/* "name module": the name */
			many_sym[first + n++] = line;
		}
		if (!n)
			break;
		ntried += n;
		nmany += batch_register(first, n, many_fresh, many_ok, refused);
		cond_resched();
	}
	pr_info("everything: candidates %d tried %d accepted %d refused %d in %llu ms\n",
		count, ntried, nmany, ntried - nmany,
		div_u64(ktime_get_ns() - t0, NSEC_PER_MSEC));
	report_refused("everything", refused);
	if (kret_every > 0) {
		int n = 0, fail = 0, k = 0;

		rets = kvcalloc(nmany / kret_every + 1, sizeof(*rets), GFP_KERNEL);
		for (i = 0; rets && i < ntried; i++) {
			if (!many_ok[i] || k++ % kret_every)
				continue;
			rets[nrets].kp.symbol_name = many_sym[i];
			rets[nrets].handler = many_ret;
			rets[nrets].maxactive = 16;
			n++;
			cond_resched();
			ret = register_kretprobe(&rets[nrets]);
			if (!ret) {
				nrets++;
				continue;
			}
			fail++;
			if (!clean_errno(ret)) {
				unclean++;
				pr_info("# kretprobe %s refused with %d\n",
					many_sym[i], ret);
			}
			memset(&rets[nrets], 0, sizeof(rets[nrets]));
		}
		pr_info("everything: kretprobes tried %d accepted %d refused %d\n",
			n, nrets, fail);
	}
	return unclean ? -EFAULT : 0;
}

static void many_release(void)
{
	struct kprobe **pp;
	int i, n, hit = 0;

	if (nrets) {
		struct kretprobe **rpp = kvcalloc(nrets, sizeof(*rpp), GFP_KERNEL);

		for (i = 0; rpp && i < nrets; i++)
			rpp[i] = &rets[i];
		if (rpp)
			unregister_kretprobes(rpp, nrets);
		kvfree(rpp);
	}
	pp = kvcalloc(nmany, sizeof(*pp), GFP_KERNEL);
	for (i = 0, n = 0; i < ntried; i++) {
		if (!many_ok[i])
			continue;
		hit += READ_ONCE(many_hit[i]);
		if (pp)
			pp[n++] = &many[i];
		else
			unregister_kprobe(&many[i]);
	}
	if (pp && n)
		unregister_kprobes(pp, n);
	kvfree(pp);
	if (nmany || nrets)
		pr_info("%s: armed %d, probes hit %d, hits %lld, kretprobes %d\n",
			phase, nmany, hit, atomic64_read(&many_hits), nrets);
	kvfree(rets);
	kvfree(many_hit);
	kvfree(many_ok);
	kvfree(many_sym);
	kvfree(many);
	vfree(file_buf);
}

/* ---- kretprobe pressure --------------------------------------------- */

static noinline long st_recurse(long depth)
{
	long (*self)(long) = st_recurse;

	OPTIMIZER_HIDE_VAR(self);	/* a real call: the function recurses */
	return depth > 0 ? self(depth - 1) + 1 : 0;
}

static DECLARE_COMPLETION(release_sleepers);
static atomic_t sleepers_in;

static noinline long st_sleeper(long x)
{
	atomic_inc(&sleepers_in);
	wait_for_completion(&release_sleepers);
	return x + 1;
}

static atomic_t rp_hits;

static int rp_count(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	atomic_inc(&rp_hits);
	return 0;
}

static int sleeper_thread(void *data)
{
	st_sleeper(1);
	return 0;
}

static DECLARE_COMPLETION(release_exiters);
static atomic_t exiters_in;

/* mode 1: the task exits inside, its instance still live */
static noinline long st_exiter(long mode)
{
	atomic_inc(&exiters_in);
	wait_for_completion(&release_exiters);
	if (mode)
		kthread_exit(0);
	return mode + 1;
}

long (*st_exiter_p)(long) = st_exiter;

static int exiter_thread(void *data)
{
	st_exiter_p((long)data);
	return 0;
}

/*
 * n threads into st_exiter(mode) at once, then released: with mode 1
 * they exit there, and wait_exits waits until they are gone and their
 * instances recycled (at the task's RCU-delayed free).
 */
static int exiters(int n, long mode)
{
	struct task_struct *t[8];
	int i, tries;

	atomic_set(&exiters_in, 0);
	reinit_completion(&release_exiters);
	for (i = 0; i < n; i++) {
		t[i] = kthread_create(exiter_thread, (void *)mode, "kps_exit%d", i);
		if (IS_ERR(t[i]))
			return PTR_ERR(t[i]);
		get_task_struct(t[i]);
		wake_up_process(t[i]);
	}
	while (atomic_read(&exiters_in) < n)
		msleep(20);
	complete_all(&release_exiters);
	for (i = 0; i < n; i++) {
		kthread_stop(t[i]);
		/* reaped (kthreads are), then off the CPU for good */
		for (tries = 0; READ_ONCE(t[i]->exit_state) != EXIT_DEAD &&
		     tries < 100; tries++)
			msleep(20);
		put_task_struct(t[i]);
	}
	msleep(50);
	rcu_barrier();
	return 0;
}

/* a fresh counting kretprobe on fn with maxactive instances, hits at 0 */
static int rp_register(struct kretprobe *rp, void *fn, int maxactive)
{
	memset(rp, 0, sizeof(*rp));
	rp->kp.addr = (kprobe_opcode_t *)fn;
	rp->handler = rp_count;
	rp->maxactive = maxactive;
	atomic_set(&rp_hits, 0);
	return register_kretprobe(rp);
}

/*
 * More activations than maxactive.  Upstream misses exactly the
 * shortfall; ours serves them from spare instances (grown outside the
 * hit path, kernel/kprobes_kretprobes.c) and misses none.
 */
#ifdef KPROBES_ANEW
#define SHORT(n)	((n) * 0)
#else
#define SHORT(n)	(n)
#endif

static int phase_kretpressure(void)
{
	struct kretprobe rp;
	int ret, i, err = 0;

	/* recursion 9 deep (10 activations) with 5 instances */
	ret = rp_register(&rp, st_recurse, 5);
	if (ret)
		return ret;
	if (st_recurse(9) != 9)
		err = 1;
	unregister_kretprobe(&rp);
	pr_info("kretpressure: recursion 10 activations, maxactive 5: hits %d nmissed %d\n",
		atomic_read(&rp_hits), rp.nmissed);
	if (atomic_read(&rp_hits) != 10 - SHORT(5) || rp.nmissed != SHORT(5))
		err = 1;

	/* 12 sleepers inside at once with 4 instances */
	atomic_set(&sleepers_in, 0);
	reinit_completion(&release_sleepers);
	ret = rp_register(&rp, st_sleeper, 4);
	if (ret)
		return ret;
	for (i = 0; i < 12; i++)
		kthread_run(sleeper_thread, NULL, "kps_sleep%d", i);
	while (atomic_read(&sleepers_in) < 12)
		msleep(20);
	complete_all(&release_sleepers);
	while (atomic_read(&rp_hits) < 12 - SHORT(8) && !err)
		msleep(20);
	msleep(50);
	unregister_kretprobe(&rp);
	pr_info("kretpressure: 12 sleepers, maxactive 4: hits %d nmissed %d\n",
		atomic_read(&rp_hits), rp.nmissed);
	if (atomic_read(&rp_hits) != 12 - SHORT(8) || rp.nmissed != SHORT(8))
		err = 1;

	/*
	 * 8 tasks exit inside with 4 instances (upstream: 4 missed), and the
	 * live instances come back when the tasks are freed, so 4 tasks that
	 * then return all get one.
	 */
	ret = rp_register(&rp, st_exiter, 4);
	if (ret)
		return ret;
	ret = exiters(8, 1);
	pr_info("kretpressure: 8 tasks exit inside, maxactive 4: hits %d nmissed %d\n",
		atomic_read(&rp_hits), rp.nmissed);
	if (!ret && (atomic_read(&rp_hits) || rp.nmissed != SHORT(4)))
		err = 1;
	if (!ret)
		ret = exiters(4, 0);
	unregister_kretprobe(&rp);
	pr_info("kretpressure: then 4 tasks return: hits %d nmissed %d\n",
		atomic_read(&rp_hits), rp.nmissed);
	if (ret || atomic_read(&rp_hits) != 4 || rp.nmissed != SHORT(4))
		err = 1;
	return err ? -EFAULT : 0;
}

/* ---- instruction sweep ---------------------------------------------- */

#define SWEEP_MAX_SIZE 2048

struct sweep_fn {
	const char *name;
	unsigned long start;
	int first, n;			/* its probes: sw[first, first + n) */
};

static struct sweep_fn *swf;
static int nswf;
static struct kprobe *sw;		/* one per instruction boundary */
static unsigned long *sw_addr;
static u8 *sw_ok, *sw_hit;
static int nsw, nsw_ok, sw_refused[NERR], nb_refused[NERR];

static int sw_pre(struct kprobe *p, struct pt_regs *regs)
{
	WRITE_ONCE(sw_hit[p - sw], 1);
	return 0;
}

static struct kprobe *sw_fresh(int i)
{
	memset(&sw[i], 0, sizeof(sw[i]));
	sw[i].addr = (kprobe_opcode_t *)sw_addr[i];
	sw[i].pre_handler = sw_pre;
	return &sw[i];
}

/* where @name starts and how long it is, from kallsyms, via a kprobe */
static unsigned long sym_extent(const char *name, unsigned long *size)
{
	struct kprobe kp = { .symbol_name = name,
			     .flags = KPROBE_FLAG_DISABLED };
	char buf[KSYM_SYMBOL_LEN], *plus, *slash, *sp;
	unsigned long addr, off;

	if (register_kprobe(&kp))
		return 0;
	addr = (unsigned long)kp.addr;
	unregister_kprobe(&kp);
	sprint_symbol(buf, addr);		/* "name+0xoff/0xsize [mod]" */
	plus = strrchr(buf, '+');
	slash = strrchr(buf, '/');
	if (!plus || !slash || slash < plus)
		return 0;
	*slash = '\0';
	sp = strchr(slash + 1, ' ');
	if (sp)
		*sp = '\0';
	if (kstrtoul(plus + 1, 16, &off) || kstrtoul(slash + 1, 16, size))
		return 0;
	return addr - off;
}

/*
 * For each function named in funcs= (up to sweep_funcs of them, each at
 * most SWEEP_MAX_SIZE bytes): decode its live text with the kernel's
 * instruction decoder, then register a kprobe at every instruction
 * boundary (armed until rmmod, which reports which were hit), and try a
 * disabled kprobe at every other offset, which must be refused.  init
 * fails (-EFAULT) if one is accepted or a refusal is not a clean errno.
 */
static int sweep_funcs = 300;
module_param(sweep_funcs, int, 0444);

static int phase_sweep(void)
{
	int count = 0, cap, i, f, ret, nb_tried = 0, nb_accepted = 0;
	unsigned long *bnd;
	char *buf, *p, *line;
	size_t len;
	u64 t0 = ktime_get_ns();

	buf = read_funcs(&len);
	if (!buf)
		return -ENOENT;
	buf[len - 1] = '\0';
	for (i = 0; i < len; i++)
		if (buf[i] == '\n')
			count++;
	count = min(count + 1, sweep_funcs);
	cap = count * SWEEP_MAX_SIZE / 4;	/* boundaries: a guess, grown */
	swf = kvcalloc(count, sizeof(*swf), GFP_KERNEL);
	sw_addr = kvcalloc(cap, sizeof(*sw_addr), GFP_KERNEL);
	bnd = bitmap_zalloc(SWEEP_MAX_SIZE, GFP_KERNEL);
	if (!swf || !sw_addr || !bnd) {
		bitmap_free(bnd);
		return -ENOMEM;
	}

	/* first every function's boundaries, before any probe is in them */
	p = buf;
	while ((line = strsep(&p, "\n")) && nswf < count) {
		struct sweep_fn *fn = &swf[nswf];
		unsigned long size, off;
		struct insn insn;

		if (!*line)
			continue;
		fn->start = sym_extent(line, &size);
		if (!fn->start || size > SWEEP_MAX_SIZE || !size)
			continue;
		if (nsw + size > cap) {
			unsigned long *more = kvrealloc(sw_addr, 2 * cap * sizeof(*sw_addr),
							GFP_KERNEL);

			if (!more)
				break;
			sw_addr = more;
			cap *= 2;
		}
		fn->name = line;
		fn->first = nsw;
		for (off = 0; off < size; off += insn.length) {
			if (insn_decode_kernel(&insn, (void *)(fn->start + off)) < 0)
				break;
			sw_addr[nsw++] = fn->start + off;
		}
		fn->n = nsw - fn->first;
		nswf++;
	}
	sw = kvcalloc(nsw, sizeof(*sw), GFP_KERNEL);
	sw_ok = kvcalloc(nsw, 1, GFP_KERNEL);
	sw_hit = kvcalloc(nsw, 1, GFP_KERNEL);
	if (!sw || !sw_ok || !sw_hit) {
		bitmap_free(bnd);
		return -ENOMEM;
	}

	/* then, one function at a time, the probes */
	for (f = 0; f < nswf; f++) {
		struct sweep_fn *fn = &swf[f];
		unsigned long end = sw_addr[fn->first + fn->n - 1], off;

		for (i = 0; i < fn->n; i += EVERY_BATCH)
			nsw_ok += batch_register(fn->first + i,
						 min(EVERY_BATCH, fn->n - i),
						 sw_fresh, sw_ok, sw_refused);
		/* offsets past the last decoded boundary are not judged */
		bitmap_zero(bnd, SWEEP_MAX_SIZE);
		for (i = 0; i < fn->n; i++)
			__set_bit(sw_addr[fn->first + i] - fn->start, bnd);
		for (off = 1; off < end - fn->start; off++) {
			struct kprobe kp = {
				.addr = (kprobe_opcode_t *)(fn->start + off),
				.pre_handler = sw_pre,
				.flags = KPROBE_FLAG_DISABLED,
			};

			if (test_bit(off, bnd))
				continue;
			/* a refusal may not sleep: give way (PREEMPT_NONE) */
			cond_resched();
			nb_tried++;
			ret = register_kprobe(&kp);
			if (!ret) {
				nb_accepted++;
				pr_info("# %s+%#lx: accepted, not an instruction boundary\n",
					fn->name, off);
				unregister_kprobe(&kp);
				continue;
			}
			if (-ret > 0 && -ret < NERR)
				nb_refused[-ret]++;
			if (!clean_errno(ret)) {
				unclean++;
				pr_info("# %s+%#lx refused with %d\n", fn->name,
					off, ret);
			}
		}
	}
	bitmap_free(bnd);
	pr_info("sweep: functions %d boundaries %d accepted %d refused %d; other offsets %d, accepted %d; in %llu ms\n",
		nswf, nsw, nsw_ok, nsw - nsw_ok, nb_tried, nb_accepted,
		div_u64(ktime_get_ns() - t0, NSEC_PER_MSEC));
	report_refused("sweep: boundary", sw_refused);
	report_refused("sweep: other offset", nb_refused);
	return nb_accepted || unclean ? -EFAULT : 0;
}

/* what the workload reached: a function is entered if a probe in it hit */
static void sweep_release(void)
{
	int f, i, n = 0, entered = 0, armed = 0, hit = 0, all = 0;
	struct kprobe **pp;

	if (!sw)
		goto out;
	pp = kvcalloc(nsw_ok, sizeof(*pp), GFP_KERNEL);
	for (f = 0; f < nswf; f++) {
		struct sweep_fn *fn = &swf[f];
		int fa = 0, fh = 0;

		for (i = fn->first; i < fn->first + fn->n; i++) {
			if (!sw_ok[i])
				continue;
			fa++;
			fh += READ_ONCE(sw_hit[i]);
			if (pp)
				pp[n++] = &sw[i];
			else
				unregister_kprobe(&sw[i]);
		}
		if (fh) {
			entered++;
			armed += fa;
			hit += fh;
			all += fh == fa;
		}
	}
	if (pp && n)
		unregister_kprobes(pp, n);
	kvfree(pp);
	pr_info("sweep: functions entered %d of %d, every probe hit in %d; probes hit %d of %d armed in them\n",
		entered, nswf, all, hit, armed);
out:
	kvfree(sw);
	kvfree(sw_ok);
	kvfree(sw_hit);
	kvfree(sw_addr);
	kvfree(swf);
}

/* ---- modprobe: probes in kprobes_stress_target's text ------------- */

static struct kprobe mp_kp[2];
static struct kretprobe mp_rp[2];
static atomic_t mp_hits, mp_ret_hits;
static bool mp_armed;

static int mp_pre(struct kprobe *p, struct pt_regs *regs)
{
	atomic_inc(&mp_hits);
	return 0;
}

static int mp_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	atomic_inc(&mp_ret_hits);
	return 0;
}

/*
 * A kprobe and a kretprobe on each of the target's tgt_work (ftrace
 * site) and tgt_leaf (int3 site), held until rmmod, whichever of the two
 * modules goes first.
 */
static int phase_modprobe(void)
{
	static const char * const syms[2] = { "tgt_work", "tgt_leaf" };
	int i, ret;

	for (i = 0; i < 2; i++) {
		mp_kp[i].symbol_name = syms[i];
		mp_kp[i].pre_handler = mp_pre;
		mp_rp[i].kp.symbol_name = syms[i];
		mp_rp[i].handler = mp_ret;
		mp_rp[i].maxactive = 8;
		ret = register_kprobe(&mp_kp[i]);
		if (ret)
			goto fail;
		ret = register_kretprobe(&mp_rp[i]);
		if (ret) {
			unregister_kprobe(&mp_kp[i]);
			goto fail;
		}
	}
	mp_armed = true;
	return 0;
fail:
	pr_info("# modprobe: %s refused with %d\n", syms[i], ret);
	while (i--) {
		unregister_kretprobe(&mp_rp[i]);
		unregister_kprobe(&mp_kp[i]);
	}
	return ret;
}

static void modprobe_release(void)
{
	int i, missed = 0;

	if (!mp_armed)
		return;
	for (i = 0; i < 2; i++) {
		unregister_kretprobe(&mp_rp[i]);
		unregister_kprobe(&mp_kp[i]);
		missed += mp_kp[i].nmissed;
	}
	pr_info("modprobe: kprobe hits %d, kretprobe hits %d, nmissed %d\n",
		atomic_read(&mp_hits), atomic_read(&mp_ret_hits), missed);
}

static int __init kprobes_stress_init(void)
{
	int ret = -EINVAL;

	if (!strcmp(phase, "hammer"))
		return phase_hammer();
	if (!strcmp(phase, "kretpressure"))
		return phase_kretpressure();
	if (!strcmp(phase, "modprobe"))
		return phase_modprobe();
	if (!strcmp(phase, "everything"))
		ret = phase_everything();
	if (!strcmp(phase, "sweep"))
		ret = phase_sweep();
	/* a failed init gets no exit: take the probes out now */
	if (ret) {
		sweep_release();
		many_release();
	}
	return ret;
}

static void __exit kprobes_stress_exit(void)
{
	modprobe_release();
	sweep_release();
	many_release();
}

module_init(kprobes_stress_init);
module_exit(kprobes_stress_exit);
MODULE_DESCRIPTION("kprobes stress load for make stress");
MODULE_LICENSE("GPL");
