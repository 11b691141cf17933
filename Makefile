# SPDX-License-Identifier: GPL-2.0
#
# Kprobes for Linux anew: build, boot and test harness.
#
# A pristine Linux 6.12 tree (Debian's linux-source-6.12) is extracted once
# under build/src and never edited.  IMPL=ours builds a copy of it with this
# series laid over it (our whole files + patches/*.patch - patches/REMOVED);
# IMPL=upstream builds a plain copy.  Both use the same config (tinyconfig +
# config/kprobes.config) and separate O= build directories:
#
#   build/ours/       kernel build of this series      (make -C build/ours M=$PWD)
#   build/upstream/   kernel build of stock 6.12       (make -C build/upstream M=$PWD)
#
# (Each is a link to tree-$IMPL/_build: an O= folder directly inside its
# source tree makes kbuild use relative paths, so the two builds issue the
# same compiler commands and share ccache hits.)
#
# Targets: all (build), run, shell, test, exec; `make help` lists them.
# Every target takes IMPL=ours|upstream, SMP=<n> and QEMU_OPTS='<flags>'.
# IMPL=next is ours plus the next/ layer: work in progress behind a switch.

IMPL      ?= ours
SMP       ?= 2
MEM       ?= 1G
QEMU_OPTS ?=
TIMEOUT   ?= 1200
SUITES    ?= all
EXTRA     ?=
DIR       ?=
CMD       ?=

REPO    := $(CURDIR)
BUILD   := $(REPO)/build
H       := $(REPO)/harness
SRC     := $(BUILD)/src/linux-source-6.12
KSRC    := $(BUILD)/tree-$(IMPL)
KOBJ    := $(KSRC)/_build
FRAGS   := $(REPO)/config/kprobes.config
ifneq ($(IMPL),upstream)
FRAGS   += $(REPO)/config/series.config
endif

# DEBUG=1: the same implementation with the kernel's checkers on
# (config/debug.config), in its own build folder (tree-$(IMPL)/_build_debug).
DEBUG     ?=
ifneq ($(DEBUG),)
KOBJ    := $(KSRC)/_build_debug
FRAGS   += $(REPO)/config/btf.config $(REPO)/config/debug.config
endif
# PREEMPT=1: the same, fully preemptible (config/preempt.config)
PREEMPT   ?=
ifneq ($(PREEMPT),)
KOBJ    := $(KOBJ)_preempt
FRAGS   += $(REPO)/config/preempt.config
endif
# DISTRO=1: the same with what a distribution kernel turns on
# (config/distro.config: mitigations, stack protector, KASLR,
# PREEMPT_DYNAMIC, hardening), in tree-$(IMPL)/_build_distro.
DISTRO    ?=
ifneq ($(DISTRO),)
KOBJ    := $(KOBJ)_distro
FRAGS   += $(if $(DEBUG),,$(REPO)/config/btf.config) $(REPO)/config/distro.config
endif

# BPF=1: the kernel BPF's own selftests ask for (make test-bpf): BTF and
# the base tree's tools/testing/selftests/bpf/config, in
# tree-$(IMPL)/_build_bpf (config/bpf.config says what it adds).
BPF       ?=
ifneq ($(BPF),)
KOBJ    := $(KOBJ)_bpf
FRAGS   += $(REPO)/config/btf.config \
	   $(BUILD)/src/linux-source-6.12/tools/testing/selftests/bpf/config \
	   $(REPO)/config/bpf.config
endif

# VARIANT=<name>: the same with config/matrix/<name>.config over it, in
# tree-$(IMPL)/_build_<name> (make configs builds each).
VARIANT   ?=
ifneq ($(VARIANT),)
KOBJ    := $(KOBJ)_$(VARIANT)
FRAGS   += $(REPO)/config/matrix/$(VARIANT).config
endif

ifeq ($(filter ours upstream next,$(IMPL)),)
$(error IMPL must be 'ours', 'upstream' or 'next', not '$(IMPL)')
endif

