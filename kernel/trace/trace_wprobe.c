// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Watchpoint probe events: tracefs "w:" events on watchpoint probes,
 * defined through "dynamic_events" or "wprobe_events", with the hits,
 * misses and yields of each in "wprobe_profile".  Here are the
 * watchpoint's side of the event: its definition, its hit, and those two
 * files.
 */
#define pr_fmt(fmt)	"trace_wprobe: " fmt

#include <linux/wprobes.h>
#include <linux/module.h>
#include <linux/kallsyms.h>
#include <linux/security.h>
#include <linux/workqueue.h>
#include <linux/uaccess.h>

#include "trace_dynprobe.h"
#include "trace_probe_kernel.h"
#include "trace_probe_tmpl.h"

#define WPROBE_EVENT_SYSTEM	"wprobes"

static int trace_wprobe_create(const char *raw_command);
static int trace_wprobe_release(struct dyn_event *ev);

static struct dyn_event_operations trace_wprobe_ops = {
	.create = trace_wprobe_create,
	.show = trace_dynprobe_show,
	.is_busy = trace_dynprobe_is_busy,
	.free = trace_wprobe_release,
	.match = trace_dynprobe_match,
};

/**
 * struct trace_wprobe - a "w:" event
 * @wp: the watchpoint probe
 * @nhit: hits per CPU while the event was enabled
 * @free_work: the deferred unregistration and free
 * @dp: the event (its place as written, "w@jiffies:8", and its
 *	fetch-args, $value as written); last: variable size
 *
 * The event's record, enabling and dynamic_events entry are
 * trace_dynprobe.c's.  Its life:
 *
 *  1. Defining an event registers its wprobe, so a missing debug
 *     register (-ENOSPC) or a bad address shows when it is defined.
 *  2. The register stays reserved until the event is deleted.  Enabling
 *     and disabling run under event_mutex, which perf's own paths take
 *     inside a perf context mutex (an inherited tracepoint event being
 *     freed), so they must not reach perf's context mutexes: they only
 *     flip the trace_probe's flags, which the hit reads.  While the event
 *     is disabled a hit returns at once.
 *  3. For the same reason deletion, also under event_mutex, hands the
 *     wprobe to a worker (@free_work) that unregisters it and frees the
 *     event.
 *  4. Defining a new event first waits for that worker, so the register
 *     a deleted event held is free again for it.
 */
struct trace_wprobe {
	struct wprobe wp;
	unsigned long __percpu *nhit;
	struct work_struct free_work;
	struct trace_dynprobe dp;
};

static struct workqueue_struct *trace_wprobe_wq;

static bool is_trace_wprobe(struct dyn_event *ev)
{
	return ev->ops == &trace_wprobe_ops;
}

static struct trace_wprobe *to_trace_wprobe(struct dyn_event *ev)
{
	return container_of(ev, struct trace_wprobe, dp.devent);
}

static unsigned long trace_wprobe_nhit(struct trace_wprobe *tw)
{
	unsigned long nhit = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		nhit += *per_cpu_ptr(tw->nhit, cpu);
	return nhit;
}

/* ---- the hit ------------------------------------------------------------ */

/* fetch-args' first stage: the values a watchpoint hit has at hand */
static int
process_fetch_insn(struct fetch_insn *code, void *rec, void *edata,
		   void *dest, void *base)
{
	struct pt_regs *regs = rec;
	unsigned long val;
	int ret;

retry:
	switch (code->op) {
	case FETCH_OP_REG:
		val = regs_get_register(regs, code->param);
		break;
	case FETCH_OP_STACK:
		val = regs_get_kernel_stack_nth(regs, code->param);
		break;
	case FETCH_OP_STACKP:
		val = kernel_stack_pointer(regs);
		break;
	case FETCH_NOP_SYMBOL:	/* a place holder: its address follows */
		code++;
		goto retry;
	default:
		ret = process_common_fetch_insn(code, &val);
		if (ret < 0)
			return ret;
	}
	code++;

	return process_fetch_insn_bottom(code, val, dest, base);
}

NOKPROBE_SYMBOL(process_fetch_insn)

static nokprobe_inline void
__wprobe_trace_func(struct trace_wprobe *tw, struct pt_regs *regs,
		    struct trace_event_file *trace_file)
{
	struct trace_event_call *call = trace_probe_event_call(&tw->dp.tp);
	struct kprobe_trace_entry_head *entry;
	struct trace_event_buffer fbuffer;
	int dsize;

