// SPDX-License-Identifier: GPL-2.0
/*
 * kprobes_bench: what a probe costs per hit, and what registering many
 * costs, through the public kprobes API only, so the same source measures
 * IMPL=ours and IMPL=upstream.  harness/bench.sh boots each kernel, runs
 * bench.sh (this folder) in the guest and tabulates the "kpb: " lines.
 * One phase per insmod (phase=hit, reg or scale).
 */
#define pr_fmt(fmt) "kpb: " fmt

#include <linux/module.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/completion.h>
#include <linux/kernel_read_file.h>
#include <linux/fs.h>
#include <linux/ftrace.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <linux/slab.h>
#include <linux/delay.h>
#include <linux/ktime.h>
#include <linux/uaccess.h>
#include <linux/hw_breakpoint.h>
#ifdef CONFIG_WPROBES
#include <linux/wprobes.h>
#endif

#include "kprobes_bench_targets.h"

static char *phase = "hit";
module_param(phase, charp, 0444);
static int loops = 20000;
module_param(loops, int, 0444);
static int n = 1000;
module_param(n, int, 0444);
static char *funcs;
module_param(funcs, charp, 0444);
/*
 * Set under -icount: the CPUs then run one at a time on one instruction
 * clock, so two CPUs' loops take the sum of their instructions.
 */
static bool icount;
module_param(icount, bool, 0444);

/*
 * Loaded with any phase, /sys/module/kprobes_bench/parameters/now reads
 * ktime_get_ns(), for timing from the shell.
 */
static int now_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%llu\n", ktime_get_ns());
}

static const struct kernel_param_ops now_ops = { .get = now_get };
module_param_cb(now, &now_ops, NULL, 0444);

/* ---- targets -------------------------------------------------------------- */

/* A C function: its entry is an fentry (ftrace) site. */
static noinline long kpb_c(long x)
{
	asm volatile("" : "+r" (x));
	return x + 1;
}

/* Its first instructions after the nop cover a jump's 5 bytes. */
static noinline long kpb_c2(long x)
{
	asm volatile("" : "+r" (x));
	return x * 31 + 7;
}

long (*call_short)(long) = kpb_short;
long (*call_mov)(long) = kpb_mov;
long (*call_long)(long) = kpb_long;
long (*call_c)(long) = kpb_c;
long (*call_c2)(long) = kpb_c2;

/* A store to a watched word: the data watchpoints' target. */
static u64 kpb_wvar;

static noinline long kpb_store(long x)
{
	WRITE_ONCE(kpb_wvar, x);
	return x;
}

long (*call_store)(long) = kpb_store;

static atomic_long_t hits;

static int pre_count(struct kprobe *p, struct pt_regs *regs)
{
	atomic_long_inc(&hits);
	return 0;
}

static void post_count(struct kprobe *p, struct pt_regs *regs,
		       unsigned long flags)
{
}

static int ret_count(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	atomic_long_inc(&hits);
	return 0;
}

static void wide_bp_count(struct perf_event *bp, struct perf_sample_data *data,
			  struct pt_regs *regs)
{
	atomic_long_inc(&hits);
}

#ifdef CONFIG_WPROBES
static void wp_count(struct wprobe *wp, struct pt_regs *regs)
{
	atomic_long_inc(&hits);
}
#endif

/*
 * All figures are guest nanoseconds from ktime_get_ns().  Under
 * qemu -icount shift=0 one guest instruction is one nanosecond, so they
 * are then instruction counts, the same from run to run.
 */
static u64 run_loop(long (*fn)(long), int count)
{
	u64 t0 = ktime_get_ns();
	long acc = 0;
	int i;

	for (i = 0; i < count; i++)
		acc += fn(i);
	if (acc == 42)		/* keep the calls */
		pr_info("impossible\n");
	return ktime_get_ns() - t0;
}

/* Best of three: the least disturbed by timer interrupts. */
static u64 loop_ns(long (*fn)(long))
{
	u64 best = U64_MAX, t;
	int i;

	for (i = 0; i < 3; i++) {
		t = run_loop(fn, loops);
		best = min(best, t);
	}
	return best;
}

static void report_hit(const char *name, u64 probed, u64 base, long want)
{
	long got = atomic_long_read(&hits);

	pr_info("hit %s %llu\n", name, probed > base ? div_u64(probed - base, loops) : 0);
	/* every call was a hit (three runs); else the figure is no probe's cost */
	if (got != want)
		pr_info("hit %s hits %ld want %ld\n", name, got, want);
}

