/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the divert suite's BPF loaders (kpt_fmodret, kpt_bpfkprobe) share:
 * the bpf(2) call without libbpf, and how a failed call is reported.
 */
#ifndef KPT_BPF_H
#define KPT_BPF_H

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/bpf.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static inline int bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

/* prints "WHAT failed: -ERRNO (text)"; the caller's exit status, 1 */
static inline int fail(const char *what)
{
	printf("%s failed: %d (%s)\n", what, -errno, strerror(errno));
	return 1;
}

#endif /* KPT_BPF_H */
