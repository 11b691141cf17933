#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Self-tests of the console judge (harness/console.py), on the host.

Each case is a made-up guest console, replayed through console.py exactly
as a QEMU console would be (the "machine" is `cat FILE`), with what the
judge must conclude: its exit status and a line it must print.  No guest
boots, so these run in a second.  Prints one "ok NAME" / "not ok NAME" per
case; harness/test.sh counts them.
"""

import os
import subprocess
import sys
import tempfile

H = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def console(*suites, tail='', kunit=''):
    """A console: boot, the runner's markers around each suite, power-off.

    @suites: (name, body, rc) with body the suite's output lines.
    """
    out = ['[    0.000000] Linux version 6.12.117 (judge self-test)',
           kunit, 'harness: init mode=test']
    for name, body, rc in suites:
        out.append('harness: suite %s begin' % name)
        out += body.splitlines()
        out.append('harness: suite %s end rc=%d' % (name, rc))
    out += ['harness: suites done', tail, 'harness: poweroff tainted=4096']
    return '\n'.join(line for line in out if line) + '\n'


GOOD = 'KTAP version 1\n1..2\nok 1 first\nok 2 second'


def ksft(body, ok=True):
    """What run_kselftest.sh prints for one test: @body under "# "."""
    return ('TAP version 13\n1..1\n# timeout set to 900\n'
            '# selftests: kprobes: t.sh\n' +
            ''.join('# %s\n' % line for line in body.splitlines()) +
            '%sok 1 selftests: kprobes: t.sh' % ('' if ok else 'not '))

def kunit_mod(*suites, plan=None):
    """What KUnit prints as a module loads (kunit_module_init()): a
    document with one result per suite of @suites (name, results), each
    suite nested under it with its plan and its cases' results."""
    out = ['KTAP version 1', '1..%d' % len(suites)]
    for n, (name, body) in enumerate(suites):
        lines = body.splitlines()
        out += ['    KTAP version 1', '    # Subtest: ' + name,
                '    # module: m', '    1..%d' % (plan or len(lines))]
        out += ['    ' + line for line in lines]
        bad = any(line.startswith('not ok') for line in lines)
        out.append('%sok %d %s' % ('not ' if bad else '', n + 1, name))
    return '\n'.join(out)


