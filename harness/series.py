#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make series / make series-check: the repository as a patch series.

The series is generated, never kept by hand: series/NN-*.txt says, for
each patch, its subject and changelog and which of the repository's
things it brings in, at their final content:

    Subject: kprobes: ...
    Files: kernel/kprobes.c arch/x86/kernel/kprobes/    (whole files we own;
           a name ending in / is everything under it)
    Diffs: 0001-....patch                  (our diffs to upstream files, patches/)
    Removed: path                           (entries of patches/REMOVED)
    Transient: FILE | SED-SCRIPT | NN       (an edit that holds from this
                                             patch until patch NN undoes it)
    Aside: SRC -> DST | NN                  (the base's SRC is renamed to DST
                                             here, unchanged, and patch NN
                                             deletes it; a header leaves a
                                             forwarding #include behind until
                                             our SRC arrives)

    changelog...

Continuation lines of a header start with white space.  Every file we own,
every patches/*.patch and every patches/REMOVED entry belongs to exactly one
patch, and the diffs keep their numeric order along the series, so the top
of the series is exactly what the build lays over the base
(harness/tree.sh).  A transient edit keeps an intermediate step building
and booting where a file arrives later (x86 selects HAVE_OPTPROBES only
once the optimizer is in).  Moving an upstream file aside lets ours of the
same name arrive as a new file, reviewable alone, while the old one still
builds; one patch switches the build over and a deletion-only one removes
what was moved aside.

  series.py make     commits each step on the base (build/series-base, a git
                     import of the pristine tree), git format-patch's the
                     lot into build/series/ with a cover letter generated
                     from series/cover-letter.txt and results/
  series.py check    git am's build/series onto a fresh clone of the base
                     and checks it: identical to build/tree-ours,
                     checkpatch --strict clean, get_maintainer names our
                     entries, every step builds (FULL=1: and boots and passes
                     KUnit's kprobes_test); last line "N passed, N failed".
                     checkpatch's FILE_PATH_CHANGES ("does MAINTAINERS need
                     updating?") counts only if a file the patch adds, moves
                     or deletes is outside our sections' F: lines.  A patch
                     that touches only selftests, Documentation or
                     MAINTAINERS keeps the kernel of the patch before it
                     (not rebuilt or booted again); the selftest modules it
                     touches are built against that kernel.
"""

import fnmatch
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get('BUILD', os.path.join(REPO, 'build'))
SRC = os.environ.get('SRC', os.path.join(BUILD, 'src', 'linux-source-6.12'))
BASE = os.path.join(BUILD, 'series-base')
OUT = os.path.join(BUILD, 'series')
CHECK = os.path.join(BUILD, 'series-check')
LOGS = os.path.join(BUILD, 'logs', 'series')
OVERLAY_DIRS = ('kernel', 'arch', 'include', 'samples', 'Documentation', 'tools')
# fixed dates and identity: the same repository gives the same commits
DATE = '2026-01-01T00:00:00+00:00'


def say(msg):
    print('==> ' + msg, flush=True)


def die(msg):
    print('error: ' + msg, file=sys.stderr)
    sys.exit(1)


def git(*args, cwd=BASE, env=None, capture=True, check=True):
    e = dict(os.environ)
    e.update({'GIT_AUTHOR_DATE': DATE, 'GIT_COMMITTER_DATE': DATE})
    if env:
        e.update(env)
    r = subprocess.run(('git',) + args, cwd=cwd, env=e, text=True,
                       capture_output=capture)
    if check and r.returncode:
        die('git %s: %s' % (' '.join(args), (r.stderr or '').strip()))
    return r.stdout.strip() if capture else ''


def identity():
    """The series' author: SERIES_AUTHOR, else the repository's git user."""
    who = os.environ.get('SERIES_AUTHOR')
    if not who:
        name = git('config', 'user.name', cwd=REPO, check=False)
        mail = git('config', 'user.email', cwd=REPO, check=False)
        if not name or not mail:
            name, mail = git('log', '-1', '--format=%an\n%ae', cwd=REPO).split('\n')
        who = '%s <%s>' % (name, mail)
    m = re.match(r'(.*?)\s*<(.*)>$', who)
    if not m:
        die('SERIES_AUTHOR must be "Name <mail>"')
    return m.group(1), m.group(2)


# ---- the definition ------------------------------------------------------

class Step:
    def __init__(self, path):
        self.path = path
        self.num = int(os.path.basename(path).split('-')[0])
        self.headers = {'Subject': [], 'Files': [], 'Diffs': [], 'Removed': [],
                        'Transient': [], 'Aside': []}
        self.files = []
        text = open(path).read()
        head, _, body = text.partition('\n\n')
        key = None
        for line in head.split('\n'):
            if line[:1] in (' ', '\t') and key:
                self.headers[key][-1] += ' ' + line.strip()
                continue
            key, _, val = line.partition(':')
            if key not in self.headers:
                die('%s: unknown header %r' % (path, key))
            self.headers[key].append(val.strip())
        if len(self.headers['Subject']) != 1:
            die('%s: one Subject: line' % path)
        self.subject = self.headers['Subject'][0]
        self.body = body.strip('\n')
        self.owned = ' '.join(self.headers['Files']).split()
        self.diffs = ' '.join(self.headers['Diffs']).split()
        self.removed = ' '.join(self.headers['Removed']).split()
        self.transients = []
        for t in self.headers['Transient']:
            parts = [x.strip() for x in t.split(' | ')]
            if len(parts) != 3 or not parts[2].isdigit():
                die('%s: Transient: FILE | SED-SCRIPT | NN' % path)
            self.transients.append((parts[0], parts[1], int(parts[2])))
        self.asides = []
        for a in self.headers['Aside']:
            m = re.match(r'(\S+)\s+->\s+(\S+)\s+\|\s+(\d+)$', a)
            if not m:
                die('%s: Aside: SRC -> DST | NN' % path)
            self.asides.append((m.group(1), m.group(2), int(m.group(3))))


def load_steps():
    steps = [Step(p) for p in sorted(glob.glob(os.path.join(REPO, 'series', '[0-9][0-9]-*.txt')))]
    if not steps:
        die('no series/NN-*.txt')
    nums = [s.num for s in steps]
    if nums != list(range(1, len(steps) + 1)):
        die('series/ must be numbered 01..%02d without gaps' % len(steps))
    return steps


def owned_files():
    out = git('ls-files', '--', *OVERLAY_DIRS, cwd=REPO)
    return sorted(f for f in out.split('\n') if f)


def removed_entries():
    p = os.path.join(REPO, 'patches', 'REMOVED')
    if not os.path.exists(p):
        return []
    return [l.strip() for l in open(p) if l.strip() and not l.startswith('#')]


def once(steps, attr, known, where, errors):
    """Each entry of known (listed in where) is named by exactly one
    patch's attr (Diffs:, Removed:), and every name is a known entry."""
    seen = {}
    for s in steps:
        for x in getattr(s, attr):
            if x not in known:
                errors.append('%s: %s is not in %s' % (s.path, x, where))
            if x in seen:
                errors.append('%s is in patch %02d and %02d' % (x, seen[x], s.num))
            seen[x] = s.num
    errors.extend('%s (%s) is in no patch of series/' % (x, where)
                  for x in known if x not in seen)


def assign(steps):
    """Expand Files: entries and check that everything has exactly one patch."""
    errors = []
    owned = owned_files()
    where = {}
    for s in steps:
        for entry in s.owned:
            if entry.endswith('/'):
                hit = [f for f in owned if f.startswith(entry)]
            else:
                hit = [f for f in owned if f == entry]
            if not hit:
                errors.append('%s: Files: %s names no file we own' % (s.path, entry))
            for f in hit:
                if f in where:
                    errors.append('%s is in patch %02d and %02d' % (f, where[f], s.num))
                where[f] = s.num
                s.files.append(f)
    for f in owned:
        if f not in where:
            errors.append('%s (ours) is in no patch of series/' % f)
    patches = sorted(os.path.basename(p) for p in glob.glob(os.path.join(REPO, 'patches', '*.patch')))
    once(steps, 'diffs', patches, 'patches/', errors)
    order = [d for s in steps for d in s.diffs]
    if order != sorted(order):
        errors.append('Diffs: must follow the numeric order of patches/ '
                      '(the build applies them in that order)')
    once(steps, 'removed', removed_entries(), 'patches/REMOVED', errors)
    for s in steps:
        for f, _, until in s.transients:
            if until <= s.num or until > len(steps):
                errors.append('%s: Transient on %s must end at a later patch' % (s.path, f))
        for src, dst, until in s.asides:
            if until <= s.num or until > len(steps):
                errors.append('%s: Aside of %s must end at a later patch' % (s.path, src))
            if not os.path.exists(os.path.join(SRC, src)) or \
               os.path.exists(os.path.join(SRC, dst)):
                errors.append('%s: Aside: the base must have %s and not %s'
                              % (s.path, src, dst))
            if src.endswith('.h') and not re.match(r'(arch/[^/]+/)?include/', src):
                errors.append('%s: Aside: %s has no <...> path for a forwarding '
                              'header' % (s.path, src))
            if dst in owned:
                errors.append('%s: Aside: %s is a file we own' % (s.path, dst))
            for t in steps:
                edits = [d for d in t.diffs
                         if src in diff_targets(os.path.join(REPO, 'patches', d))]
                edits += [f for f, _, _ in t.transients if f == src]
                if s.num <= t.num < until and edits:
                    errors.append('%s: Aside: patch %02d edits %s while it is aside'
                                  % (s.path, t.num, src))
                if any(dst in diff_targets(os.path.join(REPO, 'patches', d))
                       for d in t.diffs) or any(f == dst for f, _, _ in t.transients):
                    errors.append('%s: Aside: patch %02d edits %s' % (s.path, t.num, dst))
    if errors:
        die('series/ does not cover the repository exactly once:\n  ' + '\n  '.join(errors))


# ---- the states ----------------------------------------------------------

def diff_targets(patch):
    return re.findall(r'^\+\+\+ b/(\S+)', open(patch).read(), re.M)


def universe(steps):
    u = set()
    for s in steps:
        u.update(s.files)
        for d in s.diffs:
            u.update(diff_targets(os.path.join(REPO, 'patches', d)))
        u.update(s.removed)
        u.update(f for f, _, _ in s.transients)
        for src, dst, _ in s.asides:
            u.update((src, dst))
    return sorted(u)


def forwarding_header(src, dst):
    """What stays at a header's old path while the base's copy is aside."""
    first = open(os.path.join(SRC, src)).readline()
    inc = re.sub(r'^(arch/[^/]+/)?include/', '', dst)
    return ((first if 'SPDX-License-Identifier' in first else '') +
            '/* Moved aside while its replacement is added; see <%s>. */\n'
            '#include <%s>\n' % (inc, inc)).encode()


