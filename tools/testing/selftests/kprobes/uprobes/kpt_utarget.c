// SPDX-License-Identifier: GPL-2.0
/*
 * kpt_utarget: the process the uprobes suite probes.  Static and non-PIE,
 * so its addresses are the same in every run and a file offset is the
 * address minus the load base.  "kpt_utarget addrs" prints the probe
 * targets' addresses (main()); "kpt_utarget serve" runs the functions the
 * suite probes, in threads, fork children, JIT copies and so on, as the
 * suite asks (serve()).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

typedef long (*target_fn)(long x);
long ut_lea(long x), ut_push(long x), ut_riprel(long x), ut_call(long x);
long ut_jcc(long x), ut_skip(long x), ut_int3(long x), ut_poke(long x);
/* labels inside those (only their addresses are used), and &ut_data */
long ut_jcc_insn(long x), ut_skip_ret(long x), *ut_data_addr(long x);
/* return-probe targets, in C: their first instruction is probed */
long ut_rec(long n), ut_ljmp(long x), ut_rfork(long x), ut_block(long ms);
/* the JIT functions, run from a copy of ut_jit_begin .. ut_jit_end */
long jit_lea(long x), jit_push(long x), jit_riprel(long x), jit_call(long x);
long jit_jcc(long x), jit_jcc_insn(long x), jit_load(long x);
long jit_div(long x), jit_div_insn(long x);
long jit_pushr(long x), jit_pushr_insn(long x);
long jit_pushsp(long x), jit_pushsp_insn(long x);
long jit_vexj(long x), jit_vexj_insn(long x), jit_vexp(long x);
long ut_jit_begin(long x), ut_jit_end(long x);	/* labels: the bounds */
static char *jit_base;		/* the copy, or NULL */
static size_t jit_size;

static long want_lea(long x) { return x + 1; }
static long want_push(long x) { return x; }
static long want_riprel(long x) { return x + 7; }
static long want_call(long x) { return x + 2; }
static long want_jcc(long x) { return x ? x + 3 : -1; }
static long want_skip(long x) { return 1; }
static long want_div(long x) { return 84 / (x + 1); }

static const struct target {
	const char *name;
	target_fn fn;
	long (*want)(long x);
	void *probe;		/* the probed instruction */
	int jit;		/* run from the JIT copy */
} targets[] = {
	{ "lea", ut_lea, want_lea, ut_lea },
	{ "push", ut_push, want_push, ut_push },
	{ "riprel", ut_riprel, want_riprel, ut_riprel },
	{ "call", ut_call, want_call, ut_call },
	{ "jcc", ut_jcc, want_jcc, (void *)ut_jcc_insn },
	{ "skip", ut_skip, want_skip, ut_skip },
	{ "jlea", jit_lea, want_lea, jit_lea, 1 },
	{ "jpush", jit_push, want_push, jit_push, 1 },
	{ "jpushr", jit_pushr, want_push, (void *)jit_pushr_insn, 1 },
	{ "jpushsp", jit_pushsp, want_push, (void *)jit_pushsp_insn, 1 },
	{ "jvexj", jit_vexj, want_push, (void *)jit_vexj_insn, 1 },
	{ "jvexp", jit_vexp, want_push, jit_vexp, 1 },
	{ "jriprel", jit_riprel, want_riprel, jit_riprel, 1 },
	{ "jcall", jit_call, want_call, jit_call, 1 },
	{ "jjcc", jit_jcc, want_jcc, (void *)jit_jcc_insn, 1 },
	{ "jload", jit_load, want_push, jit_load, 1 },
	{ "jdiv", jit_div, want_div, (void *)jit_div_insn, 1 },
};

/* where a target's code runs: in the binary, or in the JIT copy */
static void *in_jit(const struct target *t, void *p)
{
	if (!t->jit)
		return p;
	return jit_base + ((char *)p - (char *)ut_jit_begin);
}

static target_fn fn_of(const struct target *t)
{
	return (target_fn)in_jit(t, (void *)t->fn);
}

static sigjmp_buf fault_jmp;
/* set by the handler, read after the jump */
static unsigned long fault_rip, fault_addr;

