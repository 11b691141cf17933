// SPDX-License-Identifier: GPL-2.0
/*
 * kpt_workload N PATH: the known workload of the clients suite
 * (clients.sh).  Exactly N times each: getppid(), close(-1) (fails with
 * EBADF), and a call of kpt_uprobe_target(); then one open of PATH
 * (created), one successful close, and PATH unlinked.  Built static, with
 * its symbols, so that bpftrace finds kpt_uprobe_target in the guest.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

long kpt_sink;

/* its effect is not foldable, and main() calls it through kpt_call */
long kpt_uprobe_target(long i)
{
	kpt_sink += i;
	__asm__ __volatile__("" : : "r" (kpt_sink) : "memory");
	return kpt_sink;
}

/* global, so the compiler cannot assume it: a real call each time */
long (*kpt_call)(long) = kpt_uprobe_target;

int main(int argc, char **argv)
{
	long i, n;
	int fd;

	if (argc != 3)
		return 2;
	n = atol(argv[1]);
	for (i = 0; i < n; i++) {
		syscall(SYS_getppid);
		syscall(SYS_close, -1);
		kpt_call(i);
	}
	fd = open(argv[2], O_CREAT | O_WRONLY, 0600);
	if (fd < 0)
		return 1;
	if (close(fd))
		return 1;
	return unlink(argv[2]) ? 1 : 0;
}
