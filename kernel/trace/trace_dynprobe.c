// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The event side of "w:" and "P:" probe events (trace_dynprobe.h): the
 * record (the ip, or a return event's function and return address, then
 * the fetch-args), its format and printing, enabling
 * for ftrace and perf, and the dynamic_events entry (definition as
 * written, lookup, registration and deletion).
 *
 * Locking: registration and deletion run under event_mutex, as every
 * dynamic event's.  Enabling and disabling (under event_mutex, which
 * perf's paths take inside a perf context mutex) only flip the
 * trace_probe's flags and file links, which a hit reads with preemption
 * off; so they never wait for a hit, and never reach perf's mutexes.
 */
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "trace_dynprobe.h"
#include "trace_output.h"

static struct trace_dynprobe *dynprobe_from_call(struct trace_event_call *call)
{
	struct trace_probe *tp = trace_probe_primary_from_call(call);

	return tp ? container_of(tp, struct trace_dynprobe, tp) : NULL;
}

/* ---- the record ---------------------------------------------------------- */

static enum print_line_t
print_dynprobe_event(struct trace_iterator *iter, int flags,
		     struct trace_event *event)
{
	struct kprobe_trace_entry_head *field;
	struct trace_seq *s = &iter->seq;
	struct trace_dynprobe *dp;

	field = (struct kprobe_trace_entry_head *)iter->ent;
	dp = dynprobe_from_call(container_of(event, struct trace_event_call,
					     event));
	if (WARN_ON_ONCE(!dp))
		goto out;

	if (dp->is_return) {
		struct kretprobe_trace_entry_head *rf = (void *)iter->ent;

		/* user addresses, as the probe's own ("P:...%return") */
		trace_seq_printf(s, "%s: (0x%lx <- 0x%lx)",
				 trace_probe_name(&dp->tp), rf->ret_ip, rf->func);
		if (trace_probe_print_args(s, dp->tp.args, dp->tp.nr_args,
					   (u8 *)&rf[1], rf) < 0)
			goto out;
		trace_seq_putc(s, '\n');
		goto out;
	}
	if (dp->ip_sym) {
		trace_seq_printf(s, "%s: (", trace_probe_name(&dp->tp));
		if (!seq_print_ip_sym(s, field->ip, flags | TRACE_ITER_SYM_OFFSET))
			goto out;
		trace_seq_putc(s, ')');
	} else {
		/* a user address: no kernel symbol to look up */
		trace_seq_printf(s, "%s: (0x%lx)", trace_probe_name(&dp->tp),
				 field->ip);
	}
	if (trace_probe_print_args(s, dp->tp.args, dp->tp.nr_args,
				   (u8 *)&field[1], field) < 0)
		goto out;
	trace_seq_putc(s, '\n');
out:
	return trace_handle_return(s);
}

/* a return event's record: the function, where it returned to, the args */
static int dynprobe_define_ret_fields(struct trace_event_call *event_call,
				      struct trace_probe *tp)
{
	struct kretprobe_trace_entry_head field;
	int ret;

	DEFINE_FIELD(unsigned long, func, FIELD_STRING_FUNC, 0);
	DEFINE_FIELD(unsigned long, ret_ip, FIELD_STRING_RETIP, 0);

	return traceprobe_define_arg_fields(event_call, sizeof(field), tp);
}

static int dynprobe_define_fields(struct trace_event_call *event_call)
{
	struct kprobe_trace_entry_head field;
	struct trace_probe *tp;
	int ret;

	tp = trace_probe_primary_from_call(event_call);
	if (WARN_ON_ONCE(!tp))
		return -ENOENT;
	if (container_of(tp, struct trace_dynprobe, tp)->is_return)
		return dynprobe_define_ret_fields(event_call, tp);

	DEFINE_FIELD(unsigned long, ip, FIELD_STRING_IP, 0);

	return traceprobe_define_arg_fields(event_call, sizeof(field), tp);
}

static struct trace_event_functions dynprobe_funcs = {
	.trace = print_dynprobe_event,
};

static struct trace_event_fields dynprobe_fields_array[] = {
	{ .type = TRACE_FUNCTION_TYPE,
	  .define_fields = dynprobe_define_fields },
	{}
};

/* ---- enabling ------------------------------------------------------------ */

/* for a trace file, or for perf (file NULL); under event_mutex */
static int enable_dynprobe(struct trace_event_call *call,
			   struct trace_event_file *file)
{
	struct trace_probe *tp = trace_probe_primary_from_call(call);

