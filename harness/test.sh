#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# test.sh all|guest|harness: the `make test` pipeline.
#   guest    every suite in the guest (KUnit kprobes_test at boot, then the
#            suites of tools/testing/selftests/kprobes), judged by console.py
#   harness  self-tests of the harness: `make exec` returns the command's
#            status and shows its output and DIR; a run whose console shows
#            a kernel WARNING, or a failing KTAP case, is failed
# The last line is "N passed, N failed" over both; exit 1 on any failure.
. "$(dirname "$0")/common.sh"

what=${1:-all}
pass=0 fail=0 skip=0 n=0
check() {	# check NAME CONDITION-STATUS
	n=$((n + 1))
	if [ "$2" -eq 0 ]; then pass=$((pass + 1)); echo "  ok      harness $1"
	else fail=$((fail + 1)); echo "  FAIL    harness $1"; fi
}
start=$(date +%s)

# guest_run NAME: one boot running $SUITES, its results added to the totals
guest_run() {
	local r=$LOGS/results-$1-$IMPL.json
	rm -f "$r"
	RUN_NAME=$1 "$H/boot.sh" test || true
	# keep the console of a failed run: later runs overwrite $1-$IMPL.log
	if [ ! -f "$r" ] || ! grep -q '"failed": 0' "$r"; then
		cp "$LOGS/$1-$IMPL.log" "$LOGS/failed-$1-$IMPL-$(date +%Y%m%d-%H%M%S).log" 2>/dev/null || true
	fi
	if [ -f "$r" ]; then
		pass=$((pass + $(python3 -c "import json;print(json.load(open('$r'))['passed'])")))
		fail=$((fail + $(python3 -c "import json;print(json.load(open('$r'))['failed'])")))
		skip=$((skip + $(python3 -c "import json;print(json.load(open('$r'))['skipped'])")))
	else
		fail=$((fail + 1)); echo "  FAIL    guest run $1 produced no results"
	fi
}

if [ "$what" != harness ]; then
	# RUN_NAME names its console and results (make test-clients: clients)
	guest_run "${RUN_NAME:-test}"
	# Uniprocessor with a second CPU possible (maxcpus=1): the only boot
	# where alternatives still own the lock prefixes of .smp_locks, so
	# kprobes_api checks that registration refuses them.
	if [ "${SUITES:-all}" = all ]; then
		say "kprobes_api on a uniprocessor boot ($IMPL)"
		SUITES=kprobes_api KERNEL_ARGS="${KERNEL_ARGS:-} maxcpus=1 kunit.filter_glob=kprobes_api_*" \
			guest_run test-up
	fi
fi

if [ "$what" != guest ]; then
	say "harness self-tests ($IMPL)"
	set +e
	# the console judge on made-up consoles (no boot)
	while read -r st name; do
		[ "$st" = ok ]; check "$name" $?
	done < <(mkdir -p "$LOGS"; python3 "$H/tests/judge.py" |
		 tee "$LOGS/judge-selftest.log" | grep -E '^(ok|not ok) ' |
		 sed 's/^not ok /fail /')
	out=$(RUN_NAME=selftest-exec0 DIR= CMD='echo hello-from-guest; true' "$H/boot.sh" exec 2>&1); st=$?
	check "exec: status 0 returned" $st
	echo "$out" | grep -qx 'hello-from-guest'; check "exec: command output shown" $?

	RUN_NAME=selftest-exec7 DIR=$H/tests/hostdir CMD='grep -q harness-dir-ok /mnt/host/marker.txt && exit 7' \
		"$H/boot.sh" exec > /dev/null 2>&1; st=$?
	[ $st -eq 7 ]; check "exec: non-zero status returned, DIR at /mnt/host (got $st, want 7)" $?

	extra=$(mktemp -d)
	cp "$(extmod "$H/tests/warn" harness-warn)/warn_on_load.ko" "$H/tests/ktap_fail.sh" "$extra/"
	out=$(RUN_NAME=selftest-warn SUITES=none EXTRA=$extra "$H/boot.sh" test 2>&1); st=$?
	rm -rf "$extra"
	[ $st -ne 0 ]; check "runner: a failing run exits non-zero" $?
	echo "$out" | grep -q 'kernel report during warn_on_load: WARNING:'
	check "runner: kernel WARNING caught and named with its suite" $?
	echo "$out" | grep -q 'FAIL .*ktap_fail *harness_deliberate_fail'
	check "runner: failing KTAP case counted" $?
	echo "$out" | grep -q 'ok .*ktap_fail *harness_control_pass'
	check "runner: passing KTAP case counted" $?
	set -e
fi

say "make test ($IMPL) took $(( $(date +%s) - start ))s"
line="$pass passed, $fail failed"
[ $skip -gt 0 ] && line+=", $skip skipped"
echo "$line"
[ $fail -eq 0 ] && [ $pass -gt 0 ]
