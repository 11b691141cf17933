// SPDX-License-Identifier: GPL-2.0
/*
 * kpt_fmodret: a BPF fmod_ret program on bpf_modify_return_test(), for the
 * divert suite.  No libbpf and no compiler for BPF: the program is two
 * instructions ("return 7") and the target's BTF id is read from
 * /sys/kernel/btf/vmlinux here.
 *
 *   kpt_fmodret [-0] N [CMD]
 *
 * loads the program, attaches it (its trampoline goes onto the target's
 * fentry site through register_ftrace_direct()), runs CMD with /bin/sh if
 * given, then runs the program's BPF_PROG_TEST_RUN N times.  The kernel's
 * test run calls bpf_modify_return_test(1, &b) with b == 2: the function
 * body increments b, so a run whose retval has 0 in its upper half had
 * the body skipped by the program.  Prints "runs N skipped K ret R" (R
 * the last run's lower half: 7 + 29 when skipped, 4 + 29 when not) and
 * exits 0 when every call was made; a failed call prints its name and
 * errno and exits 1.  With -0 the program returns 0: the trampoline then
 * calls the body, past its fentry site.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <linux/bpf.h>
#include <linux/btf.h>

#include "kpt_bpf.h"

/*
 * the bytes that follow a struct btf_type of this kind, vlen entries;
 * -1 for a kind this walk does not know (it could not find the next type)
 */
static long btf_extra(uint32_t kind, uint32_t vlen)
{
	switch (kind) {
	case BTF_KIND_PTR:
	case BTF_KIND_FWD:
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_FUNC:
	case BTF_KIND_FLOAT:
	case BTF_KIND_TYPE_TAG:
		return 0;
	case BTF_KIND_INT:
	case BTF_KIND_VAR:
	case BTF_KIND_DECL_TAG:
		return 4;
	case BTF_KIND_ARRAY:
		return sizeof(struct btf_array);
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
	case BTF_KIND_DATASEC:
	case BTF_KIND_ENUM64:
		return vlen * 12;
	case BTF_KIND_ENUM:
	case BTF_KIND_FUNC_PROTO:
		return vlen * 8;
	default:
		return -1;
	}
}

/* the type id of FUNC name in vmlinux's BTF; 0 if not there */
static uint32_t btf_func_id(const char *name)
{
	static char buf[64 << 20];
	struct btf_header *h = (void *)buf;
	const char *types, *strs;
	uint32_t id = 1, off;
	ssize_t len = 0, n;
	int fd;

	fd = open("/sys/kernel/btf/vmlinux", O_RDONLY);
	if (fd < 0)
		return 0;
	while ((n = read(fd, buf + len, sizeof(buf) - len)) > 0)
		len += n;
	close(fd);
	if (len < (ssize_t)sizeof(*h) || h->magic != BTF_MAGIC ||
	    (uint64_t)h->hdr_len + h->type_off + h->type_len > (uint64_t)len ||
	    (uint64_t)h->hdr_len + h->str_off + h->str_len > (uint64_t)len ||
	    !h->str_len || buf[h->hdr_len + h->str_off + h->str_len - 1])
		return 0;
	types = buf + h->hdr_len + h->type_off;
	strs = buf + h->hdr_len + h->str_off;
	for (off = 0; off + sizeof(struct btf_type) <= h->type_len; id++) {
		const struct btf_type *t = (const void *)(types + off);
		uint32_t kind = BTF_INFO_KIND(t->info);
		long extra = btf_extra(kind, BTF_INFO_VLEN(t->info));

		if (extra < 0)
			return 0;
		if (kind == BTF_KIND_FUNC && t->name_off < h->str_len &&
		    !strcmp(strs + t->name_off, name))
			return id;
		off += sizeof(*t) + extra;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct bpf_insn prog[] = {
		/* r0 = 7: non-zero, so the traced function's body is skipped */
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 0, .imm = 7 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	int prog_fd, link_fd, runs, i, skipped = 0;
	union bpf_attr attr;
	uint32_t id, ret = 0;

	if (argc > 1 && !strcmp(argv[1], "-0")) {
		prog[0].imm = 0;	/* the body runs */
		argv++;
		argc--;
	}
	runs = argc > 1 ? atoi(argv[1]) : 0;
	if (runs <= 0) {
		fprintf(stderr, "usage: kpt_fmodret [-0] N [CMD]\n");
		return 2;
	}
	id = btf_func_id("bpf_modify_return_test");
	if (!id) {
		printf("no BTF id for bpf_modify_return_test\n");
		return 1;
	}

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_TRACING;
	attr.expected_attach_type = BPF_MODIFY_RETURN;
	attr.attach_btf_id = id;
	attr.insns = (uintptr_t)prog;
	attr.insn_cnt = ARRAY_SIZE(prog);
	attr.license = (uintptr_t)"GPL";
	prog_fd = bpf(BPF_PROG_LOAD, &attr);
	if (prog_fd < 0)
		return fail("BPF_PROG_LOAD");

	memset(&attr, 0, sizeof(attr));
	attr.raw_tracepoint.prog_fd = prog_fd;
	link_fd = bpf(BPF_RAW_TRACEPOINT_OPEN, &attr);
	if (link_fd < 0)
		return fail("attach");

	if (argc > 2 && system(argv[2]) != 0) {
		printf("'%s' failed\n", argv[2]);
		return 1;
	}

	for (i = 0; i < runs; i++) {
		memset(&attr, 0, sizeof(attr));
		attr.test.prog_fd = prog_fd;
		if (bpf(BPF_PROG_TEST_RUN, &attr))
			return fail("BPF_PROG_TEST_RUN");
		/* upper half: calls whose body ran (the second always does) */
		if ((attr.test.retval >> 16) == 1)
			skipped++;
		ret = attr.test.retval & 0xffff;
	}
	printf("runs %d skipped %d ret %u\n", runs, skipped, ret);
	close(link_fd);
	close(prog_fd);
	return 0;
}
