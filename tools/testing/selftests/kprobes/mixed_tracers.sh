#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Every kind of tracer on the same function at once (issue 48).  On x86 a
# function's return may be diverted by three kinds of hook: a kretprobe's
# trampoline (ours: kretprobe_trampoline; stock 6.12: rethook's),
# rethook's arch_rethook_trampoline (fprobe exit events, BPF
# kretprobe.multi) and function_graph's return_to_handler.  Whichever
# hooks a return later saves the earlier one's trampoline as the "real"
# return address; it must still name the real caller, and the unwinder
# must still get through the frame.  Checked:
#  - __x64_sys_getsid, called exactly N times by kpt_getsid, under mixes
#    of kprobe (p:), kretprobe (r:), fprobe entry (f:) and exit
#    (f:...%return) events, the function or function_graph tracer and a
#    module's kprobe (pre and post handlers) and kretprobe (kpt_mixed.ko),
#    in several registration orders: every user counts N calls, and every
#    return-side record names the caller a kretprobe event alone names
#    (never a trampoline);
#  - a task blocked in pipe_read under a kretprobe event and an fprobe exit
#    event (each alone, both orders) or function_graph and a kretprobe:
#    /proc/PID/stack is whole, down to entry_SYSCALL_64_after_hwframe;
#  - livepatch (kpt_livepatch.ko on kpt_target_mod): its transitions
#    complete with such a task blocked (a stack judged unreliable stalls
#    them), and the mix on the livepatched kpt_mod_func counts and names
#    as above.
# Stock 6.12 gets some of this wrong itself (its get_kretprobe_retaddr()
# returns what the rethook node saved, another hook's trampoline when that
# hook came first; its unwinder stops at a kretprobe's trampoline over
# return_to_handler): there a failed check is a skip that says what stock
# showed; on ours it fails.  Two rounds are not run on stock at all, since
# it WARNs and then oopses on them (post_joins).
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
plan 38

N=100
F=__x64_sys_getsid
# what a return-side record or a stack must never name; trace output
# prints a kretprobe trampoline as "[unknown/kretprobe'd]"
TRAMPS="arch_rethook_trampoline|kretprobe_trampoline|return_to_handler|kretprobe'd"
MP=/sys/module/kpt_mixed/parameters
P=/sys/module/kpt_target_mod/parameters
LP=/sys/kernel/livepatch/kpt_livepatch
FIFO=/tmp/mx_fifo
SNAP=/tmp/mx_trace

# Ours or stock: ours has jprobes, stock 6.12 has none (kprobe_events.sh
# and samples.sh tell them apart the same way).  register_jprobe is built
# with CONFIG_KPROBES itself, so it is in /proc/kallsyms on every config
# of ours (wprobes, say, are a config option of their own).
stock=
grep -qw register_jprobe /proc/kallsyms || stock=1

# verdict NAME STATUS SEEN: the result of a check; on stock 6.12 a failure
# is reported as a skip saying what stock showed (SEEN), so that the
# upstream bug is named and the stock run stays green
verdict() {
	if [ "$2" -ne 0 ] && [ -n "$stock" ]; then
		skip "$1" "stock 6.12: $3"
	else
		result "$1" "$2"
	fi
}

# user_name USER: what a USER letter of add() stands for, in case names
user_name() {
	case $1 in
	p) echo kprobe ;;
	r) echo kretprobe ;;
	f) echo fprobe ;;
	fx) echo "fprobe exit" ;;
	fx2) echo "second fprobe exit" ;;
	mod) echo "module kprobe+kretprobe" ;;
	ft) echo "function tracer" ;;
	fg) echo function_graph ;;
	esac
}
# names USER...: "kretprobe then fprobe exit", in registration order
names() {
	_s=
	for _u in "$@"; do _s="${_s:+$_s then }$(user_name "$_u")"; done
	echo "$_s"
}

