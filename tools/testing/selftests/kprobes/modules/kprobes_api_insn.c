// SPDX-License-Identifier: GPL-2.0
/*
 * kprobes_api, x86: what a hit does to the probed instruction: faults in
 * its out-of-line copy or in a handler, boosting against single-stepping,
 * and the instructions kprobes emulates.
 */
#define pr_fmt(fmt) fmt

#include <linux/kprobes.h>
#include <linux/ptrace.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "kprobes_api.h"

long (*call_load)(long *) = kpt_asm_load;
long (*call_branch)(long, long (*)(void)) = kpt_asm_branch;
long (*helper_fn)(void) = kpt_asm_helper;

/*
 * A fault in the out-of-line copy is a fault of the original instruction:
 * its exception-table fixup applies, no post_handler runs, and nothing is
 * left of the hit (the next hit runs its handlers normally).
 */
/* once with a post_handler (single-step), once without (may be boosted) */
static int fault_in_copy(bool post)
{
	struct kprobe kp;
	long good = 4242;
	/* a vmalloc area's guard page: kernel address, never mapped (#PF) */
	char *area = vmalloc(PAGE_SIZE);
	long *bad = (long *)(area + PAGE_SIZE);

	if (!KPT_EXPECT(area))

		return 1;

	init_probe(&kp);
	kp.addr = (kprobe_opcode_t *)((char *)call_load + kpt_asm_load_off);
	kp.pre_handler = pre_record;
	kp.post_handler = post ? post_record : NULL;
	reset();
	if (!KPT_EXPECT_EQ(register_kprobe(&kp), 0))
		return 1;
	KPT_EXPECT_EQ(call_load(&good), 4242);
	KPT_EXPECT(h.pre == 1 && h.post == post);
	if (post)
		KPT_EXPECT_EQ(h.post_ax, 4242);

	KPT_EXPECT_EQ(call_load(bad), -EFAULT);
	KPT_EXPECT_EQ(h.pre, 2);	/* the probe was hit */
	KPT_EXPECT_EQ(h.post, post);	/* the instruction did not complete */

	/* a frame left behind would make this a re-entry: no handlers */
	KPT_EXPECT_EQ(call_load(&good), 4242);
	KPT_EXPECT(h.pre == 3 && h.post == 2 * post);

	unregister_kprobe(&kp);
	vfree(area);
	KPT_EXPECT_EQ(kp.nmissed, 0);
	return kpt_failed;
}

/*
 * A fault in the copied instruction, whose original has an exception-table
 * fixup, is fixed up as if the original had faulted; without a
 * post_handler too (such an instruction is never boosted: the fixup is
 * known only for the original address).
 */
int t_fault_in_single_step(void)
{
	fault_in_copy(true);
	fault_in_copy(false);
	return kpt_failed;
}

/*
 * Pre-only probes may be boosted (no second trap); with a post_handler they
 * single-step.  Both must leave the same registers and results, the
 * RIP-relative load included (its copy's displacement is fixed).
 */
/* which of the two probes' post_handlers ran (if one does not, say which) */
static int agree_post[2];

static void agree_post_kp(struct kprobe *p, struct pt_regs *regs,
			  unsigned long flags)
{
	agree_post[0]++;
	post_record(p, regs, flags);
}

static void agree_post_kr(struct kprobe *p, struct pt_regs *regs,
			  unsigned long flags)
{
	agree_post[1]++;
	post_record(p, regs, flags);
}

int t_boost_and_single_step_agree(void)
{
	long (*call_riprel)(long) = kpt_asm_riprel;
	unsigned long ax[2], di[2];
	struct kprobe kp, kr;
	int post;

	OPTIMIZER_HIDE_VAR(call_riprel);	/* a real call to it */
	for (post = 0; post < 2; post++) {
		init_probe(&kp);
		kp.addr = (kprobe_opcode_t *)kpt_asm_add;
		kp.pre_handler = pre_record;
		kp.post_handler = post ? agree_post_kp : NULL;
		init_probe(&kr);
		kr.addr = (kprobe_opcode_t *)call_riprel;
		kr.pre_handler = pre_record;
		kr.post_handler = post ? agree_post_kr : NULL;
		if (!KPT_EXPECT_EQ(register_kprobe(&kp), 0))
			return 1;
		if (register_kprobe(&kr)) {
			unregister_kprobe(&kp);
			if (!KPT_EXPECT(0))
				return 1;
		}
		reset();
		agree_post[0] = 0;
		agree_post[1] = 0;
		KPT_EXPECT_EQ(call_asm(5), KPT_ASM_BASE + 5);
		ax[post] = h.pre_ax;
		di[post] = h.pre_x;
		KPT_EXPECT_EQ(call_riprel(7), KPT_RIPREL_VAL + 7);
		KPT_EXPECT_EQ(h.pre, 2);
		KPT_EXPECT_EQ(h.post, 2 * post);
		KPT_EXPECT_EQ(agree_post[0], post);	/* the add's */
		KPT_EXPECT_EQ(agree_post[1], post);	/* the RIP-relative load's */
		if (post)	/* after the load: its register holds the value */
			KPT_EXPECT_EQ(h.post_load, KPT_RIPREL_VAL);
		/* many hits in a row: a boosted copy always comes back */
		KPT_EXPECT_EQ(call_asm(-1), KPT_ASM_BASE - 1);
		KPT_EXPECT_EQ(call_riprel(-7), KPT_RIPREL_VAL - 7);
		unregister_kprobe(&kr);
		unregister_kprobe(&kp);
		KPT_EXPECT_EQ(kp.nmissed + kr.nmissed, 0);
	}
	KPT_EXPECT_EQ(ax[0], ax[1]);
	KPT_EXPECT_EQ(di[0], 5);
	KPT_EXPECT_EQ(di[1], 5);
	return kpt_failed;
}