static void init_kp(struct kprobe *kp, void *addr, bool post)
{
	memset(kp, 0, sizeof(*kp));
	kp->addr = addr;
	kp->pre_handler = pre_count;
	if (post)
		kp->post_handler = post_count;
}

/* Is the first byte of the probed instruction a jump (optimized)? */
static bool probe_is_jump(struct kprobe *kp)
{
	u8 op = 0;

	copy_from_kernel_nofault(&op, kp->addr, 1);
	return op == 0xe9;
}

struct pair_arg {
	long (*fn)(long x);
	struct completion start;
	struct completion done;
};

/* both threads start their loops together */
static atomic_t pair_ready;

static int pair_thread(void *data)
{
	struct pair_arg *a = data;

	wait_for_completion(&a->start);
	atomic_inc(&pair_ready);
	while (atomic_read(&pair_ready) < 2)
		cpu_relax();
	run_loop(a->fn, loops);
	complete(&a->done);
	return 0;
}

/*
 * Two CPUs call fn loops times each, at once: the time from the start to
 * the end of both, per call on one CPU.  Without -icount the CPUs run in
 * parallel, and that is the time itself.  Under -icount they run one at
 * a time on one instruction clock, however their loops happen to
 * interleave (one thread's own elapsed time depended on that, and so
 * did the figure), and the time is that of both CPUs' calls: halved.
 */
static u64 pair_ns(long (*fn)(long))
{
	struct pair_arg a[2];
	struct task_struct *t[2];
	u64 t0;
	int i;

	atomic_set(&pair_ready, 0);
	for (i = 0; i < 2; i++) {
		a[i].fn = fn;
		init_completion(&a[i].start);
		init_completion(&a[i].done);
		t[i] = kthread_create(pair_thread, &a[i], "kpb_pair/%d", i);
		if (IS_ERR(t[i]))
			return 0;
		kthread_bind(t[i], i);
		wake_up_process(t[i]);
	}
	t0 = ktime_get_ns();
	complete(&a[0].start);
	complete(&a[1].start);
	wait_for_completion(&a[0].done);
	wait_for_completion(&a[1].done);
	t0 = ktime_get_ns() - t0;
	return icount ? t0 / 2 : t0;
}

/*
 * Debug-register hits: the kernel's wide hw_breakpoint (both kernels: what
 * any watchpoint costs below the probe layer), and, where the kernel has
 * them, wprobes: a write watchpoint, and an execute one on kpb_short (the
 * kprobe rows' function).
 */
static void hit_watchpoints(u64 base_short)
{
	u64 base_store = loop_ns(call_store), t;
	struct perf_event * __percpu *wbp;
	struct perf_event_attr attr;

	pr_info("hit base_store %llu\n", div_u64(base_store, loops));
	hw_breakpoint_init(&attr);
	attr.bp_addr = (unsigned long)&kpb_wvar;
	attr.bp_len = HW_BREAKPOINT_LEN_8;
	attr.bp_type = HW_BREAKPOINT_W;
	wbp = register_wide_hw_breakpoint(&attr, wide_bp_count, NULL);
	if (!IS_ERR((void __force *)wbp)) {
		atomic_long_set(&hits, 0);
		t = loop_ns(call_store);
		unregister_wide_hw_breakpoint(wbp);
		report_hit("hwbp_w", t, base_store, 3L * loops);
	}
#ifdef CONFIG_WPROBES
	{
		struct wprobe wp = {
			.addr = &kpb_wvar, .len = 8, .type = WPROBE_W,
			.handler = wp_count,
		};

		if (!register_wprobe(&wp)) {
			atomic_long_set(&hits, 0);
			t = loop_ns(call_store);
			unregister_wprobe(&wp);
			report_hit("wprobe_w", t, base_store, 3L * loops);
		}
		memset(&wp, 0, sizeof(wp));
		wp.addr = kpb_short;
		wp.type = WPROBE_X;
		wp.handler = wp_count;
		if (!register_wprobe(&wp)) {
			atomic_long_set(&hits, 0);
			t = loop_ns(call_short);
			unregister_wprobe(&wp);
			report_hit("wprobe_x", t, base_short, 3L * loops);
		}
	}
#endif
}

