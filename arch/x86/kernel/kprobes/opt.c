// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * x86 jump optimization: a probe's int3 replaced by a jump to a detour,
 * which runs the site's probes through kprobe_opt_trampoline and then a
 * copy of the instructions the jump covered.  Here are the detour's
 * hit path, the check of a region and the writing of the jumps.
 */
#include <linux/kprobes.h>
#include <linux/kprobes_backend.h>
#include <linux/kallsyms.h>
#include <linux/extable.h>
#include <linux/list_sort.h>
#include <linux/memory.h>
#include <linux/objtool.h>
#include <asm/text-patching.h>
#include <asm/insn.h>
#include <asm/nospec-branch.h>
#include <asm/ibt.h>

#include "common.h"

/* OPT_CALL_OFFSET, OPT_COPY_OFFSET: common.h (carriers' stubs share them) */
/* the site pointer at stub+0 (padded on 32-bit) */
static_assert(sizeof(void *) <= OPT_CALL_OFFSET);
static_assert(OPT_CALL_OFFSET + CALL_INSN_SIZE == OPT_COPY_OFFSET);

static_assert(OPT_COPY_OFFSET + KPROBE_OPT_MAX_LEN + JMP32_INSN_SIZE <=
	      KPROBE_SLOT_SIZE);

/* ---- the hit path --------------------------------------------------------- */

/* offsets the trampoline uses (no asm-offsets in a C file; common.h) */
#define OPT_SITE_ADDR	(2 * KP_WORD)
static_assert(offsetof(struct pt_regs, ip) == KP_REGS_IP);
static_assert(offsetof(struct kprobe_site, addr) == OPT_SITE_ADDR);

/*
 * The detour's call lands here; the return address it pushed is the
 * detour's copy of the region, the site pointer sits before the call.
 *
 *  1. Build a struct pt_regs below the return address, as an int3 would
 *     have left it: ip = the probe address + 1, sp = above the call's
 *     return slot, the flags of the probed code.
 *  2. Disable interrupts (the return address is the copied region
 *     already).
 *  3. Call kprobe_opt_callback() with the site; it runs the pre_handlers
 *     and says whether one returned 1, in which case we write the return
 *     slot over with the address it put in regs->ip.
 *  4. Restore the registers, a handler's changes included, the flags too
 *     and with them the interrupt state, and return: into the copy, or
 *     where the handler sent us.
 *
 * The unwinder is told that the stack pointer points at full pt_regs: a
 * stack trace taken in a handler goes from the trampoline straight to
 * the probed function and its callers, as on the int3 path, never into
 * the detour (which has no unwind data).  Before the ret, the frame is a
 * function's again.
 */