export IMPL SMP MEM QEMU_OPTS TIMEOUT SUITES EXTRA REPO BUILD SRC KSRC KOBJ FRAGS
# exec's command travels in the environment: any quoting survives.
export CMD DIR

.PHONY: all build deps tree config kernel modules initramfs run shell test kselftest kunit \
	test-bpf test-bpf-run \
	test-guest test-harness test-debug test-preempt test-distro test-clients exec bench itrace \
	arches arm64-test i386-test ppc64le-test configs series series-check \
	stress clean \
	distclean help

all: build

help:
	@echo "Kprobes for Linux anew: build, boot and test harness (README.md has more)"
	@echo
	@echo "Targets (each takes IMPL=ours|upstream|next, SMP=, MEM=, QEMU_OPTS=):"
	@echo "  make / make build  the kernel and its initramfs (build/\$$IMPL/)"
	@echo "  make run           boot, show the kprobes samples at work, power off"
	@echo "                     (the boot itself goes to build/logs/run-\$$IMPL.log)"
	@echo "  make shell         boot to an interactive guest shell (Ctrl-A X quits)"
	@echo "  make exec DIR=<host dir> CMD='<command>'"
	@echo "                     run CMD in the guest with DIR at /mnt/host; its"
	@echo "                     status is printed, and make fails if it is not 0"
	@echo "  make test          every guest suite (ours, peer ftracetest) and the"
	@echo "                     harness self-tests; last line N passed, N failed"
	@echo "                     (SUITES='<names>' only those, EXTRA=<dir> more)"
	@echo "  make test-guest    the guest suites only"
	@echo "  make kselftest     the kprobes kselftest target (run_kselftest.sh in the guest)"
	@echo "  make kunit         the KUnit suites built in, by the kernel's kunit.py (x86_64, TCG)"
	@echo "  make test-bpf      BPF's test_progs (kprobe/uprobe tests) on the BPF=1 kernel"
	@echo "  make test-harness  the harness self-tests only"
	@echo "  make test-debug    the guest suites on a lockdep+KASAN kernel, panic_on_warn"
	@echo "  make test-preempt  the guest suites on a CONFIG_PREEMPT kernel"
	@echo "  make test-distro   the guest suites on a distribution-like kernel"
	@echo "                     (config/distro.config), booted preempt=full"
	@echo "  make test-clients  Debian's perf and bpftrace against this kernel (MEM=3G)"
	@echo "  make stress        hammer at -smp 4, probe everything, kretprobe pressure"
	@echo "                     (STRESS_S, _BUDGET, _MODS, _SWEEP)"
	@echo "  make bench         probe and registration cost, ours beside upstream"
	@echo "                     (build/bench/bench.{txt,csv,png})"
	@echo "  make arches        cross-build each arch with kprobes, ours and upstream"
	@echo "                     (ARCHES='arm64 riscv' limits it; table + N passed)"
	@echo "  make configs       ours in the config matrix (config/matrix/): builds,"
	@echo "                     W=1 over our objects, the suites where it boots"
	@echo "                     (CONFIGS='up noopt' limits it)"
	@echo "  make arm64-test    arm64 kernel under QEMU: KUnit kprobes_test and the"
	@echo "                     arch-neutral API cases"
	@echo "  make i386-test     32-bit x86 kernel under QEMU: KUnit kprobes_test,"
	@echo "                     fprobe_test and the API cases"
	@echo "  make ppc64le-test  ppc64le (pseries) kernel under QEMU: a classic backend"
	@echo "                     with kprobes on ftrace, an entry kprobe beside a livepatch"
	@echo "  make series        the patch series with its cover letter (build/series/)"
	@echo "  make series-check  git am it onto the base: identical to ours, checkpatch"
	@echo "                     --strict clean, each patch builds (FULL=1: and boots"
	@echo "                     KUnit kprobes_test); last line N passed, N failed"
	@echo "  make itrace        where one hit's instructions go, by function"
	@echo "                     (ITRACE=boost|int3|mov|opt|ftrace|kretprobe|"
	@echo "                     kprobe_kretprobe|upush|ulea|ujpush|ujlea)"
	@echo "  make deps          install the Debian packages the harness needs"
	@echo "  make tree          extract the base once, lay the series over a copy"
	@echo "  make config        tinyconfig + config/*.config, every symbol checked"
	@echo "  make kernel        build bzImage and modules only"
	@echo "  make initramfs     BusyBox, the suites and modules (build/\$$IMPL/initramfs.cpio)"
	@echo "  make clean         remove the trees, builds and logs (keeps the base)"
	@echo "  make distclean     remove build/ entirely"
	@echo "  make help          this list"

