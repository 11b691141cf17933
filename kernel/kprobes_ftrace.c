// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Kprobes' fentry sites on ftrace's hook: the ftrace side of a batch (its
 * sites' filter changes in one update per ops and direction), the moves
 * of sites between the backend's two ftrace_ops, and idle hooks.  All of
 * it runs under kprobe_mutex; ftrace takes its own locks inside each
 * update.
 */

#include <linux/kprobes.h>
#include <linux/kprobes_backend.h>
#include <linux/ftrace.h>
#include <linux/hashtable.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/workqueue.h>

#include "kprobes_internal.h"

/*
 * Idle hooks.  Unhooking an fentry site is an ftrace filter update, and
 * ftrace walks every record it has for each (about 4.7 M instructions on
 * a distribution kernel, whatever the number of sites): what a tool
 * detaching its probes one by one pays per probe.  So a site that leaves
 * the plain ops stays hooked there, idle: the callback finds no armed
 * site at it and returns at once.  The idle hooks are removed together,
 * in one update, by kprobe_idle_hooks_work a little later
 * (KPROBE_IDLE_HOOK_DELAY), or at once when their module goes; a site that
 * comes to an idle hook's address on the plain ops takes its hook over with
 * no update at all (a tool detaching and attaching again).  Never on the
 * IPMODIFY ops: livepatch and BPF trampolines need that ops off a
 * function as soon as its probes are.  All under kprobe_mutex.
 */
#define KPROBE_IDLE_HOOK_DELAY	(HZ / 4)

struct kprobe_idle_hook {
	struct hlist_node node;
	unsigned long ip;
};

static DEFINE_HASHTABLE(kprobe_idle_hooks, 8);
static unsigned int kprobe_nr_idle_hooks;

static void kprobe_idle_hooks_work_fn(struct work_struct *unused);
static DECLARE_DELAYED_WORK(kprobe_idle_hooks_work, kprobe_idle_hooks_work_fn);

/* ip's hook stays on the plain ops; false if it cannot */
static bool kprobe_idle_hook_add(unsigned long ip)
{
	struct kprobe_idle_hook *l;

	/*
	 * Not on a classic backend: its handler would run the probes of a
	 * site an idle hook's ops shares with the other ops.
	 */
	if (IS_ENABLED(CONFIG_KPROBES_CLASSIC))
		return false;
	l = kmalloc(sizeof(*l), GFP_KERNEL);
	if (!l)
		return false;
	l->ip = ip;
	hash_add(kprobe_idle_hooks, &l->node, ip);
	if (!kprobe_nr_idle_hooks++)
		schedule_delayed_work(&kprobe_idle_hooks_work, KPROBE_IDLE_HOOK_DELAY);
	return true;
}

/* was ip's hook idle?  Then it is the caller's now */
static bool kprobe_idle_hook_take(unsigned long ip)
{
	struct kprobe_idle_hook *l;

	if (!kprobe_nr_idle_hooks)
		return false;
	hash_for_each_possible(kprobe_idle_hooks, l, node, ip) {
		if (l->ip == ip) {
			hash_del(&l->node);
			kfree(l);
			kprobe_nr_idle_hooks--;
			return true;
		}
	}
	return false;
}

/*
 * Unhook the idle hooks for which in() holds (every one if in is
 * NULL), in one ftrace update.
 */
void kprobe_idle_hooks_remove(bool (*in)(unsigned long, void *), void *arg)
{
	struct kprobe_idle_hook *l;
	struct hlist_node *t;
	unsigned long *ips;
	int bkt, n = 0;

	kprobe_assert_locked();
	if (!kprobe_nr_idle_hooks)
		return;
	ips = kvmalloc_array(kprobe_nr_idle_hooks, sizeof(*ips), GFP_KERNEL);
	hash_for_each_safe(kprobe_idle_hooks, bkt, t, l, node) {
		if (in && !in(l->ip, arg))
			continue;
		if (ips)
			ips[n++] = l->ip;
		else	/* no memory for a list: one update each */
			arch_ftrace_sites_update(false, NULL, 0, &l->ip, 1);
		hash_del(&l->node);
		kfree(l);
		kprobe_nr_idle_hooks--;
	}
	if (n)
		arch_ftrace_sites_update(false, NULL, 0, ips, n);
	kvfree(ips);
}

static void kprobe_idle_hooks_work_fn(struct work_struct *unused)
{
	mutex_lock(&kprobe_mutex);
	kprobe_idle_hooks_remove(NULL, NULL);
	mutex_unlock(&kprobe_mutex);
}

/*
 * ftrace updates that hooked a site moving off its carrier, so far: a
 * wait begun after update N covers the moves it hooked (kprobe_mutex)
 */
unsigned long kprobe_hook_seq;

/*
 * An ftrace site goes on the IPMODIFY ops when a hit may move regs->ip:
 * a post_handler (it sees ip past the fentry call, and is what
 * fail_function-style redirection uses) or a jprobe (ip goes to its
 * handler).
 */
