// SPDX-License-Identifier: GPL-2.0
/*
 * kpt_getsid: an exact number of calls of one system call function, for
 * mixed_tracers.sh.  "kpt_getsid N" makes N getsid(0) system calls
 * (__x64_sys_getsid in the kernel), and no other call of it, then prints
 * "calls N OK": OK of them returned this process's session id, as a call
 * that came back through any number of return hooks must.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/syscall.h>

/* the session id from /proc, not through the probed function */
static long proc_sid(void)
{
	FILE *f = fopen("/proc/self/stat", "r");
	long sid = -1;

	/* pid (comm) state ppid pgrp session: this comm has no space */
	if (f && fscanf(f, "%*d %*s %*c %*d %*d %ld", &sid) != 1)
		sid = -1;
	if (f)
		fclose(f);
	return sid;
}

int main(int argc, char **argv)
{
	long i, n, ok = 0, sid = proc_sid();

	n = argc == 2 ? atol(argv[1]) : 0;
	if (n <= 0) {
		fprintf(stderr, "usage: kpt_getsid N\n");
		return 2;
	}
	if (sid < 0) {
		fprintf(stderr, "kpt_getsid: no session id in /proc/self/stat\n");
		return 3;
	}
	for (i = 0; i < n; i++)
		if (syscall(SYS_getsid, 0) == sid)
			ok++;
	printf("calls %ld %ld\n", n, ok);
	return 0;
}
