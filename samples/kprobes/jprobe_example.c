// SPDX-License-Identifier: GPL-2.0-only
/*
 * jprobe_example: the arguments of kernel_clone(), seen by a handler with
 * its prototype, on every fork.
 *
 * A jprobe's handler is called in place of the probed function, with the
 * same arguments, just before the function runs; it must end with
 * jprobe_return().  Here it prints what each fork asks for.
 *
 * For more information on jprobes, see Documentation/trace/kprobes-design.rst.
 *
 * Build and insert the module:
 *	insmod jprobe_example.ko
 * then fork anything, and look at the kernel log.
 */
#define pr_fmt(fmt) "%s: " fmt, KBUILD_MODNAME

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/kprobes.h>
#include <linux/sched/task.h>

static char symbol[KSYM_NAME_LEN] = "kernel_clone";
module_param_string(symbol, symbol, KSYM_NAME_LEN, 0644);

/* Same prototype as kernel_clone() */
static pid_t j_kernel_clone(struct kernel_clone_args *args)
{
	pr_info("<%s> flags = 0x%llx, exit_signal = %d, stack = 0x%lx, stack_size = %lu\n",
		symbol, args->flags, args->exit_signal, args->stack,
		args->stack_size);

	/* Always end with a call to jprobe_return(). */
	jprobe_return();
	return 0;
}

static struct jprobe my_jprobe = {
	.entry = JPROBE_ENTRY(j_kernel_clone),
};

static int __init jprobe_init(void)
{
	int ret;

	my_jprobe.kp.symbol_name = symbol;
	ret = register_jprobe(&my_jprobe);
	if (ret < 0) {
		pr_err("register_jprobe failed, returned %d\n", ret);
		return ret;
	}
	pr_info("Planted jprobe at %p, handler addr %p\n",
		my_jprobe.kp.addr, my_jprobe.entry);
	return 0;
}

static void __exit jprobe_exit(void)
{
	unregister_jprobe(&my_jprobe);
	pr_info("jprobe at %p unregistered, missed %lu\n",
		my_jprobe.kp.addr, my_jprobe.kp.nmissed);
}

module_init(jprobe_init)
module_exit(jprobe_exit)
MODULE_DESCRIPTION("sample kernel module showing the use of jprobes");
MODULE_LICENSE("GPL");
