#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make test-bpf [IMPL=upstream]: BPF's own selftests of kprobes, uprobes
# and their neighbours (the base tree's tools/testing/selftests/bpf
# test_progs and bpf_testmod.ko, unmodified) against this IMPL's kernel.
#
# The kernel is the BPF=1 build (tree-$IMPL/_build_bpf: BTF and the
# options the selftests' own config asks for).  test_progs is built with
# Debian's clang-19 and the tree's libbpf and bpftool, in
# build/bpf-$IMPL (a copy of the tree's tools/, since the selftests build
# bpf_testmod in their source folder), against that kernel's BTF.  The
# guest gets test_progs, its BPF objects and helpers, bpf_testmod.ko and
# every library test_progs loads (as make test-clients does), and runs
# the cases of $BPF_TESTS.  test_progs' own output is kept in
# build/logs/test-bpf-$IMPL.log; its results in
# build/logs/results-bpf-$IMPL.json.  Last line "N passed, N failed, N
# skipped" over the subtests (a test without subtests counts as one).
. "$(dirname "$0")/common.sh"

# the cases: BPF's programs on kprobes, kretprobes, kprobe_multi
# (fprobe), uprobes, uretprobes, uprobe_multi and USDT, the links and
# counters they report, and trampolines beside them
: "${BPF_TESTS:=attach_probe,bpf_cookie,fentry_fexit,fill_link_info,get_func_args_test,get_func_ip_test,kprobe_multi_test,kprobe_multi_testmod_test,missed,perf_link,probe_user,trampoline_count,uprobe,uprobe_autoattach,uprobe_multi_test,uprobe_syscall,usdt}"

"$H/deps.sh" clang-19:clang-19 llvm-19:llc-19 lld-19:ld.lld-19 \
	libelf-dev:/usr/include/libelf.h zlib1g-dev:/usr/include/zlib.h \
	libzstd-dev:/usr/include/zstd.h libcap-dev:/usr/include/sys/capability.h \
	rsync:rsync || exit 1
case "$KOBJ" in *_bpf) ;; *) die "test-bpf runs on the BPF=1 kernel (make test-bpf builds it)" ;; esac
[ -f "$KOBJ/vmlinux" ] || die "no $KOBJ/vmlinux: make BPF=1 kernel first"