static void on_segv(int sig, siginfo_t *si, void *uc)
{
	__atomic_store_n(&fault_rip, ((ucontext_t *)uc)->uc_mcontext.gregs[REG_RIP],
			 __ATOMIC_RELAXED);
	__atomic_store_n(&fault_addr, (unsigned long)si->si_addr, __ATOMIC_RELAXED);
	siglongjmp(fault_jmp, 1);
}

/* the ip a handler of sig sees when t's function faults on x */
static unsigned long jit_fault(const struct target *t, int sig, long x)
{
	struct sigaction sa = { .sa_sigaction = on_segv, .sa_flags = SA_SIGINFO };
	struct sigaction old;

	__atomic_store_n(&fault_rip, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&fault_addr, 0, __ATOMIC_RELAXED);
	sigaction(sig, &sa, &old);
	if (!sigsetjmp(fault_jmp, 1))
		fn_of(t)(x);
	sigaction(sig, &old, NULL);
	return __atomic_load_n(&fault_rip, __ATOMIC_RELAXED);
}

static void jit_unmap(void)
{
	if (jit_base)
		munmap(jit_base, jit_size);
	jit_base = NULL;
}

/* the JIT copy, as "jit M" describes; NULL on failure */
static char *jit_map(const char *mode)
{
	size_t len = (char *)ut_jit_end - (char *)ut_jit_begin;
	char *p, *w;
	int fd;

	jit_unmap();
	jit_size = 4096;
	if (!strcmp(mode, "shared")) {
		fd = memfd_create("kpt_jit", 0);
		if (fd < 0 || ftruncate(fd, jit_size))
			return NULL;
		w = mmap(NULL, jit_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		p = mmap(NULL, jit_size, PROT_READ | PROT_EXEC, MAP_SHARED, fd, 0);
		close(fd);
		if (w == MAP_FAILED || p == MAP_FAILED)
			return NULL;
		memcpy(w, (void *)ut_jit_begin, len);
		munmap(w, jit_size);
	} else {
		int rwx = !strcmp(mode, "rwx");

		p = mmap(NULL, jit_size, PROT_READ | PROT_WRITE | (rwx ? PROT_EXEC : 0),
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return NULL;
		memcpy(p, (void *)ut_jit_begin, len);
		if (!rwx && mprotect(p, jit_size, PROT_READ | PROT_EXEC))
			return NULL;
	}
	__builtin___clear_cache(p, p + len);
	jit_base = p;
	return p;
}

/* write @hex over the probed instruction of JIT target @t, from byte @from */
static int jit_patch(const struct target *t, const char *hex, int from)
{
	unsigned char *at = in_jit(t, t->probe), b[16];
	unsigned long page = (unsigned long)at & ~4095UL;
	int n = 0;

	while (n < 16 && sscanf(hex + 2 * n, "%2hhx", &b[n]) == 1)
		n++;
	if (!t->jit || !jit_base || n <= from)
		return -1;
	/* a JIT makes its code writable to change it, whatever the mapping */
	if (mprotect((void *)page, 4096, PROT_READ | PROT_WRITE | PROT_EXEC))
		return -1;
	memcpy(at + from, b + from, n - from);
	__builtin___clear_cache((char *)at, (char *)at + n);
	return 0;
}

static const struct target *find(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(targets); i++)
		if (!strcmp(targets[i].name, name))
			return &targets[i];
	return NULL;
}

struct run {
	const struct target *t;
	long n, sum, bad;
};

static void calls(struct run *r)
{
	target_fn fn = fn_of(r->t);

	for (long i = 0; i < r->n; i++) {
		long v = fn(i);

		r->sum += v;
		r->bad += v != r->t->want(i);
	}
}

static void *thread_calls(void *arg)
{
	calls(arg);
	return NULL;
}

/* T threads of N calls each; adds their sums into *total */
static void threads(const struct target *t, int nt, long n, struct run *total)
{
	pthread_t tid[64];
	struct run r[64];

	if (nt > 64)
		nt = 64;
	for (int i = 0; i < nt; i++) {
		r[i] = (struct run){ .t = t, .n = n };
		pthread_create(&tid[i], NULL, thread_calls, &r[i]);
	}
	for (int i = 0; i < nt; i++) {
		pthread_join(tid[i], NULL);
		total->sum += r[i].sum;
		total->bad += r[i].bad;
	}
}

/* a child makes the calls and sends its result back through a pipe */
static pid_t fork_calls(const struct target *t, long n, struct run *total)
{
	struct run r = { .t = t, .n = n };
	int p[2];
	pid_t pid;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		calls(&r);
		if (write(p[1], &r, sizeof(r)) != sizeof(r))
			_exit(1);
		_exit(0);
	}
	close(p[1]);
	if (read(p[0], &r, sizeof(r)) == sizeof(r)) {
		total->sum += r.sum;
		total->bad += r.bad;
	} else {
		total->bad++;
	}
	close(p[0]);
	waitpid(pid, NULL, 0);
	return pid;
}

