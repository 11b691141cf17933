// SPDX-License-Identifier: GPL-2.0
/*
 * /init of the other arches' test guests (make arm64-test, make
 * i386-test).  No BusyBox for them here: a static program, built with the
 * kernel's nolibc (tools/include/nolibc), does what
 * harness/guest/run-tests.sh does for module suites.  It mounts the kernel
 * filesystems, loads each test module named in /suites (KUnit runs its
 * suites as it loads, or its init prints KTAP; "name params..." passes the
 * module parameters), unloads it, and restarts (QEMU, run with
 * -no-reboot, exits).  With a file /exec (make
 * bench's run of kprobes_bench), the loads are one command to
 * harness/console.py's exec mode: its output is the console's, its status
 * the loads'.
 * The "harness: ..." markers are those harness/console.py reads.
 */
#include "nolibc.h"

#ifndef O_NONBLOCK
#define O_NONBLOCK 04000
#endif

static int kmsg = -1;

/* "harness: " + a + b + c + " " + d(decimal), one line to /dev/kmsg */
static void klog(const char *a, const char *b, const char *c, long d,
		 int with_d)
{
	char buf[256], num[24];
	int n = 0, i;
	const char *parts[4] = { "harness: ", a, b, c };

	for (i = 0; i < 4; i++) {
		const char *p = parts[i];

		while (p && *p && n < (int)sizeof(buf) - 32)
			buf[n++] = *p++;
	}
	if (with_d) {
		int k = 0;
		unsigned long v = d < 0 ? -d : d;

		if (d < 0)
			buf[n++] = '-';
		do {
			num[k++] = '0' + v % 10;
			v /= 10;
		} while (v);
		while (k)
			buf[n++] = num[--k];
	}
	buf[n++] = '\n';
	if (kmsg < 0 || write(kmsg, buf, n) < 0)
		write(1, buf, n);
}

/* one line of /suites: a module's name, then its parameters; 1 if it failed */
static int run_suite(char *name)
{
	char path[160] = "/lib/modules/kprobes/";
	char *params = strchr(name, ' ');
	int fd, rc = 0;

	if (params)
		*params++ = 0;
	klog("suite ", name, " begin", 0, 0);
	strcpy(path + strlen(path), name);
	strcpy(path + strlen(path), ".ko");
	fd = open(path, O_RDONLY);
	if (fd < 0 ||
	    syscall(__NR_finit_module, fd, params ? params : "", 0) < 0) {
		klog("suite ", name, " load failed: errno ", errno, 1);
		rc = 1;
	} else if (syscall(__NR_delete_module, name, O_NONBLOCK) < 0) {
		klog("suite ", name, " unload rmmod: errno ", errno, 1);
	}
	if (fd >= 0)
		close(fd);
	klog("suite ", name, " end rc=", rc, 1);
	return rc;
}

/* a small file's text, NUL-terminated ("" if it cannot be read) */
static void read_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	ssize_t n = fd < 0 ? 0 : read(fd, buf, size - 1);

	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = 0;
}

int main(void)
{
	static char list[4096];
	char taint[32] = "";
	char *p, *nl;
	int fd, exec, failed = 0;

	mkdir("/proc", 0755);
	mkdir("/sys", 0755);
	mkdir("/dev", 0755);
	mount("proc", "/proc", "proc", 0, NULL);
	mount("sysfs", "/sys", "sysfs", 0, NULL);
	mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);
	mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	mount("tracefs", "/sys/kernel/tracing", "tracefs", 0, NULL);
	kmsg = open("/dev/kmsg", O_WRONLY);

	fd = open("/exec", O_RDONLY);
	exec = fd >= 0;
	if (exec)
		close(fd);
	klog(exec ? "init mode=exec" : "init mode=test", NULL, NULL, 0, 0);
	if (exec)
		klog("exec begin", NULL, NULL, 0, 0);
	read_file("/suites", list, sizeof(list));
	for (p = list; p; p = nl) {
		nl = strchr(p, '\n');
		if (nl)
			*nl++ = 0;
		if (*p)
			failed |= run_suite(p);
	}
	if (exec)
		klog("exec end status=", NULL, NULL, failed, 1);
	klog("suites done", NULL, NULL, 0, 0);

	read_file("/proc/sys/kernel/tainted", taint, sizeof(taint));
	p = strchr(taint, '\n');
	if (p)
		*p = 0;
	klog("poweroff tainted=", taint[0] ? taint : "?", NULL, 0, 0);
	syscall(__NR_sync);
	/*
	 * A restart, which QEMU's -no-reboot turns into its exit: a 32-bit
	 * tinyconfig kernel has no ACPI interpreter without PCI, so no
	 * power-off there.
	 */
	reboot(LINUX_REBOOT_CMD_RESTART);
	return 0;
}
