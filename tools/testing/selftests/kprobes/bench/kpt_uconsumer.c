// SPDX-License-Identifier: GPL-2.0
/*
 * kpt_uconsumer: the benchmark's reference for a uprobe hit through the
 * kernel's own consumer API (uprobe_register() on a file and offset, a
 * handler that counts), to set beside register_uprobe() and a tracefs
 * uprobe event.  Builds against both kernels: the type uprobe_register()
 * returns is named through typeof, as it differs between them.
 *
 *   insmod kpt_uconsumer.ko path=FILE offset=OFF; ...; cat .../hits
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

static struct uprobe_consumer uc = {
	.handler = count,
};

static int __init kpt_uconsumer_init(void)
{
	int ret;

	if (!path)
		return -EINVAL;
	ret = kern_path(path, LOOKUP_FOLLOW, &fpath);
	if (ret)
		return ret;
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
