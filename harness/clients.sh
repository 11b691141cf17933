#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make test-clients: Debian's perf and bpftrace against this IMPL's kernel.
#
# The clients are the host's own packages (linux-perf, bpftrace), copied
# into the guest with every shared library ldd names and the dynamic
# loader, at the paths they have on the host: the guest is BusyBox, but
# an ordinary dynamically linked program runs there as it would here.
# The payload (build/clients/clients.cpio, ~250 MB, independent of IMPL)
# is appended to the boot's initramfs; the suite itself,
# tools/testing/selftests/kprobes/clients/clients.sh, runs from
# /mnt/host with the static workload kpt_workload built beside it.
. "$(dirname "$0")/common.sh"

C=$REPO/tools/testing/selftests/kprobes/clients
out=$BUILD/clients
cpio=$out/clients.cpio
mkdir -p "$out"

"$H/deps.sh" bpftrace:/usr/bin/bpftrace linux-perf:/usr/bin/perf \
	libc6-dev:/usr/lib/x86_64-linux-gnu/libc.a
bins=(/usr/bin/bpftrace /usr/bin/perf)

# libs: every library the clients load, and the dynamic loader
libs() { ldd_libs "${bins[@]}"; }
# what the payload is made of: rebuilt when any of it changed
stamp=$(libs | xargs ls -lL "${bins[@]}" 2>/dev/null | md5sum)
if [ ! -f "$cpio" ] || [ "$(cat "$out/stamp" 2>/dev/null)" != "$stamp" ]; then
	say "packing the clients: ${bins[*]} and their libraries"
	root=$out/root
	rm -rf "$root" && mkdir -p "$root"
	for f in "${bins[@]}" $(libs); do
		[ -e "$f" ] || continue
		mkdir -p "$root$(dirname "$f")" && cp -L "$f" "$root$f"
	done
	(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0) > "$cpio.tmp"
	mv "$cpio.tmp" "$cpio"
	echo "$stamp" > "$out/stamp"
fi

# the suite and its workload, at /mnt/host in the guest
suite=$(mktemp -d)
trap 'rm -rf "$suite"' EXIT
cp "$C/clients.sh" "$suite/"
gcc -static -O2 -o "$suite/kpt_workload" "$C/kpt_workload.c" ||
	die "building kpt_workload (static) failed"

say "clients payload $(du -h "$cpio" | cut -f1), MEM=$MEM"
# one guest run as make test does it (results, a failed run's console
# kept, the closing "N passed, N failed" and status)
EXTRA=$suite SUITES=none EXTRA_CPIO=$cpio RUN_NAME=clients "$H/test.sh" guest
