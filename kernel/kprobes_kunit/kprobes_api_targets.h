/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The assembly probe targets of kprobes_api (kprobes_api_targets.S): the
 * functions, and the offsets of their instructions, exported as data so
 * that no code relocation points into the middle of a function.
 */
#ifndef KPROBES_API_TARGETS_H
#define KPROBES_API_TARGETS_H

/* 0x1122334455667788 + x: movabs, add, ret */
long kpt_asm(long x);
extern const int kpt_asm_off_mov, kpt_asm_off_add, kpt_asm_off_ret;

/* *p, or -EFAULT from the load's exception-table fixup */
long kpt_asm_load(long *p);
extern const int kpt_asm_load_off;

/* x + 3 (x != 0) or 100, through jz, call, call *reg, call *mem, jmp */
long kpt_asm_branch(long x, long (*fn)(void));
long kpt_asm_helper(void);
/* offsets in kpt_asm_branch, then of the helper's ret */
extern const int kpt_branch_off[8];
enum { B_JZ, B_CALL, B_ICR, B_ICM, B_JMP, B_ZERO, B_OUT, H_RET };

/* kpt_riprel_val + x; the first instruction loads it RIP-relative */
long kpt_asm_riprel(long x);
extern long kpt_riprel_val;

/* (u32)x + 1 through push %rbp and register moves; their offsets */
long kpt_asm_xfer(long x);
extern const int kpt_xfer_off[5];
enum { X_PUSH, X_MOV89, X_MOV8B, X_MOV32, X_MOVR8 };

/* mov to %ss (never called); the offset is that instruction's */
void kpt_asm_ss(void);
extern const int kpt_asm_ss_off;

/* atomically ++*p; the offset is that of the lock prefix (.smp_locks) */
void kpt_asm_lock(long *p);
extern const int kpt_asm_lock_off;

/*
 * a + b, with an fentry call; its cold part jumps back into it
 * (kpt_carrier_targets.S)
 */
int kpt_cold_target(int a, int b);
int kpt_cold_part(int a, int b) asm("kpt_cold_target.cold");
/* a, with an fentry call; with kpt_jl_key on and b != 0, through twice */
int kpt_jl_target(int a, int b);
DECLARE_STATIC_KEY_FALSE(kpt_jl_key);

/* a direct ftrace trampoline: the function returns KPT_DIRECT_RET (kpt_direct.S) */
void kpt_direct_skip(void);
/*
 * a * 3 + b, with an fentry call, and a direct trampoline for it that
 * calls its body past the fentry call (kpt_carrier_targets.S, x86_64)
 */
int kpt_body_target(int a, int b);
void kpt_direct_body(void);
#define KPT_DIRECT_RET 4242

#endif /* KPROBES_API_TARGETS_H */