	if (WARN_ON_ONCE(call != trace_file->event_call))
		return;
	if (trace_trigger_soft_disabled(trace_file))
		return;

	dsize = __get_data_size(&tw->dp.tp, regs, NULL);
	entry = trace_event_buffer_reserve(&fbuffer, trace_file,
					   sizeof(*entry) + tw->dp.tp.size + dsize);
	if (!entry)
		return;

	fbuffer.regs = regs;
	entry = ring_buffer_event_data(fbuffer.event);
	fbuffer.entry = entry;
	entry->ip = instruction_pointer(regs);
	store_trace_args(&entry[1], &tw->dp.tp, regs, NULL, sizeof(*entry), dsize);
	trace_event_buffer_commit(&fbuffer);
}

static void wprobe_trace_func(struct trace_wprobe *tw, struct pt_regs *regs)
{
	struct event_file_link *link;

	trace_probe_for_each_link_rcu(link, &tw->dp.tp)
		__wprobe_trace_func(tw, regs, link->file);
}

NOKPROBE_SYMBOL(wprobe_trace_func);

#ifdef CONFIG_PERF_EVENTS
static void wprobe_perf_func(struct trace_wprobe *tw, struct pt_regs *regs)
{
	struct trace_event_call *call = trace_probe_event_call(&tw->dp.tp);
	struct kprobe_trace_entry_head *entry;
	struct hlist_head *head;
	int size, __size, dsize;
	int rctx;

	head = this_cpu_ptr(call->perf_events);
	if (hlist_empty(head))
		return;

	dsize = __get_data_size(&tw->dp.tp, regs, NULL);
	__size = sizeof(*entry) + tw->dp.tp.size + dsize;
	size = ALIGN(__size + sizeof(u32), sizeof(u64));
	size -= sizeof(u32);

	entry = perf_trace_buf_alloc(size, NULL, &rctx);
	if (!entry)
		return;

	entry->ip = instruction_pointer(regs);
	memset(&entry[1], 0, dsize);
	store_trace_args(&entry[1], &tw->dp.tp, regs, NULL, sizeof(*entry), dsize);
	perf_trace_buf_submit(entry, size, rctx, call->event.type, 1, regs,
			      head, NULL);
}

NOKPROBE_SYMBOL(wprobe_perf_func);
#endif

/* the wprobe's handler, from the debug exception */
static void trace_wprobe_hit(struct wprobe *wp, struct pt_regs *regs)
{
	struct trace_wprobe *tw = container_of(wp, struct trace_wprobe, wp);

	/* a defined but disabled event keeps its register: nothing to do */
	if (!trace_probe_is_enabled(&tw->dp.tp))
		return;
	raw_cpu_inc(*tw->nhit);
	if (trace_probe_test_flag(&tw->dp.tp, TP_FLAG_TRACE))
		wprobe_trace_func(tw, regs);
#ifdef CONFIG_PERF_EVENTS
	if (trace_probe_test_flag(&tw->dp.tp, TP_FLAG_PROFILE))
		wprobe_perf_func(tw, regs);
#endif
}

NOKPROBE_SYMBOL(trace_wprobe_hit);

/* ---- definition and deletion --------------------------------------------- */

static void free_trace_wprobe(struct trace_wprobe *tw)
{
	if (!tw)
		return;
	trace_dynprobe_cleanup(&tw->dp);
	free_percpu(tw->nhit);
	kfree(tw->wp.symbol_name);
	kfree(tw);
}

static void trace_wprobe_free_fn(struct work_struct *work)
{
	struct trace_wprobe *tw = container_of(work, struct trace_wprobe,
					       free_work);

	/* no hit runs or will run after this: the rest can go */
	unregister_wprobe(&tw->wp);
	free_trace_wprobe(tw);
}

static int trace_wprobe_release(struct dyn_event *ev)
{
	struct trace_wprobe *tw = to_trace_wprobe(ev);
	int ret = trace_dynprobe_unregister(&tw->dp);

	if (!ret)
		queue_work(trace_wprobe_wq, &tw->free_work);
	return ret;
}

/*
 * TYPE@ADDR|SYM[+OFFS][:LEN] into tw->wp; logs the error at the spec's
 * argv index.  sym gets the symbol (the caller's buffer) or "".
 */
