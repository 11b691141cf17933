// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Per-process uprobe events: tracefs "P:" events on register_uprobe()
 * probes, so that ftrace and perf reach any executable address of one
 * process, JIT code included, without a module.  Here are the probe's
 * side of the event: its definition, its handler and the fetching of its
 * arguments from the probed task.
 */
#define pr_fmt(fmt)	"trace_uprobe_process: " fmt

#include <linux/uprobes.h>
#include <linux/uprobes_process.h>
#include <linux/uaccess.h>
#include <linux/slab.h>

#include "trace_dynprobe.h"
#include "trace_probe_tmpl.h"

#define UPROCESS_EVENT_SYSTEM	"uprocess"

/* fetched arguments up to this size stay on the handler's stack */
#define UPROCESS_STACK_BUF	128
/* and at most this, strings cut to fit */
#define UPROCESS_MAX_SIZE	PAGE_SIZE

static int trace_uprocess_create(const char *raw_command);
static int trace_uprocess_release(struct dyn_event *ev);

static struct dyn_event_operations trace_uprocess_ops = {
	.create = trace_uprocess_create,
	.show = trace_dynprobe_show,
	.is_busy = trace_dynprobe_is_busy,
	.free = trace_uprocess_release,
	.match = trace_dynprobe_match,
};

/**
 * struct trace_uprocess - a "P:" event
 * @rp: the per-process probe: @rp.up, or for "P:...%return" the whole
 *	return probe
 * @dp: the event (its place as written, "1234:0x401000", and its
 *	fetch-args); last: variable size
 *
 * The event's record, enabling and dynamic_events entry are
 * trace_dynprobe.c's.  Its life:
 *
 *  1. Defining the event registers its probe, so that a bad pid or
 *     address fails the definition with register_uprobe()'s errno
 *     (register_uretprobe()'s for a return event).
 *  2. The int3 stays in the process's memory while the event is
 *     defined.  Enabling and disabling only flip the trace_probe's flags
 *     (under event_mutex, which perf's paths take inside its context
 *     mutexes); disabled, a hit returns at once.
 *  3. The probe goes away with the process (exit or exec): the event
 *     stays defined, and never hits again.
 *  4. Deletion, also under event_mutex, unregisters the probe, which
 *     sleeps until no handler runs, and frees the event: the bytes the
 *     probe held are back when the write returns.  uprobe_events
 *     unregisters its inode probes under event_mutex the same way; no
 *     lock taken inside unregister_uprobe() is ever held around
 *     event_mutex.
 */
struct trace_uprocess {
	struct uretprobe rp;	/* rp.up: the probe, or a return probe's entry */
	struct trace_dynprobe dp;
};

/* ---- fetching from the probed task --------------------------------------- */

/*
 * What trace_probe_tmpl.h's fetch-arg interpreter asks of its user: how
 * to read memory and strings.  Every address here is the probed task's
 * (user memory), read with the task's page faults allowed.
 */
static nokprobe_inline int
probe_mem_read(void *dest, void *src, size_t size)
{
	return copy_from_user(dest, (void __force __user *)src, size) ?
	       -EFAULT : 0;
}

static nokprobe_inline int
probe_mem_read_user(void *dest, void *src, size_t size)
{
	return probe_mem_read(dest, src, size);
}

/* *(u32 *)dest holds the room left and where; it gets what was stored */
static nokprobe_inline int
fetch_store_string(unsigned long addr, void *dest, void *base)
{
	u32 loc = *(u32 *)dest;
	int maxlen = get_loc_len(loc);
	u8 *dst = get_loc_data(dest, base);
	long ret;

	if (unlikely(!maxlen))
		return -ENOMEM;
	if (addr == FETCH_TOKEN_COMM)
		ret = strscpy(dst, current->comm, maxlen);
	else
		ret = strncpy_from_user(dst, (void __force __user *)addr, maxlen);
	if (ret < 0) {
		*(u32 *)dest = make_data_loc(0, (void *)dst - base);
		return ret;
	}
	/* a string cut at maxlen still ends in NUL; count that NUL */
	if (ret == maxlen)
		dst[ret - 1] = '\0';
	else
		ret++;
	*(u32 *)dest = make_data_loc(ret, (void *)dst - base);
	return ret;
}

static nokprobe_inline int
fetch_store_string_user(unsigned long addr, void *dest, void *base)
{
	return fetch_store_string(addr, dest, base);
}

/* with its NUL; 0 for one too long to store */
static nokprobe_inline int
fetch_store_strlen(unsigned long addr)
{
	int len;

	if (addr == FETCH_TOKEN_COMM)
		len = strlen(current->comm) + 1;
	else
		len = strnlen_user((void __force __user *)addr, MAX_STRING_SIZE);
	return len > MAX_STRING_SIZE ? 0 : len;
}

