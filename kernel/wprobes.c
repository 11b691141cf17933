// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Watchpoint probes (wprobes): kernel data watchpoints on every CPU,
 * made of pinned per-CPU hw_breakpoint events, that give their debug
 * registers up to debuggers and take them back when one frees.  The OLS
 * paper on kprobes (2006, §8.2) proposed them as the next kind of probe;
 * Documentation/trace/wprobes.rst is the user's guide.
 */
#define pr_fmt(fmt) "wprobes: " fmt

#include <linux/wprobes.h>
#include <linux/kprobes.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <linux/kallsyms.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/workqueue.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>

/*
 * wp->state, each change under wprobe_mutex:
 *   FREE     not registered (a zeroed struct)
 *   ARMED    its events exist on every online CPU; WPROBE_FLAG_DISABLED
 *            keeps them (and the registers) but stopped, so enabling it
 *            again cannot fail
 *   YIELDED  it gave its register up to a task's breakpoint and has no
 *            events; the re-arm work brings it back when a register frees
 *   GONE     it watched a module's memory and the module went away
 */
enum {
	WPROBE_STATE_FREE,
	WPROBE_STATE_ARMED,
	WPROBE_STATE_YIELDED,
	WPROBE_STATE_GONE,
};

/*
 * Lock order: cpu hotplug lock -> wprobe_mutex -> perf's own locks.
 * Arming walks the online CPUs, so it holds cpus_read_lock(); the
 * hotplug callbacks run with the hotplug lock held already.  Yielding
 * runs from perf_event_alloc() with no lock of perf or hotplug held; it
 * only releases events, which needs wprobe_mutex alone.  The hit takes
 * no lock (wprobe_hit()).
 */
static DEFINE_MUTEX(wprobe_mutex);
/* every registered wprobe, oldest first */
static LIST_HEAD(wprobe_list);
/* how many are YIELDED: read locklessly by wprobe_bp_released() */
static unsigned int wprobes_yielded_now;
static bool wprobe_ready;

static void wprobe_rearm_fn(struct work_struct *work);
static DECLARE_WORK(wprobe_rearm_work, wprobe_rearm_fn);

/* ---- the hit ------------------------------------------------------------ */

/*
 * perf's overflow handler for our events: one call per hit, since the
 * events count with a period of one and sample nothing (so perf never
 * throttles them, whatever the hit rate).
 *
 * It runs from the debug exception, NMI-like, with the debug registers
 * off (x86 clears DR7 for the handler): no lock, no sleeping; it reads
 * only the wprobe.  It and what it calls are NOKPROBE: a kprobe there
 * would trap inside #DB.
 */
static void wprobe_hit(struct perf_event *bp, struct perf_sample_data *data,
		       struct pt_regs *regs)
{
	struct wprobe *wp = bp->overflow_handler_context;

	/* a probe handler already runs on this CPU: never nest into it */
	if (unlikely(kprobe_handler_running())) {
		/* a statistic, like a kprobe's: two CPUs may race on it */
		data_race(wp->nmissed++);
		return;
	}
	/* and the other way round: a kprobe hit from our handler is missed */
	kprobe_busy_begin();
	wp->handler(wp, regs);
	kprobe_busy_end();
}

NOKPROBE_SYMBOL(wprobe_hit);

/* ---- arming and disarming -------------------------------------------------- */

static void wprobe_attr(struct wprobe *wp, struct perf_event_attr *attr)
{
	hw_breakpoint_init(attr);
	attr->bp_addr = (unsigned long)wp->addr;
	switch (wp->type) {
	case WPROBE_W:
		attr->bp_type = HW_BREAKPOINT_W;
		attr->bp_len = wp->len;
		break;
	case WPROBE_RW:
		attr->bp_type = HW_BREAKPOINT_RW;
		attr->bp_len = wp->len;
		break;
	case WPROBE_R:
		/* hw_breakpoint refuses it where the CPU cannot (x86) */
		attr->bp_type = HW_BREAKPOINT_R;
		attr->bp_len = wp->len;
		break;
	default:
		/* instruction breakpoints take the length of a long */
		attr->bp_type = HW_BREAKPOINT_X;
		attr->bp_len = sizeof(long);
		break;
	}
	attr->disabled = !!(wp->flags & WPROBE_FLAG_DISABLED);
}