static int parse_wprobe_spec(struct trace_wprobe *tw, const char *arg,
			     char *sym, size_t symlen)
{
	struct wprobe *wp = &tw->wp;
	char buf[KSYM_NAME_LEN + 32];
	char *at, *colon, *plus, *where;
	unsigned long addr, size, offs;
	unsigned int len = 0;

	if (strscpy(buf, arg, sizeof(buf)) < 0) {
		trace_probe_log_err(0, BAD_PROBE_ADDR);
		return -EINVAL;
	}
	at = strchr(buf, '@');
	if (!at) {
		trace_probe_log_err(0, BAD_WPROBE_TYPE);
		return -EINVAL;
	}
	*at = '\0';
	if (!strcmp(buf, "w")) {
		wp->type = WPROBE_W;
	} else if (!strcmp(buf, "rw")) {
		wp->type = WPROBE_RW;
	} else if (!strcmp(buf, "r")) {
		wp->type = WPROBE_R;
	} else if (!strcmp(buf, "x")) {
		wp->type = WPROBE_X;
	} else {
		trace_probe_log_err(0, BAD_WPROBE_TYPE);
		return -EINVAL;
	}
	where = at + 1;

	colon = strchr(where, ':');
	if (colon) {
		*colon = '\0';
		if (wp->type == WPROBE_X || kstrtouint(colon + 1, 0, &len) ||
		    (len != 1 && len != 2 && len != 4 && len != sizeof(long))) {
			trace_probe_log_err(colon + 1 - buf, BAD_WPROBE_LEN);
			return -EINVAL;
		}
	}

	sym[0] = '\0';
	if (isdigit(where[0])) {
		if (kstrtoul(where, 0, &addr)) {
			trace_probe_log_err(where - buf, BAD_PROBE_ADDR);
			return -EINVAL;
		}
		wp->addr = (void *)addr;
		if (!len && wp->type != WPROBE_X)
			len = sizeof(long);
	} else {
		plus = strchr(where, '+');
		if (plus) {
			*plus = '\0';
			if (kstrtouint(plus + 1, 0, &wp->offset)) {
				trace_probe_log_err(plus + 1 - buf, BAD_PROBE_ADDR);
				return -EINVAL;
			}
		}
		if (!where[0] || strscpy(sym, where, symlen) < 0) {
			trace_probe_log_err(where - buf, BAD_PROBE_ADDR);
			return -EINVAL;
		}
		wp->symbol_name = kstrdup(sym, GFP_KERNEL);
		if (!wp->symbol_name)
			return -ENOMEM;
		/* an int, a short...: the symbol's own size by default */
		addr = kallsyms_lookup_name(sym);
		if (!len && wp->type != WPROBE_X) {
			len = sizeof(long);
			if (addr && !wp->offset &&
			    kallsyms_lookup_size_offset(addr, &size, &offs) &&
			    (size == 1 || size == 2 || size == 4))
				len = size;
		}
	}
	wp->len = len;
	return 0;
}

/*
 * "$value[:TYPE]" or "NAME=$value[:TYPE]": the watched location, read
 * through "@ADDR", typed by the watched length unless TYPE is given.
 * Returns a new string (or NULL if arg has no $value) or an ERR_PTR.
 */
static char *expand_value_arg(struct trace_wprobe *tw, const char *arg)
{
	const char *body = strchr(arg, '=');
	const char *name = "value";
	int namelen = 5;

	if (body) {
		name = arg;
		namelen = body - arg;
		body++;
	} else {
		body = arg;
	}
	if (!str_has_prefix(body, "$value") ||
	    (body[6] != '\0' && body[6] != ':'))
		return NULL;
	if (tw->wp.type == WPROBE_X)
		return ERR_PTR(-EINVAL);
	if (body[6] == ':')
		return kasprintf(GFP_KERNEL, "%.*s=@0x%lx%s", namelen, name,
				 (unsigned long)tw->wp.addr, body + 6);
	return kasprintf(GFP_KERNEL, "%.*s=@0x%lx:u%u", namelen, name,
			 (unsigned long)tw->wp.addr, tw->wp.len * 8);
}