/*
 * Return-probe targets, probed at their first instruction: a recursive
 * one (n + n-1 + ... + 0), one left by longjmp() for a nonzero argument,
 * and one that forks inside (the child returns x + 1000, the parent
 * x + 1).  They are called through pointers of external linkage
 * (call_*), which the compiler cannot take for constants: no call is
 * inlined or made a loop at any optimization level.
 */
long (*call_rec)(long n) = ut_rec;
long (*call_ljmp)(long x) = ut_ljmp;
long (*call_rfork)(long x) = ut_rfork;
long (*call_block)(long ms) = ut_block;

long ut_rec(long n)
{
	return n > 0 ? n + call_rec(n - 1) : 0;
}

static jmp_buf ljmp_env;

long ut_ljmp(long x)
{
	if (x)
		longjmp(ljmp_env, 1);
	asm volatile("");
	return x + 5;
}

/* a call that stays in flight for @ms milliseconds, then returns ms + 1 */
long ut_block(long ms)
{
	usleep(ms * 1000);
	return ms + 1;
}

long ut_rfork(long x)
{
	pid_t c = fork();

	asm volatile("");
	if (c == 0)
		return x + 1000;
	return c < 0 ? -1 : x + 1;
}

static pthread_t bg_thread;
static long bg_ret;

static void *bg_call(void *arg)
{
	bg_ret = call_block((long)arg);
	return NULL;
}

/* shared with the handler and the signaller thread: relaxed atomics */
static long sigs;
static int sig_stop;
static pid_t main_tid;

static void on_usr1(int sig)
{
	__atomic_fetch_add(&sigs, 1, __ATOMIC_RELAXED);
}

static void *signaller(void *arg)
{
	while (!__atomic_load_n(&sig_stop, __ATOMIC_RELAXED)) {
		syscall(SYS_tgkill, getpid(), main_tid, SIGUSR1);
		sched_yield();
	}
	return NULL;
}

static int poke(void)
{
	unsigned char cc = 0xcc;
	int fd = open("/proc/self/mem", O_RDWR);
	int ok;

	if (fd < 0)
		return -1;
	ok = pwrite(fd, &cc, 1, (long)ut_poke) == 1;
	close(fd);
	return ok ? 0 : -1;
}

static void *map_wx(void)
{
	int fd = open("/proc/self/exe", O_RDONLY);
	void *m;

	if (fd < 0)
		return NULL;
	/* the text segment starts at file offset 0 of a static non-PIE */
	m = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE | PROT_EXEC,
		 MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return NULL;
	return (char *)m + ((unsigned long)ut_lea & ((1 << 20) - 1));
}