static int wprobe_arm_cpu(struct wprobe *wp, int cpu)
{
	struct perf_event_attr attr;
	struct perf_event *bp;

	wprobe_attr(wp, &attr);
	bp = perf_event_create_kernel_counter(&attr, cpu, NULL, wprobe_hit, wp);
	if (IS_ERR(bp))
		return PTR_ERR(bp);
	*per_cpu_ptr(wp->events, cpu) = bp;
	return 0;
}

static void wprobe_disarm_cpu(struct wprobe *wp, int cpu)
{
	struct perf_event **slot = per_cpu_ptr(wp->events, cpu);

	if (*slot) {
		perf_event_release_kernel(*slot);
		*slot = NULL;
	}
}

static void wprobe_disarm(struct wprobe *wp)
{
	int cpu;

	lockdep_assert_held(&wprobe_mutex);
	for_each_possible_cpu(cpu)
		wprobe_disarm_cpu(wp, cpu);
}

/*
 * Events on every online CPU, or on none; cpus_read_lock() held.
 *
 * A wprobe is one debug register on each online CPU: one pinned,
 * CPU-bound perf breakpoint event per CPU (hw_breakpoint does the slot
 * accounting and programs the register), created here or when the CPU
 * comes online (wprobe_cpu_online()) and released when it goes down, so
 * that a CPU brought up after registration is watched too
 * (register_wide_hw_breakpoint() only ever sees the CPUs online at the
 * time).  The per-CPU events of a wprobe live and die together: a wprobe
 * is ARMED on every online CPU or on none.
 */
static int wprobe_arm(struct wprobe *wp)
{
	int cpu, ret;

	lockdep_assert_cpus_held();
	lockdep_assert_held(&wprobe_mutex);
	for_each_online_cpu(cpu) {
		ret = wprobe_arm_cpu(wp, cpu);
		if (ret) {
			wprobe_disarm(wp);
			return ret;
		}
	}
	return 0;
}

static void wprobe_set_yielded(struct wprobe *wp)
{
	wprobe_disarm(wp);
	wp->state = WPROBE_STATE_YIELDED;
	wp->nyielded++;
	WRITE_ONCE(wprobes_yielded_now, wprobes_yielded_now + 1);
}

static void wprobe_leave_state(struct wprobe *wp)
{
	if (wp->state == WPROBE_STATE_YIELDED)
		WRITE_ONCE(wprobes_yielded_now, wprobes_yielded_now - 1);
}

/* ---- yielding and re-arming ------------------------------------------------ */

/* the wprobe to yield next: the newest disabled one, else the newest */
static struct wprobe *wprobe_yield_victim(void)
{
	struct wprobe *wp, *armed = NULL;

	list_for_each_entry_reverse(wp, &wprobe_list, list) {
		if (wp->state != WPROBE_STATE_ARMED)
			continue;
		if (wp->flags & WPROBE_FLAG_DISABLED)
			return wp;
		if (!armed)
			armed = wp;
	}
	return armed;
}

/**
 * wprobe_yield() - give debug registers up to a task's breakpoint
 * @bp: the task-bound breakpoint event that found no free register
 * @retry: reserves @bp's register again; 0 or an errno
 *
 * Debug registers are few (four on x86) and a debugger cannot do without
 * them, while a tracing watchpoint can wait.  So:
 *
 *  1. A task-bound breakpoint (ptrace's DR0-3, a per-task perf event)
 *     finds no free register (-ENOSPC): hw_breakpoint_event_init(), the
 *     only caller, calls this.
 *  2. The newest wprobe gives its register up (wprobe_yield_victim()): a
 *     disabled one first, since it loses nothing.
 *  3. The task's reservation is retried (@retry); steps 2 and 3 repeat
 *     until it fits or no wprobe is left to yield.
 *  4. When a breakpoint other than ours is released
 *     (wprobe_bp_released()), or a wprobe is unregistered, the re-arm
 *     work tries the yielded wprobes again, oldest first.
 *
 * Only fresh requests yield: an event inherited across fork is created
 * with its parent's context mutex held, where releasing our CPU events
 * (which takes CPU context mutexes of the same lock class) is not
 * allowed.  Called with no lock held.
 *
 * Return: what the last @retry returned (-ENOSPC if nothing could yield).
 */
