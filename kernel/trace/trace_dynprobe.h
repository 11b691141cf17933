/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the probe events defined by a place and fetch-args in
 * dynamic_events share, other than kprobe and uprobe events: "w:"
 * (trace_wprobe.c, watchpoint probes) and "P:" (trace_uprobe_process.c,
 * per-process uprobes).  Each embeds a struct trace_dynprobe last in its
 * own event struct and keeps its probe, its hit path and the parsing of
 * its place; this file does the rest (trace_dynprobe.c).
 */
#ifndef _TRACE_DYNPROBE_H
#define _TRACE_DYNPROBE_H

#include "trace_dynevent.h"
#include "trace_probe.h"

/**
 * struct trace_dynprobe - the part of an event that is not its probe's
 * @devent: its dynamic_events entry
 * @spec: the probed place as written ("w@jiffies:8", "1234:0x401000")
 * @orig_args: the fetch-args as written
 * @nr_orig: how many
 * @prefix: the event's letter in dynamic_events ('w', 'P')
 * @ip_sym: the recorded ip is kernel text, printed as a symbol
 * @tp: the trace_probe (event call, fetch-args); last: variable size
 */
struct trace_dynprobe {
	struct dyn_event devent;
	char *spec;
	char **orig_args;
	int nr_orig;
	char prefix;
	bool ip_sym;
	bool is_return;		/* records (func, ret_ip), not ip */
	struct trace_probe tp;
};

static inline struct trace_dynprobe *to_trace_dynprobe(struct dyn_event *ev)
{
	return container_of(ev, struct trace_dynprobe, devent);
}

int trace_dynprobe_init(struct trace_dynprobe *dp,
			struct dyn_event_operations *ops, char prefix,
			bool ip_sym, const char *spec, int nargs);
int trace_dynprobe_init_tp(struct trace_dynprobe *dp, const char *argv0,
			   const char *group, const char *name, int nargs);
int trace_dynprobe_parse_arg(struct trace_dynprobe *dp, int i,
			     const char *arg, const char *parse,
			     struct traceprobe_parse_context *ctx);
void trace_dynprobe_cleanup(struct trace_dynprobe *dp);
int trace_dynprobe_register(struct trace_dynprobe *dp);
int trace_dynprobe_unregister(struct trace_dynprobe *dp);

/* dyn_event_operations' .show, .is_busy and .match for these events */
int trace_dynprobe_show(struct seq_file *m, struct dyn_event *ev);
bool trace_dynprobe_is_busy(struct dyn_event *ev);
bool trace_dynprobe_match(const char *system, const char *event, int argc,
			  const char **argv, struct dyn_event *ev);

#endif /* _TRACE_DYNPROBE_H */
