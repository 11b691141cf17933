/* SPDX-License-Identifier: GPL-2.0 */
/* The targets of kprobes_itrace (kprobes_itrace_targets.S). */
#ifndef KPROBES_ITRACE_TARGETS_H
#define KPROBES_ITRACE_TARGETS_H

long kit_short(long x);
long kit_mov(long x);
long kit_long(long x);

#endif