/*
 * Ours arms an entry probe registered alone by a carrier (an int3, later a
 * jump, on the instruction after the fentry nop) unless
 * debug.kprobes-carriers is 0.  The ftrace rows are taken with it 0 (the
 * hook, as upstream has it), the carried rows with it 1.  Nothing on a
 * kernel without the file (upstream).
 */
static bool set_carriers(int on)
{
	struct file *f;
	char c = on ? '1' : '0';
	loff_t pos = 0;
	ssize_t n;

	f = filp_open("/proc/sys/debug/kprobes-carriers", O_WRONLY, 0);
	if (IS_ERR(f))
		return false;
	n = kernel_write(f, &c, 1, &pos);
	filp_close(f, NULL);
	return n == 1;
}

#if defined(KPROBES_ANEW) && defined(CONFIG_KPROBES_ON_FTRACE) && \
	defined(CONFIG_OPTPROBES)
/* the byte after the fentry nop: a carrier's int3 (0xcc) while it is one */
static u8 after_nop(struct kprobe *kp)
{
	u8 op = 0;

	copy_from_kernel_nofault(&op, (u8 *)kp->addr + MCOUNT_INSN_SIZE, 1);
	return op;
}

/*
 * An entry probe registered alone: on its carrier's int3 at once, then
 * where it settles: a jump (the optimizer) or, where none fits, the hook
 * (the background mover).
 */
static void hit_carried(const char *name, long (*fn)(long),
			long (**call)(long), u64 base)
{
	char row[48];
	struct kprobe kp;
	u64 t;
	int i;

	init_kp(&kp, fn, false);
	if (register_kprobe(&kp))
		return;
	if (after_nop(&kp) == 0xcc) {
		atomic_long_set(&hits, 0);
		t = loop_ns(*call);
		snprintf(row, sizeof(row), "%s_int3", name);
		report_hit(row, t, base, 3L * loops);
	}
	for (i = 0; i < 100 && !kprobe_optimized(&kp) && after_nop(&kp) == 0xcc; i++)
		msleep(20);
	pr_info("hit %s_state %s\n", name, kprobe_optimized(&kp) ? "optimized" :
		after_nop(&kp) == 0xcc ? "int3" : "ftrace");
	atomic_long_set(&hits, 0);
	t = loop_ns(*call);
	unregister_kprobe(&kp);
	report_hit(name, t, base, 3L * loops);
}
#endif

/* entry probes registered alone (carriers) */
static void hit_entry_alone(u64 base_c, u64 base_c2)
{
#if defined(KPROBES_ANEW) && defined(CONFIG_KPROBES_ON_FTRACE) && \
	defined(CONFIG_OPTPROBES)
	if (!set_carriers(1))
		return;
	/* not the hooks the ftrace rows left lingering (a quarter second) */
	msleep(600);
	hit_carried("kprobe_carried", kpb_c, &call_c, base_c);
	hit_carried("kprobe_carried_opt", kpb_c2, &call_c2, base_c2);
#endif
}

/*
 * phase=hit: per-hit cost of each kind of probe: loops calls of a target
 * with the probe, minus loops calls without it, over loops.
 */
