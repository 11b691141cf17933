# SPDX-License-Identifier: GPL-2.0
# KTAP helpers for the shell suites (installed in the guest as
# /harness/ktap.sh).  A suite sources this, calls plan N, then one
# ok/fail per case; each case names one observable behaviour.

T=/sys/kernel/tracing
D=/sys/kernel/debug/kprobes
M=/lib/modules/kprobes
_n=0

plan() { echo "KTAP version 1"; echo "1..$1"; }
# result NAME STATUS: ok if STATUS is 0
result() {
	_n=$((_n + 1))
	if [ "$2" -eq 0 ]; then echo "ok $_n $1"; else echo "not ok $_n $1"; fi
}
# check NAME CMD...: runs CMD, ok if it succeeds
check() { _name=$1; shift; "$@" > /dev/null 2>&1; result "$_name" $?; }
skip() { _n=$((_n + 1)); echo "ok $_n $1 # SKIP $2"; }
diag() { echo "# $*"; }