/*
 * A definition written to "dynamic_events" or "wprobe_events":
 *
 *   w[:[GRP/][EVENT]] TYPE@ADDR|SYM[+OFFS][:LEN] [FETCHARGS]
 *
 * TYPE is w (write), rw (read or write), r (read only: refused where the
 * CPU has none, as x86) or x (execution, no LEN); LEN is 1, 2, 4 or 8,
 * by default the symbol's size when that is one of those, else the size
 * of a long.  GRP defaults to "wprobes", EVENT to w_SYM[_OFFS] or
 * w_0xADDR.  FETCHARGS are those of kprobe events (registers, memory,
 * $comm, $stack...), plus $value: the watched location as the access
 * left it (for a write, the new value), typed by its length unless a
 * type is given ("$value:x16").  The event records the ip the CPU
 * reports: the instruction after the access for data watchpoints, the
 * watched instruction for x.  Each event has the usual enable, filter,
 * trigger and format files, and perf can record it.
 */
static int __trace_wprobe_create(int argc, const char *argv[])
{
	struct traceprobe_parse_context ctx = { .flags = TPARG_FL_KERNEL };
	char buf[MAX_EVENT_NAME_LEN], sym[KSYM_NAME_LEN];
	struct trace_wprobe *tw;
	int i, ret, nargs;
	char *arg;

	if (argv[0][0] != 'w' || argc < 2)
		return -ECANCELED;
	/* "w" or "w:..."; anything else is not ours */
	if (argv[0][1] != '\0' && argv[0][1] != ':')
		return -ECANCELED;

	trace_probe_log_init("trace_wprobe", argc, argv);
	nargs = argc - 2;
	if (nargs > MAX_TRACE_ARGS) {
		ret = -E2BIG;
		goto out_log;
	}

	/* a deleted event's register is free again (see struct trace_wprobe) */
	flush_workqueue(trace_wprobe_wq);

	tw = kzalloc(struct_size(tw, dp.tp.args, nargs), GFP_KERNEL);
	if (!tw) {
		ret = -ENOMEM;
		goto out_log;
	}
	INIT_WORK(&tw->free_work, trace_wprobe_free_fn);
	tw->nhit = alloc_percpu(unsigned long);
	ret = trace_dynprobe_init(&tw->dp, &trace_wprobe_ops, 'w', true,
				  argv[1], nargs);
	if (!ret && !tw->nhit)
		ret = -ENOMEM;
	if (ret)
		goto out_free;

	trace_probe_log_set_index(1);
	ret = parse_wprobe_spec(tw, argv[1], sym, sizeof(sym));
	if (ret)
		goto out_free;

	/*
	 * An event name has MAX_EVENT_NAME_LEN bytes: keep 48 of the symbol
	 * so that "w_", "_" and a 32-bit offset still fit.
	 */
	if (sym[0] && tw->wp.offset)
		snprintf(buf, sizeof(buf), "w_%.48s_%u", sym, tw->wp.offset);
	else if (sym[0])
		snprintf(buf, sizeof(buf), "w_%.48s", sym);
	else
		snprintf(buf, sizeof(buf), "w_0x%lx", (unsigned long)tw->wp.addr);
	sanitize_event_name(buf);
	ret = trace_dynprobe_init_tp(&tw->dp, argv[0], WPROBE_EVENT_SYSTEM, buf,
				     nargs);
	if (ret)
		goto out_free;

	/* the watchpoint itself: its address must be known for $value */
	tw->wp.handler = trace_wprobe_hit;
	ret = register_wprobe(&tw->wp);
	if (ret) {
		trace_probe_log_set_index(1);
		if (ret == -ENOSPC)
			trace_probe_log_err(0, NO_WPROBE_SLOT);
		else if (ret == -ENOENT)
			trace_probe_log_err(0, BAD_PROBE_ADDR);
		else if (ret == -EINVAL && tw->wp.type == WPROBE_R)
			trace_probe_log_err(0, BAD_WPROBE_TYPE);
		else if (ret == -EINVAL)
			trace_probe_log_err(0, BAD_WPROBE_ADDR);
		else if (ret != -ENOMEM)
			trace_probe_log_err(0, FAIL_REG_PROBE);
		goto out_free;
	}

	for (i = 0; i < nargs; i++) {
		trace_probe_log_set_index(i + 2);
		arg = expand_value_arg(tw, argv[i + 2]);
		if (IS_ERR(arg)) {
			trace_probe_log_err(0, BAD_VAR);
			ret = PTR_ERR(arg);
			goto out_unreg;
		}
		ret = trace_dynprobe_parse_arg(&tw->dp, i, argv[i + 2], arg,
					       &ctx);
		kfree(arg);
		if (ret)
			goto out_unreg;
	}

	ret = traceprobe_set_print_fmt(&tw->dp.tp, PROBE_PRINT_NORMAL);
	if (ret < 0)
		goto out_unreg;
	ret = trace_dynprobe_register(&tw->dp);
	if (ret)
		goto out_unreg;
	traceprobe_finish_parse(&ctx);
	trace_probe_log_clear();
	return 0;

out_unreg:
	unregister_wprobe(&tw->wp);
out_free:
	traceprobe_finish_parse(&ctx);
	free_trace_wprobe(tw);
out_log:
	trace_probe_log_clear();
	return ret;
}