def state(steps, k, tmp):
    """{path: bytes or None} for every path of the universe after patch k."""
    stage = os.path.join(tmp, 'stage%02d' % k)
    shutil.rmtree(stage, ignore_errors=True)
    os.makedirs(stage)
    done = [s for s in steps if s.num <= k]

    def base_copy(path):
        dst = os.path.join(stage, path)
        if os.path.exists(dst):
            return
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        src = os.path.join(SRC, path)
        if os.path.exists(src):
            shutil.copy(src, dst)

    for s in done:
        for d in s.diffs:
            p = os.path.join(REPO, 'patches', d)
            for t in diff_targets(p):
                base_copy(t)
            r = subprocess.run(['patch', '-p1', '-s', '-F0', '--no-backup-if-mismatch',
                                '-d', stage, '-i', p], capture_output=True, text=True)
            if r.returncode:
                die('patch %02d: patches/%s does not apply without fuzz at this '
                    'step: %s' % (k, d, r.stdout + r.stderr))
    for s in done:
        for f in s.files:
            dst = os.path.join(stage, f)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copy(os.path.join(REPO, f), dst)
    gone = set(r for s in done for r in s.removed)
    for s in steps:
        for f, script, until in s.transients:
            if not s.num <= k < until:
                continue
            base_copy(f)
            dst = os.path.join(stage, f)
            before = open(dst, 'rb').read()
            subprocess.run(['sed', '-i', '-e', script, dst], check=True)
            if open(dst, 'rb').read() == before:
                die('patch %02d: the transient edit of %s (from patch %02d) '
                    'changes nothing' % (k, f, s.num))
    out = {}
    aside = {}
    for s in done:
        for src, dst, until in s.asides:
            aside[src] = (dst, k < until)
    for f in universe(steps):
        p = os.path.join(stage, f)
        moved = [(src, dst, live) for src, (dst, live) in aside.items() if dst == f]
        if moved:
            src, _, live = moved[0]
            out[f] = open(os.path.join(SRC, src), 'rb').read() if live else None
        elif f in aside and not os.path.exists(p):
            dst, live = aside[f]
            out[f] = forwarding_header(f, dst) if live and f.endswith('.h') else None
        elif f in gone:
            out[f] = None
        elif os.path.exists(p):
            out[f] = open(p, 'rb').read()
        elif os.path.exists(os.path.join(SRC, f)):
            out[f] = open(os.path.join(SRC, f), 'rb').read()
        else:
            out[f] = None
    return out


