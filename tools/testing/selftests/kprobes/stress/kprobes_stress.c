// SPDX-License-Identifier: GPL-2.0
/*
 * kprobes_stress: the load behind `make stress` (driven by stress.sh in
 * the guest).  Public API only, so the same source runs on IMPL=ours and
 * IMPL=upstream.  One phase per insmod (phase=):
 *
 *  hammer      every online CPU calls probed functions in a loop while
 *              two threads register, enable, disable and unregister
 *              kprobes, kretprobes and aggregate probes on the same
 *              functions, for secs= seconds.  A witness kprobe and a
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
 *  kretpressure  recursion deeper than maxactive, and more sleepers than
 *              instances: nmissed must match the shortfall exactly.
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
static long (*volatile st_fns[NFN])(long) = { st_fn0, st_fn1 };
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
		switch ((it / NFN) % 3) {
		case 0:		/* a kprobe: register, disable, enable, remove */
			memset(kp, 0, sizeof(*kp));
			kp->addr = (kprobe_opcode_t *)st_fns[i];
			kp->pre_handler = c_pre;
			kp->post_handler = (it & 8) ? c_post : NULL;
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

static void report_refused(const char *what)
{
	int e;

	for (e = 1; e < NERR; e++)
		if (refused[e])
			pr_info("%s: refused with -%d: %d\n", what, e, refused[e]);
}

