// SPDX-License-Identifier: GPL-2.0
/*
 * kprobes_stress, the phases at scale: "everything" (a kprobe on every
 * function of funcs=, in batches) and "sweep" (a kprobe at every
 * instruction boundary of sweep_funcs= functions); kprobes_stress_main.c
 * says what each checks.  Their probes stay armed until rmmod, when
 * many_release() and sweep_release() report and remove them.
 */
#define pr_fmt(fmt) "kprobes_stress: " fmt

#include <linux/module.h>
#include <linux/kprobes.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/fs.h>
#include <linux/kernel_read_file.h>
#include <linux/atomic.h>
#include <linux/kallsyms.h>
#include <linux/bitmap.h>
#include <asm/insn.h>

#include "kprobes_stress.h"

static char *funcs;
module_param(funcs, charp, 0444);
static int budget_s = 120;
module_param(budget_s, int, 0444);
static int kret_every;
module_param(kret_every, int, 0444);

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

int phase_everything(void)
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

void many_release(void)
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

int phase_sweep(void)
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
void sweep_release(void)
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