asm(".pushsection .kprobes.text, \"ax\"\n"
	".global kprobe_opt_trampoline\n"
	".type kprobe_opt_trampoline, @function\n"
	"kprobe_opt_trampoline:\n"
	ANNOTATE_NOENDBR	/* reached by direct calls from detours only */
	UNWIND_HINT_FUNC
	KP_REGS_OPEN				/* regs->ss, sp, flags */
	/*
	 * Interrupts off while the handlers run, as on the int3 path: the
	 * IPI round of unregister_kprobe() then waits this hit out.  The
	 * popf below restores them (kprobe_opt_callback() tells lockdep).
	 */
	"	cli\n"
	/* regs->cs .. regs->bx/r15; ip the probe's, below */
	SAVE_REGS_STRING_AT("kprobe_opt_trampoline")
	/* the return address is the copied region, stub+13; stub+0 the site */
	"	mov " __stringify(KP_REGS_SIZE) "(" KP_SP "), " KP_AX "\n"
	/* the second argument */
	"	mov -" __stringify(OPT_COPY_OFFSET) "(" KP_AX "), " KP_ARG2 "\n"
	"	mov " __stringify(OPT_SITE_ADDR) "(" KP_ARG2 "), " KP_AX "\n"
	"	lea 1(" KP_AX "), " KP_AX "\n"
	"	mov " KP_AX ", " __stringify(KP_REGS_IP) "(" KP_SP ")\n"
	"	lea " __stringify(KP_REGS_SIZE + KP_WORD) "(" KP_SP "), " KP_AX "\n"
	"	mov " KP_AX ", " __stringify(KP_REGS_SP) "(" KP_SP ")\n"
	UNWIND_HINT(UNWIND_HINT_TYPE_REGS, ORC_REG_SP, 0, 1)
	"	mov " KP_SP ", " KP_ARG1 "\n"
	"	call kprobe_opt_callback\n"
	/* a pre_handler moved ip: go on there, not into the copy */
	"	testl %eax, %eax\n"
	"	jz 1f\n"
	"	mov " __stringify(KP_REGS_IP) "(" KP_SP "), " KP_AX "\n"
	"	mov " KP_AX ", " __stringify(KP_REGS_SIZE) "(" KP_SP ")\n"
	"1:\n"
	KP_REGS_CLOSE
	UNWIND_HINT_FUNC
	ASM_RET
	".size kprobe_opt_trampoline, .-kprobe_opt_trampoline\n"
	".popsection\n"
);
NOKPROBE_SYMBOL(kprobe_opt_trampoline);
STACK_FRAME_NON_STANDARD_FP(kprobe_opt_trampoline);

/*
 * A hit on a site without a solo probe, or nested in another hit.
 * Returns 1 if a pre_handler moved regs->ip.  notrace, as its caller
 * kprobe_opt_callback(): it runs in the detour.
 */
static noinline notrace int kprobe_opt_slow(struct pt_regs *regs,
					    struct kprobe_site *s)
{
	struct kprobe_frame *f;
	int moved = 0;

	/*
	 * A carrier's hit (of a carrier moving or gone) from a diverting
	 * user's trampoline: the hook ran this call's probes.
	 */
	if (IS_ENABLED(CONFIG_KPROBE_CARRIERS) &&
	    unlikely(kprobe_site_carrier_diverted(s)) &&
	    kprobe_carrier_called(s, regs))
		return 0;
	f = kprobe_hit_begin(s);
	if (f) {
		moved = kprobe_site_pre(s, f, regs);
		/*
		 * A carrier's detour names its fentry site, whose
		 * post_handlers run before the instruction.  A plain site
		 * never has a post_handler here, but for a hit in flight
		 * while one registers (the jump is being undone for it).
		 */
		if (!moved && IS_ENABLED(CONFIG_KPROBE_CARRIERS) &&
		    unlikely(kprobe_site_has_post(s)) &&
		    kprobe_site_is_ftrace(s))
			kprobe_carried_post(s, f, regs);
		kprobe_frame_pop(get_kprobe_ctlblk());
	}
	return moved;
}

NOKPROBE_SYMBOL(kprobe_opt_slow);

/* several pre-only probes: out of line and notrace, as kprobe_opt_slow() */
static noinline notrace int kprobe_opt_pre_only(struct pt_regs *regs,
						struct kprobe_site *s)
{
	return kprobe_pre_only(s, regs);
}

NOKPROBE_SYMBOL(kprobe_opt_pre_only);

/*
 * Called by kprobe_opt_trampoline, interrupts off, with the pt_regs it
 * built and the site.  The common hit, one pre-only probe and no hit
 * under way, is done here in line, as on the int3 path
 * (kprobe_int3_handler()).  Returns 1 if a pre_handler moved regs->ip:
 * the trampoline then goes on there rather than into the copied region
 * (it writes the return slot itself, so that regs need not be kept here
 * across the handler's call).  notrace: a function tracer here would run
 * in the detour, on the probed code's stack, for every hit.
 */