static nokprobe_inline int
fetch_store_strlen_user(unsigned long addr)
{
	return fetch_store_strlen(addr);
}

/* the n-th word on the user stack, 0 if it cannot be read */
static unsigned long user_stack_nth(struct pt_regs *regs, unsigned int n)
{
	unsigned long addr = user_stack_pointer(regs) + n * sizeof(long);
	unsigned long val;

	if (copy_from_user(&val, (void __user *)addr, sizeof(val)))
		return 0;
	return val;
}

/* fetch-args' first stage: the values a user hit has at hand */
static int
process_fetch_insn(struct fetch_insn *code, void *rec, void *edata,
		   void *dest, void *base)
{
	struct pt_regs *regs = rec;
	unsigned long val;
	int ret;

	switch (code->op) {
	case FETCH_OP_REG:
		val = regs_get_register(regs, code->param);
		break;
	case FETCH_OP_STACK:
		val = user_stack_nth(regs, code->param);
		break;
	case FETCH_OP_STACKP:
		val = user_stack_pointer(regs);
		break;
	case FETCH_OP_RETVAL:
		val = regs_return_value(regs);
		break;
	case FETCH_OP_COMM:
		val = FETCH_TOKEN_COMM;
		break;
	default:
		ret = process_common_fetch_insn(code, &val);
		if (ret < 0)
			return ret;
	}
	code++;

	return process_fetch_insn_bottom(code, val, dest, base);
}

/* ---- the hit ------------------------------------------------------------ */

/*
 * The record's head: an entry event's ip (the probe's address), or a
 * return event's function and the address it returned to.
 */
static int uprocess_head_size(struct trace_uprocess *tu)
{
	return tu->dp.is_return ? sizeof(struct kretprobe_trace_entry_head) :
				  sizeof(struct kprobe_trace_entry_head);
}

static void *uprocess_fill_head(struct trace_uprocess *tu, void *head,
				unsigned long ret_ip)
{
	if (tu->dp.is_return) {
		struct kretprobe_trace_entry_head *r = head;

		r->func = tu->rp.up.vaddr;
		r->ret_ip = ret_ip;
		return &r[1];
	}
	((struct kprobe_trace_entry_head *)head)->ip = tu->rp.up.vaddr;
	return (struct kprobe_trace_entry_head *)head + 1;
}

static void uprocess_trace_func(struct trace_uprocess *tu,
				struct trace_event_file *file,
				void *args, int size, unsigned long ret_ip)
{
	struct trace_event_buffer fbuffer;
	void *entry;

	if (trace_trigger_soft_disabled(file))
		return;
	entry = trace_event_buffer_reserve(&fbuffer, file,
					   uprocess_head_size(tu) + size);
	if (!entry)
		return;
	memcpy(uprocess_fill_head(tu, entry, ret_ip), args, size);
	trace_event_buffer_commit(&fbuffer);
}

#ifdef CONFIG_PERF_EVENTS
static void uprocess_perf_func(struct trace_uprocess *tu,
			       struct pt_regs *regs, void *args, int dsize,
			       unsigned long ret_ip)
{
	struct trace_event_call *call = trace_probe_event_call(&tu->dp.tp);
	int size, rctx, hsize = uprocess_head_size(tu);
	struct hlist_head *head;
	void *entry, *data;

	size = ALIGN(hsize + dsize + sizeof(u32), sizeof(u64));
	size -= sizeof(u32);
	if (size > PERF_MAX_TRACE_SIZE)
		return;

	/*
	 * perf_trace_event_unreg() clears TP_FLAG_PROFILE, waits for
	 * preempt-disabled sections, then frees perf_events: test the flag
	 * in one
	 */
	guard(preempt)();
	if (!trace_probe_test_flag(&tu->dp.tp, TP_FLAG_PROFILE))
		return;
	head = READ_ONCE(call->perf_events);
	if (!head)
		return;
	head = this_cpu_ptr(head);
	if (hlist_empty(head))
		return;
	entry = perf_trace_buf_alloc(size, NULL, &rctx);
	if (!entry)
		return;
	data = uprocess_fill_head(tu, entry, ret_ip);
	memcpy(data, args, dsize);
	memset(data + dsize, 0, size - hsize - dsize);
	perf_trace_buf_submit(entry, size, rctx, call->event.type, 1, regs,
			      head, NULL);
}
#endif

/*
 * register_uprobe()'s handler: in the probed task, may fault and sleep.
 * It runs with preemption enabled, and may fault user memory in; the
 * ring buffer and perf's buffers are reserved with preemption disabled,
 * where a fault must not sleep.  So the arguments are fetched first into
 * a buffer of the hit's own, then copied.
 */