W=$BUILD/bpf-$IMPL
S=$W/tools/testing/selftests/bpf
# built in its source folder, as the selftests are usually built: with
# OUTPUT elsewhere, the test objects' dependency files name the skeletons
# relative to OUTPUT (they are compiled there), which the next make, run
# in the source folder, cannot find
mkdir -p "$W" "$LOGS"
# the tree's tools/, with the files its symlinks name outside it copied
# in, and what the selftests' build reads from beside it (no --delete:
# the build's products live in the copy)
rsync -a --copy-unsafe-links "$KSRC/tools/" "$W/tools/"
rsync -a --delete "$KSRC/scripts/" "$W/scripts/"
mkdir -p "$W/kernel/bpf"
cp "$KSRC"/kernel/bpf/disasm.[ch] "$W/kernel/bpf/"
# Debian's 6.12.117 ships prog_tests/bpf_attr_size.c (a stable backport)
# without the BPF program its skeleton is made from: test_progs does not
# build as shipped.  A test whose skeleton has no source (progs/NAME.c, or
# a linked skeleton the Makefile names) is left out of this copy, said.
for t in "$S"/prog_tests/*.c; do
	for sk in $(sed -n 's/^#include "\([a-z0-9_]*\)\.skel\.h"$/\1/p' "$t"); do
		[ -e "$S/progs/$sk.c" ] || grep -q "\b$sk\.skel\.h-deps\b\|\b$sk\.skel\.h\b" "$S/Makefile" && continue
		n=$(basename "$t" .c)
		case ",$BPF_TESTS," in *",$n,"*) die "$n, a test of BPF_TESTS, has no progs/$sk.c" ;; esac
		say "left out: ${t#"$S"/} (no progs/$sk.c for its skeleton)"
		rm "$t"
		break
	done
done
# the UAPI headers, where lib.mk (usr/) and the BPF programs' flags
# ($(OUTPUT)/../usr) look for them
kmake headers_install INSTALL_HDR_PATH="$W/usr" > /dev/null
ln -sfn ../../../usr "$W/tools/testing/selftests/usr"
# the kernel's autoconf.h, where the selftests look without O= (with O=
# they would also write their output there, into the kernel's build)
mkdir -p "$W/include/generated"
cp "$KOBJ/include/generated/autoconf.h" "$W/include/generated/"
blog=$LOGS/test-bpf-build-$IMPL.log
say "building test_progs and bpf_testmod.ko with clang-19 against ${KOBJ#"$REPO"/} (log: ${blog#"$REPO"/})"
t0=$(date +%s)
# OUTPUT given: lib.mk defaults it only in a make of level 0
make -C "$S" -j"$JOBS" OUTPUT="$S" VMLINUX_BTF="$KOBJ/vmlinux" \
	KDIR="$KOBJ" CLANG=clang-19 LLC=llc-19 LLVM_STRIP=llvm-strip-19 \
	BPF_GCC= test_progs > "$blog" 2>&1 ||
	{ tail -30 "$blog"; die "building test_progs failed"; }
say "test_progs built in $(( $(date +%s) - t0 ))s"

# the payload: /bpf with what test_progs reads from its folder, and the
# libraries it loads where the host has them
p=$W/payload
rm -rf "$p" && mkdir -p "$p/bpf"
cp "$S"/test_progs "$S"/*.bpf.o "$S"/urandom_read "$S"/liburandom_read.so \
	"$S"/uprobe_multi "$S"/bpf_testmod.ko "$p/bpf/"
for l in $(ldd_libs "$S/test_progs" "$S/urandom_read" "$S/uprobe_multi"); do
	mkdir -p "$p$(dirname "$l")" && cp -L "$l" "$p$l"
done
(cd "$p" && find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0) > "$W/payload.cpio"
say "payload $(du -h "$W/payload.cpio" | cut -f1)"

log=$LOGS/test-bpf-$IMPL.log
# test_progs loads bpf_testmod.ko from its folder; -v would print every
# program's log: its own summary lines are what is parsed
set +e
EXTRA_CPIO=$W/payload.cpio RUN_NAME=bpf \
	CMD="mount -t bpf bpf /sys/fs/bpf 2>/dev/null; cd /bpf && ./test_progs -t $BPF_TESTS" \
	"$H/boot.sh" exec > "$log" 2>&1
rc=$?
set -e
python3 - "$log" "$LOGS/results-bpf-$IMPL.json" "$rc" "$BPF_TESTS" <<'PY'
import json, re, sys
log, res, rc, wanted = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
# what the console judge found (harness/console.py, exec mode): a kernel
# report, a taint, a guest that did not power off or timed out
problems = [l.strip() for l in open(log, errors='replace')
            if re.match(r'^harness: (kernel report|kernel tainted|guest did not'
                        r' reach|TIMEOUT|the command did not complete)', l)]
tests, subs = {}, {}
for line in open(log, errors='replace'):
    # "#N name:OK", "#N/M name/sub:FAIL", "#N name:OK (SKIP: 1/4)"
    m = re.match(r'^#(\d+)(?:/(\d+))?\s+(.+?):(OK|FAIL|SKIP)'
                 r'(?: \(SKIP: \d+/\d+\))?$', line.strip())
    if not m:
        continue
    name, st = m.group(3), m.group(4)
    (subs if m.group(2) else tests)[name] = st
# a test's subtests count; a test without any, itself
out = {}
for t, st in tests.items():
    mine = {s: v for s, v in subs.items() if s.split('/')[0] == t}
    out.update(mine or {t: st})
count = {'OK': 0, 'FAIL': 0, 'SKIP': 0}
for name, st in sorted(out.items()):
    count[st] += 1
    print('  %-6s %s' % ({'OK': 'ok', 'FAIL': 'FAIL', 'SKIP': 'skip'}[st], name))
fail = count['FAIL']
for p in problems:
    print('  FAIL   ' + p)
    fail += 1
# -t runs the tests whose name contains one of these: each must have run
for t in wanted.split(','):
    if t not in tests:
        print('  FAIL   %s: no result (not a test of this test_progs?)' % t)
        fail += 1
if not out:
    print('  FAIL   test_progs printed no result (see %s)' % log)
    fail += 1
elif rc and not fail:
    print('  FAIL   the guest run exited %d (see %s)' % (rc, log))
    fail += 1
json.dump({'results': out, 'passed': count['OK'], 'failed': fail,
           'skipped': count['SKIP']}, open(res, 'w'), indent=1)
print('%d passed, %d failed, %d skipped' % (count['OK'], fail, count['SKIP']))
sys.exit(1 if fail else 0)
PY