static void phase_hit(void)
{
	u64 base_short = loop_ns(call_short), base_long = loop_ns(call_long);
	u64 base_c = loop_ns(call_c), base_c2 = loop_ns(call_c2), t;
	struct kretprobe rp;
	struct kprobe kp;
	int i, ret;

	pr_info("hit base_short %llu\n", div_u64(base_short, loops));
	pr_info("hit base_c %llu\n", div_u64(base_c, loops));
	/* the ftrace rows: the hook (set back to 1, the default, at the end) */
	set_carriers(0);

	/* int3 and a single-step: a post_handler rules out boost and jump */
	init_kp(&kp, kpb_short, true);
	if (!register_kprobe(&kp)) {
		atomic_long_set(&hits, 0);
		t = loop_ns(call_short);
		unregister_kprobe(&kp);
		report_hit("kprobe_int3", t, base_short, 3L * loops);
	}

	/* the same on a register move (ours emulates it: one trap) */
	init_kp(&kp, kpb_mov, true);
	if (!register_kprobe(&kp)) {
		atomic_long_set(&hits, 0);
		t = loop_ns(call_mov);
		unregister_kprobe(&kp);
		report_hit("kprobe_int3_mov", t, base_short, 3L * loops);
	}

	/* pre_handler only, where no jump fits: the booster's case */
	init_kp(&kp, kpb_short, false);
	if (!register_kprobe(&kp)) {
		atomic_long_set(&hits, 0);
		t = loop_ns(call_short);
		unregister_kprobe(&kp);
		report_hit("kprobe_boost", t, base_short, 3L * loops);
	}

	/* pre_handler only, room for a jump: optimized if the implementation can */
	init_kp(&kp, kpb_long, false);
	if (!register_kprobe(&kp)) {
		for (i = 0; i < 100 && !probe_is_jump(&kp); i++)
			msleep(20);
		pr_info("hit kprobe_opt_state %s\n",
			probe_is_jump(&kp) ? "optimized" : "not-optimized");
		atomic_long_set(&hits, 0);
		t = loop_ns(call_long);
		unregister_kprobe(&kp);
		report_hit("kprobe_opt", t, base_long, 3L * loops);
	}

	/* function entry of a C function: the ftrace site */
	init_kp(&kp, kpb_c, false);
	if (!register_kprobe(&kp)) {
		pr_info("hit kprobe_ftrace_state %s\n",
			kp.flags & KPROBE_FLAG_FTRACE ? "ftrace" : "int3");
		atomic_long_set(&hits, 0);
		t = loop_ns(call_c);
		unregister_kprobe(&kp);
		report_hit("kprobe_ftrace", t, base_c, 3L * loops);
	}
	hit_entry_alone(base_c, base_c2);
	/* the kretprobe rows' kpb_c: on the hook, as in the ftrace row */
	set_carriers(0);
	msleep(600);

	memset(&rp, 0, sizeof(rp));
	rp.kp.addr = (kprobe_opcode_t *)kpb_c;
	rp.handler = ret_count;
	rp.maxactive = 8;
	ret = register_kretprobe(&rp);
	if (!ret) {
		atomic_long_set(&hits, 0);
		t = loop_ns(call_c);
		unregister_kretprobe(&rp);
		report_hit("kretprobe", t, base_c, 3L * loops);
		pr_info("hit kretprobe_nmissed %d\n", rp.nmissed);
	}

	/* a kretprobe where a jump fits: kpb_long's entry, optimized if it can */
	memset(&rp, 0, sizeof(rp));
	rp.kp.addr = (kprobe_opcode_t *)kpb_long;
	rp.handler = ret_count;
	rp.maxactive = 8;
	if (!register_kretprobe(&rp)) {
		for (i = 0; i < 100 && !probe_is_jump(&rp.kp); i++)
			msleep(20);
		pr_info("hit kretprobe_opt_state %s\n",
			probe_is_jump(&rp.kp) ? "optimized" : "not-optimized");
		atomic_long_set(&hits, 0);
		t = loop_ns(call_long);
		unregister_kretprobe(&rp);
		report_hit("kretprobe_opt", t, base_long, 3L * loops);
	}

	memset(&rp, 0, sizeof(rp));
	rp.kp.addr = (kprobe_opcode_t *)kpb_c;
	rp.handler = ret_count;
	rp.maxactive = 8;
	init_kp(&kp, kpb_c, false);
	if (!register_kretprobe(&rp)) {
		if (!register_kprobe(&kp)) {
			atomic_long_set(&hits, 0);
			t = loop_ns(call_c);
			unregister_kprobe(&kp);
			report_hit("kprobe_kretprobe", t, base_c, 6L * loops);
		}
		unregister_kretprobe(&rp);
	}

	hit_watchpoints(base_short);

	/* two CPUs on one probe (the booster's case) */
	if (num_online_cpus() >= 2) {
		u64 base2 = pair_ns(call_short);

		init_kp(&kp, kpb_short, false);
		if (!register_kprobe(&kp)) {
			atomic_long_set(&hits, 0);
			t = pair_ns(call_short);
			unregister_kprobe(&kp);
			/* the per-hit figure of either CPU, hits from both */
			pr_info("hit kprobe_2cpu %llu\n",
				t > base2 ? div_u64(t - base2, loops) : 0);
			if (atomic_long_read(&hits) != 2L * loops)
				pr_info("hit kprobe_2cpu hits %ld want %ld\n",
					atomic_long_read(&hits), 2L * loops);
		}
	}
	set_carriers(1);
}