int wprobe_yield(struct perf_event *bp, int (*retry)(struct perf_event *bp))
{
	struct wprobe *wp;
	int ret = -ENOSPC;
	bool yielded = false;

	mutex_lock(&wprobe_mutex);
	while (ret == -ENOSPC && (wp = wprobe_yield_victim())) {
		wprobe_set_yielded(wp);
		yielded = true;
		ret = retry(bp);
	}
	mutex_unlock(&wprobe_mutex);
	/* yielding did not make room after all: take the registers back */
	if (ret && yielded)
		schedule_work(&wprobe_rearm_work);
	return ret;
}

/**
 * wprobe_bp_released() - a breakpoint's register is free again
 * @bp: the breakpoint event being destroyed
 *
 * Called by hw_breakpoint for every breakpoint event it releases; kicks
 * the re-arm work if a wprobe waits for a register.  Our own events are
 * left out: a re-arm that fails half-way releases some, and must not
 * call itself back for ever.
 */
void wprobe_bp_released(struct perf_event *bp)
{
	if (bp->overflow_handler == wprobe_hit)
		return;
	if (READ_ONCE(wprobes_yielded_now))
		schedule_work(&wprobe_rearm_work);
}

static void wprobe_rearm_fn(struct work_struct *work)
{
	struct wprobe *wp;

	cpus_read_lock();
	mutex_lock(&wprobe_mutex);
	list_for_each_entry(wp, &wprobe_list, list) {
		if (wp->state != WPROBE_STATE_YIELDED)
			continue;
		/* no register: the ones after it would find none either */
		if (wprobe_arm(wp))
			break;
		wprobe_leave_state(wp);
		wp->state = WPROBE_STATE_ARMED;
	}
	mutex_unlock(&wprobe_mutex);
	cpus_read_unlock();
}

/* ---- CPU hotplug -------------------------------------------------------------- */

/*
 * A CPU comes online: every armed wprobe gets its event there.  If one
 * cannot (a task's breakpoint pinned on that CPU holds the register), the
 * wprobe yields everywhere rather than watch some CPUs only.
 */
static int wprobe_cpu_online(unsigned int cpu)
{
	struct wprobe *wp;

	mutex_lock(&wprobe_mutex);
	list_for_each_entry(wp, &wprobe_list, list) {
		if (wp->state == WPROBE_STATE_ARMED && wprobe_arm_cpu(wp, cpu))
			wprobe_set_yielded(wp);
	}
	mutex_unlock(&wprobe_mutex);
	return 0;
}

/* a CPU goes down: its events go, the register is cleared with them */
static int wprobe_cpu_offline(unsigned int cpu)
{
	struct wprobe *wp;

	mutex_lock(&wprobe_mutex);
	list_for_each_entry(wp, &wprobe_list, list)
		wprobe_disarm_cpu(wp, cpu);
	mutex_unlock(&wprobe_mutex);
	return 0;
}

/* ---- registration ------------------------------------------------------------- */

static bool wprobe_listed(struct wprobe *wp)
{
	struct wprobe *p;

	list_for_each_entry(p, &wprobe_list, list)
		if (p == wp)
			return true;
	return false;
}