# ---- the base as a git repository -----------------------------------------

def base_repo():
    """build/series-base: the pristine tree committed as-is (once)."""
    ver = subprocess.run(['make', '-s', '-C', SRC, 'kernelversion'],
                         capture_output=True, text=True).stdout.strip()
    if os.path.isdir(os.path.join(BASE, '.git')) and \
       git('rev-parse', '-q', '--verify', 'refs/tags/base', check=False):
        return git('rev-parse', 'base^{commit}'), ver
    say('importing the base (Linux %s, Debian linux-source-6.12) into %s (once)'
        % (ver, os.path.relpath(BASE, REPO)))
    shutil.rmtree(BASE, ignore_errors=True)
    shutil.copytree(SRC, BASE, symlinks=True)
    env = {'GIT_AUTHOR_NAME': 'Linux 6.12 base', 'GIT_AUTHOR_EMAIL': 'base@localhost',
           'GIT_COMMITTER_NAME': 'Linux 6.12 base',
           'GIT_COMMITTER_EMAIL': 'base@localhost'}
    git('init', '-q', '-b', 'base-import')
    git('config', 'core.autocrlf', 'false')
    git('config', 'gc.auto', '0')
    # the tarball carries no .gitignore'd build outputs; take every file
    git('add', '-A', '-f', '.')
    git('commit', '-q', '-m', 'Linux %s as Debian\'s linux-source-6.12 ships it' % ver,
        env=env)
    git('tag', 'base')
    return git('rev-parse', 'base^{commit}'), ver


