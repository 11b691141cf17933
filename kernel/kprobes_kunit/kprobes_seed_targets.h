/* SPDX-License-Identifier: GPL-2.0 */
/* kprobes_seed's assembly (kprobes_seed_targets.S) */
#ifndef KPROBES_SEED_TARGETS_H
#define KPROBES_SEED_TARGETS_H

/* *p; the load at kps_load + kps_load_off, resumable at ..._resume_off */
long kps_load(long *p);
extern const int kps_load_off, kps_load_resume_off;

#endif /* KPROBES_SEED_TARGETS_H */
