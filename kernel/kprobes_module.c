// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Kprobes: code that goes away under probes, and modules.
 *
 * When a module unloads, or the kernel's init text is freed, the sites in
 * that text are disarmed while it is still there, taken out of the hash
 * table and their probes marked gone (kprobe_site_mark_gone()); the probes
 * stay registered until their owners unregister them.  A module's
 * NOKPROBE_SYMBOL() entries and .kprobes.text join the blacklist while it
 * loads and leave it when it goes.
 *
 * Locking: kprobe_mutex, taken here from the module notifier and from
 * kprobe_free_init_mem().
 */

#include <linux/kprobes.h>
#include <linux/kprobes_backend.h>
#include <linux/module.h>
#include <linux/kallsyms.h>
#include <linux/notifier.h>

#include <asm/sections.h>

#include "kprobes_internal.h"

static void kprobes_mark_gone_range(bool (*in)(unsigned long, void *), void *arg)
{
	struct kprobe_batch b;
	struct kprobe_site *s;

	kprobe_batch_init(&b);
	mutex_lock(&kprobe_mutex);
	list_for_each_entry(s, &kprobe_sites, all) {
		if (!(s->flags & KPROBE_SITE_GONE) && in(s->addr, arg))
			kprobe_site_mark_gone(s, &b);
	}
	kprobe_batch_ftrace(&b);
	/* ftrace forgets the text's records next: no idle hook may stay there */
	kprobe_idle_hooks_remove(in, arg);
	mutex_unlock(&kprobe_mutex);
	kprobe_batch_commit(&b);
}

static bool in_core_init_text(unsigned long addr, void *unused)
{
	return is_kernel_inittext(addr);
}

/**
 * kprobe_free_init_mem() - the kernel's init text is about to be freed
 */
void kprobe_free_init_mem(void)
{
	kprobes_mark_gone_range(in_core_init_text, NULL);
}

#ifdef CONFIG_MODULES

static bool in_module_text(unsigned long addr, void *data)
{
	struct module *mod = data;

	return within_module(addr, mod);
}

static bool in_module_init_text(unsigned long addr, void *data)
{
	struct module *mod = data;

	return within_module_init(addr, mod);
}

static void kprobe_module_blacklist(struct module *mod, bool add)
{
	unsigned long start, end;
	unsigned int i;

	mutex_lock(&kprobe_mutex);
	if (add) {
		unsigned long *list = mod->kprobe_blacklist;

		for (i = 0; list && i < mod->num_kprobe_blacklist; i++)
			kprobe_add_ksym_blacklist((unsigned long)
				dereference_symbol_descriptor((void *)list[i]));
		start = (unsigned long)mod->kprobes_text_start;
		if (start)
			kprobe_add_area_blacklist(start, start + mod->kprobes_text_size);
		start = (unsigned long)mod->noinstr_text_start;
		if (start)
			kprobe_add_area_blacklist(start, start + mod->noinstr_text_size);
	} else {
		for_each_mod_mem_type(i) {
			start = (unsigned long)mod->mem[i].base;
			end = start + mod->mem[i].size;
			if (mod->mem[i].size)
				kprobe_blacklist_remove_range(start, end);
		}
	}
	mutex_unlock(&kprobe_mutex);
}

static int kprobes_module_callback(struct notifier_block *nb,
				   unsigned long val, void *data)
{
	struct module *mod = data;

	switch (val) {
	case MODULE_STATE_COMING:
		kprobe_module_blacklist(mod, true);
		break;
	case MODULE_STATE_LIVE:
		/* do_init_module() frees the init text after this */
		kprobes_mark_gone_range(in_module_init_text, mod);
		break;
	case MODULE_STATE_GOING:
		kprobes_mark_gone_range(in_module_text, mod);
		kprobe_module_blacklist(mod, false);
		kprobe_index_module_going(mod);
		break;
	}
	return NOTIFY_DONE;
}

static struct notifier_block kprobe_module_nb = {
	.notifier_call = kprobes_module_callback,
	.priority = 0,
};

int __init kprobes_module_init(void)
{
	return register_module_notifier(&kprobe_module_nb);
}
#endif	/* CONFIG_MODULES */
