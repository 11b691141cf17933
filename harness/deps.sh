#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Installs the Debian packages the harness needs, or, when not root, prints
# the one apt-get command that would.  Idempotent: a no-op when all present.
. "$(dirname "$0")/common.sh"

# package:probe pairs; the probe is a command or a file that proves the
# package is installed.
need=(
	linux-source-6.12:/usr/src/linux-source-6.12.tar.xz
	qemu-system-x86:qemu-system-x86_64
	busybox-static:/bin/busybox
	ccache:ccache gcc:gcc make:make flex:flex bison:bison bc:bc
	libelf-dev:/usr/include/libelf.h libssl-dev:/usr/include/openssl/ssl.h
	cpio:cpio xz-utils:xz python3:python3 patch:patch
	gnuplot-nox:gnuplot dwarves:pahole kmod:/sbin/depmod
)
# a target's own extra needs, as more package:probe pairs (clients.sh)
need+=("$@")
missing=()
for pair in "${need[@]}"; do
	pkg=${pair%%:*} probe=${pair#*:}
	if [[ $probe == /* ]]; then [ -e "$probe" ] && continue
	else command -v "$probe" >/dev/null && continue; fi
	missing+=("$pkg")
done
# busybox-static and busybox conflict; /bin/busybox from the dynamic one
# will not run in our initramfs, so insist on the static build.
if [ -e /bin/busybox ] && readelf -l /bin/busybox 2>/dev/null | grep -q INTERP; then
	missing+=(busybox-static)
fi
[ ${#missing[@]} -eq 0 ] && exit 0

cmd="apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
	echo "Missing packages: ${missing[*]}" >&2
	echo "Run:  sudo apt-get update && sudo $cmd" >&2
	exit 1
fi
say "installing: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