# Installs what is missing (apt-get as root) or names the command to run.
deps:
	@$(H)/deps.sh

# Extract the base once; lay our files over a copy (IMPL=ours only).
tree: deps
	@$(H)/tree.sh

config: tree
	@$(H)/kconfig.sh

kernel: config
	@$(H)/kbuild.sh

build: kernel initramfs

# Out-of-tree test modules + BusyBox initramfs for this IMPL.
initramfs: kernel
	@$(H)/mkinitramfs.sh

run: build
	@$(H)/boot.sh run

shell: build
	@$(H)/boot.sh shell

exec: build
	@$(H)/boot.sh exec

test: build
	@$(H)/test.sh all

test-guest: build
	@$(H)/test.sh guest

# The kprobes kselftest target alone: installed into the guest by
# kselftest's own Makefiles, each test run by its run_kselftest.sh.
kselftest: build
	@SUITES=kselftest $(H)/test.sh guest

# BPF's own selftests of kprobes and uprobes (test_progs, bpf_testmod.ko,
# built with clang-19) on the BPF=1 kernel (harness/bpf.sh).
test-bpf:
	@$(MAKE) --no-print-directory BPF=1 build
	@$(MAKE) --no-print-directory BPF=1 test-bpf-run

test-bpf-run:
	@MEM=$(if $(filter command line,$(origin MEM)),$(MEM),3G) \
	 TIMEOUT=$(if $(filter command line,$(origin TIMEOUT)),$(TIMEOUT),3600) $(H)/bpf.sh

# The KUnit suites built in, by the kernel's own runner: kunit.py run
# --arch=x86_64 under QEMU (TCG), on a kernel of its own (harness/kunit.sh).
kunit: tree
	@$(H)/kunit.sh

test-harness: build
	@$(H)/test.sh harness

# The guest suites on a DEBUG=1 kernel (lockdep, KASAN, DEBUG_LIST,
# DEBUG_OBJECTS_RCU_HEAD, atomic-sleep checks), warnings made fatal.
# no5lvl: with 5-level paging (QEMU's -cpu max has LA57), 6.12's
# identify_cpu() clears boot_cpu_data's feature bits with interrupts on,
# before alternatives are applied; an interrupt in that window computes
# KASAN_SHADOW_START for 4-level paging (pgtable_l5_enabled() reads the
# cleared LA57 bit) and reports a wild-memory-access in rcu_is_watching(),
# about one boot in four here, before any probe exists.  4-level paging
# keeps that bit constant.
test-debug:
	@$(MAKE) --no-print-directory DEBUG=1 build
	@KERNEL_ARGS="$${KERNEL_ARGS:-} panic_on_warn=1 no5lvl" \
		$(MAKE) --no-print-directory DEBUG=1 test-guest

# The guest suites on a PREEMPT=1 kernel (CONFIG_PREEMPT).
test-preempt:
	@$(MAKE) --no-print-directory PREEMPT=1 build
	@$(MAKE) --no-print-directory PREEMPT=1 test-guest

