// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * x86 kprobes backend: carriers (kernel/kprobes_carriers.c explains them).
 *
 * An int3 on the instruction after a fentry nop standing for the fentry
 * site's ftrace hook.  arch_prepare_carrier() decides whether a function
 * may be carried (nothing but the nop may reach that instruction: its
 * code, its cold parts and the static branches aiming at it are looked
 * at) and builds the carrier's hit stub.  A hit runs nothing in the
 * trap: kprobe_int3_carrier() returns into the stub, which calls the
 * optimizer's trampoline; kprobe_carrier_resume() is where a call skips
 * the int3 while the site moves onto the hook, and kprobe_carrier_called()
 * tells the calls that a diverting user's trampoline makes meanwhile.
 *
 * Context: preparation under kprobe_mutex; kprobe_int3_carrier() in the
 * int3 trap, kprobe_carrier_resume() in the ftrace callback and
 * kprobe_carried_post() in the trampoline's callback, all NOKPROBE.
 * Built with CONFIG_KPROBE_CARRIERS.
 */
#define pr_fmt(fmt) "kprobes: " fmt

#include <linux/kprobes.h>
#include <linux/kprobes_backend.h>
#include <linux/ptrace.h>
#include <linux/string.h>
#include <linux/slab.h>
#include <linux/kallsyms.h>
#include <linux/memory.h>
#include <linux/extable.h>
#include <linux/jump_label.h>
#include <linux/module.h>
#include <linux/ftrace.h>
#include <asm/extable.h>
#include <asm/asm.h>

#include <asm/text-patching.h>
#include <asm/insn.h>
#include <asm/insn-eval.h>
#include <asm/ibt.h>
#include <asm/sections.h>
#include <asm/nospec-branch.h>

#include "common.h"

/*
 * A carrier's hit stub, in its slot, laid out as a detour (opt.c): the
 * fentry site it carries, a call to kprobe_opt_trampoline, then a copy of
 * the carrier's instruction and a jump back after it.  A hit on the int3
 * returns from the trap into the call, so the probes run as an optimized
 * probe's do, out of the trap: as they would on ftrace's hook, not in
 * the NMI-like context of a trap (lockdep and in_nmi() see what they
 * would see there).  The copy is also where a call skips the int3 while
 * the site moves onto the hook.
 */
static int prepare_hit_stub(struct kprobe_site *c)
{
	struct arch_specific_insn *ai = &c->ainsn;
	unsigned long from, slot = (unsigned long)ai->insn;
	struct kprobe_site *carried = kprobe_site_carried(c);
	u8 buf[KPROBE_SLOT_SIZE];
	struct insn insn;
	s64 rel;
	int ret;

	if (!IS_ENABLED(CONFIG_OPTPROBES))
		return -EOPNOTSUPP;	/* no kprobe_opt_trampoline */
	if (OPT_COPY_OFFSET + ai->len + JMP32_INSN_SIZE > KPROBE_SLOT_SIZE)
		return -E2BIG;
	if (insn_decode_kernel(&insn, ai->orig) < 0)
		return -EILSEQ;
	if (!slot) {
		slot = (unsigned long)get_insn_slot();
		if (!slot)
			return -ENOMEM;
		ai->insn = (kprobe_opcode_t *)slot;
	}
	memset(buf, INT3_INSN_OPCODE, sizeof(buf));
	memcpy(buf, &carried, sizeof(carried));
#ifdef CONFIG_OPTPROBES
	__text_gen_insn(buf + OPT_CALL_OFFSET, CALL_INSN_OPCODE,
			(void *)(slot + OPT_CALL_OFFSET), kprobe_opt_trampoline,
			CALL_INSN_SIZE);
#endif
	ret = kprobe_copy_insn(c, &insn,
			       (kprobe_opcode_t *)slot + OPT_COPY_OFFSET,
			       buf + OPT_COPY_OFFSET);
	if (ret)
		return ret;
	from = slot + OPT_COPY_OFFSET + ai->len;
	rel = (s64)(c->addr + ai->len) - (s64)(from + JMP32_INSN_SIZE);
	if (rel != (s32)rel)
		return -ERANGE;
	__text_gen_insn(buf + OPT_COPY_OFFSET + ai->len, JMP32_INSN_OPCODE,
			(void *)from, (void *)(c->addr + ai->len),
			JMP32_INSN_SIZE);
	mutex_lock(&text_mutex);
	text_poke((void *)slot, buf, KPROBE_SLOT_SIZE);
	mutex_unlock(&text_mutex);
	return 0;
}

