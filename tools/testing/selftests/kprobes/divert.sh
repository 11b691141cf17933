#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A kprobe on a function's entry sees every call while another ftrace user
# diverts that function: a BPF fmod_ret program that skips the body
# (kpt_fmodret, on bpf_modify_return_test()) and a livepatch that replaces
# it (kpt_livepatch, on kpt_target_mod's kpt_mod_func()), beside a tracefs
# kprobe event and (the livepatch) a BPF kprobe program.  Each in both
# orders: the probe first (a kernel with carriers has then carried it, and
# moves it onto the ftrace hook as the diverting user comes) and the probe
# second (no carrier is made on a diverted function).  Same counts and the
# same argument on either kernel.
. "$(dirname "$0")/lib.sh"
plan 18
carriers=/proc/sys/debug/kprobes-carriers
N=1000
P=/sys/module/kpt_target_mod/parameters
LP=/sys/kernel/livepatch/kpt_livepatch

# hits EVENT: the event's hit count in kprobe_profile
hits() { awk -v e="$1" '$1 == e { print $2 }' $T/kprobe_profile; }
# is_carried SYM [LIST]: the probe on SYM is listed [CARRIED]
is_carried() { grep -Eq " k  $1\+0x[0-9a-f]+ .*\[CARRIED\]" "${2:-$D/list}"; }
# listed SYM [LIST]: a probe on SYM is listed
listed() { grep -Eq " k  $1\+0x[0-9a-f]+ " "${2:-$D/list}"; }
# carried SYM: the probe on SYM is carried (waits 2 s) and still is half
# a second later, so that the carrier is one the diverting user must move
# (a carrier the optimizer refuses goes onto the hook on its own)
carried() {
	_i=0
	while [ $_i -lt 20 ]; do
		is_carried "$1" && break
		sleep 0.1
		_i=$((_i + 1))
	done
	sleep 0.5
	is_carried "$1"
}
# carried_case NAME SYM WANT: on a kernel with carriers enabled, ok when
# the probe on SYM is carried (WANT=yes) or is not (WANT=no)
carried_case() {
	if [ "$(cat $carriers 2> /dev/null)" != 1 ]; then
		skip "$1" "this kernel has no carriers (or they are off)"
	elif [ "$3" = yes ]; then
		carried "$2"
		result "$1" $?
	else
		listed "$2" && ! is_carried "$2"
		result "$1" $?
	fi
}
# traced EVENT SYM ARG N: N lines of EVENT at SYM's entry with ARG
traced() {
	[ "$(grep -Ec " $1: \($2\+0x[0-9a-f]+/0x[0-9a-f]+( \[[a-z_]+\])?\) $3\$" $T/trace)" = "$4" ]
}
# the livepatch helpers, in a file that the commands kpt_bpfkprobe runs
# source too:
#  livepatch_wait: the livepatch's transition is over (20 s at most)
#  livepatch_gone: the disabled livepatch freed its sysfs folder (20 s)
#  calls FROM TO ADD: kpt_mod_func(x) for x in FROM..TO each returned 3x+ADD
FNS=/tmp/kpt_divert_fns.sh
cat > $FNS << EOF
P=$P
LP=$LP
EOF
cat >> $FNS << 'EOF'
livepatch_wait() {
	_i=0
	while [ "$(cat $LP/transition 2> /dev/null)" != 0 ] && [ $_i -lt 200 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	[ "$(cat $LP/transition 2> /dev/null)" = 0 ]
}
livepatch_gone() {
	_i=0
	while [ -e $LP ] && [ $_i -lt 200 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	[ ! -e $LP ]
}
calls() {
	_x=$1 _bad=0
	while [ $_x -le $2 ]; do
		echo $_x > $P/call
		[ "$(cat $P/result)" = $((_x * 3 + $3)) ] || _bad=$((_bad + 1))
		_x=$((_x + 1))
	done
	[ $_bad = 0 ]
}
EOF
. $FNS
# livepatch_off: the livepatch disabled, gone and unloaded
livepatch_off() {
	echo 0 > $LP/enabled && livepatch_gone
	# the folder goes before the patch lets go of its module: retry
	_i=0
	while ! rmmod kpt_livepatch 2> /dev/null && [ $_i -lt 20 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
}

# fmr_results ORDER: kpt_fmodret's $out, and what the probe saw, for the
# probe registered ORDER
fmr_results() {
	diag "$1: $out"
	[ "$out" = "runs $N skipped $N ret 36" ]
	result "fmod_ret, $1: the program skipped the body of all $N calls" $?
	[ "$(hits fmr)" = $N ]
	result "fmod_ret, $1: the kprobe saw all $N calls ($(hits fmr))" $?
	traced fmr bpf_modify_return_test a=1 $N
	result "fmod_ret, $1: each hit traced with its argument" $?
}

FMR="p:kpt/fmr bpf_modify_return_test a=%di:s32"
echo > $T/kprobe_events
echo > $T/trace

# --- BPF fmod_ret: the program returns 7, so the body never runs ----------
# (attaching fmod_ret needs the target's BTF id: a kernel without BTF,
# such as the default config's, leaves these cases to make test-distro)
if [ ! -e /sys/kernel/btf/vmlinux ]; then
	for c in "probe first: the entry probe is carried" \
		"probe first: the program skipped the body of all $N calls" \
		"probe first: the kprobe saw all $N calls" \
		"probe first: each hit traced with its argument" \
		"probe second: the program skipped the body of all $N calls" \
		"probe second: the kprobe saw all $N calls" \
		"probe second: each hit traced with its argument" \
		"probe second: no carrier under the program" \
		"returning 0, probe first: the body ran, the kprobe saw each call once"; do
		skip "fmod_ret, $c" \
			"this boot: no BTF (CONFIG_DEBUG_INFO_BTF: make test-distro has it)"
	done
else
	echo "$FMR" > $T/kprobe_events
	echo 1 > $T/events/kpt/fmr/enable
	carried_case "fmod_ret, probe first: the entry probe is carried" \
		bpf_modify_return_test yes
	out=$(kpt_fmodret $N)
	fmr_results "probe first"
	echo 0 > $T/events/kpt/fmr/enable
	echo > $T/kprobe_events
	echo > $T/trace

	rm -f /tmp/list
	out=$(kpt_fmodret $N "echo '$FMR' > $T/kprobe_events &&
		echo 1 > $T/events/kpt/fmr/enable && sleep 1 && cp $D/list /tmp/list")
	fmr_results "probe second"
	if [ "$(cat $carriers 2> /dev/null)" = 1 ]; then
		[ -e /tmp/list ] && listed bpf_modify_return_test /tmp/list &&
			! is_carried bpf_modify_return_test /tmp/list
		result "fmod_ret, probe second: no carrier under the program" $?
	else
		skip "fmod_ret, probe second: no carrier under the program" \
			"this kernel has no carriers (or they are off)"
	fi
	echo 0 > $T/events/kpt/fmr/enable
	echo > $T/kprobe_events
	echo > $T/trace

	# a program that returns 0: its trampoline calls the body past the
	# fentry site, where the carrier is while the move goes on (once the
	# last probe's hook stopped lingering: a probe would take it over)
	sleep 1
	echo "$FMR" > $T/kprobe_events
	echo 1 > $T/events/kpt/fmr/enable
	# a kernel with carriers carries the probe first
	c=0
	[ "$(cat $carriers 2> /dev/null)" = 1 ] && { carried bpf_modify_return_test || c=1; }
	out=$(kpt_fmodret -0 $N)
	diag "returning 0: $out"
	[ $c = 0 ] && [ "$out" = "runs $N skipped 0 ret 33" ] && [ "$(hits fmr)" = $N ]
	result "fmod_ret returning 0, probe first: the body ran, the kprobe saw each call" \
		"once ($(hits fmr))" $?
	echo 0 > $T/events/kpt/fmr/enable
	echo > $T/kprobe_events
	echo > $T/trace
fi

# --- livepatch: kpt_mod_func(x) is x * 3 + 1, patched x * 3 + 2 -----------
if [ ! -e $M/kpt_livepatch.ko ]; then
	for c in "probe first: carried" "probe first: patched" \
		"probe first: all calls" "probe second: not carried" \
		"probe second: all calls" "unpatched: all calls" \
		"unpatched: the argument" "BPF kprobe first" "BPF kprobe second"; do
		skip "livepatch, $c" "this boot: no kpt_livepatch.ko (no CONFIG_LIVEPATCH)"
	done
	exit 0
fi
LPN=100
insmod $M/kpt_target_mod.ko
echo 'p:kpt/lp kpt_target_mod:kpt_mod_func x=%di:s32' > $T/kprobe_events
echo 1 > $T/events/kpt/lp/enable
carried_case "livepatch, probe first: the entry probe is carried" kpt_mod_func yes
insmod $M/kpt_livepatch.ko && livepatch_wait
calls 1 $LPN 2
result "livepatch, probe first: all $LPN calls ran the patched body" $?
[ "$(hits lp)" = $LPN ] && traced lp kpt_mod_func x=$LPN 1
result "livepatch, probe first: the kprobe saw all $LPN calls ($(hits lp))" $?
echo 0 > $T/events/kpt/lp/enable
echo > $T/kprobe_events
echo > $T/trace

echo 'p:kpt/lp kpt_target_mod:kpt_mod_func x=%di:s32' > $T/kprobe_events
echo 1 > $T/events/kpt/lp/enable
sleep 1
carried_case "livepatch, probe second: no carrier under the livepatch" \
	kpt_mod_func no
calls 1 $LPN 2 && [ "$(hits lp)" = $LPN ]
result "livepatch, probe second: the kprobe saw all $LPN patched calls ($(hits lp))" $?

# the livepatch leaves: the probe stays and sees the original body's calls
livepatch_off
calls 1 $LPN 1 && [ "$(hits lp)" = $((LPN * 2)) ]
result "livepatch gone: the kprobe saw all $LPN original calls too ($(hits lp))" $?
traced lp kpt_mod_func x=7 2
result "livepatch gone: each hit traced with its argument" $?
echo 0 > $T/events/kpt/lp/enable
echo > $T/kprobe_events

# --- a BPF kprobe program (kpt_bpfkprobe) and the livepatch ---------------
# attached as bpftrace and libbpf attach one: the kprobe PMU
out=$(kpt_bpfkprobe kpt_mod_func \
	". $FNS; insmod $M/kpt_livepatch.ko && livepatch_wait && calls 1 $LPN 2")
[ "$out" = "hits $LPN" ]
result "livepatch, BPF kprobe first: the livepatch loads, the program sees all $LPN" \
	"patched calls ($out)" $?
out=$(kpt_bpfkprobe kpt_mod_func ". $FNS; calls 1 $LPN 2")
[ "$out" = "hits $LPN" ]
result "livepatch, BPF kprobe second: the program sees all $LPN patched calls ($out)" $?
livepatch_off
rmmod kpt_target_mod

done_testing