static bool kprobe_site_ipmodify(struct kprobe_site *s)
{
	/* a classic backend's site stays on its ops (kprobes_classic.c) */
	if (IS_ENABLED(CONFIG_KPROBES_CLASSIC) && (s->flags & KPROBE_SITE_ARMED))
		return s->ftrace.armed_ipmodify;
	return kprobe_site_has_post(s) || kprobe_site_has_jprobe(s);
}

/**
 * kprobe_ftrace_queue() - have a batch change an ftrace site's hook
 * @s: the ftrace site, whose probes changed
 * @b: the batch whose kprobe_batch_ftrace() makes the change
 */
void kprobe_ftrace_queue(struct kprobe_site *s, struct kprobe_batch *b)
{
	kprobe_assert_locked();
	if (list_empty(&s->ftrace.node))
		list_add_tail(&s->ftrace.node, &b->ftrace);
}

/**
 * kprobe_ftrace_dequeue() - take an ftrace site off its batch's changes
 * @s: the site, queued by kprobe_ftrace_queue()
 */
void kprobe_ftrace_dequeue(struct kprobe_site *s)
{
	kprobe_assert_locked();
	list_del_init(&s->ftrace.node);
}

/* hooked on ftrace: which of arch_ftrace_sites_update()'s lists a site is in */
enum { FT_ADD, FT_ADD_IPMODIFY, FT_DEL, FT_DEL_IPMODIFY, FT_LISTS };

/* hooked, and wants to stay hooked but on the other ops */
static bool ftrace_site_moves(struct kprobe_site *s)
{
	return (s->flags & KPROBE_SITE_ARMED) && kprobe_site_wants_armed(s) &&
	       kprobe_site_ipmodify(s) != s->ftrace.armed_ipmodify;
}

/*
 * Bring the ftrace sites on @sites to what their probes want now (hooked
 * or not, on which ops): the differences go to ftrace in one update per
 * ops and direction, whatever their number.  @buf has room for
 * FT_LISTS * @cnt addresses.  Empties @sites.
 *
 * A site moving to the other ops is hooked there before it is unhooked
 * from its old one (make-before-break), with a wait for every CPU to
 * leave ftrace's ops list between the steps; while on both, one
 * callback of the two acts (see arch/x86/kernel/kprobes/ftrace.c).  So a
 * call to it always runs its probes, exactly once.  If the new ops
 * refuses it (another IPMODIFY user owns the function), it stays where it
 * was and the error is returned.
 */
static int ftrace_sync_sites(struct list_head *sites, unsigned long *buf,
			     int cnt)
{
	unsigned long *ips[FT_LISTS];
	int n[FT_LISTS] = { 0 }, ret = 0, err, i;
	bool hooked[2] = { true, true }, moving = false, unhooked_plain = false;
	bool carriers_hooked = false;
	struct kprobe_site *s, *t;

	for (i = 0; i < FT_LISTS; i++)
		ips[i] = buf + i * cnt;
	list_for_each_entry(s, sites, ftrace.node) {
		bool armed = s->flags & KPROBE_SITE_ARMED;
		bool want = kprobe_site_wants_armed(s), post = kprobe_site_ipmodify(s);

		if (ftrace_site_moves(s)) {
			WRITE_ONCE(s->ftrace.dual, true);
			moving = true;
		} else if (armed && !want) {
			/* its hook stays while nothing else changes */
			if (!s->ftrace.armed_ipmodify && kprobe_idle_hook_add(s->addr))
				continue;
			i = s->ftrace.armed_ipmodify ? FT_DEL_IPMODIFY : FT_DEL;
			ips[i][n[i]++] = s->addr;
			continue;
		} else if (armed || !want) {
			continue;
		} else if (kprobe_idle_hook_take(s->addr)) {
			if (!post) {
				/* hooked already: armed from now on */
				s->flags |= KPROBE_SITE_ARMED;
				s->ftrace.armed_ipmodify = false;
				continue;
			}
			/* off the plain ops in this update, once on the other */
			ips[FT_DEL][n[FT_DEL]++] = s->addr;
			unhooked_plain = true;
		}
		i = post ? FT_ADD_IPMODIFY : FT_ADD;
		ips[i][n[i]++] = s->addr;
	}
	/* every callback from now on sees which sites are on both */
	if (moving)
		arch_ftrace_sites_sync();
	for (i = 0; i < 2; i++) {
		err = arch_ftrace_sites_update(i, ips[FT_ADD + i],
					       n[FT_ADD + i], NULL, 0);
		if (err) {
			hooked[i] = false;
			ret = ret ?: err;
		}
	}
	if (moving) {
		/* every call from now on finds the movers on their new ops */
		arch_ftrace_sites_sync();
		list_for_each_entry(s, sites, ftrace.node) {
			if (!ftrace_site_moves(s) || !hooked[kprobe_site_ipmodify(s)])
				continue;
			i = s->ftrace.armed_ipmodify ? FT_DEL_IPMODIFY : FT_DEL;
			ips[i][n[i]++] = s->addr;
		}
	}
	for (i = 0; i < 2; i++)
		arch_ftrace_sites_update(i, NULL, 0, ips[FT_DEL + i], n[FT_DEL + i]);
	/*
	 * every call from now on finds each mover on one ops only, and no
	 * callback of the plain ops still runs for an idle hook taken
	 * over by the IPMODIFY one
	 */
	if (moving || unhooked_plain)
		arch_ftrace_sites_sync();

	/* the same decisions again, now recorded in the sites */
	list_for_each_entry_safe(s, t, sites, ftrace.node) {
		bool armed = s->flags & KPROBE_SITE_ARMED;
		bool want = kprobe_site_wants_armed(s), post = kprobe_site_ipmodify(s);

		list_del_init(&s->ftrace.node);
		WRITE_ONCE(s->ftrace.dual, false);
		if (armed && !want) {
			armed = false;
		} else if (want && hooked[post] &&
			   (!armed || post != s->ftrace.armed_ipmodify)) {
			armed = true;
			s->ftrace.armed_ipmodify = post;
		}
		if (armed)
			s->flags |= KPROBE_SITE_ARMED;
		else
			s->flags &= ~KPROBE_SITE_ARMED;
		if (armed && kprobe_carrier_hooked(s, kprobe_hook_seq + 1))
			carriers_hooked = true;
	}
	if (carriers_hooked)
		kprobe_hook_seq++;
	return ret;
}

