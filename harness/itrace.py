#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# itrace.py SYMS CONSOLE EXECLOG: cut QEMU's exec log (one line per guest
# instruction: -singlestep -d exec,nochain) into iterations of the itrace
# module's loop, at each entry of kit_call, and print the most common
# iteration (the one no interrupt lengthened) instruction by instruction,
# grouped into runs of one symbol.  SYMS is `nm -n vmlinux`; the module's
# own symbols come from its "itrace: NAME ADDR" console lines; other
# addresses (insn slots, detours, trampolines in module space, and every
# user address: make itrace's user cases) are named by their page.
import bisect
import collections
import re
import sys

syms_f, console_f, log_f = sys.argv[1:4]
addrs, names = [], []
for line in open(syms_f):
    f = line.split()
    if len(f) == 3 and f[1] in "tTwW":
        addrs.append(int(f[0], 16))
        names.append(f[2])
mod = {}
for line in open(console_f, errors="replace"):
    m = re.search(r"itrace: (\S+) ([0-9a-f]{16})\b", line)
    if m:
        mod[int(m.group(2), 16)] = m.group(1)
mod_starts = sorted(mod)


def name(pc):
    if pc < 1 << 47:
        # user space: the probed code, the target's loop, a slot page
        return "user:%x" % (pc & ~0xfff)
    if pc >= 0xffffffffa0000000 or not addrs or pc < addrs[0]:
        i = bisect.bisect_right(mod_starts, pc) - 1
        if i >= 0 and pc - mod_starts[i] < 0x100:
            return mod[mod_starts[i]]
        return "[%x]" % (pc & ~0xfff)
    return names[bisect.bisect_right(addrs, pc) - 1]


mark = [a for a, n in mod.items() if n == "kit_call"]
if not mark:
    sys.exit("itrace.py: no kit_call address on the console")
mark = mark[0]
pat = re.compile(r"\[[0-9a-f]+/([0-9a-f]+)/")
iters, cur = [], None
for line in open(log_f, errors="replace"):
    m = pat.search(line)
    if not m:
        continue
    pc = int(m.group(1), 16)
    if pc == mark:
        if cur is not None:
            iters.append(cur)
        cur = []
    if cur is not None:
        cur.append(pc)
if not iters:
    sys.exit("itrace.py: no complete iteration in the log")
lens = collections.Counter(len(i) for i in iters)
n, seen = lens.most_common(1)[0]
it = next(i for i in iters if len(i) == n)
print("iterations logged: %d; most common length %d instructions (%d of them)"
      % (len(iters), n, seen))
print("shortest %d, longest %d" % (min(lens), max(lens)))
runs = []
for pc in it:
    s = name(pc)
    if runs and runs[-1][0] == s:
        runs[-1][1] += 1
    else:
        runs.append([s, 1])
for s, c in runs:
    print("%5d  %s" % (c, s))
tot = collections.Counter()
for pc in it:
    tot[name(pc)] += 1
print("\nby symbol:")
for s, c in tot.most_common():
    print("%5d  %s" % (c, s))
print("\nthe iteration, one instruction a line:")
for pc in it:
    print("%x %s" % (pc, name(pc)))
