# SPDX-License-Identifier: GPL-2.0
# Shared by the harness scripts: paths, logging, and the one place that
# knows how to call kbuild.  Sourced, never run.

set -euo pipefail

: "${REPO:=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
: "${BUILD:=$REPO/build}"
: "${IMPL:=ours}"
: "${SRC:=$BUILD/src/linux-source-6.12}"
: "${KSRC:=$BUILD/tree-$IMPL}"
: "${KOBJ:=$KSRC/_build}"
: "${FRAGS:=$REPO/config/kprobes.config}"
[ "$IMPL" = upstream ] || case " $FRAGS " in *series.config*) ;; *) FRAGS="$FRAGS $REPO/config/series.config" ;; esac
H=$REPO/harness
LOGS=$BUILD/logs
JOBS=$(( $(nproc) + 1 ))

export CCACHE_DIR="${CCACHE_DIR:-$HOME/.cache/ccache}"
export CCACHE_MAXSIZE="${CCACHE_MAXSIZE:-5G}"
# Objects do not depend on the folder they were built in (no debug info).
export CCACHE_NOHASHDIR=1
# Reproducible build stamps: identical inputs give identical objects, so
# ccache hits across rebuilds and across the two implementations.
export KBUILD_BUILD_TIMESTAMP="Thu Jan  1 00:00:00 UTC 2026"
export KBUILD_BUILD_USER=kprobes KBUILD_BUILD_HOST=harness

say() { printf '==> %s\n' "$*"; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# kmake ARGS...: kbuild for this IMPL's O= directory.
kmake() {
	local cc=gcc
	command -v ccache >/dev/null && cc="ccache gcc"
	make -s -C "$KSRC" O="$KOBJ" CC="$cc" HOSTCC="$cc" -j"$JOBS" "$@"
}

# kbuild_log KOBJ: harness/kbuild.sh's log of that build folder, one per
# folder (_build, _build_distro, ...): two of them may build at once
# (.ci/run's background lane)
kbuild_log() {
	local obj=${1##*/}
	echo "$LOGS/kbuild-$IMPL${obj#_build}.log"
}

# syncdir FROM TO: make TO's files equal FROM's, writing only what differs
# (so out-of-tree module builds stay incremental).
syncdir() {
	local from=$1 to=$2 f
	mkdir -p "$to"
	(cd "$from" && find . -type f ! -name '*.o' ! -name '*.ko' ! -name '.*.cmd' \
		! -name '*.mod' ! -name '*.mod.c' ! -name '*.order' ! -name 'Module.symvers') |
	while read -r f; do
		cmp -s "$from/$f" "$to/$f" && continue
		mkdir -p "$to/$(dirname "$f")" && cp -p "$from/$f" "$to/$f" && touch "$to/$f"
	done
}

# extmod FROM NAME [VAR=VALUE...]: build the out-of-tree modules in FROM
# against this IMPL's kernel, in $KOBJ/ext/NAME, with the make variables
# given; prints that folder.
extmod() {
	local from=$1 dir=$KOBJ/ext/$2 cc=gcc
	shift 2
	command -v ccache >/dev/null && cc="ccache gcc"
	syncdir "$from" "$dir"
	# a module's BTF is split against vmlinux's, and kbuild does not
	# relink an external module when only vmlinux changed: drop stale ones
	[ -f "$KOBJ/vmlinux" ] && find "$dir" -name '*.ko' ! -newer "$KOBJ/vmlinux" -delete
	make -s -C "$KOBJ" M="$dir" CC="$cc" -j"$JOBS" "$@" modules >&2 ||
		die "building modules in $from against $IMPL failed"
	echo "$dir"
}

# ldd_libs PROGRAM...: the shared libraries the programs load (the ones
# found) and the dynamic loader, one path a line, each once
ldd_libs() {
	ldd "$@" | awk '/=> \// { print $3 } /^\t\// { print $1 }' | sort -u
}

# kunit_syms CONFIG: the make variables that build kernel/kprobes_kunit
# out of tree as modules, against a kernel configured by CONFIG (ours, or
# stock 6.12, whose tree has no Kconfig for them): each suite where its
# Kconfig entry would allow it.
kunit_syms() {
	local c=$1
	grep -q '^CONFIG_KUNIT=y' "$c" && grep -q '^CONFIG_KPROBES=y' "$c" || return 0
	if grep -q '^CONFIG_KRETPROBES=y' "$c"; then
		echo CONFIG_KPROBES_API_KUNIT_TEST=m CONFIG_KPROBES_MODULE_KUNIT_TEST=m
		grep -q '^CONFIG_X86=y' "$c" && echo CONFIG_KPROBES_SEED_KUNIT_TEST=m
	fi
	grep -q '^CONFIG_LIVEPATCH=y' "$c" && echo CONFIG_KPROBES_LIVEPATCH_KUNIT_TEST=m
	return 0
}
