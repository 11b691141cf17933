/* SPDX-License-Identifier: GPL-2.0 */
/* The assembly targets of kprobes_bench (kprobes_bench_targets.S). */
#ifndef KPROBES_BENCH_TARGETS_H
#define KPROBES_BENCH_TARGETS_H

/* lea; ret: no room for a jump after the first instruction */
long kpb_short(long x);
/* mov; ret: a register move, emulated by ours */
long kpb_mov(long x);
/* mov; add; add; ret: room for a jump over the first two */
long kpb_long(long x);
/* the addresses of kpb_fn_0 .. kpb_fn_<kpb_nfuncs - 1> */
extern const unsigned long kpb_fn_table[];
extern const int kpb_nfuncs;

#endif /* KPROBES_BENCH_TARGETS_H */
