#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Peer suite: upstream's ftracetest, test.d/dynevent, as its authors run it.
# Every case must pass on both implementations (see the README), but one
# that is not run: it oopses stock 6.12.117 and ours alike, in fprobe code
# that kprobes does not reach (trace_fprobe.c: a tracepoint probe whose
# module went away and came back is released twice).
. "$(dirname "$0")/lib.sh"
why="oopses stock 6.12.117 too (tracepoint probe on a module unloaded, loaded and"
why="$why unloaded again: trace_fprobe_release() on a released fprobe), not kprobes code"
peer_ftracetest dynevent add_remove_tprobe_module.tc "$why"
