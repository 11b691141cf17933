#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A module built for stock 6.12 is refused, never loaded into a struct
# layout it does not know.  The series changes struct kprobe, kretprobe,
# kretprobe_instance and kprobe_ctlblk while the kernel version stays
# 6.12.N; on a MODVERSIONS config (make test-distro) each export's
# version is a CRC of its types, so a module that kept stock's
# register_kprobe() version no longer matches ours.  kpt_modver.ko is
# built against this kernel, kpt_modver_stock.ko (the same source)
# against stock 6.12 (harness/mkinitramfs.sh, stock_module).
. "$(dirname "$0")/lib.sh"
plan 2

# stock 6.12 has no register_jprobe (kprobes_api.sh, mixed_tracers.sh)
stock=0
grep -qw register_jprobe /proc/kallsyms || stock=1

# loads NAME: NAME loads, and its kprobe saw the 10 calls its init made
loads() {
	insmod "$M/$1.ko" || return 1
	_h=$(cat "/sys/module/$1/parameters/hits")
	rmmod "$1"
	[ "$_h" = 10 ]
}

loads kpt_modver
result "a module built against this kernel loads, and its kprobe sees every call" $?

NAME="a module built against stock 6.12's headers"
if [ ! -e "$M/kpt_modver_stock.ko" ]; then
	skip "$NAME" "this boot: no MODVERSIONS (make test-distro has it)"
elif [ $stock = 1 ]; then
	loads kpt_modver_stock
	result "$NAME loads into stock 6.12" $?
else
	_out=$(insmod "$M/kpt_modver_stock.ko" 2>&1)
	_rc=$?
	_msg=$(dmesg | grep 'kpt_modver_stock: disagrees about version of symbol')
	diag "insmod: $_out"
	diag "kernel: $_msg"
	[ $_rc != 0 ] && ! grep -q '^kpt_modver_stock ' /proc/modules &&
		echo "$_msg" | grep -q 'symbol register_kprobe$'
	result "$NAME is refused: the kernel names register_kprobe's version" $?
fi

done_testing
