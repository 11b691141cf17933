// SPDX-License-Identifier: GPL-2.0
/*
 * /init of the arm64 test guest (make arm64-test): no BusyBox for arm64
 * here, so a static program does what harness/guest/run-tests.sh does for
 * module suites.  Mounts the kernel filesystems, loads each test module
 * listed in /suites (its init prints KTAP), unloads it, and powers off;
 * the "harness: ..." markers are those harness/console.py reads.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/syscall.h>

static int kmsg = -1;

/* a marker line, through /dev/kmsg so it is ordered with the kernel's */
static void klog(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (n > (int)sizeof(buf) - 2)
		n = sizeof(buf) - 2;
	buf[n++] = '\n';
	if (kmsg < 0 || write(kmsg, buf, n) < 0)
		fwrite(buf, 1, n, stdout);
}

static int run_suite(const char *name)
{
	char path[256];
	int fd, rc = 0;

	klog("harness: suite %s begin", name);
	snprintf(path, sizeof(path), "/lib/modules/kprobes/%s.ko", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || syscall(SYS_finit_module, fd, "", 0)) {
		klog("harness: %s: load failed: %s", name, strerror(errno));
		rc = 1;
	} else if (syscall(SYS_delete_module, name, O_NONBLOCK)) {
		klog("harness: suite %s unload rmmod: %s", name, strerror(errno));
	}
	if (fd >= 0)
		close(fd);
	klog("harness: suite %s end rc=%d", name, rc);
	return rc;
}

int main(void)
{
	char line[128], taint[32] = "?";
	FILE *f;
	int fd;

	mkdir("/proc", 0755);
	mkdir("/sys", 0755);
	mkdir("/dev", 0755);
	mount("proc", "/proc", "proc", 0, NULL);
	mount("sysfs", "/sys", "sysfs", 0, NULL);
	mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);
	mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	mount("tracefs", "/sys/kernel/tracing", "tracefs", 0, NULL);
	kmsg = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);

	klog("harness: init mode=test");
	f = fopen("/suites", "r");
	while (f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (line[0])
			run_suite(line);
	}
	if (f)
		fclose(f);
	klog("harness: suites done");

	fd = open("/proc/sys/kernel/tainted", O_RDONLY);
	if (fd >= 0) {
		ssize_t n = read(fd, taint, sizeof(taint) - 1);

		taint[n > 0 ? n : 0] = 0;
		taint[strcspn(taint, "\n")] = 0;
		close(fd);
	}
	klog("harness: poweroff tainted=%s", taint);
	sync();
	reboot(RB_POWER_OFF);
	return 0;
}
