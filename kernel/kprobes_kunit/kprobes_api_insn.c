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

long (*kpt_call_load)(long *) = kpt_asm_load;
long (*kpt_call_branch)(long, long (*)(void)) = kpt_asm_branch;
long (*kpt_helper_fn)(void) = kpt_asm_helper;

/*
 * A fault in the out-of-line copy is a fault of the original instruction:
 * its exception-table fixup applies, no post_handler runs, and nothing is
 * left of the hit (the next hit runs its handlers normally).
 */
/* once with a post_handler (single-step), once without (may be boosted) */
static void fault_in_copy(struct kunit *test, bool post)
{
	struct kprobe kp;
	long good = 4242;
	/* a vmalloc area's guard page: kernel address, never mapped (#PF) */
	char *area = vmalloc(PAGE_SIZE);
	long *bad = (long *)(area + PAGE_SIZE);

	if (!KPT_CHECK(test, area))
		return;

	kpt_init_probe(&kp);
	kp.addr = (kprobe_opcode_t *)((char *)kpt_call_load + kpt_asm_load_off);
	kp.pre_handler = kpt_pre_record;
	kp.post_handler = post ? kpt_post_record : NULL;
	kpt_reset();
	if (!KPT_CHECK_EQ(test, register_kprobe(&kp), 0)) {
		vfree(area);
		return;
	}
	KUNIT_EXPECT_EQ(test, kpt_call_load(&good), 4242);
	KUNIT_EXPECT_TRUE(test, kpt_h.pre == 1 && kpt_h.post == post);
	if (post)
		KUNIT_EXPECT_EQ(test, kpt_h.post_ax, 4242);

	KUNIT_EXPECT_EQ(test, kpt_call_load(bad), -EFAULT);
	KUNIT_EXPECT_EQ(test, kpt_h.pre, 2);	/* the probe was hit */
	KUNIT_EXPECT_EQ(test, kpt_h.post, post);	/* the instruction did not complete */

	/* a frame left behind would make this a re-entry: no handlers */
	KUNIT_EXPECT_EQ(test, kpt_call_load(&good), 4242);
	KUNIT_EXPECT_TRUE(test, kpt_h.pre == 3 && kpt_h.post == 2 * post);

	unregister_kprobe(&kp);
	vfree(area);
	KUNIT_EXPECT_EQ(test, kp.nmissed, 0);
}

/*
 * A fault in the copied instruction, whose original has an exception-table
 * fixup, is fixed up as if the original had faulted; without a
 * post_handler too (such an instruction is never boosted: the fixup is
 * known only for the original address).
 */
void kpt_fault_in_single_step(struct kunit *test)
{
	fault_in_copy(test, true);
	fault_in_copy(test, false);
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
	kpt_post_record(p, regs, flags);
}

static void agree_post_kr(struct kprobe *p, struct pt_regs *regs,
			  unsigned long flags)
{
	agree_post[1]++;
	kpt_post_record(p, regs, flags);
}

void kpt_boost_and_single_step_agree(struct kunit *test)
{
	long (*call_riprel)(long) = kpt_asm_riprel;
	unsigned long ax[2], di[2];
	struct kprobe kp, kr;
	int post, ret;

	OPTIMIZER_HIDE_VAR(call_riprel);	/* a real call to it */
	for (post = 0; post < 2; post++) {
		kpt_init_probe(&kp);
		kp.addr = (kprobe_opcode_t *)kpt_asm_add;
		kp.pre_handler = kpt_pre_record;
		kp.post_handler = post ? agree_post_kp : NULL;
		kpt_init_probe(&kr);
		kr.addr = (kprobe_opcode_t *)call_riprel;
		kr.pre_handler = kpt_pre_record;
		kr.post_handler = post ? agree_post_kr : NULL;
		KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
		ret = register_kprobe(&kr);
		if (ret) {
			unregister_kprobe(&kp);
			KUNIT_FAIL(test, "register_kprobe() at %pS: %d", kr.addr, ret);
			return;
		}
		kpt_reset();
		agree_post[0] = 0;
		agree_post[1] = 0;
		KUNIT_EXPECT_EQ(test, kpt_call_asm(5), KPT_ASM_BASE + 5);
		ax[post] = kpt_h.pre_ax;
		di[post] = kpt_h.pre_x;
		KUNIT_EXPECT_EQ(test, call_riprel(7), KPT_RIPREL_VAL + 7);
		KUNIT_EXPECT_EQ(test, kpt_h.pre, 2);
		KUNIT_EXPECT_EQ(test, kpt_h.post, 2 * post);
		KUNIT_EXPECT_EQ(test, agree_post[0], post);	/* the add's */
		KUNIT_EXPECT_EQ(test, agree_post[1], post);	/* the RIP-relative load's */
		if (post)	/* after the load: its register holds the value */
			KUNIT_EXPECT_EQ(test, kpt_h.post_load, KPT_RIPREL_VAL);
		/* many hits in a row: a boosted copy always comes back */
		KUNIT_EXPECT_EQ(test, kpt_call_asm(-1), KPT_ASM_BASE - 1);
		KUNIT_EXPECT_EQ(test, call_riprel(-7), KPT_RIPREL_VAL - 7);
		unregister_kprobe(&kr);
		unregister_kprobe(&kp);
		KUNIT_EXPECT_EQ(test, kp.nmissed + kr.nmissed, 0);
	}
	KUNIT_EXPECT_EQ(test, ax[0], ax[1]);
	KUNIT_EXPECT_EQ(test, di[0], 5);
	KUNIT_EXPECT_EQ(test, di[1], 5);
}