/* resolve and check wp's address, length and type: 0 or an errno */
static int wprobe_check(struct wprobe *wp)
{
	unsigned long addr;

	if (!wp->handler)
		return -EINVAL;
	if (wp->symbol_name) {
		if (wp->addr)
			return -EINVAL;
		addr = kallsyms_lookup_name(wp->symbol_name);
		if (!addr)
			return -ENOENT;
		addr += wp->offset;
	} else {
		addr = (unsigned long)wp->addr;
		if (!addr || wp->offset)
			return -EINVAL;
	}

	switch (wp->type) {
	case WPROBE_W:
	case WPROBE_RW:
	case WPROBE_R:
		if (wp->len != 1 && wp->len != 2 && wp->len != 4 &&
		    wp->len != sizeof(long))
			return -EINVAL;
		if (addr & (wp->len - 1))
			return -EINVAL;
		break;
	case WPROBE_X:
		/* an instruction of the kernel that kprobes may probe too */
		if (wp->len || !kernel_text_address(addr) ||
		    within_kprobe_blacklist(addr))
			return -EINVAL;
		break;
	default:
		return -EINVAL;
	}
	/* kernel memory only: a user address belongs to a task */
	if (access_ok((void __user *)addr, wp->len ? wp->len : 1))
		return -EINVAL;

	wp->addr = (void *)addr;
	return 0;
}

static int __register_wprobe(struct wprobe *wp)
{
	void *addr = wp->addr;
	int ret;

	lockdep_assert_held(&wprobe_mutex);
	if (!wprobe_ready)
		return -EAGAIN;
	if (wp->state != WPROBE_STATE_FREE || wprobe_listed(wp))
		return -EBUSY;
	ret = wprobe_check(wp);
	if (ret)
		goto restore;

	wp->events = alloc_percpu(struct perf_event *);
	if (!wp->events) {
		ret = -ENOMEM;
		goto restore;
	}
	wp->nmissed = 0;
	wp->nyielded = 0;
	ret = wprobe_arm(wp);
	if (ret) {
		free_percpu(wp->events);
		wp->events = NULL;
		goto restore;
	}
	wp->state = WPROBE_STATE_ARMED;
	list_add_tail(&wp->list, &wprobe_list);
	return 0;

restore:
	/* a refused wprobe is left as the caller gave it */
	wp->addr = addr;
	return ret;
}

static void __unregister_wprobe(struct wprobe *wp)
{
	lockdep_assert_held(&wprobe_mutex);
	if (wp->state == WPROBE_STATE_FREE || !wprobe_listed(wp))
		return;
	wprobe_disarm(wp);
	wprobe_leave_state(wp);
	list_del(&wp->list);
	free_percpu(wp->events);
	wp->events = NULL;
	wp->state = WPROBE_STATE_FREE;
	/* a symbol's address is found again at the next registration */
	if (wp->symbol_name)
		wp->addr = NULL;
}

/**
 * register_wprobes() - register several watchpoint probes
 * @wps: the wprobes
 * @num: how many
 *
 * All or nothing: if one is refused, those registered before it are
 * unregistered again.
 *
 * Return: 0, or the errno of the first wprobe refused (see
 * register_wprobe()).
 */
int register_wprobes(struct wprobe **wps, int num)
{
	int i, ret = 0;

	if (num <= 0 || !wps)
		return -EINVAL;
	cpus_read_lock();
	mutex_lock(&wprobe_mutex);
	for (i = 0; i < num; i++) {
		ret = __register_wprobe(wps[i]);
		if (ret) {
			while (--i >= 0)
				__unregister_wprobe(wps[i]);
			break;
		}
	}
	mutex_unlock(&wprobe_mutex);
	cpus_read_unlock();
	return ret;
}
EXPORT_SYMBOL_GPL(register_wprobes);

/**
 * register_wprobe() - watch kernel memory on every CPU
 * @wp: the wprobe: @symbol_name (+@offset) or @addr, @len, @type,
 *	@handler, @flags; the rest zeroed
 *
 * The watchpoint is armed on every online CPU, and on each CPU that comes
 * online later, when this returns (unless WPROBE_FLAG_DISABLED was set).
 *
 * Return: 0 on success; -EINVAL for a bad length, alignment or type (a
 * read-only watchpoint on a CPU that has none, as x86), no
 * handler, both or neither of @symbol_name and @addr, a user address, or
 * an address hw_breakpoint refuses (the CPU entry area; for WPROBE_X, an
 * address outside kernel text or on the kprobe blacklist); -ENOENT for
 * an unknown symbol; -EBUSY if @wp is registered already; -ENOSPC if no
 * debug register is free on some CPU.  A refused wprobe changes nothing.
 */
