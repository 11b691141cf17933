#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make kunit [IMPL=upstream]: the kernel's own KUnit runner,
# tools/testing/kunit/kunit.py, on the kprobes KUnit suites built in
# (kernel/kprobes_kunit/.kunitconfig), x86_64 under QEMU.  There is no KVM
# here: kunit.py's QEMU runs TCG, which is its default, with two CPUs
# (--qemu_args) so that the cases needing a second one run.  kunit.py
# builds its own kernel, in build/kunit-$IMPL (O=).  One TCG thread for
# both CPUs, as in harness/boot.sh: with a thread per vCPU a vCPU can keep
# executing translated code that another vCPU's text_poke() replaced (seen
# here: a hammer thread trapping for ever on an int3 whose byte had long
# been restored, so kprobes_api_aggregate hung until kunit.py's timeout).
#
# Stock 6.12 has no Kconfig for our suites: IMPL=upstream runs the same
# .kunitconfig without them, i.e. upstream's own kprobes_test.  (make test
# runs our suites on both kernels, as modules.)
#
# kunit.py's own summary is in build/logs/kunit-$IMPL.log, the kernel's
# console in build/kunit-$IMPL/test.log; a kernel report there (WARNING,
# BUG, lockdep...) fails the run as in make test.  Last line:
# "N passed, N failed, N skipped".  KUNIT_BUILD_ONLY=1: kunit.py build
# only (.ci/run's background lane), no boot.
. "$(dirname "$0")/common.sh"

# kunit.py's x86_64 QEMU boots with qboot (qemu_configs/x86_64.py)
"$H/deps.sh" qemu-system-data:/usr/share/qemu/qboot.rom || exit 1
[ -f "$KSRC/Makefile" ] || die "no $KSRC: make tree first"
out=$BUILD/kunit-$IMPL
mkdir -p "$out" "$LOGS"
cfg=$REPO/kernel/kprobes_kunit/.kunitconfig
if [ "$IMPL" = upstream ]; then
	grep -v '^CONFIG_KPROBES_[A-Z]*_KUNIT_TEST=' "$cfg" > "$out.kunitconfig"
	cfg=$out.kunitconfig
fi
cc=gcc
command -v ccache > /dev/null && cc="ccache gcc"
log=$LOGS/kunit-$IMPL.log
json=$LOGS/kunit-$IMPL.json
rm -f "$json"
t0=$(date +%s)
if [ -n "${KUNIT_BUILD_ONLY:-}" ]; then
	cd "$KSRC"
	exec python3 tools/testing/kunit/kunit.py build --arch=x86_64 \
		--build_dir="$out" --kunitconfig="$cfg" --jobs="$JOBS" \
		--make_options="CC=$cc" --make_options="HOSTCC=$cc"
fi
say "kunit.py run --arch=x86_64 ($IMPL, TCG, 2 CPUs; kernel in ${out#"$REPO"/})"
set +e
(cd "$KSRC" && python3 tools/testing/kunit/kunit.py run --arch=x86_64 \
	--build_dir="$out" --kunitconfig="$cfg" --jobs="$JOBS" \
	--make_options="CC=$cc" --make_options="HOSTCC=$cc" \
	--qemu_args="-smp 2 -accel tcg,thread=single" --timeout="${TIMEOUT:-3600}" \
	--json="$json") 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
set -e
# the counts from kunit.py's JSON, and the kernel reports from its console
python3 - "$H" "$json" "$out/test.log" "$rc" "$(( $(date +%s) - t0 ))" <<'PY'
import importlib.util, json, os, sys
h, js, console, rc, took = sys.argv[1:]
spec = importlib.util.spec_from_file_location('console', h + '/console.py')
con = importlib.util.module_from_spec(spec)
spec.loader.exec_module(con)
count = {'PASS': 0, 'FAIL': 0, 'SKIP': 0}
def walk(g, path):
    for c in g.get('test_cases', []):
        st = c.get('status', 'FAIL')
        st = st if st in count else 'FAIL'
        count[st] += 1
        if st == 'FAIL':
            print('  FAIL   %s %s' % (path, c['name']))
    for s in g.get('sub_groups', []):
        walk(s, s.get('name', path))
try:
    walk(json.load(open(js)), '')
except (OSError, ValueError) as e:
    print('  FAIL   kunit.py wrote no results (%s)' % e)
    count['FAIL'] += 1
reports = []
if os.path.exists(console):
    for line in open(console, errors='replace'):
        t = con.strip(line.rstrip('\n'))
        if con.REPORTS.search(t) and not t.lstrip().startswith('#'):
            reports.append(t)
for t in reports[:10]:
    print('  FAIL   kernel report: ' + t)
count['FAIL'] += len(reports)
if int(rc) and not count['FAIL']:
    print('  FAIL   kunit.py exited %s' % rc)
    count['FAIL'] += 1
print('==> make kunit took %ss' % took)
print('%d passed, %d failed, %d skipped' %
      (count['PASS'], count['FAIL'], count['SKIP']))
sys.exit(1 if count['FAIL'] else 0)
PY
