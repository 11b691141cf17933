// SPDX-License-Identifier: GPL-2.0
/*
 * kpt_utarget: the process the uprobes suite probes.  Static and non-PIE,
 * so its addresses are the same in every run and a file offset is the
 * address minus the load base.
 *
 *   kpt_utarget addrs         print "NAME 0xADDR" for every probe target
 *   kpt_utarget serve         print "ready PID", then answer commands read
 *                             from stdin, one reply line each:
 *     call F N                F(i) for i < N            -> "sum S bad B"
 *     threads F T N           T new threads, N calls each -> "sum S bad B"
 *     fork F N                a child makes the N calls -> "sum S bad B child P"
 *     sig F N                 N calls while a thread keeps signalling this one
 *                                                     -> "sum S bad B sigs K"
 *     storm F R               R rounds of 2 threads + 1 fork child, 200
 *                             calls each              -> "sum S bad B"
 *     anon                    an anonymous executable page -> "addr A"
 *     wx                      the binary mapped writable+executable, the
 *                             address of ut_lea in it -> "addr A"
 *     poke                    write an int3 at ut_poke through
 *                             /proc/self/mem, as a debugger would -> "ok"
 *     time F N                the N calls, timed (CLOCK_MONOTONIC: guest
 *                             instructions under -icount shift=0)
 *                                                     -> "ns T bad B"
 *     zombie                  a child that has exited, not reaped -> "pid P"
 *     exec                    exec itself; the new image says "ready PID"
 *     exit                    exit
 * F is one of lea push riprel call jcc skip.  "bad" counts results that
 * differ from what F returns unprobed: a probed instruction that ran
 * wrongly shows there (a handler that changes registers on purpose shows
 * there too, and the suite expects it).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

typedef long (*target_fn)(long x);
long ut_lea(long x), ut_push(long x), ut_riprel(long x), ut_call(long x);
long ut_jcc(long x), ut_skip(long x), ut_int3(long x), ut_poke(long x);
/* labels inside those (only their addresses are used), and &ut_data */
long ut_jcc_insn(long x), ut_skip_ret(long x), *ut_data_addr(long x);

static long want_lea(long x) { return x + 1; }
static long want_push(long x) { return x; }
static long want_riprel(long x) { return x + 7; }
static long want_call(long x) { return x + 2; }
static long want_jcc(long x) { return x ? x + 3 : -1; }
static long want_skip(long x) { return 1; }

static const struct target {
	const char *name;
	target_fn fn;
	long (*want)(long x);
	void *probe;		/* the probed instruction */
} targets[] = {
	{ "lea", ut_lea, want_lea, ut_lea },
	{ "push", ut_push, want_push, ut_push },
	{ "riprel", ut_riprel, want_riprel, ut_riprel },
	{ "call", ut_call, want_call, ut_call },
	{ "jcc", ut_jcc, want_jcc, (void *)ut_jcc_insn },
	{ "skip", ut_skip, want_skip, ut_skip },
};

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
	for (long i = 0; i < r->n; i++) {
		long v = r->t->fn(i);

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
		} else if (!strcmp(cmd, "anon")) {
			unsigned char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
						MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

			p[0] = 0xc3;	/* ret */
			mprotect(p, 4096, PROT_READ | PROT_EXEC);
			printf("addr %p\n", p);
		} else if (!strcmp(cmd, "wx")) {
			printf("addr %p\n", map_wx());
		} else if (!strcmp(cmd, "poke")) {
			printf("%s\n", poke() ? "failed" : "ok");
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

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "addrs")) {
		for (size_t i = 0; i < ARRAY_SIZE(targets); i++)
			printf("%s %p\n", targets[i].name, targets[i].probe);
		printf("skip_ret %p\nint3 %p\npoke %p\ndata %p\n",
		       (void *)ut_skip_ret, (void *)ut_int3, (void *)ut_poke,
		       (void *)ut_data_addr(0));
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "serve")) {
		serve(argv[0]);
		return 0;
	}
	fprintf(stderr, "usage: %s addrs|serve\n", argv[0]);
	return 2;
}