/*
 * Print "ready PID", then answer commands read from stdin, one reply line
 * each:
 *
 *   call F N         F(i) for i < N              -> "sum S bad B"
 *   threads F T N    T new threads, N calls each -> "sum S bad B"
 *   fork F N         a child makes the N calls   -> "sum S bad B child P"
 *   sig F N          N calls while a thread keeps signalling this one
 *                                                -> "sum S bad B sigs K"
 *   storm F R        R rounds of 2 threads + 1 fork child, 200 calls each
 *                                                -> "sum S bad B"
 *   wx               the binary mapped writable+executable, the address
 *                    of ut_lea in it             -> "addr A"
 *   jit M            copy the JIT functions (jlea ... jjcc) into new
 *                    memory, M: rx (anonymous, made read+exec once
 *                    written), rwx (anonymous, writable) or shared (a
 *                    memfd mapped read+exec, written through a writable
 *                    alias)                      -> "addr A"
 *   jpatch F X       write the bytes X (hex) over the probed instruction
 *                    of JIT function F           -> "ok"
 *   jtail F X        the same, all but the first byte -> "ok"
 *   junmap           unmap the JIT memory        -> "ok"
 *   jremap           move the JIT memory elsewhere (mremap) -> "addr A"
 *   jfault           jload(NULL): the ip its SIGSEGV handler sees
 *                                                -> "rip R"
 *   jfpe             jdiv(-1): the ip and si_addr its SIGFPE handler sees
 *                                                -> "rip R addr A"
 *   poke             write an int3 at ut_poke through /proc/self/mem, as
 *                    a debugger would            -> "ok"
 *   time F N         the N calls, timed (CLOCK_MONOTONIC: guest
 *                    instructions under -icount shift=0)
 *                                                -> "ns T bad B"
 *   zombie           a child that has exited, not reaped -> "pid P"
 *   exec             exec itself; the new image says "ready PID"
 *   exit             exit
 *
 * F is one of lea push riprel call jcc skip, or the JIT copies jlea jpush
 * jriprel jcall jjcc jpushr jpushsp jvexj jvexp (after "jit"; the last
 * four probed at a push %r12, a push %rsp, a vpshufd and a vxorps).
 * "bad" counts results that differ from what F returns unprobed: a
 * probed instruction that ran wrongly shows there (a handler that changes
 * registers on purpose shows there too, and the suite expects it).
 */