/*
 * #GP in the copy (a non-canonical address): 6.12's #GP path tries the
 * exception fixups before asking kprobes, so we apply the original
 * instruction's fixup ourselves.  Upstream does not (it would die here).
 */
void kpt_gp_in_single_step(struct kunit *test)
{
#ifdef CONFIG_X86_64
	long *noncanon = (long *)0x8000000000000000UL;
#else
	long *noncanon = NULL;
#endif
	struct kprobe kp;
	long good = 77;

	if (!IS_ENABLED(CONFIG_X86_64))
		kunit_skip(test, "32-bit x86 has no non-canonical address to #GP on");
	if (upstream)
		kunit_skip(test, "upstream dies on a #GP in the copy (not run)");
	kpt_init_probe(&kp);
	kp.addr = (kprobe_opcode_t *)((char *)kpt_call_load + kpt_asm_load_off);
	kp.pre_handler = kpt_pre_record;
	kp.post_handler = kpt_post_record;
	kpt_reset();
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_EQ(test, kpt_call_load(noncanon), -EFAULT);
	KUNIT_EXPECT_TRUE(test, kpt_h.pre == 1 && kpt_h.post == 0);
	KUNIT_EXPECT_EQ(test, kpt_call_load(&good), 77);
	KUNIT_EXPECT_TRUE(test, kpt_h.pre == 2 && kpt_h.post == 1);
	unregister_kprobe(&kp);
}

/*
 * Each IP-changing instruction, probed (kprobes emulates them): results
 * unchanged, pre and post handlers run, and the post_handler sees ip
 * where the instruction sent it.
 */
/* what registering the probe returned: the caller expects it or not */
static int branch_case(struct kunit *test, int which, long x,
		       unsigned long want_ip)
{
	char *base = (char *)kpt_call_branch;
	struct kprobe kp;
	long want = x ? x + 3 : 100;
	int ret;

	kpt_init_probe(&kp);
	kp.addr = (kprobe_opcode_t *)(which == H_RET ?
		(char *)kpt_helper_fn + kpt_branch_off[H_RET] :
		base + kpt_branch_off[which]);
	kp.pre_handler = kpt_pre_record;
	kp.post_handler = kpt_post_record;
	kpt_reset();
	ret = register_kprobe(&kp);
	if (ret) {
		kunit_info(test, "register at case %d (offset %d): %d\n", which,
			   kpt_branch_off[which], ret);
		return ret;
	}
	KUNIT_EXPECT_EQ(test, kpt_call_branch(x, kpt_helper_fn), want);
	unregister_kprobe(&kp);
	KUNIT_EXPECT_TRUE(test, kpt_h.pre >= 1 && kpt_h.post == kpt_h.pre);
	if (want_ip && !KPT_CHECK_EQ(test, kpt_h.post_ip, want_ip))
		kunit_info(test, "probe at offset %d of case %d\n",
			   kpt_branch_off[which], which);
	return 0;
}

