#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench.py OUT RUN...: the `make bench` table.

Reads OUT/log-{ours,upstream}-RUN.txt (guest consoles with "kpb: " lines
from kprobes_bench.ko and bench.sh), prints one table -- each figure for
ours, for upstream, and ours/upstream -- for the wall-clock run and for the
-icount runs (instructions), and writes OUT/bench.txt, OUT/bench.csv and,
with gnuplot, OUT/bench.png (the ratios as bars).  With BENCH_CONFIGS
naming "distro" too, each figure has a second row from the distro-config
kernels (OUT/log-{ours,upstream}-distro-RUN.txt).
"""
import csv
import os
import re
import subprocess
import sys

IMPLS = ('ours', 'upstream')

# (key, label, unit): the rows of the table, in order
ROWS = [
    ('hit.kprobe_int3', 'kprobe hit, int3 + single-step (post_handler)', 'per hit'),
    ('hit.kprobe_int3_mov', 'kprobe hit, post_handler, on a mov', 'per hit'),
    ('hit.kprobe_boost', 'kprobe hit, pre_handler only (boostable)', 'per hit'),
    ('hit.kprobe_opt', 'kprobe hit, optimizable site', 'per hit'),
    ('hit.kprobe_ftrace', 'kprobe hit, ftrace site', 'per hit'),
    ('hit.kprobe_carried_int3', 'kprobe hit, entry alone: carrier int3', 'per hit'),
    ('hit.kprobe_carried', 'kprobe hit, entry alone, settled (no jump fits)', 'per hit'),
    ('hit.kprobe_carried_opt_int3', 'kprobe hit, entry alone: carrier int3 (2)', 'per hit'),
    ('hit.kprobe_carried_opt', 'kprobe hit, entry alone, settled (a jump fits)', 'per hit'),
    ('hit.kretprobe', 'kretprobe hit', 'per hit'),
    ('hit.kretprobe_opt', 'kretprobe hit, optimized entry (a jump fits)', 'per hit'),
    ('hit.kprobe_kretprobe', 'kprobe + kretprobe, one function', 'per call'),
    ('hit.jprobe', 'jprobe hit', 'per hit'),
    ('hit.kprobe_2cpu', 'kprobe hit, 2 CPUs at once', 'per hit'),
    ('hit.hwbp_w', 'wide hw_breakpoint hit, write (perf, no probe layer)', 'per hit'),
    ('hit.wprobe_w', 'wprobe hit, write', 'per hit'),
    ('hit.wprobe_x', 'wprobe hit, execute (the kprobe rows\' function)', 'per hit'),
]
for insn, how in (('lea', 'stepped'), ('push', 'emulated')):
    for api, label in (('tracefs', 'tracefs uprobe event'),
                       ('consumer', 'uprobe_register() consumer'),
                       ('seed', 'register_uprobe()')):
        ROWS.append(('hit.uprobe_%s_%s' % (insn, api),
                     'uprobe hit, %s (%s), %s' % (insn, how, label), 'per hit'))
for insn, how in (('jlea', 'out of line'), ('jpush', 'emulated')):
    ROWS.append(('hit.uprobe_%s_seed' % insn,
                 'uprobe hit, %s in JIT memory (%s), register_uprobe()' % (insn[1:], how),
                 'per hit'))
for insn, api, label in (('lea', 'consumer', 'file text, 6.12 uprobe_consumer ret_handler'),
                         ('lea', 'seed', 'file text, register_uretprobe()'),
                         ('jlea', 'seed', 'JIT memory, register_uretprobe()')):
    ROWS.append(('hit.uretprobe_%s_%s' % (insn, api),
                 'uretprobe hit (entry + return), %s' % label, 'per call'))
for n in ('1000', '10000'):
    for what in ('module', 'kernel'):
        for op in ('register_one', 'unregister_one', 'register_batch',
                   'unregister_batch'):
            ROWS.append(('reg.%s.%s.%s' % (what, n, op),
                         '%s %s %s functions' % (op.replace('_', ' '), n, what),
                         'total'))
    for op in ('define', 'enable', 'disable', 'remove'):
        ROWS.append(('tracefs.%s.%s' % (n, op),
                     'tracefs: %s %s kprobe events' % (op, n), 'total'))
ROWS += [
    ('scale.register', 'scale: register every function (batches of 500)', 'total'),
    ('scale.unregister', 'scale: unregister them all, batch', 'total'),
    ('scale.workload_unprobed', 'scale: workload, no probes', 'total'),
    ('scale.workload_armed', 'scale: workload, every function probed', 'total'),
]
INFO = ['hit.kprobe_opt_state', 'hit.kretprobe_opt_state', 'hit.kprobe_ftrace_state',
        'hit.kprobe_carried_state', 'hit.kprobe_carried_opt_state', 'scale.armed',
        'scale.candidates', 'scale.refused', 'scale.hits', 'scale.ok_unprobed',
        'scale.ok_armed', 'funcs', 'warnings']


def parse(path, end='kpb: end'):
    """The figures of one console log: {key: value}."""
    d = {'warnings': []}
    try:
        text = open(path, errors='replace').read()
    except OSError:
        return None
    if end not in text:
        d['warnings'].append('run did not finish')
    for line in text.splitlines():
        m = re.search(r'kpb: (.*)$', line)
        if not m:
            continue
        f = m.group(1).split()
        if not f:
            continue
        if f[0] == 'hit' and len(f) == 3:
            d['hit.' + f[1]] = f[2] if f[1].endswith('_state') else int(f[2])
        elif f[0] == 'hit' and len(f) > 3:
            d['warnings'].append(' '.join(f))
        elif f[0] == 'reg' and len(f) == 5 and f[4].isdigit():
            d['reg.%s.%s.%s' % (f[1], f[2], f[3])] = int(f[4])
        elif f[0] == 'reg':
            d['warnings'].append(' '.join(f))
        elif f[0] == 'tracefs':
            d['tracefs.%s.%s' % (f[1], f[2])] = int(f[3])
            if f[2] == 'define':
                d['tracefs.%s.events' % f[1]] = int(f[5])
        elif f[0] == 'scale' and f[1] == 'candidates':
            d['scale.candidates'] = '%s (tried %s)' % (f[2], f[4])
            d['scale.armed'] = int(f[6])
            d['scale.register'] = int(f[8])
        elif f[0] == 'scale' and f[1] == 'refused':
            d['scale.refused'] = ' '.join(f[2:])
        elif f[0] == 'scale' and f[1] == 'hits':
            d['scale.hits'] = '%s (nmissed %s)' % (f[2], f[4])
        elif f[0] == 'scale' and f[1] == 'unregister_batch':
            d['scale.unregister'] = int(f[4])
        elif f[0] == 'scale' and f[1].startswith('workload_'):
            d['scale.' + f[1]] = int(f[2])
            d['scale.ok_' + f[1][9:]] = f[4]
        elif f[0] == 'funcs':
            d['funcs'] = ' '.join(f[1:])
        elif f[0] == 'done':
            pass
    return d


def fmt(v):
    if v is None:
        return '-'
    if isinstance(v, str):
        return v
    for unit, div in (('s', 1e9), ('ms', 1e6), ('us', 1e3)):
        if v >= div * 10:
            return '%.1f %s' % (v / div, unit)
    return '%d' % v


def fmt_insn(v):
    if v is None:
        return '-'
    for unit, div in (('G', 1e9), ('M', 1e6), ('k', 1e3)):
        if v >= div * 10:
            return '%.1f%s' % (v / div, unit)
    return '%d' % v


def fmt_ratio(r):
    if r is None:
        return '-'
    return '%.2f' % r if r >= 0.01 else '%.1g' % r


def ratio(a, b):
    if isinstance(a, int) and isinstance(b, int) and b > 0:
        return a / b
    return None


def tagged(impl, cfg):
    """The log tag of one kernel: ours, upstream, ours-distro, ..."""
    return impl if cfg == 'default' else '%s-%s' % (impl, cfg)


def table_row(get, runs, icount, key, cfg):
    """One figure on one config: (the text after the label, csv cells)."""
    impls = [tagged(i, cfg) for i in IMPLS]
    w = [get(i, 'wall', key) if 'wall' in runs else None for i in impls]
    c = [get(i, icount[0], key) if icount else None for i in impls]
    if all(v is None for v in w + c):
        return None
    rw, rc = ratio(*w), ratio(*c)
    s = '%11s %11s %6s' % (fmt(w[0]), fmt(w[1]), fmt_ratio(rw))
    rep = ''
    if icount:
        s += ' | %9s %9s %6s' % (fmt_insn(c[0]), fmt_insn(c[1]),
                                 fmt_ratio(rc))
        if len(icount) > 1:
            diffs = []
            for i in impls:
                a, b = get(i, icount[0], key), get(i, icount[1], key)
                if isinstance(a, int) and isinstance(b, int) and a:
                    diffs.append(abs(a - b) / a)
            rep = '%.1f%%' % (100 * max(diffs)) if diffs else '-'
            s += ' %6s' % rep
    return s, [w[0], w[1], rw, c[0], c[1], rc, rep]


def main():
    out, runs = sys.argv[1], sys.argv[2:]
    configs = os.environ.get('BENCH_CONFIGS', 'default').split()
    # i386 runs the per-hit phase only (harness/archtest.sh i386 bench)
    data = {(tagged(i, c), r): parse(os.path.join(
                out, 'log-%s-%s.txt' % (tagged(i, c), r)),
                'kpb: done hit' if c == 'i386' else 'kpb: end')
            for i in IMPLS for c in configs for r in runs}
    icount = [r for r in runs if r.startswith('icount')]
    lines, rows = [], []
    hdr = '%-48s %11s %11s %6s' % ('figure', 'ours', 'upstream', 'ratio')
    if icount:
        hdr += ' | %9s %9s %6s' % ('ours insn', 'upstr insn', 'ratio')
        if len(icount) > 1:
            hdr += ' %s' % 'repeat'
    lines.append('Kprobes for Linux anew: `make bench` (guest time; '
                 'insn = instructions under -icount shift=0)')
    lines.append(hdr)
    lines.append('-' * len(hdr))
    get = lambda i, r, k: (data.get((i, r)) or {}).get(k)
    for key, label, unit in ROWS:
        for cfg in configs:
            row = table_row(get, runs, icount, key, cfg)
            if row is None:
                continue
            if cfg != 'default':
                label = '  [%s] %s' % (cfg, label)
            s, cells = row
            lines.append('%-48s %s' % (label[:48], s))
            rows.append([key if cfg == 'default' else '%s@%s' % (key, cfg),
                         label, unit] + cells)
    lines.append('')
    for key in INFO:
        for i in [tagged(i, c) for c in configs for i in IMPLS]:
            for r in dict.fromkeys(runs[:1] + icount[:1]):
                v = get(i, r, key)
                if v:
                    if isinstance(v, list):
                        v = '; '.join(v)
                    lines.append('%-10s %-8s %-22s %s' % (i, r, key, v))
    # the per-process layer against the engine it sits on, and uprobe
    # hits per second of guest time under plain TCG
    # the memory engine's hit against the kernel's consumer (upstream's)
    # on the same instruction in file text
    for insn in ('lea', 'push'):
        for r in icount[:1]:
            a = get('ours', r, 'hit.uprobe_j%s_seed' % insn)
            b = get('upstream', r, 'hit.uprobe_%s_consumer' % insn)
            if isinstance(a, int) and isinstance(b, int) and b > 0:
                lines.append('%-10s %-8s %-22s %d / %d = %.3f' % (
                    'ours', r, 'uprobe j%s mem/upstream' % insn, a, b, a / b))
    # a per-process return probe against 6.12's uretprobe (its consumer
    # API's ret_handler) on the same function, and ours on JIT code
    for r in icount[:1]:
        b = get('upstream', r, 'hit.uretprobe_lea_consumer')
        for key in ('hit.uretprobe_lea_seed', 'hit.uretprobe_jlea_seed'):
            a = get('ours', r, key)
            if isinstance(a, int) and isinstance(b, int) and b > 0:
                lines.append('%-10s %-8s %-22s %d / %d = %.3f' % (
                    'ours', r, key[4:] + '/upstream', a, b, a / b))
    for insn in ('lea', 'push'):
        for r in icount[:1] + [r for r in runs if r == 'wall']:
            a = get('ours', r, 'hit.uprobe_%s_seed' % insn)
            b = get('ours', r, 'hit.uprobe_%s_consumer' % insn)
            if isinstance(a, int) and isinstance(b, int) and b > 0:
                lines.append('%-10s %-8s %-22s %d / %d = %.3f' % (
                    'ours', r, 'uprobe_%s seed/consumer' % insn, a, b, a / b))
        if 'wall' in runs:
            for i in IMPLS:
                for api in ('tracefs', 'consumer', 'seed'):
                    v = get(i, 'wall', 'hit.uprobe_%s_%s' % (insn, api))
                    if isinstance(v, int) and v > 0:
                        lines.append('%-10s %-8s %-22s %d hits/s' % (
                            i, 'wall', 'uprobe_%s_%s' % (insn, api), 1e9 / v))
    text = '\n'.join(lines) + '\n'
    sys.stdout.write(text)
    with open(os.path.join(out, 'bench.txt'), 'w') as f:
        f.write(text)
    with open(os.path.join(out, 'bench.csv'), 'w', newline='') as f:
        w = csv.writer(f)
        w.writerow(['key', 'figure', 'unit', 'ours_ns', 'upstream_ns',
                    'ratio_wall', 'ours_insn', 'upstream_insn',
                    'ratio_insn', 'insn_repeat_diff'])
        for r in rows:
            w.writerow(['' if v is None else
                        ('%.4f' % v if isinstance(v, float) else v) for v in r])
    chart(out, rows)


def chart(out, rows):
    """Bars of ours/upstream (instructions where measured, else wall)."""
    pts = []
    for r in rows:
        v = r[8] if r[8] is not None else r[5]
        if v is not None:
            pts.append((r[1].replace('"', "'"), v))
    if not pts:
        return
    dat = os.path.join(out, 'bench-ratios.dat')
    with open(dat, 'w') as f:
        for k, v in pts:
            f.write('"%s" %.4f\n' % (k, v))
    gp = """set terminal pngcairo size 1400,%d font ",10" noenhanced
set output "%s"
set title "kprobes: ours / upstream (below 1 = ours faster; instructions where measured)"
set style fill solid 0.8
set boxwidth 0.7
set xrange [0:*]
set yrange [%d:-0.5]
set ytics nomirror
set grid xtics
unset key
set arrow from 1,-0.5 to 1,%d nohead lc rgb "red" dt 2
set logscale x 10
set format x "%%g"
set xrange [0.00001:100]
plot "%s" using 2:0:(0.00001):2:($0-0.35):($0+0.35):ytic(1) with boxxyerror lc rgb "#4477aa", \\
     "" using 2:0:(sprintf(" %%.3g", $2)) with labels left
""" % (200 + 22 * len(pts), os.path.join(out, 'bench.png'), len(pts),
       len(pts), dat)
    try:
        subprocess.run(['gnuplot'], input=gp.encode(), check=True,
                       stderr=subprocess.PIPE)
    except (OSError, subprocess.CalledProcessError) as e:
        print('(no chart: %s)' % e)


if __name__ == '__main__':
    main()
