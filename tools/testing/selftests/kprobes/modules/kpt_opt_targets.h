/* SPDX-License-Identifier: GPL-2.0 */
/* kpt_opt_targets.S: the function kpt_opt probes, and where */
#ifndef KPT_OPT_TARGETS_H
#define KPT_OPT_TARGETS_H

long kpo_target(long x);
extern const int kpo_probe_off;		/* the region's first byte */
extern const int kpo_inner_off;		/* its second instruction */
extern const int kpo_skip_off;		/* just past the region */

#endif
