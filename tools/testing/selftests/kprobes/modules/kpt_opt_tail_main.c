// SPDX-License-Identifier: GPL-2.0
/*
 * kpt_opt_tail: may a probe on the last function of a module's text be
 * optimized?  Everything here is init code, so the target
 * (kpt_opt_tail_target.S) is alone in .text.  The init registers a
 * pre-only probe on it, waits up to 2 s for the optimizer's jump, calls
 * the target, prints one line for opt.sh
 *
 *   kpt_opt_tail: <optimized|not optimized>, result <n>, hits <n>
 *
 * or "kpt_opt_tail: register_kprobe: <errno>" if the probe was refused,
 * and fails with -EAGAIN so that nothing stays loaded.
 */
#include <linux/module.h>
#include <linux/kprobes.h>
#include <linux/delay.h>

long kpot_target(long x);

#define KPOT_JMP32	0xe9	/* the optimizer's jump: jmp rel32 */

long (*call_target)(long) __initdata = kpot_target;
static int hits __initdata;

static int __init kpot_pre(struct kprobe *p, struct pt_regs *regs)
{
	hits++;
	return 0;
}

static int __init kpot_init(void)
{
	struct kprobe kp = {
		.addr = (kprobe_opcode_t *)kpot_target,
		.pre_handler = kpot_pre,
	};
	bool jump;
	long r;
	int i, ret;

	ret = register_kprobe(&kp);
	if (ret) {
		pr_info("kpt_opt_tail: register_kprobe: %d\n", ret);
		return -EAGAIN;
	}
	for (i = 0; i < 100 && *(u8 *)kp.addr != KPOT_JMP32; i++)
		msleep(20);
	jump = *(u8 *)kp.addr == KPOT_JMP32;
	r = call_target(10);
	unregister_kprobe(&kp);
	pr_info("kpt_opt_tail: %s, result %ld, hits %d\n",
		jump ? "optimized" : "not optimized", r, hits);
	return -EAGAIN;
}

module_init(kpot_init);
MODULE_DESCRIPTION("kprobes test: optimizing the last function of a module");
MODULE_LICENSE("GPL");