/*
 * #GP in the copy (a non-canonical address): 6.12's #GP path tries the
 * exception fixups before asking kprobes, so we apply the original
 * instruction's fixup ourselves.  Upstream does not (it would die here).
 */
int t_gp_in_single_step(void)
{
#ifdef CONFIG_X86_64
	long *noncanon = (long *)0x8000000000000000UL;
#else
	long *noncanon = NULL;
#endif
	struct kprobe kp;
	long good = 77;

	if (!IS_ENABLED(CONFIG_X86_64))
		return KPT_SKIP_BECAUSE("32-bit x86 has no non-canonical address to #GP on");
	if (upstream)
		return KPT_SKIP_BECAUSE("upstream dies on a #GP in the copy (not run)");
	init_probe(&kp);
	kp.addr = (kprobe_opcode_t *)((char *)call_load + kpt_asm_load_off);
	kp.pre_handler = pre_record;
	kp.post_handler = post_record;
	reset();
	if (!KPT_EXPECT_EQ(register_kprobe(&kp), 0))
		return 1;
	KPT_EXPECT_EQ(call_load(noncanon), -EFAULT);
	KPT_EXPECT(h.pre == 1 && h.post == 0);
	KPT_EXPECT_EQ(call_load(&good), 77);
	KPT_EXPECT(h.pre == 2 && h.post == 1);
	unregister_kprobe(&kp);
	return kpt_failed;
}

/*
 * Each IP-changing instruction, probed (kprobes emulates them): results
 * unchanged, pre and post handlers run, and the post_handler sees ip
 * where the instruction sent it.
 */
static int branch_case(int which, long x, unsigned long want_ip)
{
	char *base = (char *)call_branch;
	struct kprobe kp;
	long want = x ? x + 3 : 100;
	int ret;

	init_probe(&kp);
	kp.addr = (kprobe_opcode_t *)(which == H_RET ?
		(char *)helper_fn + kpt_branch_off[H_RET] :
		base + kpt_branch_off[which]);
	kp.pre_handler = pre_record;
	kp.post_handler = post_record;
	reset();
	ret = register_kprobe(&kp);
	if (ret) {
		pr_info("# register at case %d (offset %d): %d\n", which,
			kpt_branch_off[which], ret);
		kpt_failed = 1;
		return ret;
	}
	KPT_EXPECT_EQ(call_branch(x, helper_fn), want);
	unregister_kprobe(&kp);
	KPT_EXPECT(h.pre >= 1 && h.post == h.pre);
	if (want_ip && !KPT_EXPECT_EQ(h.post_ip, want_ip))
		pr_info("# probe at offset %d of case %d\n", kpt_branch_off[which], which);
	return kpt_failed;
}

int t_emulated_instructions(void)
{
	char *base = (char *)call_branch;
	unsigned long helper = (unsigned long)helper_fn;
	u8 *ret_site;

	branch_case(B_JZ, 5, (unsigned long)base + kpt_branch_off[B_CALL]);
	branch_case(B_JZ, 0, (unsigned long)base + kpt_branch_off[B_ZERO]);
	branch_case(B_CALL, 5, helper);
	branch_case(B_ICR, 5, helper);
	branch_case(B_JMP, 5, (unsigned long)base + kpt_branch_off[B_OUT]);
	/*
	 * The helper's RET, hit three times, returns to three call sites.
	 * Where the CPU needs a return thunk (Retbleed, SRSO), alternatives
	 * left RET as built: a jmp to the thunk, which is where it goes.
	 */
	branch_case(H_RET, 5, 0);
	KPT_EXPECT_EQ(h.pre, 3);
	ret_site = (u8 *)helper + kpt_branch_off[H_RET];
	if (*ret_site == 0xe9) {
		pr_info("# the helper's RET is a jmp to %ps\n",
			ret_site + 5 + *(s32 *)(ret_site + 1));
		KPT_EXPECT_EQ(h.post_ip, (unsigned long)ret_site + 5 +
			      *(s32 *)(ret_site + 1));
	} else {
		KPT_EXPECT_EQ(*ret_site, 0xc3);
		KPT_EXPECT_EQ(h.post_ip, (unsigned long)base + kpt_branch_off[B_JMP]);
	}
	return kpt_failed;
}