# add USER FUNC [EVENT]: registers one user on FUNC.  An event is created
# and enabled at once, so that registration order is what the arguments
# say (an fprobe event registers its fprobe when created, a kprobe event
# arms its kprobe when enabled).
#   p, r    a kprobe, a kretprobe event kpt/EVENT (default kpt/mx_USER)
#   f, fx   an fprobe entry, exit event
#   fx2     a second fprobe exit event
#   mod     kpt_mixed.ko: a kprobe with pre and post handlers, a kretprobe
#   ft, fg  the function, function_graph tracer, filtered to FUNC
add() {
	_e=${3:-mx_$1}
	case $1 in
	p) echo "p:kpt/$_e $2" >> "$T/kprobe_events" ;;
	r) echo "r:kpt/$_e $2" >> "$T/kprobe_events" ;;
	f) echo "f:kpt/$_e $2" >> "$T/dynamic_events" ;;
	fx|fx2) echo "f:kpt/$_e $2%return" >> "$T/dynamic_events" ;;
	mod) insmod "$M/kpt_mixed.ko" symbol="$2"; return ;;
	ft) echo "$2" > "$T/set_ftrace_filter" && echo function > "$T/current_tracer"
		return ;;
	# funcgraph-tail names the function at each return line, so that
	# returns are counted too (a leaf call is one line, "FUNC();")
	fg) echo "$2" > "$T/set_ftrace_filter" && echo 1 > "$T/options/funcgraph-tail" &&
		echo function_graph > "$T/current_tracer"
		return ;;
	esac && echo 1 > "$T/events/kpt/$_e/enable"
}
# add_all FUNC USER...: add() each USER on FUNC in order; 1 if one failed
add_all() {
	_f=$1 _r=0
	shift
	for _u in "$@"; do
		add "$_u" "$_f" || { diag "registering $(user_name "$_u") on $_f failed"; _r=1; }
	done
	return $_r
}
# del EVENT...: disables and removes these events of this suite
del() {
	for _e in "$@"; do
		[ -d "$T/events/kpt/$_e" ] || continue
		echo 0 > "$T/events/kpt/$_e/enable"
		echo "-:kpt/$_e" >> "$T/dynamic_events"
	done
}
# clear_all: no user of this suite left, the trace empty
clear_all() {
	echo nop > "$T/current_tracer"
	# (neither file exists without the function tracer)
	if [ -e "$T/set_ftrace_filter" ]; then echo > "$T/set_ftrace_filter"; fi
	if [ -e "$T/options/funcgraph-tail" ]; then echo 0 > "$T/options/funcgraph-tail"; fi
	for _d in "$T"/events/kpt/mx_*; do
		[ -d "$_d" ] && del "${_d##*/}"
	done
	if grep -q '^kpt_mixed ' /proc/modules; then rmmod kpt_mixed; fi
	echo > "$T/trace"
}

# calls FROM TO ADD: kpt_mod_func(x) for x in FROM..TO each returned 3x+ADD
# (1: the original body, 2: the livepatch's)
calls() {
	_x=$1 _bad=0
	while [ "$_x" -le "$2" ]; do
		echo "$_x" > $P/call
		[ "$(cat $P/result)" = $((_x * 3 + $3)) ] || _bad=$((_bad + 1))
		_x=$((_x + 1))
	done
	wout="$_bad of $(($2 - $1 + 1)) calls returned other than 3x+$3"
	[ $_bad = 0 ]
}
# work FUNC: exactly N calls of FUNC, each checked; wout says how they went
work() {
	case $1 in
	"$F")
		wout=$(kpt_getsid $N)
		[ "$wout" = "calls $N $N" ] ;;
	kpt_mod_func) calls 1 $N "$lpadd" ;;
	esac
}

# tr_count EVENT: EVENT's records in the trace snapshot
tr_count() { grep -c " $1: (" $SNAP; }
# tr_named EVENT CALLER: those of EVENT's return records naming CALLER
tr_named() { grep -cF " $1: ($2 <- " $SNAP; }
# tr_callers EVENT: the callers EVENT's return records name, "COUNTx CALLER"
tr_callers() {
	sed -n "s/.* $1: (\(.*\) <- .*/\1/p" $SNAP | sort | uniq -c |
		awk '{ c = $1; sub(/^ *[0-9]+ /, ""); printf "%s%dx %s", s, c, $0; s = ", " }'
}
# prof EVENT: "HITS MISSED" of EVENT in kprobe_profile
prof() { awk -v e="$1" '$1 == e { print $2, $3 }' "$T/kprobe_profile"; }