static void serve(char *self)
{
	char line[256], name[32], cmd[32];
	long a, b;

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("ready %d\n", getpid());
	while (fgets(line, sizeof(line), stdin)) {
		struct run total = { 0 };
		const struct target *t;
		int n;

		n = sscanf(line, "%31s %31s %ld %ld", cmd, name, &a, &b);
		if (n < 1)
			continue;
		t = n >= 2 ? find(name) : NULL;
		if (!strcmp(cmd, "call") && t && n == 3) {
			total.t = t;
			total.n = a;
			calls(&total);
			printf("sum %ld bad %ld\n", total.sum, total.bad);
		} else if (!strcmp(cmd, "time") && t && n == 3) {
			struct timespec t0, t1;

			total.t = t;
			total.n = a;
			clock_gettime(CLOCK_MONOTONIC, &t0);
			calls(&total);
			clock_gettime(CLOCK_MONOTONIC, &t1);
			printf("ns %lld bad %ld\n",
			       (t1.tv_sec - t0.tv_sec) * 1000000000LL +
			       (t1.tv_nsec - t0.tv_nsec), total.bad);
		} else if (!strcmp(cmd, "threads") && t && n == 4) {
			threads(t, a, b, &total);
			printf("sum %ld bad %ld\n", total.sum, total.bad);
		} else if (!strcmp(cmd, "fork") && t && n == 3) {
			pid_t c = fork_calls(t, a, &total);

			printf("sum %ld bad %ld child %d\n", total.sum, total.bad, c);
		} else if (!strcmp(cmd, "sig") && t && n == 3) {
			pthread_t s;

			__atomic_store_n(&sigs, 0, __ATOMIC_RELAXED);
			__atomic_store_n(&sig_stop, 0, __ATOMIC_RELAXED);
			main_tid = syscall(SYS_gettid);
			signal(SIGUSR1, on_usr1);
			pthread_create(&s, NULL, signaller, NULL);
			/* the signals are flowing */
			while (!__atomic_load_n(&sigs, __ATOMIC_RELAXED))
				sched_yield();
			total.t = t;
			total.n = a;
			calls(&total);
			__atomic_store_n(&sig_stop, 1, __ATOMIC_RELAXED);
			pthread_join(s, NULL);
			printf("sum %ld bad %ld sigs %ld\n", total.sum, total.bad,
			       __atomic_load_n(&sigs, __ATOMIC_RELAXED));
		} else if (!strcmp(cmd, "storm") && t && n == 3) {
			for (long r = 0; r < a; r++) {
				threads(t, 2, 200, &total);
				fork_calls(t, 200, &total);
			}
			printf("sum %ld bad %ld\n", total.sum, total.bad);
		} else if (!strcmp(cmd, "jit") && n == 2) {
			printf("addr %p\n", jit_map(name));
		} else if ((!strcmp(cmd, "jpatch") || !strcmp(cmd, "jtail")) &&
			   t && n >= 2) {
			/* the hex after the name; jtail leaves the first byte */
			const char *hex = line + strlen(cmd) + strlen(name) + 2;

			printf("%s\n", jit_patch(t, hex, !strcmp(cmd, "jtail")) ?
			       "failed" : "ok");
		} else if (!strcmp(cmd, "jfault") && jit_base) {
			printf("rip %#lx\n", jit_fault(find("jload"), SIGSEGV, 0));
		} else if (!strcmp(cmd, "jfpe") && jit_base) {
			unsigned long rip = jit_fault(find("jdiv"), SIGFPE, -1);

			printf("rip %#lx addr %#lx\n", rip,
			       __atomic_load_n(&fault_addr, __ATOMIC_RELAXED));
		} else if (!strcmp(cmd, "jremap") && jit_base) {
			void *to = mmap(NULL, jit_size, PROT_NONE,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

			to = mremap(jit_base, jit_size, jit_size,
				    MREMAP_MAYMOVE | MREMAP_FIXED, to);
			jit_base = to == MAP_FAILED ? NULL : to;
			printf("addr %p\n", jit_base);
		} else if (!strcmp(cmd, "junmap")) {
			jit_unmap();
			printf("ok\n");
		} else if (!strcmp(cmd, "wx")) {
			printf("addr %p\n", map_wx());
		} else if (!strcmp(cmd, "poke")) {
			printf("%s\n", poke() ? "failed" : "ok");
		} else if (!strcmp(cmd, "rec") && n == 3) {
			/* "rec x N": N calls of ut_rec(N) */
			for (long i = 0; i < a; i++)
				total.bad += call_rec(a) != a * (a + 1) / 2;
			printf("bad %ld\n", total.bad);
		} else if (!strcmp(cmd, "ljmp") && n == 3) {
			/* "ljmp x N": N calls left by longjmp(), then one returns */
			for (long i = 0; i < a; i++)
				if (!setjmp(ljmp_env))
					total.bad += call_ljmp(1) != 0; /* not reached */
			printf("ret %ld bad %ld\n", call_ljmp(0), total.bad);
		} else if (!strcmp(cmd, "bg") && n == 3) {
			/* "bg x MS": a thread in ut_block(MS) while we answer */
			pthread_create(&bg_thread, NULL, bg_call, (void *)a);
			usleep(20000);	/* it has entered the function */
			printf("ok\n");
		} else if (!strcmp(cmd, "join")) {
			pthread_join(bg_thread, NULL);
			printf("ret %ld\n", bg_ret);
		} else if (!strcmp(cmd, "rfork")) {
			/* the child exits 0 if it returned where it should */
			long v = call_rfork(7);
			int st = -1;

			if (v == 1007)
				_exit(0);
			wait(&st);
			printf("ret %ld status %#x\n", v, st);
		} else if (!strcmp(cmd, "zombie")) {
			siginfo_t si;
			pid_t c = fork();

			if (c == 0)
				_exit(0);
			/* wait until it has exited, but leave it unreaped */
			waitid(P_PID, c, &si, WEXITED | WNOWAIT);
			printf("pid %d\n", c);
		} else if (!strcmp(cmd, "exec")) {
			fflush(stdout);
			execl(self, self, "serve", (char *)NULL);
			printf("exec failed %d\n", errno);
		} else if (!strcmp(cmd, "exit")) {
			exit(0);
		} else {
			printf("what? %s", line);
		}
	}
}

/*
 * "addrs": print "NAME 0xADDR" for every probe target, then the labels
 * the suite needs besides; "serve": see serve().
 */
int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "addrs")) {
		for (size_t i = 0; i < ARRAY_SIZE(targets); i++)
			printf("%s %p\n", targets[i].name, targets[i].probe);
		printf("skip_ret %p\nint3 %p\npoke %p\ndata %p\njit_begin %p\n",
		       (void *)ut_skip_ret, (void *)ut_int3, (void *)ut_poke,
		       (void *)ut_data_addr(0), (void *)ut_jit_begin);
		printf("rec %p\nljmp %p\nrfork %p\nblock %p\n", (void *)ut_rec,
		       (void *)ut_ljmp, (void *)ut_rfork, (void *)ut_block);
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "serve")) {
		serve(argv[0]);
		return 0;
	}
	fprintf(stderr, "usage: %s addrs|serve\n", argv[0]);
	return 2;
}