static int trace_wprobe_create(const char *raw_command)
{
	return trace_probe_create(raw_command, __trace_wprobe_create);
}

/* ---- wprobe_events and wprobe_profile -------------------------------------- */

static int create_or_delete_trace_wprobe(const char *raw_command)
{
	int ret;

	if (raw_command[0] == '-')
		return dyn_event_release(raw_command, &trace_wprobe_ops);
	ret = dyn_event_create(raw_command, &trace_wprobe_ops);
	return ret == -ECANCELED ? -EINVAL : ret;
}

static int probes_seq_show(struct seq_file *m, void *v)
{
	struct dyn_event *ev = v;

	return is_trace_wprobe(ev) ? trace_dynprobe_show(m, ev) : 0;
}

static const struct seq_operations probes_seq_op = {
	.start = dyn_event_seq_start,
	.next = dyn_event_seq_next,
	.stop = dyn_event_seq_stop,
	.show = probes_seq_show,
};

static int probes_open(struct inode *inode, struct file *file)
{
	int ret;

	ret = security_locked_down(LOCKDOWN_TRACEFS);
	if (ret)
		return ret;
	if ((file->f_mode & FMODE_WRITE) && (file->f_flags & O_TRUNC)) {
		ret = dyn_events_release_all(&trace_wprobe_ops);
		if (ret < 0)
			return ret;
	}
	return seq_open(file, &probes_seq_op);
}

static ssize_t probes_write(struct file *file, const char __user *buffer,
			    size_t count, loff_t *ppos)
{
	return trace_parse_run_command(file, buffer, count, ppos,
				       create_or_delete_trace_wprobe);
}

static const struct file_operations wprobe_events_ops = {
	.owner = THIS_MODULE,
	.open = probes_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = seq_release,
	.write = probes_write,
};

/* "  EVENT  HITS  MISSED  YIELDED" */
static int profile_seq_show(struct seq_file *m, void *v)
{
	struct dyn_event *ev = v;
	struct trace_wprobe *tw;

	if (!is_trace_wprobe(ev))
		return 0;
	tw = to_trace_wprobe(ev);
	seq_printf(m, "  %-44s %15lu %15lu %15lu\n", trace_probe_name(&tw->dp.tp),
		   trace_wprobe_nhit(tw), READ_ONCE(tw->wp.nmissed),
		   READ_ONCE(tw->wp.nyielded));
	return 0;
}

static const struct seq_operations profile_seq_op = {
	.start = dyn_event_seq_start,
	.next = dyn_event_seq_next,
	.stop = dyn_event_seq_stop,
	.show = profile_seq_show,
};

static int profile_open(struct inode *inode, struct file *file)
{
	int ret;

	ret = security_locked_down(LOCKDOWN_TRACEFS);
	if (ret)
		return ret;
	return seq_open(file, &profile_seq_op);
}

static const struct file_operations wprobe_profile_ops = {
	.owner = THIS_MODULE,
	.open = profile_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = seq_release,
};

static __init int init_wprobe_trace_early(void)
{
	trace_wprobe_wq = alloc_workqueue("trace_wprobe", WQ_UNBOUND, 0);
	if (!trace_wprobe_wq)
		return -ENOMEM;
	return dyn_event_register(&trace_wprobe_ops);
}

core_initcall(init_wprobe_trace_early);

static __init int init_wprobe_trace(void)
{
	if (tracing_init_dentry())
		return 0;
	trace_create_file("wprobe_events", TRACE_MODE_WRITE, NULL, NULL,
			  &wprobe_events_ops);
	trace_create_file("wprobe_profile", TRACE_MODE_READ, NULL, NULL,
			  &wprobe_profile_ops);
	return 0;
}

fs_initcall(init_wprobe_trace);