# ---- make series ----------------------------------------------------------

def fill_cover(text, steps, ver, base):
    def results(name, what):
        p = os.path.join(REPO, 'results', name)
        if not os.path.exists(p):
            return '(%s: not measured yet; results/%s is missing)' % (what, name)
        return open(p).read().rstrip('\n')

    def table(name, what):
        # the table only: up to the first blank line, without the title
        text = results(name, what).split('\n\n')[0]
        return '\n'.join(l.rstrip() for l in text.split('\n')[1:])

    hit = table('bench-hit.txt', 'make bench BENCH_ONLY=hit')
    # registration rows from the last full run; hit rows from the newer one
    full = table('bench.txt', 'make bench').split('\n')
    bench = '\n'.join(full[:2] + [l for l in full[2:] if not re.match(
        r'(kprobe hit|kretprobe hit|kprobe \+ kretprobe)', l)])
    subs = {
        '@VERSION@': ver,
        '@BASE@': base,
        '@NPATCHES@': str(len(steps)),
        '@BENCH@': bench,
        '@BENCH_HIT@': hit,
        '@ARCHES@': results('arches.txt', 'make arches'),
        '@CONFIGS@': results('configs.txt', 'make configs'),
    }
    for k, v in subs.items():
        text = text.replace(k, v)
    left = re.findall(r'@[A-Z]+@', text)
    if left:
        die('series/cover-letter.txt: unknown %s' % ', '.join(left))
    return text


def make_series():
    steps = load_steps()
    assign(steps)
    if not os.path.exists(os.path.join(SRC, 'Makefile')):
        die('%s missing: make tree first' % SRC)
    base, ver = base_repo()
    name, mail = identity()
    env = {'GIT_AUTHOR_NAME': name, 'GIT_AUTHOR_EMAIL': mail,
           'GIT_COMMITTER_NAME': name, 'GIT_COMMITTER_EMAIL': mail}
    git('checkout', '-q', '-f', '-B', 'series', 'base')
    git('clean', '-q', '-fdx')
    tmp = tempfile.mkdtemp(prefix='series.')
    try:
        for s in steps:
            st = state(steps, s.num, tmp)
            for f, data in st.items():
                p = os.path.join(BASE, f)
                if data is None:
                    if os.path.lexists(p):
                        os.unlink(p)
                    continue
                if os.path.exists(p) and open(p, 'rb').read() == data:
                    continue
                os.makedirs(os.path.dirname(p), exist_ok=True)
                with open(p, 'wb') as fh:
                    fh.write(data)
                mode = os.stat(os.path.join(REPO, f)).st_mode if f in s.files else None
                if mode is not None:
                    os.chmod(p, mode & 0o777)
            git('add', '-A', '-f', '.')
            msg = '%s\n\n%s\n\nSigned-off-by: %s <%s>\n' % (s.subject, s.body, name, mail)
            r = subprocess.run(['git', 'commit', '-q', '-F', '-'], input=msg, text=True,
                               cwd=BASE, env=dict(os.environ, GIT_AUTHOR_DATE=DATE,
                                                  GIT_COMMITTER_DATE=DATE, **env),
                               capture_output=True)
            if r.returncode:
                die('patch %02d: git commit: %s%s' % (s.num, r.stdout, r.stderr))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    shutil.rmtree(OUT, ignore_errors=True)
    os.makedirs(OUT)
    git('format-patch', '-q', '--cover-letter', '--base=%s' % base,
        '--break-rewrites', '-M', '--signature=%s' % ver,
        '-o', OUT, 'base..series', env=env)
    cover = sorted(glob.glob(os.path.join(OUT, '0000-*.patch')))[0]
    tmpl = open(os.path.join(REPO, 'series', 'cover-letter.txt')).read()
    subject, _, blurb = fill_cover(tmpl, steps, ver, base).partition('\n\n')
    text = open(cover).read()
    text = text.replace('*** SUBJECT HERE ***', subject.replace('Subject: ', '', 1))
    text = text.replace('*** BLURB HERE ***', blurb.strip('\n'))
    open(cover, 'w').write(text)
    say('series: %d patches and a cover letter in %s (base-commit %s)'
        % (len(steps), os.path.relpath(OUT, REPO), base[:12]))
    for p in sorted(glob.glob(os.path.join(OUT, '*.patch'))):
        print('  %-72s %6d lines' % (os.path.basename(p), sum(1 for _ in open(p))))


