// SPDX-License-Identifier: GPL-2.0
/*
 * kprobes_stress: the load behind `make stress` (driven by stress.sh in
 * the guest), one phase per insmod (phase=): probes registered and hit
 * under churn, at scale and across module loads, with no hit lost.
 * Public API only, so the same source runs on IMPL=ours and
 * IMPL=upstream.
 */
#define pr_fmt(fmt) "kprobes_stress: " fmt

#include <linux/module.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/delay.h>
#include <linux/slab.h>
#include <linux/completion.h>
#include <linux/atomic.h>
#include <linux/random.h>
#include <linux/sched/signal.h>

#include "kprobes_stress.h"

char *phase = "hammer";
module_param(phase, charp, 0444);
static int secs = 30;
module_param(secs, int, 0444);
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

/*
 * phase=hammer: every online CPU calls probed functions in a loop while
 * two threads register, enable, disable and unregister kprobes,
 * kretprobes and aggregate probes on the same functions, for secs=
 * seconds (churn_cases= picks which of the three kinds of churn run, as
 * bits; churn_post=0 leaves post_handlers out).  A witness kprobe and a
 * witness kretprobe stay on each function throughout: their hit counts
 * must equal the calls exactly, with no miss.  init fails (-EFAULT) if
 * they do not.
 */
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

/*
 * phase=kretpressure: recursion deeper than maxactive, more sleepers
 * than instances, and tasks that exit with an instance live: ours must
 * miss none (spare instances), upstream exactly the shortfall, and the
 * exited tasks' instances must come back to their pool.
 */
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
 * phase=modprobe: a kprobe and a kretprobe on each of the target's
 * tgt_work (ftrace site) and tgt_leaf (int3 site), held until rmmod,
 * whichever of the two modules goes first; rmmod reports their hits.
 * stress.sh loads and unloads both modules in a loop, in either order
 * (module churn).
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

/*
 * The phase= of this insmod; the phases at scale (kprobes_stress_scale.c):
 *
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
 */
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