	if (WARN_ON_ONCE(!tp))
		return -ENODEV;
	if (file)
		return trace_probe_add_file(tp, file);
	trace_probe_set_flag(tp, TP_FLAG_PROFILE);
	return 0;
}

static int disable_dynprobe(struct trace_event_call *call,
			    struct trace_event_file *file)
{
	struct trace_probe *tp = trace_probe_primary_from_call(call);

	if (WARN_ON_ONCE(!tp))
		return -ENODEV;
	if (!file) {
		trace_probe_clear_flag(tp, TP_FLAG_PROFILE);
		return 0;
	}
	if (!trace_probe_get_file_link(tp, file))
		return -ENOENT;
	if (trace_probe_has_single_file(tp))
		trace_probe_clear_flag(tp, TP_FLAG_TRACE);
	/* a hit still walking the links holds off the link's kfree_rcu() */
	trace_probe_remove_file(tp, file);
	return 0;
}

static int dynprobe_reg(struct trace_event_call *event, enum trace_reg type,
			void *data)
{
	struct trace_event_file *file = data;

	switch (type) {
	case TRACE_REG_REGISTER:
		return enable_dynprobe(event, file);
	case TRACE_REG_UNREGISTER:
		return disable_dynprobe(event, file);
#ifdef CONFIG_PERF_EVENTS
	case TRACE_REG_PERF_REGISTER:
		return enable_dynprobe(event, NULL);
	case TRACE_REG_PERF_UNREGISTER:
		return disable_dynprobe(event, NULL);
	case TRACE_REG_PERF_OPEN:
	case TRACE_REG_PERF_CLOSE:
	case TRACE_REG_PERF_ADD:
	case TRACE_REG_PERF_DEL:
		return 0;
#endif
	}
	return 0;
}

/* ---- definition ------------------------------------------------------------ */

/**
 * trace_dynprobe_init - start a definition
 * @dp: the event's part, zeroed, with room for @nargs fetch-args
 * @ops: the event kind's dynamic_events operations
 * @prefix: its letter in dynamic_events
 * @ip_sym: its records' ip is kernel text
 * @spec: the probed place as written
 * @nargs: how many fetch-args follow it
 *
 * Return: 0 or -ENOMEM; trace_dynprobe_cleanup() either way.
 */
int trace_dynprobe_init(struct trace_dynprobe *dp,
			struct dyn_event_operations *ops, char prefix,
			bool ip_sym, const char *spec, int nargs)
{
	dyn_event_init(&dp->devent, ops);
	dp->prefix = prefix;
	dp->ip_sym = ip_sym;
	dp->spec = kstrdup(spec, GFP_KERNEL);
	dp->orig_args = kcalloc(max(nargs, 1), sizeof(char *), GFP_KERNEL);
	dp->nr_orig = nargs;
	return dp->spec && dp->orig_args ? 0 : -ENOMEM;
}

/**
 * trace_dynprobe_init_tp - name the event and set up its trace_probe
 * @dp: the event's part
 * @argv0: the definition's first word ("w", "w:GRP/EVENT"...)
 * @group: the kind's group, unless @argv0 names one
 * @name: the event's name, unless @argv0 gives one
 * @nargs: how many fetch-args
 *
 * Return: 0 or -errno, logged at argv index 0.
 */
int trace_dynprobe_init_tp(struct trace_dynprobe *dp, const char *argv0,
			   const char *group, const char *name, int nargs)
{
	char gbuf[MAX_EVENT_NAME_LEN];
	const char *event = NULL;
	int ret;

	trace_probe_log_set_index(0);
	if (argv0[1] == ':') {
		event = &argv0[2];
		ret = traceprobe_parse_event_name(&event, &group, gbuf,
						  event - argv0);
		if (ret)
			return ret;
	}
	return trace_probe_init(&dp->tp, event ?: name, group, true, nargs);
}

/**
 * trace_dynprobe_parse_arg - parse fetch-arg @i of a definition
 * @dp: the event's part
 * @i: which (argv index @i + 2)
 * @arg: as written, which dynamic_events shows
 * @parse: what to parse instead (an expansion of @arg), or NULL
 * @ctx: the parse context
 *
 * Return: 0 or -errno, logged at the argument.
 */
int trace_dynprobe_parse_arg(struct trace_dynprobe *dp, int i,
			     const char *arg, const char *parse,
			     struct traceprobe_parse_context *ctx)
{
	trace_probe_log_set_index(i + 2);
	dp->orig_args[i] = kstrdup(arg, GFP_KERNEL);
	if (!dp->orig_args[i])
		return -ENOMEM;
	ctx->offset = 0;
	return traceprobe_parse_probe_arg(&dp->tp, i, parse ?: arg, ctx);
}