__used __visible notrace __noendbr int kprobe_opt_callback(struct pt_regs *regs,
							   struct kprobe_site *s)
{
	bool irqs_on = regs->flags & X86_EFLAGS_IF;
	struct kprobe_ctlblk *kcb;
	struct kprobe *kp;
	int moved;

	/* the trampoline's cli, as lockdep must see it (nothing otherwise) */
	if (IS_ENABLED(CONFIG_TRACE_IRQFLAGS) && irqs_on)
		trace_hardirqs_off();
	/* regs->ip and regs->sp are the trampoline's */
	kprobe_regs_fill(regs);

	kcb = get_kprobe_ctlblk();
	kp = kprobe_solo_now(s, kcb);
	if (likely(kp))
		moved = kprobe_solo_pre(kcb, s, kp, regs);
	else if (kprobe_pre_only_now(s))
		moved = kprobe_opt_pre_only(regs, s);
	else
		moved = kprobe_opt_slow(regs, s);
	/* the trampoline's popf restores regs->flags (a handler's IF too) */
	if (IS_ENABLED(CONFIG_TRACE_IRQFLAGS) && (regs->flags & X86_EFLAGS_IF))
		trace_hardirqs_on();
	return moved;
}

NOKPROBE_SYMBOL(kprobe_opt_callback);

/**
 * kprobe_opt_copy() - where an int3 hit on an optimized site goes on
 * @s: the site, its detour ready
 *
 * Return: the detour's copy of the region (which jumps past it).
 */
unsigned long kprobe_opt_copy(struct kprobe_site *s)
{
	return (unsigned long)s->ainsn.opt_stub + OPT_COPY_OFFSET;
}

NOKPROBE_SYMBOL(kprobe_opt_copy);

/* ---- may this region be optimized? ---------------------------------------- */

/* an instruction that runs the same anywhere (RIP-relative fixed) */
static bool opt_relocatable(struct insn *insn)
{
	struct arch_specific_insn ai = { };
	insn_byte_t prefix;
	int i;

	if (kprobe_insn_refused(insn))
		return false;
	for_each_insn_prefix(insn, i, prefix)
		if (prefix == 0x67)
			return false;
	kprobe_insn_classify(insn, &ai);
	/* pushes and moves are emulated by the int3 path, but copy fine */
	return ai.kind == KP_STEP || ai.kind == KP_EMULATE_PUSH ||
	       ai.kind == KP_EMULATE_MOV;
}

/* copy the region's instructions to the detour, RIP-relative fixed */
static int opt_copy_region(struct kprobe_site *s, u8 *buf,
			   unsigned long stub)
{
	unsigned long off, to;
	struct insn insn;

	for (off = 0; off < s->ainsn.opt_len; off += insn.length) {
		u8 *p = buf + OPT_COPY_OFFSET + off;

		memcpy(p, s->ainsn.opt_orig + off, s->ainsn.opt_len - off);
		if (insn_decode_kernel(&insn, p) < 0)
			return -EILSEQ;
		to = stub + OPT_COPY_OFFSET + off;
		if (insn_rip_relative(&insn)) {
			s64 disp = (long)(s->addr + off) +
				   insn.displacement.value - (long)to;

			if (disp != (s32)disp)
				return -ERANGE;
			*(s32 *)(p + insn_offset_displacement(&insn)) = disp;
		}
	}
	return 0;
}

