#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Run QEMU, watch the guest's serial console, and judge the run.

    console.py --mode test|exec|run --log FILE [--results FILE]
               [--timeout S] [--boot-timeout S] -- qemu-system-x86_64 ...

The whole console goes to --log.  The guest marks its phases with lines
"harness: ..." (see harness/guest/init and run-tests.sh); the phase in force
names what hung when a timeout hits, and which suite was running when the
kernel printed a report.

Kernel reports (WARNING:, BUG:, Oops, lockdep, KASAN, panics, RCU stalls)
fail any run.  In test mode the console's KTAP is parsed: every leaf result
counts (KUnit's nested suites, a module's or built in, and our scripts'), and
the last line printed is "N passed, N failed[, N skipped]".  In exec mode
the command's output is printed and its exit status becomes ours.

A suite run by the guest's runner is judged as a reviewer would:
  - its KTAP must have a plan line ("1..N"), and as many results;
  - a suite that prints no result at all fails, whatever its status;
  - a test module that does not unload afterwards fails its suite;
  - with --strict-skips (our kernel), a skipped case fails unless its
    reason starts with "this boot:", i.e. the case cannot run in this
    particular boot (a uniprocessor boot, say) and says why.
"""

import argparse
import json
import os
import re
import selectors
import signal
import subprocess
import sys
import time

TS = re.compile(r'^\[\s*\d+\.\d+\]\s?')
RESULT = re.compile(r'^(\s*)(not ok|ok) (\d+)\b\s*-?\s*(.*)$')
PLAN = re.compile(r'^(\s*)1\.\.(\d+)\s*$')
SUBTEST = re.compile(r'^(\s*)# Subtest: (\S+)')
REPORTS = re.compile(
    r'WARNING:|BUG:|Oops|Kernel panic|general protection fault|'
    r'UBSAN:|INFO: (rcu_\w+ )?detected stall|'
    r'INFO: rcu_\w+ (self-)?detected (expedited )?stall|'
    r'INFO: task .* blocked|'
    r'possible recursive locking|inconsistent lock state|'
    r'circular locking dependency|suspicious RCU usage|soft lockup')
# Skip reasons of the base tree's KUnit suites (unmodified, built in) that
# are about the boot, not the kernel under test: hw_breakpoint_test needs
# more CPUs than a uniprocessor kernel has.  Each is judged as if it said
# "this boot: ..." (--strict-skips).
KUNIT_BOOT_SKIPS = {
    'not enough cpus': 'this boot: not enough cpus (KUnit\'s own reason)',
}
# Taint bits that mean the kernel complained: W (warning), D (died),
# L (soft lockup).  O (out-of-tree module) is expected: our tests are.
BAD_TAINT = (1 << 9) | (1 << 7) | (1 << 14)


def strip(line):
    return TS.sub('', line.rstrip('\r\n').replace('\r', ''))


class Run:
    def __init__(self, mode, echo):
        self.mode = mode
        self.echo = echo
        self.phase = 'boot'
        self.suite = 'boot'
        self.lines = []          # (suite, text)
        self.reports = []        # (suite, text)
        self.exec_status = None
        self.in_exec = False
        self.suites_begun = []
        self.suites_ended = {}
        self.unload_failed = {}  # suite -> what the runner said
        self.suites_done = False
        self.poweroff = False
        self.taint = None
        self.init_seen = False

    def feed(self, raw):
        text = strip(raw)
        self.lines.append((self.suite, text))
        if text.startswith('harness: '):
            self.marker(text[len('harness: '):].strip())
        elif REPORTS.search(text) and not text.startswith('#'):
            self.reports.append((self.suite, text))
        # exec shows the command's output, run the demo's: the boot
        # and everything else is in the log only
        if self.echo in ('exec', 'run') and self.in_exec and \
                not text.startswith('harness: '):
            print(text, flush=True)

    def marker(self, m):
        w = m.split()
        if w[0] == 'init':
            self.init_seen = True
            self.phase = 'guest init (%s)' % m
            self.suite = 'init'
        elif w[0] == 'suite' and len(w) >= 3:
            if w[2] == 'begin':
                self.suite = w[1]
                self.phase = 'suite ' + w[1]
                self.suites_begun.append(w[1])
                if self.echo == 'progress':
                    print('  running %s ...' % w[1], flush=True)
            elif w[2] == 'end':
                rc = int(w[3].split('=')[1]) if len(w) > 3 else 0
                self.suites_ended[w[1]] = rc
                self.phase = 'between suites (after %s)' % w[1]
            elif w[2] == 'unload':
                self.unload_failed[w[1]] = ' '.join(w[3:])
        elif w[0] == 'suites' and w[1:2] == ['done']:
            self.suites_done = True
            self.suite = 'shutdown'
            self.phase = 'power off'
        elif w[0] in ('exec', 'demo'):
            if w[1] == 'begin':
                self.in_exec = True
                self.suite = 'exec'
                self.phase = 'exec command'
            elif w[1] == 'end':
                self.in_exec = False
                self.exec_status = int(w[2].split('=')[1])
                self.phase = 'power off'
        elif w[0] == 'poweroff':
            self.poweroff = True
            self.phase = 'power off'
            for kv in w[1:]:
                if kv.startswith('tainted='):
                    self.taint = int(kv.split('=')[1])


KSFT_TEST = re.compile(r'^# selftests: \S+: \S+$')
KSFT_RESULT = re.compile(r'^(not )?ok \d+ selftests: ')


def unnest_kselftest(lines):
    """kselftest's runner (run_kselftest.sh) prints a test's own output
    under its "# selftests: TARGET: TEST" line with "# " before each line,
    then the test's result, unprefixed.  Give those lines the indentation
    a KTAP subtest has, so that the test's cases count as leaves and its
    result as their parent."""
    inside = {}
    for suite, t in lines:
        if KSFT_TEST.match(t):
            inside[suite] = True
        elif inside.get(suite):
            if t.startswith('# ') or t == '#':
                yield suite, '    ' + t[2:]
                continue
            # the runner's result for the test ends it; anything else
            # (the kernel's own messages on the console) passes through
            if KSFT_RESULT.match(t):
                inside[suite] = False
        yield suite, t


def ktap(lines):
    """Leaf results from the console, in order: (suite, name, status).

    status is 'pass', 'fail' or 'skip'.  A result line is a parent (a
    suite's summary) when the result before it is nested deeper; a parent
    that failed while all its leaves passed (say, the suite crashed) is
    reported as a failing leaf of its own.  Plans ("1..N") are checked per
    KTAP document so a suite that stops early does not pass silently.
    """
    out = []
    diags = []                # "# ..." lines since the last result
    prev_indent = None
    subtest = {}
    kids_failed = {}
    docs = []                 # [suite, plan, seen, indent] per document
    open_docs = {}            # indent -> the document open there
    for suite, t in unnest_kselftest(lines):
        m = SUBTEST.match(t)
        if m:
            subtest[len(m.group(1))] = m.group(2)
            continue
        if t.lstrip().startswith(('KTAP version', 'TAP version')):
            # a top-level document, or one a kselftest test printed
            ind = len(t) - len(t.lstrip())
            if ind in (0, 4):
                docs.append([suite, None, 0, ind])
                open_docs[ind] = docs[-1]
            continue
        m = PLAN.match(t)
        if m:
            d = open_docs.get(len(m.group(1)))
            if d and d[0] == suite and d[1] is None:
                d[1] = int(m.group(2))
            continue
        m = RESULT.match(t)
        if not m:
            if t.lstrip().startswith('# ') and not SUBTEST.match(t):
                diags = (diags + [t.strip()])[-6:]
            continue
        ind = len(m.group(1))
        ok = m.group(2) == 'ok'
        desc = m.group(4)
        name = desc.split('#')[0].strip() or ('#' + m.group(3))
        sk = re.search(r'#\s*SKIP\s*(.*)', desc, re.I)
        skip = bool(sk)
        if skip and sk.group(1).strip():
            why = sk.group(1).strip()
            # the base tree's KUnit suites say it in their own words
            why = KUNIT_BOOT_SKIPS.get(why, why)
            name += ' (' + why + ')'
        d = open_docs.get(ind)
        if d and d[0] == suite:
            d[2] += 1
        label = subtest.get(ind) or suite
        if prev_indent is not None and prev_indent > ind:
            # a parent: judge it only if its leaves did not already fail
            if not ok and not skip and not any(
                    k > ind for k in kids_failed):
                out.append((label, name + ' (suite result)', 'fail'))
            for k in list(kids_failed):
                if k > ind:
                    del kids_failed[k]
            for k in list(subtest):
                if k > ind:
                    del subtest[k]
        elif KSFT_RESULT.match(t) and not skip:
            # kselftest's runner's result with no case of the test under
            # it: the test printed no KTAP result
            out.append((label, name + ' printed no KTAP case', 'fail'))
        else:
            st = 'skip' if skip else ('pass' if ok else 'fail')
            if st == 'fail' and diags:
                # what the case said about itself, for the reader of a CI log
                name += ''.join('\n           ' + d for d in diags)
            out.append((label, name, st))
            if st == 'fail':
                kids_failed[ind] = True
        prev_indent = ind
        diags = []
    for suite, plan, seen, _ in docs:
        if plan is not None and seen != plan:
            out.append((suite, 'plan 1..%d but %d results' % (plan, seen),
                        'fail'))
    return out


def judge_suites(run, res, strict_skips):
    """Suite-level verdicts added to the leaf results @res (see above)."""
    plans = {}
    kunit = {}                  # suite -> the KUnit suites it ran (a module's)
    for suite, t in run.lines:
        m = SUBTEST.match(t)
        if m and len(m.group(1)) == 4:
            kunit.setdefault(suite, set()).add(m.group(2))
        if PLAN.match(t) and not t.startswith((' ', '\t')):
            plans[suite] = plans.get(suite, 0) + 1
    for s in run.suites_begun:
        if s not in run.suites_ended:
            res.append((s, 'suite did not finish', 'fail'))
            continue
        # a KUnit suite's results are labelled with its own name
        mine = [r for r in res if r[0] == s or r[0] in kunit.get(s, ())]
        if not mine:
            res.append((s, 'printed no KTAP result (exit %d)' %
                        run.suites_ended[s], 'fail'))
        elif not plans.get(s):
            res.append((s, 'KTAP without a plan line "1..N"', 'fail'))
        if run.suites_ended[s] != 0 and not any(
                r[2] == 'fail' for r in mine):
            res.append((s, 'suite exited %d' % run.suites_ended[s], 'fail'))
        if s in run.unload_failed:
            res.append((s, 'test module did not unload: %s' %
                        run.unload_failed[s], 'fail'))
    if strict_skips:
        for i, (s, name, st) in enumerate(res):
            if st == 'skip' and '(this boot:' not in name.split('\n')[0]:
                res[i] = (s, name + ' [a skip on our kernel must name why '
                          'this boot cannot run it: "this boot: ..."]',
                          'fail')


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--mode', required=True, choices=['test', 'exec', 'run'])
    ap.add_argument('--log', required=True)
    ap.add_argument('--results')
    ap.add_argument('--timeout', type=float, default=1200)
    ap.add_argument('--boot-timeout', type=float, default=300)
    ap.add_argument('--expect-kunit', action='append', default=[],
                    help='KUnit suite that must report (e.g. kprobes_test)')
    ap.add_argument('--strict-skips', action='store_true',
                    help='a skip fails unless its reason is "this boot: ..."')
    ap.add_argument('qemu', nargs=argparse.REMAINDER)
    a = ap.parse_args()
    qemu = a.qemu[1:] if a.qemu[:1] == ['--'] else a.qemu

    echo = {'run': 'run', 'exec': 'exec', 'test': 'progress'}[a.mode]
    run = Run(a.mode, echo)
    start = time.time()
    timed_out = None
    os.makedirs(os.path.dirname(os.path.abspath(a.log)), exist_ok=True)
    with open(a.log, 'w', errors='replace') as log:
        p = subprocess.Popen(qemu, stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             start_new_session=True)
        sel = selectors.DefaultSelector()
        sel.register(p.stdout, selectors.EVENT_READ)
        buf = b''
        while True:
            now = time.time() - start
            limit = a.timeout if run.init_seen else a.boot_timeout
            if now > limit:
                timed_out = run.phase
                os.killpg(p.pid, signal.SIGKILL)
                break
            if not sel.select(timeout=1.0):
                if p.poll() is not None:
                    break
                continue
            chunk = os.read(p.stdout.fileno(), 65536)
            if not chunk:
                break
            buf += chunk
            while b'\n' in buf:
                line, buf = buf.split(b'\n', 1)
                s = line.decode('utf-8', 'replace')
                log.write(s + '\n')
                run.feed(s)
            log.flush()
        if buf:
            s = buf.decode('utf-8', 'replace')
            log.write(s + '\n')
            run.feed(s)
        p.wait()
    elapsed = time.time() - start

    problems = []
    if timed_out:
        problems.append('TIMEOUT after %ds: hung in phase "%s"' %
                        (elapsed, timed_out))
    elif not run.poweroff:
        problems.append('guest did not reach power-off (last phase "%s", '
                        'qemu exit %s)' % (run.phase, p.returncode))
    for suite, text in run.reports:
        problems.append('kernel report during %s: %s' % (suite, text))
    if run.taint is not None and run.taint & BAD_TAINT and not run.reports:
        problems.append('kernel tainted %d at power-off' % run.taint)

    code = 0
    if a.mode == 'test':
        res = ktap(run.lines)
        judge_suites(run, res, a.strict_skips)
        if not run.suites_done and not timed_out:
            res.append(('runner', 'suites done marker', 'fail'))
        for k in a.expect_kunit:
            if not any(r[0] == k for r in res):
                res.append((k, 'KUnit suite did not report', 'fail'))
        for pr in problems:
            res.append(('harness', pr, 'fail'))
        width = max([len(r[0]) for r in res] + [8])
        for suite, name, st in res:
            tag = {'pass': 'ok    ', 'fail': 'FAIL  ', 'skip': 'skip  '}[st]
            print('  %s %-*s %s' % (tag, width, suite, name))
        n = {k: sum(1 for r in res if r[2] == k)
             for k in ('pass', 'fail', 'skip')}
        if a.results:
            with open(a.results, 'w') as f:
                json.dump({'passed': n['pass'], 'failed': n['fail'],
                           'skipped': n['skip'],
                           'seconds': round(elapsed, 1),
                           'cases': [[r[0], r[1].split('\n')[0], r[2]]
                                     for r in res]}, f, indent=0)
        print('guest: %d passed, %d failed, %d skipped in %ds (console: %s)' %
              (n['pass'], n['fail'], n['skip'], elapsed, a.log))
        code = 1 if n['fail'] or not n['pass'] else 0
    else:
        for pr in problems:
            print('harness: ' + pr, file=sys.stderr)
        if a.mode == 'exec':
            if run.exec_status is None:
                print('harness: the command did not complete (console: %s)' %
                      a.log, file=sys.stderr)
                code = 125
            else:
                code = run.exec_status
                if code:
                    # make reports any failure as its own status 2
                    print('harness: the command exited with status %d' %
                          code, file=sys.stderr)
        else:
            code = 1 if problems or run.exec_status is None else 0
            print('(the whole console, boot included: %s)' % a.log)
    sys.exit(code)


if __name__ == '__main__':
    main()