# (name, console, extra console.py args, want exit, line wanted in output)
CASES = [
    ('a clean run passes',
     console(('s', GOOD, 0)), [], 0, 'guest: 2 passed, 0 failed'),
    ('a suite without a plan line fails',
     console(('noplan', 'ok 1 first\nok 2 second', 0)), [], 1,
     'noplan KTAP without a plan line'),
    ('a suite that prints nothing and exits 0 fails',
     console(('silent', '', 0)), [], 1,
     'silent printed no KTAP result (exit 0)'),
    ('a plan of 3 with 2 results fails',
     console(('short', 'KTAP version 1\n1..3\nok 1 a\nok 2 b', 0)), [], 1,
     'plan 1..3 but 2 results'),
    ('upstream-style TAP 13 (ftracetest -K) is counted and its plan checked',
     console(('ft', 'TAP version 13\n1..2\nok 1 Kprobe add\n'
              'not ok 2 Kprobe opt # UNRESOLVED', 1)), [], 1,
     'FAIL   ft       Kprobe opt'),
    ('rcu_sched self-detected stall fails the run',
     console(('s', GOOD, 0),
             tail='rcu: INFO: rcu_sched self-detected stall on CPU'), [], 1,
     'kernel report during shutdown: rcu: INFO: rcu_sched self-detected'),
    ('an expedited RCU stall fails the run',
     console(('s', GOOD + '\nrcu: INFO: rcu_sched detected expedited stalls'
              ' on CPUs/tasks: { 1-... } 21 jiffies s: 61 root: 0x2/.', 0)),
     [], 1, 'kernel report during s: rcu: INFO: rcu_sched detected expedited'),
    ('a test module that does not unload fails its suite',
     console(('mod', GOOD + '\nharness: suite mod unload rmmod: '
              "can't unload module 'mod': Resource temporarily unavailable",
              0)), [], 1, 'mod      test module did not unload: rmmod:'),
    ('our kernel: a skip without a reason of this boot fails',
     console(('s', 'KTAP version 1\n1..2\nok 1 a\n'
              'ok 2 b # SKIP module missing', 0)), ['--strict-skips'], 1,
     'b (module missing) [a skip on our kernel must name why'),
    ('our kernel: a skip this boot cannot run is accepted',
     console(('s', 'KTAP version 1\n1..2\nok 1 a\n'
              'ok 2 b # SKIP this boot: needs 2 online CPUs', 0)),
     ['--strict-skips'], 0, 'guest: 1 passed, 0 failed, 1 skipped'),
    ('a kselftest\'s own cases count, under run_kselftest.sh',
     console(('t', ksft('TAP version 13\n1..2\nok 1 a\n'
                        'ok 2 b # SKIP this boot: no SMP\n'
                        '# Totals: pass:1 fail:0 xfail:0 xpass:0 skip:1 error:0'),
              0)), ['--strict-skips'], 0, 'guest: 1 passed, 0 failed, 1 skipped'),
    ('kernel messages inside a kselftest do not end its cases',
     console(('t', ksft('TAP version 13\n1..2\nok 1 a', True).replace(
         '# ok 1 a\n', '# ok 1 a\nlivepatch: enabling patch\n# ok 2 b\n'), 0)),
     [], 0, 'guest: 2 passed, 0 failed'),
    ('a kselftest that prints no case fails',
     console(('t', ksft(''), 0)), [], 1, 'printed no KTAP case'),
    ('a kselftest\'s failing case fails, named',
     console(('t', ksft('TAP version 13\n1..2\nok 1 a\nnot ok 2 b', False),
              0)), [], 1, 'FAIL   t        b'),
    ('a kselftest that stops before its plan fails',
     console(('t', ksft('TAP version 13\n1..3\nok 1 a\nok 2 b', False),
              0)), [], 1, 'plan 1..3 but 2 results'),
    ('a module\'s KUnit suites count, under their own names',
     console(('m', kunit_mod(('m_a', 'ok 1 x\nok 2 y'), ('m_b', 'ok 1 z')),
              0)), [], 0, 'guest: 3 passed, 0 failed'),
    ('a module\'s KUnit case that fails fails, named with its suite',
     console(('m', kunit_mod(('m_a', 'ok 1 x\nnot ok 2 y')), 0)), [], 1,
     'FAIL   m_a      y'),
    ('a module\'s KUnit suite that stops before its plan fails',
     console(('m', kunit_mod(('m_a', 'ok 1 x'), plan=2), 0)), [], 1,
     'plan 1..2 but 1 results'),
    ('a module whose KUnit run stops after its first suite fails',
     console(('m', kunit_mod(('m_a', 'ok 1 x'), ('m_b', 'ok 1 y')).rsplit(
         '\n    KTAP version 1', 1)[0], 0)), [], 1,
     'plan 1..2 but 1 results'),
    ('stock kernel: a skip with a reason is a skip',
     console(('s', 'KTAP version 1\n1..2\nok 1 a\n'
              'ok 2 b # SKIP upstream has no jprobes', 0)), [], 0,
     'guest: 1 passed, 0 failed, 1 skipped'),
]


def main():
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for i, (name, text, args, want_rc, want_line) in enumerate(CASES):
            con = os.path.join(tmp, '%d.console' % i)
            with open(con, 'w') as f:
                f.write(text)
            p = subprocess.run(
                [sys.executable, os.path.join(H, 'console.py'), '--mode',
                 'test', '--log', os.path.join(tmp, '%d.log' % i),
                 '--timeout', '30', '--boot-timeout', '30'] + args +
                ['--', 'cat', con], capture_output=True, text=True)
            out = p.stdout + p.stderr
            ok = (p.returncode == want_rc and
                  ' '.join(want_line.split()) in ' '.join(out.split()))
            if not ok:
                failed += 1
                print('# want exit %d and "%s"; got exit %d:' %
                      (want_rc, want_line, p.returncode))
                for line in out.splitlines():
                    print('#   ' + line)
            print('%s judge: %s' % ('ok' if ok else 'not ok', name))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