void kpt_emulated_instructions(struct kunit *test)
{
	char *base = (char *)kpt_call_branch;
	unsigned long helper = (unsigned long)kpt_helper_fn;
	u8 *ret_site;

	KUNIT_EXPECT_EQ(test, branch_case(test, B_JZ, 5, (unsigned long)base +
					  kpt_branch_off[B_CALL]), 0);
	KUNIT_EXPECT_EQ(test, branch_case(test, B_JZ, 0, (unsigned long)base +
					  kpt_branch_off[B_ZERO]), 0);
	KUNIT_EXPECT_EQ(test, branch_case(test, B_CALL, 5, helper), 0);
	KUNIT_EXPECT_EQ(test, branch_case(test, B_ICR, 5, helper), 0);
	KUNIT_EXPECT_EQ(test, branch_case(test, B_JMP, 5, (unsigned long)base +
					  kpt_branch_off[B_OUT]), 0);
	/*
	 * The helper's RET, hit three times, returns to three call sites.
	 * Where the CPU needs a return thunk (Retbleed, SRSO), alternatives
	 * left RET as built: a jmp to the thunk, which is where it goes.
	 */
	KUNIT_EXPECT_EQ(test, branch_case(test, H_RET, 5, 0), 0);
	KUNIT_EXPECT_EQ(test, kpt_h.pre, 3);
	ret_site = (u8 *)helper + kpt_branch_off[H_RET];
	if (*ret_site == 0xe9) {
		kunit_info(test, "the helper's RET is a jmp to %ps\n",
			   ret_site + 5 + *(s32 *)(ret_site + 1));
		KUNIT_EXPECT_EQ(test, kpt_h.post_ip, (unsigned long)ret_site + 5 +
			      *(s32 *)(ret_site + 1));
	} else {
		KUNIT_EXPECT_EQ(test, *ret_site, 0xc3);
		KUNIT_EXPECT_EQ(test, kpt_h.post_ip, (unsigned long)base + kpt_branch_off[B_JMP]);
	}
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
void kpt_emulated_transfers(struct kunit *test)
{
	long (*call_xfer)(long) = kpt_asm_xfer;
	const long x = KPT_XFER_X;
	struct kprobe kp;
	int i;

	OPTIMIZER_HIDE_VAR(call_xfer);	/* a real call to it */
	for (i = X_PUSH; i <= X_MOVR8; i++) {
		kpt_init_probe(&kp);
		kp.addr = (kprobe_opcode_t *)((char *)call_xfer + kpt_xfer_off[i]);
		kp.pre_handler = pre_xfer;
		kp.post_handler = post_xfer;
		memset(xf, 0, sizeof(xf));
		KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
		KUNIT_EXPECT_EQ(test, call_xfer(x), 6);
		unregister_kprobe(&kp);
		if (!KPT_CHECK(test, xf[0].n == 1 && xf[1].n == 1))
			continue;
		switch (i) {
		case X_PUSH:
			KUNIT_EXPECT_EQ(test, xf[1].sp, xf[0].sp - sizeof(long));
			KUNIT_EXPECT_EQ(test, xf[1].top, xf[0].bp);
			break;
		case X_MOV89:
			KUNIT_EXPECT_EQ(test, xf[1].bp, x);
			KUNIT_EXPECT_EQ(test, xf[1].sp, xf[0].sp);
			break;
		case X_MOV8B:
			KUNIT_EXPECT_EQ(test, xf[1].ax, x);
			break;
		case X_MOV32:
			KUNIT_EXPECT_EQ(test, xf[1].cx, 5);	/* upper half cleared */
			break;
		case X_MOVR8:
			KUNIT_EXPECT_EQ(test, xf[1].r8, 5);
			KUNIT_EXPECT_EQ(test, xf[1].cx, xf[0].cx);
			break;
		}
		KUNIT_EXPECT_EQ(test, kp.nmissed, 0);
	}
}

void kpt_emulated_indirect_call_mem(struct kunit *test)
{
	int ret = branch_case(test, B_ICM, 5, (unsigned long)kpt_helper_fn);

	if (upstream && ret == -EOPNOTSUPP)
		kunit_skip(test, "upstream refuses to probe call *mem (-EOPNOTSUPP)");
	KUNIT_EXPECT_EQ(test, ret, 0);
}

/* A handler may use the nofault accessors: their faults are its own. */
static long nofault_result;
static void *nofault_addr;

static int pre_nofault(struct kprobe *p, struct pt_regs *regs)
{
	long v;

	kpt_h.pre++;
	nofault_result = copy_from_kernel_nofault(&v, nofault_addr, sizeof(v));
	return 0;
}

void kpt_fault_in_handler(struct kunit *test)
{
	char *area = vmalloc(PAGE_SIZE);
	struct kprobe kp;

	KUNIT_ASSERT_TRUE(test, area);
	nofault_addr = area + PAGE_SIZE;	/* the guard page: it faults */
	kpt_init_probe(&kp);
	kp.addr = (kprobe_opcode_t *)kpt_asm_add;
	kp.pre_handler = pre_nofault;
	kp.post_handler = kpt_post_record;
	kpt_reset();
	nofault_result = 0;
	if (!KPT_CHECK_EQ(test, register_kprobe(&kp), 0)) {
		vfree(area);
		return;
	}
	KUNIT_EXPECT_EQ(test, kpt_call_asm(1), KPT_ASM_BASE + 1);
	unregister_kprobe(&kp);
	vfree(area);
	KUNIT_EXPECT_EQ(test, kpt_h.pre, 1);
	KUNIT_EXPECT_EQ(test, nofault_result, -EFAULT);
	KUNIT_EXPECT_EQ(test, kpt_h.post, 1);	/* the probed insn still completed */
}
