// SPDX-License-Identifier: GPL-2.0
/*
 * kprobes_itrace: hold one probe and call its function in a loop, so that
 * harness/itrace.sh can log every guest instruction of a few hits (QEMU's
 * exec log, switched on from its monitor) and count them per function.
 *
 *   what=int3|mov|boost|opt|ftrace|kretprobe|kprobe_kretprobe
 *                                              the bench's cases
 *   secs=N                                     how long to loop
 *
 * It prints "itrace: <symbol> <address>" for its own functions and the
 * target (named by what=), then "itrace: loop" once the probe is in place
 * (and optimized, where asked and possible), and "itrace: done <hits>".
 */
#include <linux/module.h>
#include <linux/kprobes.h>
#include <linux/delay.h>
#include <linux/jiffies.h>

#include "kprobes_itrace_targets.h"

static char *what = "boost";
module_param(what, charp, 0444);
static int secs = 20;
module_param(secs, int, 0444);

static atomic_long_t hits;

static int kit_pre(struct kprobe *p, struct pt_regs *regs)
{
	atomic_long_inc(&hits);
	return 0;
}

static void kit_post(struct kprobe *p, struct pt_regs *regs, unsigned long flags)
{
}

static int kit_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	atomic_long_inc(&hits);
	return 0;
}

/* a C function: its fentry call is the ftrace site */
long kit_c(long x);

noinline long kit_c(long x)
{
	return x + 1;
}

/* the loop's one call, kept out of line: the mark of one iteration */
static noinline long kit_call(long (*fn)(long), long x)
{
	return fn(x);
}

static struct kprobe kp;
static struct kretprobe rp;

static int __init kit_init(void);

static struct {
	const char *name;
	void *addr;
} syms[] __initdata = {
	{ "kit_call" }, { "kit_init" }, { "kit_pre" }, { "kit_post" },
	{ "kit_ret" }, { "target" },
};

static int __init kit_init(void)
{
	long (*fn)(long) = kit_short;
	unsigned long end;
	long x = 0;
	int ret, i;

	kp.pre_handler = kit_pre;
	if (!strcmp(what, "int3")) {
		kp.post_handler = kit_post;
	} else if (!strcmp(what, "mov")) {
		kp.post_handler = kit_post;
		fn = kit_mov;
	} else if (!strcmp(what, "opt")) {
		fn = kit_long;
	} else if (!strcmp(what, "ftrace") || !strcmp(what, "kretprobe") ||
		   !strcmp(what, "kprobe_kretprobe")) {
		fn = kit_c;
	} else if (strcmp(what, "boost")) {
		return -EINVAL;
	}
	if (strstr(what, "kretprobe")) {
		rp.kp.addr = (kprobe_opcode_t *)fn;
		rp.handler = kit_ret;
		rp.maxactive = 8;
		ret = register_kretprobe(&rp);
		if (ret)
			return ret;
	}
	if (strcmp(what, "kretprobe")) {
		kp.addr = (kprobe_opcode_t *)fn;
		ret = register_kprobe(&kp);
		if (ret) {
			if (strstr(what, "kretprobe"))
				unregister_kretprobe(&rp);
			return ret;
		}
	}
	/* optimizers run within a few jiffies (kp.addr is past any endbr) */
	for (i = 0; i < 100 && !strcmp(what, "opt") && *(u8 *)kp.addr != 0xe9; i++)
		msleep(20);
	if (!strcmp(what, "opt"))
		pr_info("itrace: %s\n", *(u8 *)kp.addr == 0xe9 ? "optimized" : "not optimized");
	/* the raw addresses are the point: the host names the log's by them */
	syms[0].addr = kit_call;
	syms[1].addr = kit_init;
	syms[2].addr = kit_pre;
	syms[3].addr = kit_post;
	syms[4].addr = kit_ret;
	syms[5].name = what;
	syms[5].addr = fn;
	for (i = 0; i < ARRAY_SIZE(syms); i++)
		pr_info("itrace: %s %016lx\n", syms[i].name,
			(unsigned long)syms[i].addr);
	pr_info("itrace: loop\n");
	end = jiffies + secs * HZ;
	while (time_before(jiffies, end)) {
		for (i = 0; i < 1000; i++)
			x = kit_call(fn, x);
		cond_resched();
	}
	if (strcmp(what, "kretprobe"))
		unregister_kprobe(&kp);
	if (strstr(what, "kretprobe"))
		unregister_kretprobe(&rp);
	pr_info("itrace: done %ld\n", atomic_long_read(&hits));
	return -EAGAIN;	/* nothing to keep loaded */
}

module_init(kit_init);
MODULE_DESCRIPTION("kprobes instruction-trace helper");
MODULE_LICENSE("GPL");