/* nopl/nopw (0f 1f /0) or a prefixed 90: the forms of a disabled static branch */
static bool carrier_insn_nop(struct insn *insn)
{
	if (insn->opcode.nbytes == 2)
		return insn->opcode.bytes[0] == 0x0f && insn->opcode.bytes[1] == 0x1f;
	return insn->opcode.bytes[0] == 0x90;
}

/*
 * Does an instruction of [start, start + size) aim at addr?  *nops is
 * set if a 2- or 5-byte nop other than the fentry site's is among them:
 * maybe a static branch, whose target the text does not show.
 */
static bool carrier_aimed_from(unsigned long start, unsigned long size,
			       unsigned long addr, bool *nops)
{
	const struct exception_table_entry *e;
	u8 ibuf[MAX_INSN_SIZE];
	struct insn insn;
	unsigned long a;

	for (a = start; a < start + size; a += insn.length) {
		if (kprobe_decode_at(a, &insn, ibuf))
			return true;	/* not known: as good as yes */
		if (kprobe_insn_jumps_into(&insn, a, addr, addr + 1))
			return true;
		/* (the fentry nop, right before addr, is not a branch) */
		if (carrier_insn_nop(&insn) && a + insn.length != addr &&
		    (insn.length == 2 || insn.length == 5))
			*nops = true;
		e = search_exception_tables(a);
		/* x86's relative entries: the fixup's offset from its field */
		if (e && (unsigned long)&e->fixup + e->fixup == addr)
			return true;
	}
	return false;
}

/* a cold part's candidate: does it aim at the carrier's instruction? */
struct carrier_cold {
	unsigned long addr;	/* the carrier's instruction */
	const char *name;	/* "<name>.cold" */
	size_t len;		/* its length */
	bool aimed;
	bool nops;
};

static int carrier_cold_check(void *data, unsigned long cold)
{
	struct carrier_cold *cc = data;
	unsigned long size, offset;

	/*
	 * A static function's name may be another file's too: every part
	 * so named is checked, and one whose extent is not known refuses.
	 */
	if (!kprobe_sym_size_offset(cold, &size, &offset) ||
	    carrier_aimed_from(cold - offset, size, cc->addr, &cc->nops))
		cc->aimed = true;
	return cc->aimed;
}

/*
 * a module's symbol: one of its cold parts, "<name>.cold" or gcc 8/9's
 * "<name>.cold.N"? (called under module_mutex)
 */
static int carrier_cold_mod(void *data, const char *name, unsigned long addr)
{
	struct carrier_cold *cc = data;
	size_t len = cc->len;

	if (strncmp(name, cc->name, len) || (name[len] && name[len] != '.'))
		return 0;
	return carrier_cold_check(cc, addr);
}

/*
 * Does a cold part of the function at @func (gcc's "<name>.cold", placed
 * far away, jumping back into it) aim at cc->addr?  Every part so named:
 * the kernel's from kprobes_index.c, by the function's start (gcc 8's
 * "<name>.cold.N" too), or the one module's, by name.  Before the index
 * is built (early boot) the kernel's are not known: as good as yes.
 */
