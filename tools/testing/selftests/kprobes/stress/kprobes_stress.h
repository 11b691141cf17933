/* SPDX-License-Identifier: GPL-2.0 */
/* kprobes_stress: what its phases at scale (kprobes_stress_scale.c) offer init */
#ifndef KPROBES_STRESS_H
#define KPROBES_STRESS_H

extern char *phase;	/* the phase= of this insmod */

int phase_everything(void);
int phase_sweep(void);
void many_release(void);
void sweep_release(void);

#endif
