# SPDX-License-Identifier: GPL-2.0
# What the kprobes selftests share: KTAP output through kselftest's own
# ktap_helpers.sh, and where the suite's helpers are.  A suite sources
# this from its own directory, calls plan N, then one result per case;
# each case names one observable behaviour.

# this target's directory: the suite's own, unless its caller says
KPT_DIR=${KPT_DIR:-$(cd "$(dirname "$0")" && pwd)}
# kselftest's helpers: ../kselftest in the source tree and when installed
. "$KPT_DIR/../kselftest/ktap_helpers.sh"

T=/sys/kernel/tracing
D=/sys/kernel/debug/kprobes
# the modules the suites load (TEST_GEN_MODS_DIR), and their programs
M=$KPT_DIR/modules
PATH=$KPT_DIR:$PATH

plan() { ktap_print_header; ktap_set_plan "$1"; }
# A result line, quoted (ktap_helpers.sh echoes its words unquoted, which
# would glob "[GONE]" and squeeze spaces), counted in ktap_helpers.sh's
# counters so that ktap_finished() judges the run: _kpt_line "ok"|"not ok"
# COUNTER NAME [DIRECTIVE]
_kpt_line() {
	printf '%s %d %s%s\n' "$1" "$KTAP_TESTNO" "$3" "${4:+ # $4}"
	KTAP_TESTNO=$((KTAP_TESTNO + 1))
	eval "$2=\$((\$$2 + 1))"
}
# result NAME STATUS: ok if STATUS is 0
# result NAME... STATUS: a KTAP line for NAME; a long name may be given in
# several words (over several lines), which are joined with spaces
result() {
	_name=$1
	shift
	while [ $# -gt 1 ]; do _name="$_name $1"; shift; done
	if [ "$1" -eq 0 ]; then _kpt_line ok KTAP_CNT_PASS "$_name"
	else _kpt_line "not ok" KTAP_CNT_FAIL "$_name"; fi
}
# check NAME CMD...: runs CMD, ok if it succeeds
check() { _name=$1; shift; "$@" > /dev/null 2>&1; result "$_name" $?; }
# skip NAME WHY: a skipped case, with the reason after SKIP
skip() { _kpt_line ok KTAP_CNT_SKIP "$1" "SKIP $2"; }
# skip_all N WHAT REASON: N skipped cases, "WHAT case 1" to "WHAT case N"
skip_all() {
	_i=0
	while [ $_i -lt "$1" ]; do
		_i=$((_i + 1))
		skip "$2 case $_i" "$3"
	done
}
diag() { printf '# %s\n' "$*"; }
# done_testing: the totals line, and the exit status kselftest's runner
# reads (non-zero if a case failed or the plan was not met)
done_testing() { ktap_finished; }

# A small busybox workload (bench.sh, stress/stress.sh): fork/exec, file
# I/O, loopback HTTP from the server workload_start runs; sets good to the
# fetches, of 3, that returned the file intact.
workload_start() {
	mkdir -p /tmp/www && echo hello > /tmp/www/h
	httpd -p 127.0.0.1:8080 -h /tmp/www
}
workload() {
	i=0 good=0
	while [ $i -lt 3 ]; do
		ls -l /proc/self/ /sys/kernel > /dev/null
		dd if=/dev/zero of=/tmp/w bs=4k count=64 2> /dev/null
		md5sum /tmp/w > /dev/null
		sh -c 'cat /proc/meminfo' > /dev/null
		[ "$(wget -q -O - http://127.0.0.1:8080/h)" = hello ] && good=$((good + 1))
		i=$((i + 1))
	done
}

# peer_ftracetest DIR [CASE.tc WHY]...: the base tree's own ftrace
# selftests (ftracetest, unmodified, beside this target) on every case of
# test.d/DIR but the CASEs named, in KTAP.  A case that fails or cannot
# resolve has its log printed as "# " lines under its result.
peer_ftracetest() {
	_dir=$1; shift
	# installed beside kprobes by TARGETS="ftrace kprobes"
	if ! cd "$KPT_DIR/../ftrace" 2> /dev/null; then
		ktap_print_header
		ktap_skip_all "ftracetest is not installed beside kprobes"
		exit "$KSFT_SKIP"
	fi
	_cases=$(find "test.d/$_dir" -name '*.tc' | sort)
	while [ $# -ge 2 ]; do
		_cases=$(echo "$_cases" | grep -v "/$1\$")
		echo "# not run: $1: $2"
		shift 2
	done
	# ftracetest skips a case (UNSUPPORTED, UNTESTED) when this kernel
	# lacks what the case's "# requires:" line names (a config without the
	# function tracer has no fprobes): each skip says so, as ours must
	for _f in $_cases; do
		printf '%s\t%s\n' \
			"$(sed -n 's/^# description: *//p' "$_f" | head -n 1)" \
			"$(sed -n 's/^# requires: *//p' "$_f" | head -n 1)"
	done > /tmp/ftracetest-why
	# shellcheck disable=SC2086
	{ ./ftracetest -K -v -l /tmp/ftracetest-logs $_cases; echo $? > /tmp/ftracetest-rc; } |
	awk -F'\t' 'NR == FNR { why[$1] = $2; next }
		/^ok [0-9]+ .* # SKIP$/ {
			d = $0; sub(/^ok [0-9]+ /, "", d); sub(/ # SKIP$/, "", d)
			r = why[d]; gsub(/#/, "", r)
			if (r == "") r = "the case found something it needs missing"
			else r = "the kernel lacks what it requires: " r
			print $0 " this boot: " r; next
		}
		{ print }' /tmp/ftracetest-why -
	return "$(cat /tmp/ftracetest-rc)"
}