# ---- make series-check ----------------------------------------------------

class Result:
    def __init__(self):
        self.passed = 0
        self.failed = 0
        self.n = 0

    def case(self, ok, name, detail=''):
        self.n += 1
        if ok:
            self.passed += 1
        else:
            self.failed += 1
        print('%s %d %s%s' % ('ok' if ok else 'not ok', self.n, name,
                              (' # ' + detail) if detail else ''), flush=True)


def kmake(tree, obj, *args, log=None):
    """kbuild in tree with O=obj, through harness/common.sh's kmake(): the
    one place that knows how to call it (ccache, build stamps, -j)."""
    cmd = ['bash', '-c', '. "$0" && kmake "$@"', os.path.join(REPO, 'harness', 'common.sh')]
    env = dict(os.environ, KSRC=tree, KOBJ=obj)
    with open(log, 'a') if log else open(os.devnull, 'w') as fh:
        return subprocess.run(cmd + list(args), stdout=fh, stderr=subprocess.STDOUT,
                              env=env).returncode


def configure(tree, obj, log):
    """The project config: tinyconfig + config/kprobes.config + series.config
    (a symbol a later patch adds is simply absent at an earlier step)."""
    frags = [os.path.join(REPO, 'config', 'kprobes.config'),
             os.path.join(REPO, 'config', 'series.config')]
    want = ''.join(open(f).read() for f in frags)
    stamp = os.path.join(obj, '.series-frags')
    kconfigs = subprocess.run('cat arch/Kconfig arch/x86/Kconfig kernel/trace/Kconfig '
                              'samples/Kconfig | md5sum', shell=True, cwd=tree,
                              capture_output=True, text=True).stdout
    if os.path.exists(os.path.join(obj, '.config')) and os.path.exists(stamp) and \
       open(stamp).read() == want + kconfigs:
        return 0
    os.makedirs(obj, exist_ok=True)
    if kmake(tree, obj, 'tinyconfig', log=log):
        return 1
    r = subprocess.run([os.path.join(tree, 'scripts/kconfig/merge_config.sh'), '-m', '-O',
                        obj, os.path.join(obj, '.config')] + frags,
                       capture_output=True, text=True)
    if r.returncode or kmake(tree, obj, 'olddefconfig', log=log):
        return 1
    open(stamp, 'w').write(want + kconfigs)
    return 0


def boot_kunit(obj, log):
    """Boot bzImage without a root file system: KUnit runs at boot, then the
    kernel panics on the missing root and QEMU exits.  True if
    kprobes_test reported ok and the console shows no kernel warning."""
    # one TCG thread, as in boot.sh: MTTCG lets a vCPU run stale code
    qemu = ['qemu-system-x86_64', '-accel', 'tcg,thread=single',
            '-m', '512M', '-smp', '2', '-nographic',
            '-no-reboot', '-kernel', os.path.join(obj, 'arch/x86/boot/bzImage'),
            '-append', 'console=ttyS0 panic=-1 kunit.filter_glob=kprobes_test'
            ' root=/dev/null']
    try:
        r = subprocess.run(qemu, capture_output=True, text=True, timeout=600,
                           errors='replace')
        out = r.stdout + r.stderr
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b'').decode(errors='replace') if isinstance(e.stdout, bytes) \
            else (e.stdout or '')
        out += '\n(timed out)\n'
    open(log, 'w').write(out)
    bad = re.findall(r'(WARNING:|BUG:|Oops|KASAN|possible recursive locking|'
                     r'INFO: task .* blocked|rcu_sched self-detected stall).*', out)
    ok = re.search(r'^\s*(?:\[[^\]]*\]\s*)?ok \d+ kprobes_test\s*$', out, re.M)
    notok = re.search(r'not ok \d+ kprobes_test', out)
    if bad:
        return False, 'kernel report: ' + bad[0]
    if notok or not ok:
        return False, 'KUnit kprobes_test did not pass'
    n = re.findall(r'# kprobes_test: pass:(\d+) fail:(\d+) skip:(\d+) total:(\d+)', out)
    return True, ('kprobes_test pass:%s fail:%s skip:%s' % n[-1][:3]) if n else ''


# The KUnit suites of kprobes: in the tree, but only built where their
# KPROBES_*_KUNIT_TEST symbols are set, which the series' test config does
# not do; their sources are built out of tree, as the selftests' modules.
KUNIT_DIR = 'kernel/kprobes_kunit'


