// SPDX-License-Identifier: GPL-2.0
/*
 * kpt_bpfkprobe: a BPF kprobe program, as bpftrace and libbpf attach one
 * (perf_event_open() on the kprobe PMU, then PERF_EVENT_IOC_SET_BPF),
 * for the divert suite.  No libbpf and no compiler for BPF: the program
 * adds one to an array map's only element on every hit.
 *
 *   kpt_bpfkprobe SYMBOL [CMD]
 *
 * attaches the program at SYMBOL's entry, runs CMD with /bin/sh if given,
 * and prints "hits N" (the program's runs) before it detaches.  Exits 0
 * when every call was made; a failed call prints its name and errno and
 * exits 1.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>

#include "kpt_bpf.h"

/* the kprobe PMU's type, from sysfs; -1 if it has none */
static int kprobe_pmu_type(void)
{
	FILE *f = fopen("/sys/bus/event_source/devices/kprobe/type", "r");
	int type = -1;

	if (f && fscanf(f, "%d", &type) != 1)
		type = -1;
	if (f)
		fclose(f);
	return type;
}

int main(int argc, char **argv)
{
	union bpf_attr attr;
	struct perf_event_attr pe;
	int map_fd, prog_fd, ev_fd, type;
	uint32_t key = 0;
	uint64_t hits = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: kpt_bpfkprobe SYMBOL [CMD]\n");
		return 2;
	}

	memset(&attr, 0, sizeof(attr));
	attr.map_type = BPF_MAP_TYPE_ARRAY;
	attr.key_size = sizeof(uint32_t);
	attr.value_size = sizeof(uint64_t);
	attr.max_entries = 1;
	map_fd = bpf(BPF_MAP_CREATE, &attr);
	if (map_fd < 0)
		return fail("BPF_MAP_CREATE");

	struct bpf_insn prog[] = {
		/* *(u32 *)(fp - 4) = 0: the key */
		{ .code = BPF_ST | BPF_MEM | BPF_W, .dst_reg = 10, .off = -4 },
		/* r1 = the map */
		{ .code = BPF_LD | BPF_DW | BPF_IMM, .dst_reg = 1,
		  .src_reg = BPF_PSEUDO_MAP_FD, .imm = map_fd },
		{ 0 },
		/* r2 = fp - 4; r0 = bpf_map_lookup_elem(r1, r2) */
		{ .code = BPF_ALU64 | BPF_MOV | BPF_X, .dst_reg = 2, .src_reg = 10 },
		{ .code = BPF_ALU64 | BPF_ADD | BPF_K, .dst_reg = 2, .imm = -4 },
		{ .code = BPF_JMP | BPF_CALL, .imm = BPF_FUNC_map_lookup_elem },
		/* if (r0) lock *(u64 *)r0 += 1 */
		{ .code = BPF_JMP | BPF_JEQ | BPF_K, .dst_reg = 0, .off = 2 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 1, .imm = 1 },
		{ .code = BPF_STX | BPF_ATOMIC | BPF_DW, .dst_reg = 0, .src_reg = 1,
		  .imm = BPF_ADD },
		/* return 0 */
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_KPROBE;
	attr.insns = (uintptr_t)prog;
	attr.insn_cnt = ARRAY_SIZE(prog);
	attr.license = (uintptr_t)"GPL";
	prog_fd = bpf(BPF_PROG_LOAD, &attr);
	if (prog_fd < 0)
		return fail("BPF_PROG_LOAD");

	type = kprobe_pmu_type();
	if (type < 0) {
		printf("no kprobe PMU\n");
		return 1;
	}
	memset(&pe, 0, sizeof(pe));
	pe.size = sizeof(pe);
	pe.type = type;
	pe.config1 = (uintptr_t)argv[1];	/* kprobe_func */
	pe.config2 = 0;				/* probe_offset */
	ev_fd = syscall(__NR_perf_event_open, &pe, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	if (ev_fd < 0)
		return fail("perf_event_open");
	if (ioctl(ev_fd, PERF_EVENT_IOC_SET_BPF, prog_fd))
		return fail("PERF_EVENT_IOC_SET_BPF");
	if (ioctl(ev_fd, PERF_EVENT_IOC_ENABLE, 0))
		return fail("PERF_EVENT_IOC_ENABLE");

	if (argc > 2 && system(argv[2]) != 0) {
		printf("'%s' failed\n", argv[2]);
		return 1;
	}

	memset(&attr, 0, sizeof(attr));
	attr.map_fd = map_fd;
	attr.key = (uintptr_t)&key;
	attr.value = (uintptr_t)&hits;
	if (bpf(BPF_MAP_LOOKUP_ELEM, &attr))
		return fail("BPF_MAP_LOOKUP_ELEM");
	printf("hits %llu\n", (unsigned long long)hits);
	close(ev_fd);
	close(prog_fd);
	close(map_fd);
	return 0;
}