int register_wprobe(struct wprobe *wp)
{
	return register_wprobes(&wp, 1);
}
EXPORT_SYMBOL_GPL(register_wprobe);

/**
 * unregister_wprobes() - unregister several watchpoint probes
 * @wps: the wprobes
 * @num: how many
 *
 * Ones not registered are skipped.  When this returns, no handler of
 * these wprobes runs any more: releasing an event removes it from its
 * CPU by an IPI, which that CPU takes only with interrupts on, that is,
 * after any hit it is handling finished.
 */
void unregister_wprobes(struct wprobe **wps, int num)
{
	bool freed = false;
	int i;

	if (num <= 0 || !wps)
		return;
	mutex_lock(&wprobe_mutex);
	for (i = 0; i < num; i++) {
		freed |= wps[i]->state == WPROBE_STATE_ARMED;
		__unregister_wprobe(wps[i]);
	}
	mutex_unlock(&wprobe_mutex);
	/* registers freed: a yielded wprobe may have its turn */
	if (freed && READ_ONCE(wprobes_yielded_now))
		schedule_work(&wprobe_rearm_work);
}
EXPORT_SYMBOL_GPL(unregister_wprobes);

/**
 * unregister_wprobe() - stop watching
 * @wp: a wprobe registered with register_wprobe()
 *
 * When this returns, @wp's handler no longer runs; @wp may be freed.
 */
void unregister_wprobe(struct wprobe *wp)
{
	unregister_wprobes(&wp, 1);
}
EXPORT_SYMBOL_GPL(unregister_wprobe);

static int wprobe_set_disabled(struct wprobe *wp, bool off)
{
	int cpu;

	guard(mutex)(&wprobe_mutex);
	if (wp->state == WPROBE_STATE_FREE || !wprobe_listed(wp))
		return -EINVAL;
	if (off == !!(wp->flags & WPROBE_FLAG_DISABLED))
		return 0;
	if (off)
		wp->flags |= WPROBE_FLAG_DISABLED;
	else
		wp->flags &= ~WPROBE_FLAG_DISABLED;
	/* a YIELDED or GONE wprobe has no events: its flag is all there is */
	if (wp->state != WPROBE_STATE_ARMED)
		return 0;
	for_each_possible_cpu(cpu) {
		struct perf_event *bp = *per_cpu_ptr(wp->events, cpu);

		if (!bp)
			continue;
		if (off)
			perf_event_disable(bp);
		else
			perf_event_enable(bp);
	}
	return 0;
}

/**
 * enable_wprobe() - run the handler again on hits
 * @wp: a registered wprobe
 *
 * Cannot fail for lack of registers: a disabled wprobe keeps them.
 *
 * Return: 0, or -EINVAL if @wp is not registered.
 */
int enable_wprobe(struct wprobe *wp)
{
	return wprobe_set_disabled(wp, false);
}
EXPORT_SYMBOL_GPL(enable_wprobe);

/**
 * disable_wprobe() - stop hits without unregistering
 * @wp: a registered wprobe
 *
 * The debug registers stay reserved (a task that needs one takes it
 * from a disabled wprobe first).
 *
 * Return: 0, or -EINVAL if @wp is not registered.
 */
int disable_wprobe(struct wprobe *wp)
{
	return wprobe_set_disabled(wp, true);
}
EXPORT_SYMBOL_GPL(disable_wprobe);

/**
 * wprobe_yielded() - has this wprobe given its register up?
 * @wp: a registered wprobe
 *
 * Return: true while @wp waits for a debug register (it runs no handler).
 */
bool wprobe_yielded(struct wprobe *wp)
{
	return READ_ONCE(wp->state) == WPROBE_STATE_YIELDED;
}
EXPORT_SYMBOL_GPL(wprobe_yielded);