static void carrier_cold_part(struct carrier_cold *cc, unsigned long func)
{
	struct {
		char sym[KSYM_NAME_LEN];
		char cold[KSYM_NAME_LEN + 8];			/* sym.cold */
		char mod[MODULE_NAME_LEN];
	} *buf;
	unsigned long size, offset;
	char *modname;

	if (core_kernel_text(func)) {
		if (kprobe_cold_parts(func, carrier_cold_check, cc) == -ENOENT)
			cc->aimed = true;
		return;
	}
	buf = kmalloc(sizeof(*buf), GFP_KERNEL);
	if (!buf || !kallsyms_lookup(func, &size, &offset, &modname,
				     buf->sym) || !modname) {
		cc->aimed = true;	/* not known: as good as yes */
		kfree(buf);
		return;
	}
	cc->len = snprintf(buf->cold, sizeof(buf->cold), "%s.cold", buf->sym);
	cc->name = buf->cold;
	/* a module of several objects may name two parts so */
	strscpy(buf->mod, modname, sizeof(buf->mod));
	module_kallsyms_on_each_symbol(buf->mod, carrier_cold_mod, cc);
	kfree(buf);
}

/*
 * What the decode of the function at @func cannot see: its cold part,
 * and a static branch, whose jump is a nop while its key is off (looked
 * for when the function or its cold part holds a nop one could be).
 */
static bool carrier_aimed_from_afar(unsigned long func, unsigned long addr,
				    bool nops)
{
	struct carrier_cold cc = { .addr = addr, .nops = nops };
	bool target;

	carrier_cold_part(&cc, func);
	if (cc.aimed)
		return true;
	if (!cc.nops)
		return false;
	jump_label_lock();
	target = jump_label_is_target((void *)addr);
	jump_label_unlock();
	return target;
}

/**
 * arch_prepare_carrier() - may this new site carry the fentry site before it?
 * @c: a site prepared by arch_prepare_site() at the instruction right
 *     after a function's fentry nop, not in the hash table yet;
 *     c->carry.carried is that fentry site
 *
 * Its int3 then stands for the fentry site's ftrace hook
 * (kernel/kprobes_carriers.c explains carriers), so every hit on it must
 * be a call of the function and every call must hit it: nothing in the
 * function may reach c->addr but the nop before it, run through (no
 * jump, call, loop or jcc aims there, no indirect jump could, no
 * exception fixup lands there; nor a static branch or the function's
 * cold part), and no other patcher may own its bytes.  Its instruction
 * must run anywhere: one that could be boosted, or a push or register
 * move.  Builds the hit stub (prepare_hit_stub()); needs the optimizer's
 * trampoline.
 *
 * Return: 0; -EBUSY (another patcher's bytes), -EINVAL (something may
 * reach it, or an instruction that must run in place), -EOPNOTSUPP (no
 * optimizer), -EILSEQ, -E2BIG, -ERANGE, -ENOMEM.
 */
int arch_prepare_carrier(struct kprobe_site *c)
{
	struct arch_specific_insn *ai = &c->ainsn;
	unsigned long size, offset;
	bool nops = false;

	kprobe_assert_locked();
	if (!IS_ENABLED(CONFIG_OPTPROBES))
		return -EOPNOTSUPP;
	if (!ai->boostable && ai->kind != KP_EMULATE_PUSH &&
	    ai->kind != KP_EMULATE_MOV)
		return -EINVAL;
	if (kprobe_text_reserved(c->addr, c->addr + ai->len - 1))
		return -EBUSY;
	if (!kprobe_sym_size_offset(c->addr, &size, &offset))
		return -EINVAL;
	if (carrier_aimed_from(c->addr - offset, size, c->addr, &nops) ||
	    carrier_aimed_from_afar(c->addr - offset, c->addr, nops))
		return -EINVAL;
	return prepare_hit_stub(c);
}

/* where a hit on carrier c goes on from its int3: a stub's call */
static nokprobe_inline unsigned long kprobe_carrier_stub(struct kprobe_site *c)
{
	/* the optimizer is writing or undoing the jump: never back into the region */
	if (kprobe_site_detoured(c))
		return (unsigned long)c->ainsn.opt_stub + OPT_CALL_OFFSET;
	return (unsigned long)c->ainsn.insn + OPT_CALL_OFFSET;
}

