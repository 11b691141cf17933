// SPDX-License-Identifier: GPL-2.0
/*
 * kpt_wpuser: a task that wants a debug register, for the wprobes suite.
 *
 *   kpt_wpuser ptrace   a debugger: forks a child, and pokes DR0 (the
 *                       address of a variable) and DR7 (write, 4 bytes)
 *                       into it, as gdb's "watch" does; lets the child
 *                       write the variable once and reports the trap
 *   kpt_wpuser perf     a per-task perf_event_open() breakpoint on a
 *                       variable of its own; writes it 10 times and reads
 *                       the count
 *
 * Each prints its results a line at a time ("dr0 0", "dr7 0", "trap 1",
 * or "open 0", "count 10"; a failed call prints minus its errno), then
 * "holding", keeps the register until a line arrives on stdin, lets it
 * go (the child killed, the event closed) and prints "released".
 */
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>

/* the watched variable: stored with __atomic_store_n(), never elided */
static int watched;

static void hold(void)
{
	char line[16];

	printf("holding\n");
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return;
}

static long poke_dr(pid_t pid, int nr, unsigned long val)
{
	long off = offsetof(struct user, u_debugreg) + nr * sizeof(long);

	return ptrace(PTRACE_POKEUSER, pid, (void *)off, (void *)val) ? -errno : 0;
}

static int do_ptrace(void)
{
	int status, traps = 0;
	long r0, r7 = -1;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return 1;
	if (!pid) {
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		raise(SIGSTOP);
		__atomic_store_n(&watched, 1, __ATOMIC_RELAXED);
		pause();
		_exit(0);
	}
	waitpid(pid, &status, 0);
	r0 = poke_dr(pid, 0, (unsigned long)&watched);
	printf("dr0 %ld\n", r0);
	if (!r0) {
		/* L0, R/W0 = 01 (write), LEN0 = 11 (4 bytes) */
		r7 = poke_dr(pid, 7, 1UL | (1UL << 16) | (3UL << 18));
		printf("dr7 %ld\n", r7);
	}
	ptrace(PTRACE_CONT, pid, NULL, NULL);
	if (!r7) {
		/* the write traps: the child stops with SIGTRAP */
		if (waitpid(pid, &status, 0) == pid && WIFSTOPPED(status) &&
		    WSTOPSIG(status) == SIGTRAP)
			traps++;
		ptrace(PTRACE_CONT, pid, NULL, NULL);
		printf("trap %d\n", traps);
	}
	hold();
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	printf("released\n");
	return 0;
}

static int do_perf(void)
{
	struct perf_event_attr attr;
	uint64_t count = 0;
	int fd, i;

	memset(&attr, 0, sizeof(attr));
	attr.type = PERF_TYPE_BREAKPOINT;
	attr.size = sizeof(attr);
	attr.bp_type = HW_BREAKPOINT_W;
	attr.bp_addr = (unsigned long)&watched;
	attr.bp_len = HW_BREAKPOINT_LEN_4;
	attr.exclude_kernel = 1;
	fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
	printf("open %d\n", fd < 0 ? -errno : 0);
	if (fd >= 0) {
		for (i = 0; i < 10; i++)
			__atomic_store_n(&watched, i, __ATOMIC_RELAXED);
		if (read(fd, &count, sizeof(count)) != sizeof(count))
			count = ~0ULL;
		printf("count %llu\n", (unsigned long long)count);
	}
	hold();
	if (fd >= 0)
		close(fd);
	printf("released\n");
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 2 && !strcmp(argv[1], "ptrace"))
		return do_ptrace();
	if (argc == 2 && !strcmp(argv[1], "perf"))
		return do_perf();
	fprintf(stderr, "usage: kpt_wpuser ptrace|perf\n");
	return 2;
}