static int phase_everything(void)
{
	int count = 0, tried = 0, i, ret, unclean = 0;
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
	if (!many || !many_hit)
		return -ENOMEM;
	p = buf;
	buf[len - 1] = '\0';
	/*
	 * In batches of EVERY_BATCH (one text-patch batch each); a batch
	 * with a refused probe is rolled back by register_kprobes() and its
	 * probes are then registered one by one.
	 */
	while (p && nmany < count && ktime_get_ns() - t0 <= budget) {
		static struct kprobe *pp[EVERY_BATCH];
		int first = nmany, n = 0;

		while (n < EVERY_BATCH && (line = strsep(&p, "\n"))) {
			if (!*line)
				continue;
			strreplace(line, ' ', '\0');	/* "name module": the name */
			memset(&many[first + n], 0, sizeof(*many));
			many[first + n].symbol_name = line;
			many[first + n].pre_handler = many_pre;
			pp[n] = &many[first + n];
			n++;
		}
		if (!n)
			break;
		tried += n;
		if (!register_kprobes(pp, n)) {
			nmany += n;
			continue;
		}
		for (i = 0; i < n; i++) {
			struct kprobe kp = { .symbol_name = pp[i]->symbol_name,
					     .pre_handler = many_pre };

			many[nmany] = kp;
			ret = register_kprobe(&many[nmany]);
			if (!ret) {
				nmany++;
				continue;
			}
			if (-ret > 0 && -ret < NERR)
				refused[-ret]++;
			if (!clean_errno(ret)) {
				unclean++;
				pr_info("# %s refused with %d\n", kp.symbol_name, ret);
			}
		}
	}
	pr_info("everything: candidates %d tried %d accepted %d refused %d in %llu ms\n",
		count, tried, nmany, tried - nmany,
		div_u64(ktime_get_ns() - t0, NSEC_PER_MSEC));
	report_refused("everything");
	if (kret_every > 0) {
		int n = 0, fail = 0;

		rets = kvcalloc(nmany / kret_every + 1, sizeof(*rets), GFP_KERNEL);
		for (i = 0; rets && i < nmany; i += kret_every) {
			rets[nrets].kp.symbol_name = many[i].symbol_name;
			rets[nrets].handler = many_ret;
			rets[nrets].maxactive = 16;
			n++;
			ret = register_kretprobe(&rets[nrets]);
			if (!ret) {
				nrets++;
				continue;
			}
			fail++;
			if (!clean_errno(ret)) {
				unclean++;
				pr_info("# kretprobe %s refused with %d\n",
					many[i].symbol_name, ret);
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
	int i, hit = 0;

	if (nrets) {
		struct kretprobe **rpp = kvcalloc(nrets, sizeof(*rpp), GFP_KERNEL);

		for (i = 0; rpp && i < nrets; i++)
			rpp[i] = &rets[i];
		if (rpp)
			unregister_kretprobes(rpp, nrets);
		kvfree(rpp);
	}
	pp = kvcalloc(nmany, sizeof(*pp), GFP_KERNEL);
	for (i = 0; i < nmany; i++) {
		hit += READ_ONCE(many_hit[i]);
		if (pp)
			pp[i] = &many[i];
		else
			unregister_kprobe(&many[i]);
	}
	if (pp && nmany)
		unregister_kprobes(pp, nmany);
	kvfree(pp);
	pr_info("%s: armed %d, probes hit %d, hits %lld, kretprobes %d\n",
		phase, nmany, hit, atomic64_read(&many_hits), nrets);
	kvfree(rets);
	kvfree(many_hit);
	kvfree(many);
	vfree(file_buf);
}

/* ---- kretprobe pressure --------------------------------------------- */

static noinline long st_recurse(long depth)
{
	static long (*volatile self)(long) = st_recurse;

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

static int phase_kretpressure(void)
{
	struct kretprobe rp = { .handler = rp_count, .maxactive = 5 };
	int ret, i, err = 0;

	/* recursion 9 deep (10 activations) with 5 instances: 5 missed */
	rp.kp.addr = (kprobe_opcode_t *)st_recurse;
	atomic_set(&rp_hits, 0);
	ret = register_kretprobe(&rp);
	if (ret)
		return ret;
	if (st_recurse(9) != 9)
		err = 1;
	unregister_kretprobe(&rp);
	pr_info("kretpressure: recursion 10 activations, maxactive 5: hits %d nmissed %d\n",
		atomic_read(&rp_hits), rp.nmissed);
	if (atomic_read(&rp_hits) != 5 || rp.nmissed != 5)
		err = 1;

	/* 12 sleepers inside at once with 4 instances: 8 missed */
	memset(&rp, 0, sizeof(rp));
	rp.kp.addr = (kprobe_opcode_t *)st_sleeper;
	rp.handler = rp_count;
	rp.maxactive = 4;
	atomic_set(&rp_hits, 0);
	atomic_set(&sleepers_in, 0);
	reinit_completion(&release_sleepers);
	ret = register_kretprobe(&rp);
	if (ret)
		return ret;
	for (i = 0; i < 12; i++)
		kthread_run(sleeper_thread, NULL, "kps_sleep%d", i);
	while (atomic_read(&sleepers_in) < 12)
		msleep(20);
	complete_all(&release_sleepers);
	while (atomic_read(&rp_hits) < 4 && !err)
		msleep(20);
	msleep(50);
	unregister_kretprobe(&rp);
	pr_info("kretpressure: 12 sleepers, maxactive 4: hits %d nmissed %d\n",
		atomic_read(&rp_hits), rp.nmissed);
	if (atomic_read(&rp_hits) != 4 || rp.nmissed != 8)
		err = 1;
	return err ? -EFAULT : 0;
}

static int __init kprobes_stress_init(void)
{
	int ret = -EINVAL;

	if (!strcmp(phase, "hammer"))
		return phase_hammer();
	if (!strcmp(phase, "kretpressure"))
		return phase_kretpressure();
	if (!strcmp(phase, "everything"))
		ret = phase_everything();
	/* a failed init gets no exit: take the probes out now */
	if (ret)
		many_release();
	return ret;
}

static void __exit kprobes_stress_exit(void)
{
	many_release();
}

module_init(kprobes_stress_init);
module_exit(kprobes_stress_exit);
MODULE_DESCRIPTION("kprobes stress load for make stress");
MODULE_LICENSE("GPL");