/* call *mem (rip-relative): ours emulates it, loading the target */
/* registers before and after one transfer instruction */
static struct { unsigned long sp, bp, di, ax, cx, r8, top; int n; } xf[2];

static int pre_xfer(struct kprobe *p, struct pt_regs *regs)
{
	xf[0] = (typeof(xf[0])){ regs->sp, regs->bp, regs->di, regs->ax,
				 regs->cx, KPT_XFER_R8(regs), 0, xf[0].n + 1 };
	return 0;
}

static void post_xfer(struct kprobe *p, struct pt_regs *regs,
		      unsigned long flags)
{
	xf[1] = (typeof(xf[1])){ regs->sp, regs->bp, regs->di, regs->ax,
				 regs->cx, KPT_XFER_R8(regs),
				 *(unsigned long *)regs->sp, xf[1].n + 1 };
}

/*
 * Register pushes and moves (ours emulates them: one trap even with a
 * post_handler; upstream single-steps them): the post_handler sees
 * exactly what the instruction did, and the function's result holds.
 */
int t_emulated_transfers(void)
{
	long (*call_xfer)(long) = kpt_asm_xfer;
	const long x = KPT_XFER_X;
	struct kprobe kp;
	int i;

	OPTIMIZER_HIDE_VAR(call_xfer);	/* a real call to it */
	for (i = X_PUSH; i <= X_MOVR8; i++) {
		init_probe(&kp);
		kp.addr = (kprobe_opcode_t *)((char *)call_xfer + kpt_xfer_off[i]);
		kp.pre_handler = pre_xfer;
		kp.post_handler = post_xfer;
		memset(xf, 0, sizeof(xf));
		if (!KPT_EXPECT_EQ(register_kprobe(&kp), 0))
			return 1;
		KPT_EXPECT_EQ(call_xfer(x), 6);
		unregister_kprobe(&kp);
		if (!KPT_EXPECT(xf[0].n == 1 && xf[1].n == 1))
			continue;
		switch (i) {
		case X_PUSH:
			KPT_EXPECT_EQ(xf[1].sp, xf[0].sp - sizeof(long));
			KPT_EXPECT_EQ(xf[1].top, xf[0].bp);
			break;
		case X_MOV89:
			KPT_EXPECT_EQ(xf[1].bp, x);
			KPT_EXPECT_EQ(xf[1].sp, xf[0].sp);
			break;
		case X_MOV8B:
			KPT_EXPECT_EQ(xf[1].ax, x);
			break;
		case X_MOV32:
			KPT_EXPECT_EQ(xf[1].cx, 5);	/* upper half cleared */
			break;
		case X_MOVR8:
			KPT_EXPECT_EQ(xf[1].r8, 5);
			KPT_EXPECT_EQ(xf[1].cx, xf[0].cx);
			break;
		}
		KPT_EXPECT_EQ(kp.nmissed, 0);
	}
	return kpt_failed;
}

int t_emulated_indirect_call_mem(void)
{
	int ret = branch_case(B_ICM, 5, (unsigned long)helper_fn);

	if (upstream && ret == -EOPNOTSUPP) {
		kpt_failed = 0;
		return KPT_SKIP_BECAUSE("upstream refuses to probe call *mem (-EOPNOTSUPP)");
	}
	KPT_EXPECT_EQ(ret, 0);
	return kpt_failed;
}

/* A handler may use the nofault accessors: their faults are its own. */
static long nofault_result;
static void *nofault_addr;

static int pre_nofault(struct kprobe *p, struct pt_regs *regs)
{
	long v;

	h.pre++;
	nofault_result = copy_from_kernel_nofault(&v, nofault_addr, sizeof(v));
	return 0;
}

int t_fault_in_handler(void)
{
	char *area = vmalloc(PAGE_SIZE);
	struct kprobe kp;

	if (!KPT_EXPECT(area))

		return 1;
	nofault_addr = area + PAGE_SIZE;	/* the guard page: it faults */
	init_probe(&kp);
	kp.addr = (kprobe_opcode_t *)kpt_asm_add;
	kp.pre_handler = pre_nofault;
	kp.post_handler = post_record;
	reset();
	nofault_result = 0;
	if (!KPT_EXPECT_EQ(register_kprobe(&kp), 0)) {
		vfree(area);
		return 1;
	}
	KPT_EXPECT_EQ(call_asm(1), KPT_ASM_BASE + 1);
	unregister_kprobe(&kp);
	vfree(area);
	KPT_EXPECT_EQ(h.pre, 1);
	KPT_EXPECT_EQ(nofault_result, -EFAULT);
	KPT_EXPECT_EQ(h.post, 1);	/* the probed insn still completed */
	return kpt_failed;
}