# observe FUNC BASE USER...: reads what each USER saw of the workload on
# FUNC.  counts: each user's count of calls (N wanted), cbad=1 if one is
# off; callers: the caller each return-side user named (BASE wanted;
# the function tracer's parent too), rbad=1 if one is not BASE.
observe() {
	_f=$1 _b=$2
	shift 2
	cat "$T/trace" > $SNAP
	counts="" callers="" cbad=0 rbad=0
	for _u in "$@"; do
		case $_u in
		p|r)
			_c=$(tr_count "mx_$_u") _pm=$(prof "mx_$_u")
			[ "$_c" = $N ] && [ "$_pm" = "$N 0" ] || cbad=1
			counts="$counts mx_$_u $_c (profile hits, missed: $_pm);" ;;
		f|fx|fx2)
			_c=$(tr_count "mx_$_u")
			[ "$_c" = $N ] || cbad=1
			counts="$counts mx_$_u $_c;" ;;
		mod)
			_c="$(cat $MP/pre) $(cat $MP/post) $(cat $MP/ret) $(cat $MP/missed)"
			[ "$_c" = "$N $N $N 0" ] || cbad=1
			counts="$counts module pre, post, ret, missed: $_c;" ;;
		ft)
			_c=$(grep -c " $_f <-" $SNAP)
			[ "$_c" = $N ] || cbad=1
			counts="$counts function tracer $_c;" ;;
		fg)
			_c=$(grep -cF "$_f()" $SNAP)
			_c2=$(($(grep -cF "$_f();" $SNAP) + $(grep -cF "} /* $_f */" $SNAP)))
			[ "$_c" = $N ] && [ "$_c2" = $N ] || cbad=1
			counts="$counts function_graph entries $_c, returns $_c2;" ;;
		esac
		case $_u in
		r|fx|fx2)
			[ "$(tr_named "mx_$_u" "$_b")" = $N ] || rbad=1
			callers="$callers mx_$_u named $(tr_callers "mx_$_u");" ;;
		mod)
			_rf=$(cat $MP/ret_first) _ro=$(cat $MP/ret_other)
			_if=$(cat $MP/ip_first) _io=$(cat $MP/ip_other)
			_fo=$(cat $MP/func_other)
			[ "$_rf" = "$_b" ] && [ "$_ro" = 0 ] && [ "$_io" = 0 ] &&
				[ "$_fo" = 0 ] || rbad=1
			callers="$callers module retaddr $_rf ($_ro others), regs->ip $_if"
			callers="$callers ($_io differ), func_ip's probe other in $_fo;" ;;
		ft)
			_c=$(grep -c " $_f <-${_b%%+*}\$" $SNAP)
			[ "$_c" = $N ] || rbad=1
			callers="$callers function tracer parent ${_b%%+*} in $_c;" ;;
		esac
	done
}

# baseline FUNC: a kretprobe event alone on FUNC over the workload; sets
# base to the caller its records name, and gives a result
baseline() {
	add_all "$1" r
	work "$1"
	_w=$?
	cat "$T/trace" > $SNAP
	base=$(sed -n 's/.* mx_r: (\(.*\) <- .*/\1/p' $SNAP | head -n 1)
	diag "$1, kretprobe alone: workload: $wout; mx_r named $(tr_callers mx_r)"
	[ $_w = 0 ] && [ "$(tr_count mx_r)" = $N ] && [ -n "$base" ] &&
		[ "$(tr_named mx_r "$base")" = $N ] && ! echo "$base" | grep -Eq "$TRAMPS"
	verdict "$1, kretprobe event alone: $N records, one caller, no trampoline ($base)" $? \
		"mx_r named $(tr_callers mx_r) ($wout)"
	clear_all
}