/**
 * arch_prepare_opt() - check a site's region and build its detour
 * @s: an armed int3 site whose probes have no post_handler
 *
 * Called with kprobe_mutex held.  On success the site's int3 hits may go
 * through the detour (kprobe_opt_copy()); nothing is patched yet.
 *
 * The region is the whole instructions from the probe address that a
 * 5-byte jmp rel32 covers (at most KPROBE_OPT_MAX_LEN bytes).  It may be
 * optimized if every instruction in it is relocatable (no transfer of
 * control, nothing refused to probes, no exception-table entry), no
 * other probe sits inside it, no other patcher (alternatives, jump
 * labels, static calls, ftrace) owns a byte of it, it lies in one
 * function, and nothing in that function can jump into it past its first
 * byte: no relative jump or call aims inside, no indirect jump (a jump
 * table could), no jump to an indirect thunk, no exception-table entry
 * (a fixup could land inside).
 *
 * Its detour is one instruction slot, within reach of all kernel text:
 *
 *   stub+0   .quad site                  (read through the return address;
 *                                         a carrier's: the fentry site)
 *   stub+8   call kprobe_opt_trampoline  (the jump over the region goes here)
 *   stub+13  the region's instructions, RIP-relative operands fixed
 *            jmp addr + len
 *
 * Return: 0; -EAGAIN if another site is inside the region (it may
 * qualify once that one goes); -EINVAL, -EBUSY, -E2BIG or -EILSEQ if the
 * region does not qualify; -ENOMEM.
 */
int arch_prepare_opt(struct kprobe_site *s)
{
	unsigned long size, offset, start, end, a, stub;
	long rel;
	u8 buf[KPROBE_SLOT_SIZE], ibuf[MAX_INSN_SIZE];
	struct kprobe_site *hit;
	struct insn insn;
	int len = 0, ret;

	kprobe_assert_locked();
	if (!kprobe_sym_size_offset(s->addr, &size, &offset))
		return -EINVAL;
	start = s->addr - offset;
	end = start + size;

	/* the region: whole instructions covering a jmp rel32 */
	while (len < JMP32_INSN_SIZE) {
		a = s->addr + len;
		if (a >= end)
			return -E2BIG;
		if (len && kprobe_site_lookup(a))
			return -EAGAIN;	/* until that site goes */
		if (kprobe_decode_at(a, &insn, ibuf))
			return -EILSEQ;
		if (!opt_relocatable(&insn) || search_exception_tables(a))
			return -EINVAL;
		if (len + insn.length > KPROBE_OPT_MAX_LEN)
			return -E2BIG;
		memcpy(s->ainsn.opt_orig + len, ibuf, insn.length);
		len += insn.length;
	}
	if (s->addr + len > end)
		return -E2BIG;
	if (kprobe_text_reserved(s->addr, s->addr + len - 1))
		return -EBUSY;

	/* nothing in the function may land inside the region */
	for (a = start; a < end; a += insn.length) {
		if (kprobe_decode_at(a, &insn, ibuf))
			return -EILSEQ;
		if (search_exception_tables(a) ||
		    kprobe_insn_jumps_into(&insn, a, s->addr + 1,
					   s->addr + len))
			return -EINVAL;
	}

	/* optimized before: same bytes, same detour */
	if (s->ainsn.opt_stub)
		return 0;
	stub = (unsigned long)get_insn_slot();
	if (!stub)
		return -ENOMEM;
	s->ainsn.opt_len = len;
	memset(buf, INT3_INSN_OPCODE, sizeof(buf));
	/*
	 * The site whose probes a hit runs, and whose address + 1 is regs->ip:
	 * a carrier's is the fentry site it carries (kprobes_carriers.c).
	 */
	hit = kprobe_site_carried(s) ?: s;
	memcpy(buf, &hit, sizeof(hit));
	__text_gen_insn(buf + OPT_CALL_OFFSET, CALL_INSN_OPCODE,
			(void *)(stub + OPT_CALL_OFFSET), kprobe_opt_trampoline,
			CALL_INSN_SIZE);
	ret = opt_copy_region(s, buf, stub);
	a = stub + OPT_COPY_OFFSET + len;
	/* a long: rel32 wraps around on 32-bit x86, so every jump reaches */
	rel = (long)(s->addr + len) - (long)(a + JMP32_INSN_SIZE);
	if (!ret && rel != (s32)rel)
		ret = -ERANGE;
	if (ret) {
		free_insn_slot((kprobe_opcode_t *)stub, 0);
		s->ainsn.opt_len = 0;
		return ret;
	}
	__text_gen_insn(buf + OPT_COPY_OFFSET + len, JMP32_INSN_OPCODE,
			(void *)a, (void *)(s->addr + len), JMP32_INSN_SIZE);
	mutex_lock(&text_mutex);
	text_poke((void *)stub, buf, KPROBE_SLOT_SIZE);
	mutex_unlock(&text_mutex);
	s->ainsn.opt_stub = (kprobe_opcode_t *)stub;
	return 0;
}