/* is ip's hook an idle one? */
bool kprobe_idle_hook_at(unsigned long ip)
{
	struct kprobe_idle_hook *l;

	kprobe_assert_locked();
	if (!kprobe_nr_idle_hooks)
		return false;
	hash_for_each_possible(kprobe_idle_hooks, l, node, ip) {
		if (l->ip == ip)
			return true;
	}
	return false;
}

/*
 * Apply the ftrace filter changes a batch collected.  Called with
 * kprobe_mutex held, before it is dropped, by every path that re-synced
 * sites.
 *
 * Return: 0, or ftrace's error for sites to hook (they stay unhooked;
 * register_kprobes() then rolls its probes back).
 */
int kprobe_batch_ftrace(struct kprobe_batch *b)
{
	unsigned long *buf, one[FT_LISTS], seq = kprobe_hook_seq;
	struct kprobe_site *s;
	int cnt = 0, ret = 0, err;
	bool moving = false;

	kprobe_assert_locked();
	kprobe_carriers_sync(b);
	kprobe_batch_for_each_ftrace(s, b) {
		moving |= !!kprobe_site_carrier_moving(s);
		cnt++;
	}
	if (!cnt)
		return 0;
	buf = kvmalloc_array(FT_LISTS * cnt, sizeof(*buf), GFP_KERNEL);
	if (buf) {
		ret = ftrace_sync_sites(&b->ftrace, buf, cnt);
		kvfree(buf);
	} else {
		/* no memory for the lists: one site at a time */
		while (!list_empty(&b->ftrace)) {
			LIST_HEAD(single);

			list_move(b->ftrace.next, &single);
			err = ftrace_sync_sites(&single, one, 1);
			ret = ret ?: err;
		}
	}
	if (moving) {
		if (kprobe_hook_seq != seq)
			kprobe_carriers_kick();
		kprobe_carriers_refused();
	}
	return ret;
}

#ifdef CONFIG_KPROBES_ON_FTRACE
/**
 * kprobe_ftrace_ops_update() - change the fentry sites hooked on an ops
 * @ops: one of the backend's ftrace_ops
 * @users: how many sites @ops has hooked (the backend's count for it)
 * @add: sites to hook
 * @nadd: how many
 * @del: sites to unhook (all hooked on @ops)
 * @ndel: how many
 * @registering: called before @ops is registered, or NULL
 *
 * The body of a backend's arch_ftrace_sites_update(): one filter update (one
 * code patch by ftrace) for each direction, however many sites.  @ops is
 * unregistered before its filter could become empty (an empty filter
 * means every function) and registered once it has one.  Under
 * kprobe_mutex.
 *
 * Return: 0, or ftrace's error for @add (then none of @add is hooked;
 * @del is done regardless).
 */
int kprobe_ftrace_ops_update(struct ftrace_ops *ops, int *users,
			     unsigned long *add, int nadd,
			     unsigned long *del, int ndel,
			     void (*registering)(struct ftrace_ops *ops))
{
	int ret;

	kprobe_assert_locked();
	if (ndel) {
		if (*users == ndel)
			WARN_ON_ONCE(unregister_ftrace_function(ops));
		*users -= ndel;
		WARN_ON_ONCE(ftrace_set_filter_ips(ops, del, ndel, 1, 0));
	}
	if (!nadd)
		return 0;
	ret = ftrace_set_filter_ips(ops, add, nadd, 0, 0);
	if (ret) {
		pr_debug("kprobes: ftrace filter for %d site(s) failed (%d)\n",
			 nadd, ret);
		return ret;
	}
	if (*users == 0) {
		if (registering)
			registering(ops);
		ret = register_ftrace_function(ops);
		if (ret) {
			ftrace_set_filter_ips(ops, add, nadd, 1, 0);
			return ret;
		}
	}
	*users += nadd;
	return 0;
}
#endif