/*
 * An int3 on a carrier c: a call of the function whose fentry site c
 * carries.  Nothing runs here: the trap returns into c's hit stub, whose
 * call to kprobe_opt_trampoline runs the fentry site's probes as an
 * optimized probe's (a hit already under way on this CPU is counted
 * there), with the registers of the function's entry (the nop changed
 * none) and ip at the entry + 1; the stub then runs c's instruction.
 */
int kprobe_int3_carrier(struct pt_regs *regs, struct kprobe_site *c)
{
	regs->ip = kprobe_carrier_stub(c);
	return 1;
}

NOKPROBE_SYMBOL(kprobe_int3_carrier);

/**
 * kprobe_carrier_resume() - where a call skips a carrier's int3
 * @c: a carrier (see arch_prepare_carrier())
 *
 * Return: its optimized detour's copy of the region while that is in use,
 * else its hit stub's copy of its instruction (which jumps back after it).
 */
notrace unsigned long kprobe_carrier_resume(struct kprobe_site *c)
{
	if (kprobe_site_detoured(c))
		return kprobe_opt_copy(c);
	return (unsigned long)c->ainsn.insn + OPT_COPY_OFFSET;
}

NOKPROBE_SYMBOL(kprobe_carrier_resume);

/**
 * kprobe_carrier_called() - did this call reach the carrier by a call to it?
 * @s: a fentry site whose carrier a diverting user met (->carry.diverted)
 * @regs: the registers at the carrier (regs->sp as the function sees it)
 *
 * A diverting ftrace user may come while the site is carried
 * (kprobe_ftrace_divert() does not wait for the carrier to go).  A
 * direct trampoline that runs the function's body calls it past the
 * fentry site, that is at the carrier's address (BPF's do, for fexit
 * and fmod_ret programs), with a call rel32, and it was reached from the
 * hook, which ran the probes for this call.  Such a call is the only way
 * to the carrier whose return address follows a call to the carrier
 * itself: nothing else calls into the middle of a function, and a call
 * that came through the fentry nop has its caller's return address
 * there.  A trampoline that reached the carrier otherwise (a jump, or a
 * call through a register) would have its call counted twice.
 *
 * Runs in the detour, before any frame is taken: notrace, and it reads
 * the stack (the current task's) and the caller's text without calling
 * out.
 *
 * Return: true if the instruction before the return address on the stack
 * is a direct call to the carrier's address.
 */
notrace bool kprobe_carrier_called(struct kprobe_site *s, struct pt_regs *regs)
{
	unsigned long ret = *(unsigned long *)regs->sp;
	u8 call[CALL_INSN_SIZE];
	s32 rel;

	if (ret < TASK_SIZE_MAX)
		return false;
	pagefault_disable();
	__get_kernel_nofault(call, (u8 *)(ret - CALL_INSN_SIZE), u8, fault);
	__get_kernel_nofault(&rel, (s32 *)(ret - sizeof(rel)), s32, fault);
	pagefault_enable();
	return call[0] == CALL_INSN_OPCODE &&
	       ret + rel == s->addr + MCOUNT_INSN_SIZE;
fault:
	pagefault_enable();
	return false;
}

NOKPROBE_SYMBOL(kprobe_carrier_called);

/**
 * kprobe_carried_post() - a carried fentry site's post_handlers
 * @s: the fentry site
 * @f: the hit's frame
 * @regs: the registers at the carrier
 *
 * As its ftrace hook runs them: right after the pre_handlers, ip past the
 * fentry nop (which is the carrier's address), before the carrier's
 * instruction is carried out.  regs->ip is left as it was.
 */
notrace void kprobe_carried_post(struct kprobe_site *s,
				 struct kprobe_frame *f, struct pt_regs *regs)
{
	unsigned long ip = regs->ip;

	regs->ip = s->addr + MCOUNT_INSN_SIZE;
	f->status = KPROBE_HIT_SSDONE;
	kprobe_site_post(s, f, regs);
	f->status = KPROBE_HIT_ACTIVE;
	regs->ip = ip;
}

NOKPROBE_SYMBOL(kprobe_carried_post);