static void uprocess_record(struct trace_uprocess *tu, struct pt_regs *regs,
			    unsigned long ret_ip)
{
	u8 stack_buf[UPROCESS_STACK_BUF] __aligned(sizeof(long));
	struct event_file_link *link;
	int dsize, size;
	void *args;

	/* a defined but disabled event keeps its probe: nothing to do */
	if (!trace_probe_is_enabled(&tu->dp.tp))
		return;

	/* strings are cut to fit a page, as uprobe_events' are */
	dsize = __get_data_size(&tu->dp.tp, regs, NULL);
	if (dsize > UPROCESS_MAX_SIZE - tu->dp.tp.size)
		dsize = UPROCESS_MAX_SIZE - tu->dp.tp.size;
	size = tu->dp.tp.size + dsize;
	args = stack_buf;
	if (size > sizeof(stack_buf)) {
		args = kmalloc(size, GFP_KERNEL);
		if (!args)
			return;
	}
	memset(args, 0, size);
	store_trace_args(args, &tu->dp.tp, regs, NULL, uprocess_head_size(tu),
			 dsize);

	if (trace_probe_test_flag(&tu->dp.tp, TP_FLAG_TRACE)) {
		/* as a tracepoint's caller: the ring buffer expects it */
		guard(preempt_notrace)();
		trace_probe_for_each_link_rcu(link, &tu->dp.tp)
			uprocess_trace_func(tu, link->file, args, size, ret_ip);
	}
#ifdef CONFIG_PERF_EVENTS
	uprocess_perf_func(tu, regs, args, size, ret_ip);
#endif
	if (args != stack_buf)
		kfree(args);
}

static void trace_uprocess_hit(struct process_uprobe *up,
			       struct pt_regs *regs)
{
	uprocess_record(container_of(up, struct trace_uprocess, rp.up), regs, 0);
}

/* register_uretprobe()'s handler: ip is where the function returned to */
static void trace_uprocess_ret_hit(struct uretprobe_instance *ri,
				   struct pt_regs *regs)
{
	uprocess_record(container_of(ri->rp, struct trace_uprocess, rp), regs,
			ri->ret_addr);
}

static int uprocess_register(struct trace_uprocess *tu)
{
	if (tu->dp.is_return) {
		tu->rp.handler = trace_uprocess_ret_hit;
		return register_uretprobe(&tu->rp);
	}
	tu->rp.up.handler = trace_uprocess_hit;
	return register_uprobe(&tu->rp.up);
}

static void uprocess_unregister(struct trace_uprocess *tu)
{
	if (tu->dp.is_return)
		unregister_uretprobe(&tu->rp);
	else
		unregister_uprobe(&tu->rp.up);
}

/* ---- definition and deletion --------------------------------------------- */

static void free_trace_uprocess(struct trace_uprocess *tu)
{
	trace_dynprobe_cleanup(&tu->dp);
	kfree(tu);
}

static int trace_uprocess_release(struct dyn_event *ev)
{
	struct trace_uprocess *tu = container_of(ev, struct trace_uprocess,
						 dp.devent);
	int ret = trace_dynprobe_unregister(&tu->dp);

	if (ret)
		return ret;
	/* no hit runs or will run after this: the rest can go */
	uprocess_unregister(tu);
	free_trace_uprocess(tu);
	return 0;
}

/*
 * PID:VADDR[%return] into tu->rp.up (and tu->dp.is_return); logs the
 * error at the spec's argv index
 */
static int parse_uprocess_spec(struct trace_uprocess *tu, const char *arg)
{
	const char *colon = strchr(arg, ':');
	char pid[16], vaddr[32];
	const char *pct;
	int ret;

	if (!colon || colon == arg || colon - arg >= sizeof(pid)) {
		trace_probe_log_err(0, BAD_PROCESS_SPEC);
		return -EINVAL;
	}
	memcpy(pid, arg, colon - arg);
	pid[colon - arg] = '\0';
	ret = kstrtoint(pid, 10, &tu->rp.up.pid);
	if (ret || tu->rp.up.pid <= 0) {
		trace_probe_log_err(0, BAD_PROCESS_SPEC);
		return -EINVAL;
	}
	pct = strchr(colon + 1, '%');
	if (pct) {
		if (strcmp(pct, "%return")) {
			trace_probe_log_err(pct - arg, BAD_ADDR_SUFFIX);
			return -EINVAL;
		}
		tu->dp.is_return = true;
	} else {
		pct = colon + 1 + strlen(colon + 1);
	}
	if (pct - (colon + 1) >= sizeof(vaddr)) {
		trace_probe_log_err(colon + 1 - arg, BAD_PROBE_ADDR);
		return -EINVAL;
	}
	memcpy(vaddr, colon + 1, pct - (colon + 1));
	vaddr[pct - (colon + 1)] = '\0';
	ret = kstrtoul(vaddr, 0, &tu->rp.up.vaddr);
	if (ret) {
		trace_probe_log_err(colon + 1 - arg, BAD_PROBE_ADDR);
		return -EINVAL;
	}
	return 0;
}