def not_kbuild(path):
    """Is path something building bzImage and the in-tree modules never
    reads?  Documentation/Kconfig is sourced by Kconfig, and device tree
    bindings are read by dtbs builds.  The KUnit suites' sources are not
    (their Kconfig and Makefile are)."""
    if path.startswith(('Documentation/Kconfig', 'Documentation/devicetree/')):
        return False
    if path.startswith(KUNIT_DIR + '/'):
        return path.endswith(('.c', '.h', '.S', '/.kunitconfig'))
    return path == 'MAINTAINERS' or path.startswith(('tools/testing/', 'Documentation/'))


def kunit_syms(obj):
    """The make variables that build KUNIT_DIR out of tree against the
    kernel in obj: harness/common.sh's kunit_syms, the one rule the
    harness builds them by."""
    out = subprocess.run(['bash', '-c', '. "$0/common.sh" && kunit_syms "$1"',
                          os.path.join(REPO, 'harness'),
                          os.path.join(obj, '.config')],
                         capture_output=True, text=True, check=True).stdout
    return out.split()


def selftest_dirs(tree, changed):
    """The kbuild directories (with a Kbuild file) of our selftests, and
    the KUnit suites' directory, that the changed paths are in."""
    dirs = set()
    for f in changed:
        d = os.path.dirname(f)
        if d.startswith('tools/testing/selftests/kprobes') and \
           os.path.exists(os.path.join(tree, d, 'Kbuild')):
            dirs.add(d)
        if d == KUNIT_DIR and os.path.isdir(os.path.join(tree, d)):
            dirs.add(d)
    return sorted(dirs)


def build_selftests(tree, obj, dirs, log):
    """Build each directory's modules against obj, out of tree; return the
    first that fails or warns, else None.  Their objects are cleaned."""
    for d in dirs:
        m = os.path.join(tree, d)
        syms = kunit_syms(obj) if d == KUNIT_DIR else []
        # only this build's lines: the log may hold the kernel's build
        start = os.path.getsize(log) if os.path.exists(log) else 0
        with open(log, 'a') as fh:
            r = subprocess.run(['make', '-s', '-C', obj, 'M=' + m, '-j2'] +
                               syms + ['modules'],
                               stdout=fh, stderr=subprocess.STDOUT)
        with open(log, errors='replace') as fh:
            fh.seek(start)
            warned = any(': warning:' in l or 'WARNING:' in l for l in fh)
        subprocess.run(['make', '-s', '-C', obj, 'M=' + m, 'clean'],
                       capture_output=True)
        if r.returncode or warned:
            return d
    return None


def our_patterns(tree, rev):
    """The F: and X: patterns of the KPROBES and UPROBES sections at rev."""
    text = git('show', '%s:MAINTAINERS' % rev, cwd=tree)
    pats, sec = {'F': [], 'X': []}, None
    for line in text.split('\n'):
        if line and not line[1:2] == ':':
            sec = line.strip()
        elif line[:2] in ('F:', 'X:') and sec in ('KPROBES', 'UPROBES'):
            pats[line[0]].append(line[2:].strip())
    return pats


def matches(path, pat):
    """get_maintainer's file_match_pattern(): a pattern naming a directory
    (with or without its slash) takes everything below it; a glob
    matches within its own directory level; else the exact path."""
    if pat.endswith('/') or path.startswith(pat + '/'):
        return path.startswith(pat.rstrip('/') + '/')
    return fnmatch.fnmatchcase(path, pat) and path.count('/') == pat.count('/')


def covered(path, pats):
    return any(matches(path, p) for p in pats['F']) and \
        not any(matches(path, p) for p in pats['X'])


def uncovered(tree, commit, patch):
    """Files the patch adds, renames or deletes that our sections do not
    list: new names at the commit, old names at its parent."""
    text = open(patch).read()
    new = re.findall(r'^diff --git a/\S+ b/(\S+)\n(?:new file mode|similarity)', text, re.M)
    new += re.findall(r'^rename to (\S+)', text, re.M)
    old = re.findall(r'^diff --git a/(\S+) b/\S+\ndeleted file mode', text, re.M)
    old += re.findall(r'^rename from (\S+)', text, re.M)
    after, before = our_patterns(tree, commit), our_patterns(tree, commit + '^')
    return sorted(set([f for f in new if not covered(f, after)] +
                      [f for f in old if not covered(f, before)]))


