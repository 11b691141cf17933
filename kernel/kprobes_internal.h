/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Kprobes: what the core's files share and nothing else uses: kprobes.c
 * (sites, registration, batches), kprobes_blacklist.c (where a probe may
 * go), kprobes_module.c (code going away), kprobes_ftrace.c (fentry sites
 * on ftrace's hook), kprobes_carriers.c and kprobes_slots.c (freeing
 * retired sites, the wait for tasks).  Every function here is
 * called with kprobe_mutex held unless it says otherwise.
 */
#ifndef _KERNEL_KPROBES_INTERNAL_H
#define _KERNEL_KPROBES_INTERNAL_H

#include <linux/kprobes_core.h>

/*
 * A batch of text changes: sites to arm or disarm are patched by
 * kprobe_batch_commit() with one text_poke_sync() for all of them; ftrace
 * sites are collected and their filters changed by kprobe_batch_ftrace()
 * with one ftrace update per direction; sites to free wait for one grace
 * period together.
 */
struct kprobe_batch {
	struct list_head to_free;	/* sites, via ->free_list */
	struct list_head ftrace;	/* ftrace sites to re-sync, ->ftrace_node */
	struct list_head undo;		/* jumps to undo together, ->opt_node */
	bool undo_jumps;		/* retired sites' jumps go on ->undo */
	bool poked;			/* text_poke() done, sync owed */
};

static inline void kprobe_batch_init(struct kprobe_batch *b)
{
	INIT_LIST_HEAD(&b->to_free);
	INIT_LIST_HEAD(&b->ftrace);
	INIT_LIST_HEAD(&b->undo);
	b->undo_jumps = false;
	b->poked = false;
}

/* kprobes_slots.c: both sleep, without kprobe_mutex */
void kprobe_sync_tasks(void);
void kprobe_free_sites_later(struct list_head *sites);

/* kprobes.c */
void kprobe_batch_commit(struct kprobe_batch *b);	/* without kprobe_mutex */
struct kprobe_site *kprobe_site_create(unsigned long addr, bool ftrace,
				       bool on_entry, int *err);
void kprobe_site_retire(struct kprobe_site *s, struct kprobe_batch *b);
void kprobe_site_retired(struct kprobe_site *s, struct kprobe_batch *b);
int kprobe_site_sync(struct kprobe_site *s, struct kprobe_batch *b);
bool kprobe_site_wants_armed(struct kprobe_site *s);
bool kprobe_site_ipmodify(struct kprobe_site *s);
struct kprobe *kprobe_site_solo(struct kprobe_site *s, bool want_armed);
bool kprobe_site_pre_only(struct kprobe_site *s, bool want_armed);
void kprobe_site_kill(struct kprobe_site *s, struct kprobe_batch *b);

/* kprobes_blacklist.c */
void kprobe_blacklist_init(void);		/* at boot */
void kprobe_blacklist_remove_range(unsigned long start, unsigned long end);
/* without kprobe_mutex: takes the text owners' locks (text_mutex) */
int kprobe_check_text(unsigned long addr, struct module **probed_mod);

/* kprobes_module.c */
#ifdef CONFIG_MODULES
int kprobes_module_init(void);		/* at boot */
#else
static inline int kprobes_module_init(void)
{
	return 0;
}
#endif

/* kprobes_ftrace.c */
int kprobe_batch_ftrace(struct kprobe_batch *b);
void kprobe_linger_flush(bool (*in)(unsigned long, void *), void *arg);
bool kprobe_linger_has(unsigned long ip);
/* ftrace updates that hooked a site moving off its carrier, so far */
extern unsigned long kprobe_hook_seq;

/* kprobes_carriers.c */
#ifdef CONFIG_KPROBE_CARRIERS
void kprobe_carriers_sync(struct kprobe_batch *b);
void kprobe_carriers_kick(void);
void kprobe_carriers_refused(void);
int kprobe_carrier_move(unsigned long addr);	/* without kprobe_mutex */
#else
static inline void kprobe_carriers_sync(struct kprobe_batch *b) { }
static inline void kprobe_carriers_kick(void) { }
static inline void kprobe_carriers_refused(void) { }
static inline int kprobe_carrier_move(unsigned long addr)
{
	return 0;
}
#endif

#endif /* _KERNEL_KPROBES_INTERNAL_H */
