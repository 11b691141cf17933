// SPDX-License-Identifier: GPL-2.0-only
/*
 * wprobe_example: who writes a kernel variable?
 *
 * A watchpoint probe (register_wprobe()) on the variable named by the
 * "symbol" parameter (jiffies by default) reports each write with the
 * instruction that made it, symbolised: the CPU reports the ip after the
 * store, so the line names the writing function.  The first "report"
 * writes are printed; the total is printed at unload.
 *
 * For more information on watchpoint probes, see
 * Documentation/trace/wprobes.rst.
 *
 * Build and insert the module:
 *	insmod wprobe_example.ko symbol=kptr_restrict
 * then write it (echo 1 > /proc/sys/kernel/kptr_restrict) and look at the
 * kernel log.
 */
#define pr_fmt(fmt) "%s: " fmt, KBUILD_MODNAME

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/kallsyms.h>
#include <linux/wprobes.h>
#include <linux/ptrace.h>

static char symbol[KSYM_NAME_LEN] = "jiffies";
module_param_string(symbol, symbol, KSYM_NAME_LEN, 0644);
static unsigned int report = 10;
module_param(report, uint, 0644);

static atomic_t writes;

/* from the debug exception, after the write: no sleeping here */
static void handler(struct wprobe *wp, struct pt_regs *regs)
{
	unsigned int n = atomic_inc_return(&writes);

	if (n <= report)
		pr_info("<%s> written by %pS, now 0x%x (write #%u)\n", symbol,
			(void *)instruction_pointer(regs),
			READ_ONCE(*(u32 *)wp->addr), n);
}

static struct wprobe wp = {
	.symbol_name	= symbol,
	.len		= 4,
	.type		= WPROBE_W,
	.handler	= handler,
};

static int __init wprobe_init(void)
{
	int ret;

	ret = register_wprobe(&wp);
	if (ret < 0) {
		pr_err("register_wprobe on %s failed, returned %d\n", symbol, ret);
		return ret;
	}
	pr_info("watching writes to %s at %p\n", symbol, wp.addr);
	return 0;
}

static void __exit wprobe_exit(void)
{
	unregister_wprobe(&wp);
	pr_info("%s: %d writes seen, %lu missed, the register yielded %lu times\n",
		symbol, atomic_read(&writes), wp.nmissed, wp.nyielded);
}

module_init(wprobe_init)
module_exit(wprobe_exit)
MODULE_DESCRIPTION("sample watchpoint probe: who writes a kernel variable");
MODULE_LICENSE("GPL");
