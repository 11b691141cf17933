/* SPDX-License-Identifier: GPL-2.0 */
/* What kpt_wprobes_targets.S defines (the comment there says what each is) */
#ifndef KPT_WPROBES_TARGETS_H
#define KPT_WPROBES_TARGETS_H
#include <linux/types.h>

extern u64 kpt_wp_var, kpt_wp_more[3];
extern unsigned long kpt_wp_store_after_off, kpt_wp_load_after_off;
void kpt_wp_store(u32 v);
u32 kpt_wp_load(void);
void kpt_wp_adj(u8 v);
long kpt_wp_xfn(long x);
#endif