# The guest suites on a DISTRO=1 kernel (mitigations, stack protector,
# KASLR, hardening), fully preemptible (this build also serves as CI's
# preemptible kernel), on a CPU model the kernel must mitigate: QEMU's
# EPYC (Zen 1) has Retbleed, so every ret goes through the untrained
# return thunk; spectre_v2=retpoline and pti=on force the other two.
# SRSO's safe-RET thunk is left off: without its microcode (none under
# TCG) the kernel warns at boot, and a warning fails the run.
DISTRO_ARGS ?= preempt=full pti=on spectre_v2=retpoline spec_rstack_overflow=off
DISTRO_CPU  ?= -cpu EPYC
export DISTRO_ARGS DISTRO_CPU
test-distro:
	@$(MAKE) --no-print-directory DISTRO=1 build
	@KERNEL_ARGS="$${KERNEL_ARGS:-} $(DISTRO_ARGS)" \
		QEMU_OPTS="$(DISTRO_CPU) $(QEMU_OPTS)" \
		$(MAKE) --no-print-directory DISTRO=1 test-guest

# Debian's perf and bpftrace against this IMPL's kernel (harness/clients.sh)
test-clients: build
	@MEM=$(if $(filter command line,$(origin MEM)),$(MEM),3G) $(H)/clients.sh

# Hammer, kretprobe pressure, module churn, probe-everything and the
# instruction sweep at -smp 4 (harness/stress.sh).
stress: build
	@SMP=$(if $(filter command line,$(origin SMP)),$(SMP),4) $(H)/stress.sh

# Probe and registration cost of both implementations, side by side:
# boots each kernel plainly and twice under -icount (harness/bench.sh).
# BENCH_CONFIGS (default "default distro i386"): the distro kernels' row
# pairs, and the per-hit rows on 32-bit x86 (make i386-test's kernels).
bench:
	@$(MAKE) --no-print-directory IMPL=ours build
	@$(MAKE) --no-print-directory IMPL=upstream build
	@case " $${BENCH_CONFIGS:-default distro i386} " in *" distro "*) \
		$(MAKE) --no-print-directory IMPL=ours DISTRO=1 build && \
		$(MAKE) --no-print-directory IMPL=upstream DISTRO=1 build ;; esac
	@$(H)/bench.sh

# Cross-build every arch that has kprobes, both implementations, and
# print the table arch x (ours, upstream) (harness/arches.sh).
arches:
	@IMPL=ours KSRC=$(BUILD)/tree-ours KOBJ=$(BUILD)/tree-ours/_build $(H)/tree.sh
	@IMPL=upstream KSRC=$(BUILD)/tree-upstream \
		KOBJ=$(BUILD)/tree-upstream/_build $(H)/tree.sh
	@$(H)/arches.sh

# Ours with one fragment of config/matrix/ each: KPROBES=n, no function
# tracer, no modules, SMP=n, no OPTPROBES (harness/configs.sh).
configs:
	@$(H)/configs.sh

# Our core on arm64's backend: KUnit kprobes_test and the arch-neutral
# module suites under qemu-system-aarch64 (harness/archtest.sh).
arm64-test: tree
	@$(H)/archtest.sh arm64

# The x86 backend at 32 bits: KUnit kprobes_test and fprobe_test, the
# module suites, under qemu-system-i386 (harness/archtest.sh).
i386-test: tree
	@$(H)/archtest.sh i386

# A classic backend with kprobes on ftrace and livepatch: KUnit
# kprobes_test, the arch-neutral API cases and kprobes_livepatch under
# qemu-system-ppc64 (harness/archtest.sh).
ppc64le-test: tree
	@$(H)/archtest.sh ppc64le

# The repository as a patch series against the base: series/NN-*.txt
# say what each patch brings in (harness/series.py).  series-check applies
# it to a fresh copy of the base and checks it, patch by patch.
series: tree
	@python3 $(H)/series.py make

series-check: series
	@python3 $(H)/series.py check

# One hit's guest instructions, function by function (harness/itrace.sh):
# what `make bench` counts, taken apart.
itrace: build
	@$(H)/itrace.sh

clean:
	rm -rf $(BUILD)/ours $(BUILD)/upstream $(BUILD)/tree-* $(BUILD)/logs

distclean:
	rm -rf $(BUILD)