/* ---- modules ---------------------------------------------------------------- */

#ifdef CONFIG_MODULES
/*
 * A module goes away: wprobes on its memory stop (their address is about
 * to be reused for something else) and show [GONE] until unregistered.
 */
static int wprobe_module_notify(struct notifier_block *nb, unsigned long val,
				void *data)
{
	struct module *mod = data;
	struct wprobe *wp;

	if (val != MODULE_STATE_GOING)
		return NOTIFY_DONE;
	mutex_lock(&wprobe_mutex);
	list_for_each_entry(wp, &wprobe_list, list) {
		if (wp->state == WPROBE_STATE_GONE ||
		    !within_module((unsigned long)wp->addr, mod))
			continue;
		wprobe_disarm(wp);
		wprobe_leave_state(wp);
		wp->state = WPROBE_STATE_GONE;
	}
	mutex_unlock(&wprobe_mutex);
	return NOTIFY_DONE;
}

static struct notifier_block wprobe_module_nb = {
	.notifier_call = wprobe_module_notify,
};
#endif

/* ---- kprobes/list --------------------------------------------------------------- */

static const char *const wprobe_type_names[] = {
	[WPROBE_W] = "w", [WPROBE_RW] = "rw", [WPROBE_X] = "x", [WPROBE_R] = "r",
};

/*
 * The wprobe lines of debugfs kprobes/list, after the kprobes':
 * "ADDR  w  SYM+OFF  [MOD] len=N TYPE [GONE][YIELDED][DISABLED]", TYPE
 * one of w, rw, x, r; the address is shown as kallsyms shows addresses to
 * this reader.
 */
static void wprobes_list_show(struct seq_file *m)
{
	char namebuf[KSYM_NAME_LEN];
	unsigned long offset;
	struct wprobe *wp;
	unsigned long addr;
	char *modname;
	const char *sym;

	guard(mutex)(&wprobe_mutex);
	list_for_each_entry(wp, &wprobe_list, list) {
		modname = NULL;
		sym = NULL;
		if (wp->state != WPROBE_STATE_GONE)
			sym = kallsyms_lookup((unsigned long)wp->addr, NULL,
					      &offset, &modname, namebuf);
		addr = kprobe_shown_addr(m, wp->addr);
		if (sym)
			seq_printf(m, "%0*lx  w  %s+0x%lx  %s ", KPROBE_ADDR_WIDTH,
				   addr, sym, offset, modname ? modname : " ");
		else
			seq_printf(m, "%0*lx  w  %0*lx ", KPROBE_ADDR_WIDTH, addr,
				   KPROBE_ADDR_WIDTH, addr);
		seq_printf(m, "len=%u %s %s%s%s\n", wp->len,
			   wprobe_type_names[wp->type],
			   wp->state == WPROBE_STATE_GONE ? "[GONE]" : "",
			   wp->state == WPROBE_STATE_YIELDED ? "[YIELDED]" : "",
			   (wp->flags & WPROBE_FLAG_DISABLED) ? "[DISABLED]" : "");
	}
}

static struct kprobe_list_source wprobes_list_source = {
	.show = wprobes_list_show,
};

/* ---- init ----------------------------------------------------------------------- */

static int __init init_wprobes(void)
{
	int ret;

	/* after perf's own CPU state (CPUHP_AP_PERF_ONLINE) is up */
	ret = cpuhp_setup_state_nocalls(CPUHP_AP_ONLINE_DYN, "wprobes:online",
					wprobe_cpu_online, wprobe_cpu_offline);
	if (ret < 0) {
		pr_err("no CPU hotplug state: %d\n", ret);
		return ret;
	}
#ifdef CONFIG_MODULES
	register_module_notifier(&wprobe_module_nb);
#endif
	kprobe_list_add_source(&wprobes_list_source);
	mutex_lock(&wprobe_mutex);
	wprobe_ready = true;
	mutex_unlock(&wprobe_mutex);
	return 0;
}

/* hw_breakpoint's constraints are set up at core_initcall time */
postcore_initcall(init_wprobes);