def check_series():
    full = os.environ.get('FULL') == '1'
    steps = load_steps()
    assign(steps)
    res = Result()
    patches = sorted(glob.glob(os.path.join(OUT, '[0-9][0-9][0-9][0-9]-*.patch')))
    patches = [p for p in patches if not os.path.basename(p).startswith('0000-')]
    if len(patches) != len(steps):
        die('build/series has %d patches, series/ %d: make series first'
            % (len(patches), len(steps)))
    os.makedirs(LOGS, exist_ok=True)
    print('KTAP version 1')
    print('1..%d' % (3 + 3 * len(steps) + (len(steps) if full else 0)))

    # 1. git am onto a fresh copy of the base
    say('cloning the base into %s' % os.path.relpath(CHECK, REPO))
    tree = os.path.join(CHECK, 'tree')
    obj = os.path.join(tree, '_build')	# as tree-ours/_build: the same ../ paths, ccache hits
    if os.path.isdir(os.path.join(tree, '.git')):
        git('fetch', '-q', BASE, '+refs/tags/base:refs/tags/base', cwd=tree)
        git('checkout', '-q', '-f', '-B', 'check', 'base', cwd=tree)
        git('clean', '-q', '-fdx', '-e', '_build', cwd=tree)
    else:
        shutil.rmtree(tree, ignore_errors=True)
        os.makedirs(CHECK, exist_ok=True)
        git('clone', '-q', '--no-checkout', BASE, tree, cwd=CHECK)
        git('checkout', '-q', '-b', 'check', 'base', cwd=tree)
    r = subprocess.run(['git', 'am', '-q', '--whitespace=error-all'] + patches, cwd=tree,
                       capture_output=True, text=True,
                       env=dict(os.environ, GIT_COMMITTER_DATE=DATE,
                                GIT_COMMITTER_NAME='series-check',
                                GIT_COMMITTER_EMAIL='series-check@localhost'))
    if r.returncode:
        subprocess.run(['git', 'am', '--abort'], cwd=tree, capture_output=True)
    res.case(r.returncode == 0, 'git_am_applies_to_the_base',
             (r.stdout + r.stderr).strip().split('\n')[0] if r.returncode else
             '%d patches' % len(patches))
    if r.returncode:
        print('%d passed, %d failed' % (res.passed, res.failed + 1))
        return 1
    commits = git('rev-list', '--reverse', 'base..HEAD', cwd=tree).split('\n')

    # 2. the top is build/tree-ours
    ours = os.path.join(BUILD, 'tree-ours')
    d = subprocess.run(['diff', '-rq', '--no-dereference', '-x', '.git', '-x', '_build*',
                        tree, ours], capture_output=True, text=True)
    lines = [l for l in d.stdout.split('\n') if l]
    res.case(d.returncode == 0 and not lines, 'top_of_series_equals_tree_ours',
             '%d differences, first: %s' % (len(lines), lines[0]) if lines else
             'diff -r: identical')

    # 3. the maintainers
    gm = subprocess.run(['perl', 'scripts/get_maintainer.pl', '--no-git',
                         '--no-git-fallback', '--sections'] + patches, cwd=tree,
                        capture_output=True, text=True)
    secs = sorted(set(re.findall(r'^(KPROBES|UPROBES)$', gm.stdout, re.M)))
    res.case(secs == ['KPROBES', 'UPROBES'], 'get_maintainer_names_our_entries',
             'sections: ' + ' '.join(secs))

    # 4. per patch: checkpatch, get_maintainer, build (and boot)
    configure_log = os.path.join(LOGS, 'configure.log')
    prev_ok = prev_boot = None
    built_at = 0
    for s, patch, commit in zip(steps, patches, commits):
        cp = subprocess.run(['perl', 'scripts/checkpatch.pl', '--strict', '--no-summary',
                             '--show-types', patch], cwd=tree, capture_output=True,
                            text=True)
        out = cp.stdout
        e = len(re.findall(r'^ERROR:', out, re.M))
        w = len(re.findall(r'^WARNING:', out, re.M))
        c = len(re.findall(r'^CHECK:', out, re.M))
        open(os.path.join(LOGS, 'checkpatch-%02d.log' % s.num), 'w').write(out)
        types = sorted(set(re.findall(r'^CHECK:([A-Z_]+):', out, re.M)))
        answered = ''
        if w == 1 and re.search(r'^WARNING:FILE_PATH_CHANGES:', out, re.M):
            # checkpatch asks whether MAINTAINERS needs updating for a
            # patch that adds, moves or deletes files and does not touch
            # it: no, if our sections list every such file already
            left = uncovered(tree, commit, patch)
            if not left:
                w = 0
                answered = '; FILE_PATH_CHANGES answered: our F: lines cover its files'
            else:
                answered = '; not in our F: lines: ' + ' '.join(left[:3])
        res.case(e == 0 and w == 0, 'patch_%02d_checkpatch_strict' % s.num,
                 '%d errors, %d warnings, %d checks%s%s' % (e, w, c,
                  (' (' + ' '.join(types) + ')') if types else '', answered))
        # with the patch applied: it adds the MAINTAINERS lines of its files
        git('checkout', '-q', commit, cwd=tree)
        gm = subprocess.run(['perl', 'scripts/get_maintainer.pl', '--no-git',
                             '--no-git-fallback', '--sections', patch], cwd=tree,
                            capture_output=True, text=True)
        secs = sorted(set(re.findall(r'^(KPROBES|UPROBES)$', gm.stdout, re.M)))
        detail = ' '.join(secs) or 'neither KPROBES nor UPROBES'
        if not secs and not s.files:
            # a patch to another subsystem's files alone (an index kprobes
            # asks it to keep): it goes to that subsystem's maintainers, so
            # none of its files may be ours and some section must own them
            touched = re.findall(r'^\+\+\+ b/(\S+)', open(patch).read(), re.M)
            pats = our_patterns(tree, commit)
            owners = sorted(set(l for l in gm.stdout.split('\n')
                                if re.match(r'^[A-Z0-9][^:@]*$', l) and
                                l not in ('THE REST',)))
            if owners and not any(covered(f, pats) for f in touched):
                secs = owners
                detail = 'not ours: ' + ', '.join(owners)
        res.case(bool(secs), 'patch_%02d_get_maintainer' % s.num, detail)

        # A patch that only touches what the kernel's build never reads
        # (selftests, Documentation, MAINTAINERS) leaves the kernel of the
        # patch before it: that build (and boot) is not redone.  The
        # selftest modules it touches are built against that kernel.
        changed = [f for f in git('diff', '--name-only', '--no-renames',
                                  commit + '^', commit, cwd=tree).split('\n') if f]
        if prev_ok is not None and all(not_kbuild(f) for f in changed):
            detail = 'kernel as patch %02d' % built_at
            ok = prev_ok
            mods = selftest_dirs(tree, changed)
            if prev_ok and mods:
                log = os.path.join(LOGS, 'build-%02d.log' % s.num)
                open(log, 'w').close()
                bad = build_selftests(tree, obj, mods, log)
                ok = not bad
                detail += '; ' + ('%s failed, see %s' % (bad, os.path.relpath(log, REPO))
                                  if bad else 'test modules build: ' + ' '.join(
                                      m.split('/kprobes/')[-1] or '.' for m in mods))
            res.case(ok, 'patch_%02d_builds' % s.num, detail)
            if full:
                res.case(prev_boot, 'patch_%02d_boots_kprobes_test' % s.num,
                         'kernel as patch %02d' % built_at)
            continue
        built_at = s.num
        log = os.path.join(LOGS, 'build-%02d.log' % s.num)
        open(log, 'w').close()
        rc = configure(tree, obj, log)
        cfg = open(os.path.join(obj, '.config')).read() if rc == 0 else ''
        need = [x for x in ('CONFIG_KPROBES=y', 'CONFIG_KRETPROBES=y',
                            'CONFIG_KPROBES_SANITY_TEST=y') if x not in cfg]
        t0 = time.time()
        if rc == 0 and not need:
            rc = kmake(tree, obj, 'bzImage', 'modules', log=log)
        took = ' in %ds' % (time.time() - t0)
        warns = [l for l in open(log) if ': warning:' in l]
        opt = 'OPTPROBES=%s' % ('y' if 'CONFIG_OPTPROBES=y' in cfg else 'n')
        detail = ('configure failed' if not cfg else
                  'missing ' + ' '.join(need) if need else
                  'build failed, see %s' % os.path.relpath(log, REPO) if rc else
                  '%d warnings: %s' % (len(warns), warns[0].strip()) if warns else
                  'builds (%s)%s' % (opt, took))
        prev_ok = rc == 0 and not need and not warns
        # the test modules this patch touches, against its kernel
        # (a failure there is this patch's; the kernel stays good for the
        # patches after it)
        mods = selftest_dirs(tree, changed) if prev_ok else []
        bad = build_selftests(tree, obj, mods, log) if mods else None
        if bad:
            detail = '%s failed, see %s' % (bad, os.path.relpath(log, REPO))
        elif mods:
            detail += '; test modules build: ' + ' '.join(
                m.split('/kprobes/')[-1] or '.' for m in mods)
        res.case(prev_ok and not bad, 'patch_%02d_builds' % s.num, detail)
        if full:
            if rc or need:
                prev_boot = False
                res.case(False, 'patch_%02d_boots_kprobes_test' % s.num, 'not built')
            else:
                prev_boot, why = boot_kunit(obj, os.path.join(LOGS, 'boot-%02d.log' % s.num))
                res.case(prev_boot, 'patch_%02d_boots_kprobes_test' % s.num, why)
    git('checkout', '-q', 'check', cwd=tree)
    print('# the top of the series is build/tree-ours, which make test runs')
    print('%d passed, %d failed' % (res.passed, res.failed))
    return 1 if res.failed else 0


if __name__ == '__main__':
    if len(sys.argv) != 2 or sys.argv[1] not in ('make', 'check'):
        die('usage: series.py make|check')
    sys.exit(check_series() if sys.argv[1] == 'check' else make_series())