/**
 * arch_optimize_queue() - queue the jump over a ready site's region
 * @s: the site, its detour built and a task grace period passed since
 *
 * Called with text_mutex held; arch_optimize_finish() writes them all.
 * The core's optimizer (kernel/kprobes_opt.c) decides when; the jump is
 * safe to write because:
 *
 *  1. A site whose detour is ready sends its int3 hits into the detour's
 *     copy of the region, which jumps past the region (kprobe_opt_copy()).
 *  2. After one wait for every task (kprobe_sync_tasks(): a voluntary
 *     switch each, or without PREEMPTION a pass of every CPU through the
 *     scheduler) no CPU is inside the region but at its first byte.
 *  3. The jump is then written by text_poke_bp() (queued here): while it
 *     writes, a CPU at its int3 is sent to the detour as in step 1.
 *
 * Unoptimizing is the reverse, in arch_unoptimize_finish().
 */
void arch_optimize_queue(struct kprobe_site *s)
{
	u8 jmp[JMP32_INSN_SIZE];

	kprobe_assert_locked();
	lockdep_assert_held(&text_mutex);
	__text_gen_insn(jmp, JMP32_INSN_OPCODE, (void *)s->addr,
			s->ainsn.opt_stub + OPT_CALL_OFFSET, JMP32_INSN_SIZE);
	text_poke_queue((void *)s->addr, jmp, JMP32_INSN_SIZE, NULL);
}

void arch_optimize_finish(void)
{
	text_poke_finish();
}

/*
 * Writing many sites' bytes.  Most of text_poke()'s cost is per call (it
 * maps the page in a temporary mm, copies, flushes the TLB), not per
 * byte, and the sites that one unregistration undoes are often close
 * together (a module's small functions, a family of kernel functions).
 * So the bytes one step writes at sites at most OPT_SPAN_GAP bytes apart
 * on one page go in one text_poke() of the span from the first to the
 * last of them, the bytes between them copied from the text as it is.
 * That rewrites those few bytes with their own values: every writer of
 * kernel text holds text_mutex, as we do, so none changes them
 * meanwhile, and a CPU running them fetches what it fetched before.
 */
#define OPT_SPAN_GAP	64
static u8 opt_span_buf[PAGE_SIZE];	/* text_mutex */

struct opt_span {
	unsigned long lo, hi;	/* [lo, hi) in opt_span_buf[]; hi == 0: empty */
};

static void opt_span_flush(struct opt_span *sp)
{
	if (sp->hi)
		text_poke((void *)sp->lo, opt_span_buf, sp->hi - sp->lo);
	sp->hi = 0;
}

/* @len bytes from @src at @addr, joining the span if they share its page */
static void opt_span_add(struct opt_span *sp, unsigned long addr,
			 const u8 *src, int len)
{
	unsigned long page = sp->lo & PAGE_MASK;

	if (sp->hi && (addr < sp->hi || addr - sp->hi > OPT_SPAN_GAP ||
		       addr + len > page + PAGE_SIZE))
		opt_span_flush(sp);
	if (!sp->hi) {
		if ((addr & PAGE_MASK) != ((addr + len - 1) & PAGE_MASK)) {
			/* across two pages: text_poke() maps both */
			text_poke((void *)addr, src, len);
			return;
		}
		sp->lo = addr;
		sp->hi = addr;
	}
	memcpy(opt_span_buf + (sp->hi - sp->lo), (void *)sp->hi, addr - sp->hi);
	memcpy(opt_span_buf + (addr - sp->lo), src, len);
	sp->hi = addr + len;
}

