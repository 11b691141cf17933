// SPDX-License-Identifier: GPL-2.0
/*
 * kpt_uconsumer: the benchmark's reference for a uprobe hit through the
 * kernel's own consumer API (uprobe_register() on a file and offset, a
 * handler that counts), to set beside register_uprobe() and a tracefs
 * uprobe event.  Builds against both kernels: the type uprobe_register()
 * returns is named through typeof, as it differs between them.
 *
 *   insmod kpt_uconsumer.ko path=FILE offset=OFF [ret=1]; ...; cat .../hits
 *
 * With ret=1 the consumer has a ret_handler only (a uretprobe: the
 * function at OFF), which counts the returns.
 */
#include <linux/module.h>
#include <linux/namei.h>
#include <linux/uprobes.h>
#include <linux/err.h>

static char *path;
module_param(path, charp, 0);
MODULE_PARM_DESC(path, "the probed file");

static unsigned long offset;
module_param(offset, ulong, 0);
MODULE_PARM_DESC(offset, "offset of the probed instruction in it");

static bool ret;
module_param(ret, bool, 0);
MODULE_PARM_DESC(ret, "count the returns of the function at offset instead");

static unsigned long hits;
module_param(hits, ulong, 0444);
MODULE_PARM_DESC(hits, "handler calls so far");

static struct path fpath;
static typeof(uprobe_register(NULL, 0, 0, NULL)) probe;

static int count(struct uprobe_consumer *uc, struct pt_regs *regs)
{
	hits++;	/* one thread runs the benchmark loop */
	return 0;
}

static int count_ret(struct uprobe_consumer *uc, unsigned long func,
		     struct pt_regs *regs)
{
	hits++;
	return 0;
}

static struct uprobe_consumer uc = {
	.handler = count,
};

static int __init kpt_uconsumer_init(void)
{
	int err;

	if (!path)
		return -EINVAL;
	err = kern_path(path, LOOKUP_FOLLOW, &fpath);
	if (err)
		return err;
	if (ret) {
		uc.handler = NULL;
		uc.ret_handler = count_ret;
	}
	probe = uprobe_register(d_inode(fpath.dentry), offset, 0, &uc);
	if (IS_ERR(probe)) {
		path_put(&fpath);
		return PTR_ERR(probe);
	}
	return 0;
}

static void __exit kpt_uconsumer_exit(void)
{
	uprobe_unregister_nosync(probe, &uc);
	uprobe_unregister_sync();
	path_put(&fpath);
}

module_init(kpt_uconsumer_init);
module_exit(kpt_uconsumer_exit);
MODULE_DESCRIPTION("uprobe hit reference: a counting uprobe_consumer");
MODULE_LICENSE("GPL");
