#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Peer suite: upstream's ftracetest, test.d/kprobe, as its authors run it.
# Every case must pass on both implementations (see the README).
. /harness/ktap.sh
peer_ftracetest kprobe