# check_round FUNC USER...: the workload on FUNC, whose USERs are
# registered: two results, the counts and the callers
check_round() {
	_f=$1
	shift
	_what="${ctx:-}$_f, $(names "$@")"
	work "$_f"
	_w=$?
	observe "$_f" "$base" "$@"
	diag "$_what: workload: $wout; counts:$counts"
	diag "$_what: callers:$callers"
	[ "$_w" = 0 ] && [ "$_reg" = 0 ] && [ $cbad = 0 ]
	verdict "$_what: every user saw all $N calls" $? "counts:$counts"
	[ "$_reg" = 0 ] && [ $rbad = 0 ]
	verdict "$_what: every caller named is $base" $? "callers:$callers"
}
# post_joins USER...: kpt_mixed's kprobe, which has a post_handler, comes
# after a kprobe or kretprobe event's kprobe on the same fentry site.
# Stock 6.12 then keeps the aggregate probe armed on kprobe_ftrace_ops but
# marks it as having a post_handler, and disarms it later from
# kprobe_ipmodify_ops: "Failed to disarm kprobe-ftrace" WARNs, and the
# next registration there oopses (__get_valid_kprobe).  Such a round
# cannot run on stock.
post_joins() {
	_k=
	for _u in "$@"; do
		case $_u in
		p|r) _k=1 ;;
		mod) [ -n "$_k" ] && return 0 ;;
		esac
	done
	return 1
}
# missing USER...: what this kernel lacks of the USERs, if anything (a
# config without the function tracer has no fprobe events, no function or
# function_graph tracer)
missing() {
	for _u in "$@"; do
		case $_u in
		f|fx|fx2) grep -q 'f\[:\[<group>/\]' "$T/README" ||
			{ echo "fprobe events (CONFIG_FPROBE_EVENTS)"; return; } ;;
		ft) grep -qw function "$T/available_tracers" ||
			{ echo "the function tracer (CONFIG_FUNCTION_TRACER)"; return; } ;;
		fg) grep -qw function_graph "$T/available_tracers" || {
				echo "the function_graph tracer (CONFIG_FUNCTION_GRAPH_TRACER)"
				return
			} ;;
		esac
	done
}
# round FUNC USER...: USERs registered on FUNC in that order, checked,
# removed
round() {
	_what="${ctx:-}$1, $(shift; names "$@")"
	_m=$(missing "$@")
	if [ -n "$_m" ]; then
		_why="this boot: this kernel has no $_m"
	elif [ -n "$stock" ] && post_joins "$@"; then
		_why="stock 6.12: not run: the module's post_handler kprobe joining the"
		_why="$_why events' aggregate on ftrace is disarmed from the wrong ftrace_ops"
		_why="$_why (WARN, then an oops)"
	else
		add_all "$@"
		_reg=$?
		check_round "$@"
		clear_all
		return
	fi
	skip "$_what: every user saw all $N calls" "$_why"
	skip "$_what: every caller named is $base" "$_why"
}