/* ---- registration ------------------------------------------------------------ */

/*
 * Before each timed step: the background work the step before queued (the
 * optimizer, lingering ftrace hooks, ours' carrier mover, freeing sites
 * after a grace period) runs out here, so that it is charged to no step
 * (both implementations have such work).
 */
static void kpb_settle(void)
{
	msleep(1000);
}

/*
 * Time register_kprobe() of each, unregister_kprobe() of each, then
 * register_kprobes() and unregister_kprobes() of those accepted.
 */
static void time_reg(const char *what, struct kprobe *kps, int count)
{
	struct kprobe **pp = kvmalloc_array(count, sizeof(*pp), GFP_KERNEL);
	int i, ok = 0, ret;
	u64 t0;

	if (!pp)
		return;
	kpb_settle();
	t0 = ktime_get_ns();
	for (i = 0; i < count; i++)
		if (!register_kprobe(&kps[i]))
			pp[ok++] = &kps[i];
	pr_info("reg %s %d register_one %llu\n", what, count, ktime_get_ns() - t0);
	if (ok != count)
		pr_info("reg %s %d accepted %d\n", what, count, ok);

	kpb_settle();
	t0 = ktime_get_ns();
	for (i = 0; i < ok; i++)
		unregister_kprobe(pp[i]);
	pr_info("reg %s %d unregister_one %llu\n", what, count, ktime_get_ns() - t0);

	for (i = 0; i < ok; i++) {	/* reusable, as the API allows */
		pp[i]->flags = 0;
		pp[i]->nmissed = 0;
		if (pp[i]->symbol_name)	/* register filled in addr */
			pp[i]->addr = NULL;
	}
	kpb_settle();
	t0 = ktime_get_ns();
	ret = register_kprobes(pp, ok);
	pr_info("reg %s %d register_batch %llu\n", what, count, ktime_get_ns() - t0);
	if (ret) {
		pr_info("reg %s %d register_batch error %d\n", what, count, ret);
	} else {
		kpb_settle();
	t0 = ktime_get_ns();
		unregister_kprobes(pp, ok);
		pr_info("reg %s %d unregister_batch %llu\n", what, count,
			ktime_get_ns() - t0);
	}
	kvfree(pp);
}

/* Read FILE: an array of symbol names, at most max of them. */
static char **read_names(const char *path, int max, int *count, void **buf)
{
	size_t size = 0;
	char **names, *p, *s;
	int ret, c = 0;

	*buf = NULL;
	ret = kernel_read_file_from_path(path, 0, buf, INT_MAX, &size,
					 READING_UNKNOWN);
	if (ret < 0) {
		pr_info("cannot read %s: %d\n", path, ret);
		return NULL;
	}
	names = kvmalloc_array(max, sizeof(*names), GFP_KERNEL);
	if (!names) {
		vfree(*buf);
		return NULL;
	}
	p = *buf;
	p[size - 1] = '\0';
	while (c < max && (s = strsep(&p, "\n")) != NULL) {
		if (*s)
			names[c++] = s;
	}
	*count = c;
	return names;
}

/*
 * phase=reg: register/unregister n probes one by one and with the batch
 * calls, on module functions (kpb_fn_table) and, given funcs=FILE (one
 * symbol a line), on kernel functions.
 */
static void phase_reg(void)
{
	struct kprobe *kps;
	int i, count = min(n, kpb_nfuncs);
	char **names;
	void *buf;

	kps = kvcalloc(count, sizeof(*kps), GFP_KERNEL);
	if (!kps)
		return;
	for (i = 0; i < count; i++)
		init_kp(&kps[i], (void *)kpb_fn_table[i], false);
	time_reg("module", kps, count);

	if (funcs) {
		names = read_names(funcs, n, &count, &buf);
		if (names) {
			memset(kps, 0, sizeof(*kps) * count);
			for (i = 0; i < count; i++) {
				kps[i].symbol_name = names[i];
				kps[i].pre_handler = pre_count;
			}
			time_reg("kernel", kps, count);
			kvfree(names);
			vfree(buf);
		}
	}
	kvfree(kps);
}

/* ---- scale ------------------------------------------------------------------- */

static struct kprobe *scale_kps;
static struct kprobe **scale_pp;
static int scale_armed;
static void *scale_buf;

