#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Upstream's own test cases, stock 6.12 beside ours.

    peer-compare.py RESULTS-UPSTREAM.json RESULTS-OURS.json

Reads the per-case results `make test` wrote for each implementation
(build/logs/results-test-IMPL.json) and prints every case of the peer
suites (peer_*: upstream's ftracetest) and of the kernel's KUnit
kprobes_test, stock beside ours.  Ours must pass every case stock passes:
the last line is "N passed, N failed" with one result per case, a case
failing when stock passed it and ours did not (or ours never ran it).
"""

import json
import sys


def peer_cases(path):
    with open(path) as f:
        cases = json.load(f).get('cases', [])
    out = {}
    for suite, name, status in cases:
        if suite.startswith('peer_') or suite == 'kprobes_test':
            out[(suite, name)] = status
    return out


def main():
    if len(sys.argv) != 3:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    up, ours = peer_cases(sys.argv[1]), peer_cases(sys.argv[2])
    passed = failed = 0
    width = max([len('%s %s' % k) for k in up] + [20])
    print('%-*s  %-7s %-7s' % (width, 'upstream test case', 'stock', 'ours'))
    for key in sorted(set(up) | set(ours)):
        u, o = up.get(key, 'absent'), ours.get(key, 'absent')
        bad = u == 'pass' and o != 'pass'
        print('%-*s  %-7s %-7s%s' % (width, '%s %s' % key, u, o,
                                     '  <- ours below stock' if bad else ''))
        if bad:
            failed += 1
        else:
            passed += 1
    if not up or not ours:
        print('no peer results from %s' % ('stock' if not up else 'ours'))
        failed += 1
    print('%d passed, %d failed' % (passed, failed))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