# A task blocked in pipe_read: cat reads the FIFO, whose only writer is
# this shell's fd 3 (cat must not inherit it: it would never see EOF)
mkfifo $FIFO
exec 3<> $FIFO
# blocked PID: PID sleeps (state S) in read(2) (system call 0)
blocked() {
	[ "$(cut -d' ' -f3 "/proc/$1/stat" 2> /dev/null)" = S ] &&
		[ "$(cut -d' ' -f1 "/proc/$1/syscall" 2> /dev/null)" = 0 ]
}
# blocked_start: starts cat on the FIFO (bpid) and waits until it sleeps in
# read(2), that is in pipe_read (5 s at most)
blocked_start() {
	cat $FIFO 3>&- > /dev/null &
	bpid=$!
	_i=0
	while ! blocked $bpid && [ $_i -lt 50 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	blocked $bpid || diag "cat (pid $bpid) did not block in read(2) within 5 s"
	blocked $bpid
}
blocked_stop() {
	kill $bpid
	wait $bpid 2> /dev/null
}
# stack_line PID: PID's /proc/PID/stack, function names only, on one line
stack_line() {
	sed 's/^\[<[0-9a-f]*>\] //; s/+0x[0-9a-f]*\/0x[0-9a-f]*//' "/proc/$1/stack" |
		tr '\n' ' ' | sed 's/ $//'
}
# stack_whole PID: PID's stack goes from pipe_read through vfs_read down
# to the system call entry, and names no return trampoline
stack_whole() {
	cat "/proc/$1/stack" > /tmp/mx_stack
	grep -q '\] pipe_read+' /tmp/mx_stack && grep -q '\] vfs_read+' /tmp/mx_stack &&
		grep -q '\] entry_SYSCALL_64_after_hwframe+' /tmp/mx_stack &&
		! grep -Eq "$TRAMPS" /tmp/mx_stack
}
# stack_round USER...: USERs on pipe_read, then cat blocked in it: its
# stack must be whole
stack_round() {
	_what="pipe_read, $(names "$@")"
	_m=$(missing "$@")
	if [ -n "$_m" ]; then
		skip "$_what: /proc/PID/stack of a task blocked in it is whole" \
			"this boot: this kernel has no $_m"
		return
	fi
	add_all pipe_read "$@"
	_reg=$?
	blocked_start
	_b=$?
	_s=$(stack_line $bpid)
	diag "$_what: cat's stack: $_s"
	[ $_reg = 0 ] && [ $_b = 0 ] && stack_whole $bpid
	verdict "$_what: /proc/PID/stack of a task blocked in it is whole" $? "its stack: $_s"
	blocked_stop
	clear_all
}

# lp_settled TENTHS: the livepatch's transition is over, waiting TENTHS
# tenths of a second at most; a patch gone (disabled and freed) is over
lp_settled() {
	_i=0
	while [ -e $LP ] && [ "$(cat $LP/transition 2> /dev/null)" != 0 ] && [ $_i -lt "$1" ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	# freed while looked at (its folder gone mid-read): over too
	[ ! -e $LP ] || [ "$(cat $LP/transition 2> /dev/null)" = 0 ] || [ ! -e $LP ]
}
# Livepatch retries a stalled transition every second, and after 15 tries
# sends the tasks left a fake signal, which ends their read(2) and lets
# them switch whatever their stack: the wait ends well before that.
LPWAIT=100
# lp_blocked ACTION USER...: USERs on pipe_read (events kpt/mx_sUSER),
# cat blocked under them, then the livepatch enabled (ACTION enable:
# loaded) or disabled (disable); the result: its transition is over
# within LPWAIT.  Then cat and the USERs go; a stalled transition is then
# given 20 s more to end (a line from this suite wakes the runner's
# reader, so that no task is left asleep under their return hooks).
lp_blocked() {
	_act=$1
	shift
	_what="livepatch ${_act}d with a task blocked in pipe_read under $(names "$@")"
	_r=0
	for _u in "$@"; do
		add "$_u" pipe_read "mx_s$_u" || _r=1
	done
	blocked_start
	_b=$?
	if [ "$_act" = enable ]; then
		insmod "$M/kpt_livepatch.ko" && lp_settled $LPWAIT
	else
		echo 0 > "$LP/enabled" && lp_settled $LPWAIT
	fi
	_t=$?
	_s=$(stack_line $bpid)
	_st=$(cat "$LP/transition" 2> /dev/null || echo "over, the patch freed")
	diag "$_what: transition $_st; cat's stack: $_s"
	[ $_r = 0 ] && [ $_b = 0 ] && [ $_t = 0 ]
	verdict "$_what: transition over within $((LPWAIT / 10)) s" $? \
		"transition $_st after $((LPWAIT / 10)) s; cat's stack: $_s"
	blocked_stop
	del mx_sr mx_sfx
	echo nop > "$T/current_tracer"
	if [ $_t != 0 ]; then
		diag "the transition stalled: cat gone, the hooks on pipe_read gone"
		lp_settled 200 || diag "the transition is still not over 20 s later"
	fi
}
# lp_remove: the livepatch disabled if it is not, and unloaded (20 s for
# the unpatch transition, 5 s for the module: the folder goes before the
# patch lets go of its module)
lp_remove() {
	[ -e $LP ] && echo 0 > "$LP/enabled"
	lp_settled 200 || diag "the unpatch transition is not over after 20 s"
	_i=0
	while ! rmmod kpt_livepatch 2> /dev/null && [ $_i -lt 50 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	if grep -q '^kpt_livepatch ' /proc/modules; then
		diag "kpt_livepatch did not unload"
	fi
}

echo > "$T/trace"
clear_all
old_kb=$(sed 's/.*expanded: *\([0-9]*\).*/\1/; s/ .*//' "$T/buffer_size_kb")
# room for every record of a round on one CPU (a few thousand lines)
echo 2048 > "$T/buffer_size_kb"
echo 1 > "$T/tracing_on"

# --- 1. counts and callers on __x64_sys_getsid ----------------------------
baseline $F
round $F mod
round $F r fx
round $F fx r
# the module after the events' kprobes in two rounds (post_joins: not on
# stock), before them in the others
round $F p r f fx mod
round $F mod fx f r p
round $F ft mod fx r
round $F r fx mod ft
round $F fg r fx
round $F mod r fx fg
round $F fx fg mod r p
# rethook twice on the slot, the kretprobe between: its ftrace_ops comes
# between the two fprobes' (the newest runs first), so the first fprobe
# exit saves the kretprobe's trampoline, which saved rethook's.  On ours
# with carriers off: a carried kretprobe hooks after every ftrace user.
carriers=/proc/sys/debug/kprobes-carriers
carried=
if [ -w $carriers ]; then
	carried=$(cat $carriers)
	trap 'echo "$carried" > $carriers' EXIT
	echo 0 > $carriers
fi
round $F fx r fx2

# --- 2. stacks of a task blocked under return hooks -----------------------
stack_round r
stack_round fx
stack_round r fx
stack_round fx r
stack_round r fg
stack_round fg r
# (carriers still off: the unwinder meets rethook's records twice)
stack_round fx r fx2
if [ -n "$carried" ]; then echo "$carried" > $carriers; trap - EXIT; fi

# --- 3. livepatch (kpt_mod_func(x), x * 3 + 1, patched x * 3 + 2):
# transitions over a task blocked under two return hooks; the mix on the
# patched function ----------------------------------------------------------
_m=$(missing fx fg)
[ -e "$M/kpt_livepatch.ko" ] || _m="kpt_livepatch.ko (CONFIG_LIVEPATCH)"
if [ -n "$_m" ]; then
	for c in "kpt_mod_func, kretprobe event alone" \
		"enabled with a task blocked under a kretprobe and an fprobe exit" \
		"mix first: counts" "mix first: callers" \
		"patch first: counts" "patch first: callers" \
		"disabled with a task blocked under an fprobe exit and a kretprobe" \
		"enabled with a task blocked under a kretprobe and function_graph"; do
		skip "livepatch, $c" "this boot: this kernel has no $_m"
	done
else
	insmod "$M/kpt_target_mod.ko"
	lpadd=1
	baseline kpt_mod_func

	# the mix first, then a task blocked under two return hooks, then
	# the patch; the mix sees every call of the patched function
	add_all kpt_mod_func p r f fx
	_reg=$?
	lp_blocked enable r fx
	echo > "$T/trace"
	lpadd=2
	ctx="livepatched (mix first) "
	check_round kpt_mod_func p r f fx
	clear_all
	ctx="livepatched (patch first) "
	round kpt_mod_func fx f r p
	ctx=
	# the unpatch, the hooks in the other order
	lp_blocked disable fx r
	lp_remove
	# function_graph's return_to_handler beside a kretprobe
	lp_blocked enable r fg
	lp_remove
	clear_all
	rmmod kpt_target_mod
fi

exec 3>&-
rm -f $FIFO $SNAP /tmp/mx_stack
echo "$old_kb" > "$T/buffer_size_kb"

done_testing