static int opt_site_cmp(void *priv, const struct list_head *a,
			const struct list_head *b)
{
	unsigned long x = list_entry(a, struct kprobe_site, opt.node)->addr;
	unsigned long y = list_entry(b, struct kprobe_site, opt.node)->addr;

	return x < y ? -1 : x > y;
}

/*
 * Bytes [from, from + len) of each site's region: the int3, or the
 * original bytes.  The first byte (from 0, len 1) comes from ainsn.orig,
 * as arch_disarm_site() writes it; the others from the region's copy.
 */
static void opt_poke_sites(struct list_head *sites, int from, int len,
			   bool int3)
{
	static const u8 int3_insn = INT3_INSN_OPCODE;
	struct opt_span sp = { .hi = 0 };
	struct kprobe_site *s;
	const u8 *src;

	list_for_each_entry(s, sites, opt.node) {
		if (int3)
			src = &int3_insn;
		else
			src = from ? s->ainsn.opt_orig + from : s->ainsn.orig;
		opt_span_add(&sp, s->addr + from, src, len);
	}
	opt_span_flush(&sp);
}

/**
 * arch_unoptimize_finish() - put optimized sites' region bytes back
 * @sites: optimized sites, on their ->opt.node (sorted here by address)
 * @disarm: put the original first byte back too (the sites are going)
 *
 * text_poke_bp() writes one instruction, and int3 + the rest of the
 * region is not one.  So: the int3s first, made visible everywhere with
 * one IPI round (a CPU at a probe now traps, and its hit leaves through
 * the detour, which the caller's state still says); only then the
 * jumps' other four bytes, which no CPU can be executing any more, with
 * one more.  With @disarm, last, the original first bytes, which the
 * caller's batch makes visible.  Each step writes the sites of a page in
 * one text_poke() (opt_span_add()).
 */
void arch_unoptimize_finish(struct list_head *sites, bool disarm)
{
	list_sort(NULL, sites, opt_site_cmp);
	mutex_lock(&text_mutex);
	opt_poke_sites(sites, 0, INT3_INSN_SIZE, true);
	text_poke_sync();
	opt_poke_sites(sites, INT3_INSN_SIZE, JMP32_INSN_SIZE - INT3_INSN_SIZE,
		       false);
	text_poke_sync();
	if (disarm)
		opt_poke_sites(sites, 0, INT3_INSN_SIZE, false);
	mutex_unlock(&text_mutex);
}

/**
 * arch_opt_fix_bytes() - undo an optimized site's jump in read text
 * @s: an optimized site
 * @addr: where @buf was read from
 * @buf: the bytes read
 * @n: how many
 */
void arch_opt_fix_bytes(struct kprobe_site *s, unsigned long addr, u8 *buf,
			int n)
{
	int i;

	for (i = 0; i < n; i++) {
		unsigned long a = addr + i;

		if (a > s->addr && a < s->addr + JMP32_INSN_SIZE)
			buf[i] = s->ainsn.opt_orig[a - s->addr];
	}
}

/**
 * arch_opt_len() - how many bytes a site's jump covers
 * @s: the site
 *
 * Return: the length of the instructions the jump replaces, from s->addr
 * on; 0 before arch_prepare_opt() chose them.
 */
int arch_opt_len(struct kprobe_site *s)
{
	return s->ainsn.opt_len;
}

/**
 * arch_release_opt() - free a site's detour
 * @s: the site, unoptimized and disarmed a task grace period ago
 */
void arch_release_opt(struct kprobe_site *s)
{
	if (s->ainsn.opt_stub) {
		free_insn_slot(s->ainsn.opt_stub, 0);
		s->ainsn.opt_stub = NULL;
	}
}
