#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Peer suite: upstream's ftracetest, test.d/kprobe, as its authors run it.
# Every case must pass on both implementations (see the README).
. "$(dirname "$0")/lib.sh"
# the optimized-probe case wants [OPTIMIZED] on x86_64, which a kernel
# built without CONFIG_OPTPROBES (make configs' noopt row) cannot show
if [ -f /proc/sys/debug/kprobes-optimization ]; then
	peer_ftracetest kprobe
else
	peer_ftracetest kprobe kprobe_opt_types.tc \
		"this boot: no jump optimization (CONFIG_OPTPROBES is off)"
fi