/* a file offset (@+FOFFS) has no meaning for a probe on a process */
static bool uprocess_arg_has_foffs(struct probe_arg *parg)
{
	struct fetch_insn *code;

	for (code = parg->code; code->op != FETCH_OP_END; code++)
		if (code->op == FETCH_OP_FOFFS)
			return true;
	return false;
}

/*
 * A definition written to "dynamic_events":
 *
 *   P[:[GRP/][EVENT]] PID:VADDR[%return] [FETCHARGS]
 *
 * P for a process ("u:" is user_events').  PID is any thread of the
 * process, VADDR the probed instruction's address in it (decimal or 0x
 * hex).  With %return, VADDR is a function's first instruction and the
 * event is its returns (register_uretprobe()): the record has the
 * function and the address returned to, and $retval may be fetched.
 * GRP defaults to "uprocess", EVENT to p_PID_VADDR (r_PID_VADDR for a
 * return event).  FETCHARGS
 * are those of uprobe events (registers, +OFFS(%sp) and other user
 * memory, $stack, $comm...), but not @+FOFFS, which names a file offset
 * and a process probe has no file.  Unlike uprobe_events' events, these
 * run no BPF program and do not set TRACE_EVENT_FL_CAP_ANY.  The event
 * records VADDR; the usual enable, filter, trigger and format files
 * follow, and perf records it.
 */
static int __trace_uprocess_create(int argc, const char *argv[])
{
	struct traceprobe_parse_context ctx = { .flags = TPARG_FL_USER };
	char buf[MAX_EVENT_NAME_LEN];
	struct trace_uprocess *tu;
	int i, ret, nargs;

	if (argv[0][0] != 'P' || argc < 2)
		return -ECANCELED;
	/* "P" or "P:..."; anything else is not ours */
	if (argv[0][1] != '\0' && argv[0][1] != ':')
		return -ECANCELED;

	trace_probe_log_init("trace_uprocess", argc, argv);
	nargs = argc - 2;
	if (nargs > MAX_TRACE_ARGS) {
		ret = -E2BIG;
		goto out_log;
	}

	tu = kzalloc(struct_size(tu, dp.tp.args, nargs), GFP_KERNEL);
	if (!tu) {
		ret = -ENOMEM;
		goto out_log;
	}
	ret = trace_dynprobe_init(&tu->dp, &trace_uprocess_ops, 'P', false,
				  argv[1], nargs);
	if (ret)
		goto out_free;

	trace_probe_log_set_index(1);
	ret = parse_uprocess_spec(tu, argv[1]);
	if (ret)
		goto out_free;
	if (tu->dp.is_return)
		ctx.flags |= TPARG_FL_RETURN;

	snprintf(buf, sizeof(buf), "%c_%d_0x%lx", tu->dp.is_return ? 'r' : 'p',
		 tu->rp.up.pid, tu->rp.up.vaddr);
	ret = trace_dynprobe_init_tp(&tu->dp, argv[0], UPROCESS_EVENT_SYSTEM,
				     buf, nargs);
	if (ret)
		goto out_free;

	for (i = 0; i < nargs; i++) {
		ret = trace_dynprobe_parse_arg(&tu->dp, i, argv[i + 2], NULL,
					       &ctx);
		if (ret)
			goto out_free;
		if (uprocess_arg_has_foffs(&tu->dp.tp.args[i])) {
			trace_probe_log_err(0, BAD_FILE_OFFS);
			ret = -EINVAL;
			goto out_free;
		}
	}
	ret = traceprobe_set_print_fmt(&tu->dp.tp, tu->dp.is_return ?
				       PROBE_PRINT_RETURN : PROBE_PRINT_NORMAL);
	if (ret < 0)
		goto out_free;

	/* the probe last: a hit before the event exists finds it disabled */
	ret = uprocess_register(tu);
	if (ret) {
		trace_probe_log_set_index(1);
		trace_probe_log_err(0, FAIL_REG_PROBE);
		goto out_free;
	}
	ret = trace_dynprobe_register(&tu->dp);
	if (ret) {
		uprocess_unregister(tu);
		goto out_free;
	}
	traceprobe_finish_parse(&ctx);
	trace_probe_log_clear();
	return 0;

out_free:
	traceprobe_finish_parse(&ctx);
	free_trace_uprocess(tu);
out_log:
	trace_probe_log_clear();
	return ret;
}

static int trace_uprocess_create(const char *raw_command)
{
	return trace_probe_create(raw_command, __trace_uprocess_create);
}

static __init int init_uprocess_trace(void)
{
	return dyn_event_register(&trace_uprocess_ops);
}

core_initcall(init_uprocess_trace);