/**
 * trace_dynprobe_cleanup - free what the event's part holds
 * @dp: an event's part, registered or not (not in dynamic_events)
 */
void trace_dynprobe_cleanup(struct trace_dynprobe *dp)
{
	int i;

	if (dp->orig_args)
		for (i = 0; i < dp->nr_orig; i++)
			kfree(dp->orig_args[i]);
	kfree(dp->orig_args);
	trace_probe_cleanup(&dp->tp);
	kfree(dp->spec);
}

static struct trace_dynprobe *find_dynprobe(struct dyn_event_operations *ops,
					    const char *event,
					    const char *group)
{
	struct trace_dynprobe *dp;
	struct dyn_event *pos;

	for_each_dyn_event(pos) {
		if (pos->ops != ops)
			continue;
		dp = to_trace_dynprobe(pos);
		if (!strcmp(trace_probe_name(&dp->tp), event) &&
		    !strcmp(trace_probe_group_name(&dp->tp), group))
			return dp;
	}
	return NULL;
}

/**
 * trace_dynprobe_register - make a parsed definition an event
 * @dp: the event's part, its trace_probe set up
 *
 * Takes event_mutex.  Its probe may hit from now on.
 *
 * Return: 0, or -EEXIST (logged) or another -errno.
 */
int trace_dynprobe_register(struct trace_dynprobe *dp)
{
	struct trace_event_call *call = trace_probe_event_call(&dp->tp);
	int ret;

	guard(mutex)(&event_mutex);
	if (find_dynprobe(dp->devent.ops, trace_probe_name(&dp->tp),
			  trace_probe_group_name(&dp->tp))) {
		trace_probe_log_set_index(0);
		trace_probe_log_err(0, EVENT_EXIST);
		return -EEXIST;
	}
	call->event.funcs = &dynprobe_funcs;
	call->class->fields_array = dynprobe_fields_array;
	call->class->reg = dynprobe_reg;
	ret = trace_probe_register_event_call(&dp->tp);
	if (ret) {
		if (ret == -EEXIST) {
			trace_probe_log_set_index(0);
			trace_probe_log_err(0, EVENT_EXIST);
		}
		return ret;
	}
	dyn_event_add(&dp->devent, call);
	return 0;
}

/**
 * trace_dynprobe_unregister - take an event out, if nothing uses it
 * @dp: the event's part
 *
 * Under event_mutex.  After it, the probe's hits find the event
 * disabled; the caller unregisters the probe, then frees.
 *
 * Return: 0, or -EBUSY (enabled, or in use) and nothing changed.
 */
int trace_dynprobe_unregister(struct trace_dynprobe *dp)
{
	lockdep_assert_held(&event_mutex);
	if (trace_probe_is_enabled(&dp->tp))
		return -EBUSY;
	if (trace_event_dyn_busy(trace_probe_event_call(&dp->tp)))
		return -EBUSY;
	if (trace_probe_unregister_event_call(&dp->tp))
		return -EBUSY;
	dyn_event_remove(&dp->devent);
	trace_probe_unlink(&dp->tp);
	return 0;
}

/* ---- dynamic_events -------------------------------------------------------- */

int trace_dynprobe_show(struct seq_file *m, struct dyn_event *ev)
{
	struct trace_dynprobe *dp = to_trace_dynprobe(ev);
	int i;

	seq_printf(m, "%c:%s/%s %s", dp->prefix,
		   trace_probe_group_name(&dp->tp), trace_probe_name(&dp->tp),
		   dp->spec);
	for (i = 0; i < dp->nr_orig; i++)
		seq_printf(m, " %s", dp->orig_args[i]);
	seq_putc(m, '\n');
	return 0;
}

bool trace_dynprobe_is_busy(struct dyn_event *ev)
{
	return trace_probe_is_enabled(&to_trace_dynprobe(ev)->tp);
}

bool trace_dynprobe_match(const char *system, const char *event, int argc,
			  const char **argv, struct dyn_event *ev)
{
	struct trace_dynprobe *dp = to_trace_dynprobe(ev);

	if (event[0] != '\0' && strcmp(trace_probe_name(&dp->tp), event))
		return false;
	if (system && strcmp(trace_probe_group_name(&dp->tp), system))
		return false;
	if (argc && strcmp(argv[0], dp->spec))
		return false;
	return !argc || trace_probe_match_command_args(&dp->tp, argc - 1,
						       argv + 1);
}
