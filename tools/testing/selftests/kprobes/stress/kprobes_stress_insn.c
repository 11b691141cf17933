// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's x86 instruction decoder, built into kprobes_stress: the
 * instruction sweep needs each function's instruction boundaries from
 * its live text, and insn_decode() is not exported to modules.  Kbuild
 * points the include path at arch/x86/lib (source, and the generated
 * inat-tables.c in the object tree).
 */
#include <inat.c>
#include <insn.c>