/*
 * Register in batches of SCALE_CHUNK (a refused batch is retried one by
 * one, so one refusal does not cost the others), until every candidate
 * is tried or budget_s seconds of guest time are spent.
 */
#define SCALE_CHUNK 500

static int budget_s = 240;
module_param(budget_s, int, 0444);

static int scale_chunk(struct kprobe *kps, int count, int *refused)
{
	struct kprobe **pp = &scale_pp[scale_armed];
	int i, ret, ok = 0;

	for (i = 0; i < count; i++)
		pp[i] = &kps[i];
	if (!register_kprobes(pp, count))
		return count;
	for (i = 0; i < count; i++) {
		const char *name = kps[i].symbol_name;

		memset(&kps[i], 0, sizeof(kps[i]));
		kps[i].symbol_name = name;
		kps[i].pre_handler = pre_count;
		ret = register_kprobe(&kps[i]);
		if (!ret) {
			pp[ok++] = &kps[i];
			continue;
		}
		refused[ret == -EINVAL ? 0 : ret == -EBUSY ? 1 : ret == -EILSEQ ? 2 :
			ret == -ENOENT ? 3 : 4]++;
		if (ret != -EINVAL && ret != -EBUSY && ret != -EILSEQ && ret != -ENOENT)
			pr_info("scale refused %s: %d\n", name, ret);
	}
	return ok;
}

/*
 * phase=scale funcs=FILE: a kprobe on every function of FILE the
 * implementation accepts (batches of SCALE_CHUNK, within budget_s
 * seconds), left armed, counting hits, until the module is removed
 * (scale_done()); the counts by errno are printed.
 */
static void phase_scale(void)
{
	int i, count, tried = 0, refused[5] = { 0 };	/* EINVAL EBUSY EILSEQ ENOENT other */
	char **names;
	u64 t0;

	if (!funcs)
		return;
	names = read_names(funcs, 1 << 20, &count, &scale_buf);
	if (!names)
		return;
	scale_kps = kvcalloc(count, sizeof(*scale_kps), GFP_KERNEL);
	scale_pp = kvmalloc_array(count, sizeof(*scale_pp), GFP_KERNEL);
	if (!scale_kps || !scale_pp)
		goto out;
	for (i = 0; i < count; i++) {
		scale_kps[i].symbol_name = names[i];
		scale_kps[i].pre_handler = pre_count;
	}
	t0 = ktime_get_ns();
	while (tried < count &&
	       ktime_get_ns() - t0 < (u64)budget_s * NSEC_PER_SEC) {
		int c = min(SCALE_CHUNK, count - tried);

		/* armed probes are packed at the front of scale_pp */
		scale_armed += scale_chunk(&scale_kps[tried], c, refused);
		tried += c;
	}
	pr_info("scale candidates %d tried %d armed %d ns %llu\n", count, tried,
		scale_armed, ktime_get_ns() - t0);
	pr_info("scale refused EINVAL %d EBUSY %d EILSEQ %d ENOENT %d other %d\n",
		refused[0], refused[1], refused[2], refused[3], refused[4]);
	atomic_long_set(&hits, 0);
out:
	kvfree(names);
}

static void scale_done(void)
{
	long missed = 0;
	u64 t0;
	int i;

	if (!scale_armed)
		return;
	for (i = 0; i < scale_armed; i++)
		missed += scale_pp[i]->nmissed;
	pr_info("scale hits %ld nmissed %ld\n", atomic_long_read(&hits), missed);
	t0 = ktime_get_ns();
	unregister_kprobes(scale_pp, scale_armed);
	pr_info("scale unregister_batch %d ns %llu\n", scale_armed,
		ktime_get_ns() - t0);
}

static int __init kpb_init(void)
{
	if (!strcmp(phase, "hit"))
		phase_hit();
	else if (!strcmp(phase, "reg"))
		phase_reg();
	else if (!strcmp(phase, "scale"))
		phase_scale();
	pr_info("done %s\n", phase);
	return 0;
}

static void __exit kpb_exit(void)
{
	scale_done();
	kvfree(scale_pp);
	kvfree(scale_kps);
	vfree(scale_buf);
}

module_init(kpb_init);
module_exit(kpb_exit);
MODULE_DESCRIPTION("kprobes benchmark: per-hit and registration cost");
MODULE_LICENSE("GPL");
