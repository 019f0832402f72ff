# perfbuf — build everything into $(OUTPUT) (default: build/).
#   make            library, BPF objects, skeletons, tool, tests
#   make check      run the test suite (normal build, then ASan/UBSan)
#   make run        trace for a few seconds with the perfbuf tool
#   make bench      the benchmark table
#   make soak       slow consumer for SOAK_SECONDS (60): exact loss, flat RSS/fds
#   make vmtest     the probe tests in Debian's kernels (VM_KERNELS: 5.10 6.1
#                   6.12 sid) booted in qemu (tests/vm/vm.sh); make check
#                   runs the oldest and the newest (tests/test_vm.sh)
#   make setup      install what building and running need (apt-get), mount
#                   tracefs; make check installs the tests' own (setup-test)
#   make lib        the library alone (no tool, none of the tool's libraries)
#   make install-lib  library, headers, pkg-config file, section-3 man pages
#   make install    install-lib, and the tool, perfbuf(8), the Python package
#                   (PREFIX=/usr/local, DESTDIR=; make uninstall)
#   V=1             show the commands

OUTPUT ?= build
CC ?= cc
CLANG ?= clang
BPFTOOL ?= bpftool
OBJCOPY ?= objcopy
ARCH := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/' \
			      -e 's/ppc64le/powerpc/' -e 's/s390x/s390/')

# CFLAGS is the caller's (a packager's `make CFLAGS=...` replaces -O2 -g
# only); the flags the build needs are PB_CFLAGS.
CFLAGS ?= -O2 -g
PB_CFLAGS := -std=gnu11 -Wall -Wextra -Wno-missing-field-initializers \
	  -fvisibility=hidden -fPIC -MMD -MP -Iinclude -Ibpf -Ilib -I$(OUTPUT)
# libperfbuf needs libbpf alone; libperfbuf-object (src/object/) libdw too
LIB_LDLIBS := -lbpf -lpthread
OBJECT_LDLIBS := -lbpf -ldw -lelf -lz
LDLIBS += -lbpf -ldw -lelf -lz -lpthread -lm
# the NATS client (tools/nats/: trace --nats, nats-tail): perfbuf only
NATS_LIBS := $(shell pkg-config --libs libnats 2>/dev/null || echo -lnats)
# the tools' own: libdeflate computes the capture files' CRC-32
TOOL_LDLIBS = $(LDLIBS) -ldeflate
# -mcpu=v3: ALU32 and JMP32 (Linux >= 5.1). What newer kernels add
# (bpf_loop(), attach cookies...) is chosen at load time
# (tools/common/kfeat.h), but for atomic fetch-and-add (5.12), which older
# verifiers refuse even in dead code: the objects that use it are built a
# second time with PERFBUF_NO_FETCH (NOFETCH_SRCS, into bpf/nofetch/ and
# NAME_nofetch.skel.h); KFEAT_OPEN picks one
BPF_CFLAGS := -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_$(ARCH) -Wall \
	      -MMD -MP -I$(OUTPUT) -Ibpf -Iinclude

ifeq ($(SAN),1)
PB_CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer \
	  -fno-sanitize-recover=undefined
LDFLAGS += -fsanitize=address,undefined
endif

ifeq ($(V),1)
Q =
msg =
else
Q = @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

# MAJOR.MINOR.PATCH, from include/perfbuf/version.h (the one place it is set)
version_of = $(shell sed -n 's/^\#define PERFBUF_$(1)_VERSION \([0-9]*\)$$/\1/p' \
		include/perfbuf/version.h)
MAJOR := $(call version_of,MAJOR)
VERSION := $(MAJOR).$(call version_of,MINOR).$(call version_of,PATCH)
SONAME := libperfbuf.so.$(MAJOR)
SOFILE := libperfbuf.so.$(VERSION)
OBJECT_SONAME := libperfbuf-object.so.$(MAJOR)
OBJECT_SOFILE := libperfbuf-object.so.$(VERSION)

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR ?= $(PREFIX)/share/man
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
DOCDIR ?= $(PREFIX)/share/doc/libperfbuf
# the Python package (python/perfbuf), for Debian's python3
PYTHON_SITE ?= $(PREFIX)/lib/python3/dist-packages
PY_FILES := $(wildcard python/perfbuf/*.py)
# where the installed package loads libperfbuf from: LIBDIR, or None for
# the loader's search path (a distribution package, whatever its LIBDIR)
PY_LIBDIR ?= '$(LIBDIR)'

# lib/: what the libraries and the tool link (each its own copy: the
# libraries' are hidden), below them all
SHARED_SRCS := $(wildcard lib/*.c)
SHARED_OBJS := $(SHARED_SRCS:lib/%.c=$(OUTPUT)/lib/%.o)
SRC_OBJS := $(patsubst src/%.c,$(OUTPUT)/src/%.o,$(wildcard src/*.c))
# libperfbuf, the reading library: src/*.c, and lib/'s errno words
LIB_SRCS := $(wildcard src/*.c) lib/bpf_errstr.c
LIB_OBJS := $(SRC_OBJS) $(OUTPUT)/lib/bpf_errstr.o
# libperfbuf-object: src/object/*.c, DWARF, load logs and a map's users
# (prog_maps.c) of lib/, and a copy of libperfbuf's options check and
# fork watch (abi.c, fork.c);
# src/object/pr.c prints through libperfbuf, so only its own .so and .a
# link it: a program or test linking both libraries' objects has print.c
OBJECT_SRCS := $(filter-out src/object/pr.c,$(wildcard src/object/*.c)) \
	       lib/dwarf_walk.c lib/load_log.c lib/bpf_errstr.c lib/prog_maps.c src/abi.c src/fork.c
OBJECT_OBJS := $(patsubst %.c,$(OUTPUT)/%.o,$(OBJECT_SRCS))
OBJECT_LIB_OBJS := $(OBJECT_OBJS) $(OUTPUT)/src/object/pr.o
# both libraries' objects, internal functions visible: the C tests
INTERNAL_OBJS := $(sort $(LIB_OBJS) $(OBJECT_OBJS))
BPF_SRCS := $(wildcard bpf/*.bpf.c)
BPF_OBJS := $(BPF_SRCS:bpf/%.bpf.c=$(OUTPUT)/bpf/%.bpf.o)
NOFETCH_SRCS := bpf/trace.bpf.c
NOFETCH_OBJS := $(NOFETCH_SRCS:bpf/%.bpf.c=$(OUTPUT)/bpf/nofetch/%.bpf.o)
SKELS := $(BPF_SRCS:bpf/%.bpf.c=$(OUTPUT)/%.skel.h) \
	 $(NOFETCH_SRCS:bpf/%.bpf.c=$(OUTPUT)/%_nofetch.skel.h)
# tools/*.c, tools/*/*.c: the perfbuf tool; tools/bench/: perfbuf-bench
BENCH_SRCS := $(wildcard tools/bench/*.c)
BENCH_OBJS := $(BENCH_SRCS:tools/%.c=$(OUTPUT)/tools/%.o)
TOOL_SRCS := $(filter-out $(BENCH_SRCS),$(wildcard tools/*.c tools/*/*.c))
TOOL_OBJS := $(TOOL_SRCS:tools/%.c=$(OUTPUT)/tools/%.o)
TOOL_DIRS := $(patsubst %/,%,$(sort $(dir $(TOOL_OBJS) $(BENCH_OBJS))))
TEST_SRCS := $(wildcard tests/test_*.c)
TEST_BINS := $(TEST_SRCS:tests/%.c=$(OUTPUT)/tests/%)
TEST_LIB_OBJS := $(patsubst tests/%.c,$(OUTPUT)/tests/%.o,$(filter-out tests/test_%.c,$(wildcard tests/*.c)))
BENCH := $(if $(BENCH_SRCS),$(OUTPUT)/perfbuf-bench)
# libFuzzer targets, fuzz/fuzz_X.c (see fuzz: below)
FUZZ_TARGETS := ring format json capture sample filter type agg
FUZZ_BINS := $(FUZZ_TARGETS:%=$(OUTPUT)/fuzz_%)

.PHONY: all lib check test run bench setup setup-test setup-tracefs clean fuzz
.DELETE_ON_ERROR:
.SECONDARY:

all: lib $(OUTPUT)/perfbuf $(TEST_BINS) $(BENCH)

lib: $(OUTPUT)/libperfbuf.a $(OUTPUT)/libperfbuf.so \
	$(OUTPUT)/libperfbuf-object.a $(OUTPUT)/libperfbuf-object.so

$(OUTPUT) $(OUTPUT)/src $(OUTPUT)/src/object $(OUTPUT)/lib $(OUTPUT)/bpf $(TOOL_DIRS) $(OUTPUT)/tests:
	$(Q)mkdir -p $@

$(OUTPUT)/vmlinux.h: | $(OUTPUT)
	$(call msg,GEN,$@)
	$(Q)$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > $@

# Static pattern rules: a stale .d naming a file that is gone (a removed
# BPF program's skeleton) must not send make looking for its source.
$(BPF_OBJS): $(OUTPUT)/bpf/%.bpf.o: bpf/%.bpf.c $(OUTPUT)/vmlinux.h | $(OUTPUT)/bpf
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(NOFETCH_OBJS): $(OUTPUT)/bpf/nofetch/%.bpf.o: bpf/%.bpf.c $(OUTPUT)/vmlinux.h | $(OUTPUT)/bpf
	$(call msg,BPF,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(BPF_CFLAGS) -DPERFBUF_NO_FETCH -c $< -o $@

$(filter-out %_nofetch.skel.h,$(SKELS)): $(OUTPUT)/%.skel.h: $(OUTPUT)/bpf/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name $* > $@

# The tool loads a nofetch object through the skeleton of its normal build
# (tools/common/kfeat.h): their programs, maps and globals must be the
# same, which scripts/bpf_layout.c lists and the build compares
$(filter %_nofetch.skel.h,$(SKELS)): $(OUTPUT)/%_nofetch.skel.h: $(OUTPUT)/bpf/nofetch/%.bpf.o \
		$(OUTPUT)/bpf/%.bpf.o $(OUTPUT)/bpf_layout
	$(call msg,GEN-SKEL,$@)
	$(Q)$(OUTPUT)/bpf_layout $(OUTPUT)/bpf/$*.bpf.o >$(@:.h=.layout)
	$(Q)$(OUTPUT)/bpf_layout $< | diff -u $(@:.h=.layout) - >&2 || \
		{ echo "$<: not the layout of $(OUTPUT)/bpf/$*.bpf.o (the lines above): one skeleton cannot load both" >&2; exit 1; }
	$(Q)$(BPFTOOL) gen skeleton $< name $*_nofetch > $@

$(OUTPUT)/bpf_layout: scripts/bpf_layout.c | $(OUTPUT)
	$(call msg,CC,$@)
	$(Q)$(CC) -O2 -Wall -Wextra -o $@ $< -lbpf

# Syscall numbers by name from the kernel headers: `perfbuf trace` takes
# syscalls:sys_enter_NAME through the raw tracepoint sys_enter with them
$(OUTPUT)/syscall_names.h: | $(OUTPUT)
	$(call msg,GEN,$@)
	$(Q)echo '#include <asm/unistd.h>' | $(CC) -dM -E - | \
		sed -n 's/^#define __NR_\([a-z0-9_]*\) \([0-9]*\)$$/{ "\1", \2 },/p' | sort > $@
$(OUTPUT)/tools/trace/syscalls.o: $(OUTPUT)/syscall_names.h

$(SRC_OBJS): $(OUTPUT)/src/%.o: src/%.c | $(OUTPUT)/src
	$(call msg,CC,$@)
	$(Q)$(CC) $(PB_CFLAGS) $(CFLAGS) -c $< -o $@

$(OUTPUT)/src/object/%.o: src/object/%.c | $(OUTPUT)/src/object
	$(call msg,CC,$@)
	$(Q)$(CC) $(PB_CFLAGS) $(CFLAGS) -Isrc -c $< -o $@

$(SHARED_OBJS): $(OUTPUT)/lib/%.o: lib/%.c | $(OUTPUT)/lib
	$(call msg,CC,$@)
	$(Q)$(CC) $(PB_CFLAGS) $(CFLAGS) -c $< -o $@

# One object, its hidden (internal) symbols made local: a program linking
# the archive sees only the perfbuf* names, as it does with the .so.
$(OUTPUT)/libperfbuf.a: $(LIB_OBJS)
	$(call msg,AR,$@)
	$(Q)$(LD) -r -o $(OUTPUT)/src/libperfbuf.o $^
	$(Q)$(OBJCOPY) --localize-hidden $(OUTPUT)/src/libperfbuf.o
	$(Q)rm -f $@ && $(AR) rcs $@ $(OUTPUT)/src/libperfbuf.o

$(OUTPUT)/libperfbuf-object.a: $(OBJECT_LIB_OBJS)
	$(call msg,AR,$@)
	$(Q)$(LD) -r -o $(OUTPUT)/src/object/libperfbuf-object.o $^
	$(Q)$(OBJCOPY) --localize-hidden $(OUTPUT)/src/object/libperfbuf-object.o
	$(Q)rm -f $@ && $(AR) rcs $@ $(OUTPUT)/src/object/libperfbuf-object.o

# Only what the version script lists is exported, each symbol versioned;
# --as-needed: NEEDED names only what the library calls
$(OUTPUT)/$(SOFILE): $(LIB_OBJS) src/libperfbuf.map
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) -shared -Wl,-soname,$(SONAME) -Wl,--as-needed \
		-Wl,--version-script=src/libperfbuf.map -o $@ $(LIB_OBJS) $(LIB_LDLIBS)

$(OUTPUT)/libperfbuf.so: $(OUTPUT)/$(SOFILE)
	$(Q)ln -sf $(SOFILE) $(OUTPUT)/$(SONAME)
	$(Q)ln -sf $(SONAME) $@

$(OUTPUT)/$(OBJECT_SOFILE): $(OBJECT_LIB_OBJS) src/object/libperfbuf-object.map \
		$(OUTPUT)/libperfbuf.so
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) -shared -Wl,-soname,$(OBJECT_SONAME) -Wl,--as-needed \
		-Wl,--version-script=src/object/libperfbuf-object.map -o $@ \
		$(OBJECT_LIB_OBJS) $(OUTPUT)/$(SOFILE) $(OBJECT_LDLIBS)

$(OUTPUT)/libperfbuf-object.so: $(OUTPUT)/$(OBJECT_SOFILE)
	$(Q)ln -sf $(OBJECT_SOFILE) $(OUTPUT)/$(OBJECT_SONAME)
	$(Q)ln -sf $(OBJECT_SONAME) $@

$(OUTPUT)/libperfbuf.pc $(OUTPUT)/libperfbuf-object.pc: $(OUTPUT)/%.pc: %.pc.in \
		include/perfbuf/version.h | $(OUTPUT)
	$(call msg,GEN,$@)
	$(Q)sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
		-e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' -e 's|@VERSION@|$(VERSION)|' $< > $@

# Tools and tests include skeletons: build them all first.
$(OUTPUT)/tools/%.o: tools/%.c $(SKELS) | $(TOOL_DIRS)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(PB_CFLAGS) $(CFLAGS) -Itools -c $< -o $@

$(OUTPUT)/tests/%.o: tests/%.c $(SKELS) | $(OUTPUT)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(PB_CFLAGS) $(CFLAGS) -Itests -Itools -Isrc -c $< -o $@

$(OUTPUT)/perfbuf: $(TOOL_OBJS) $(SHARED_OBJS) $(OUTPUT)/libperfbuf-object.a $(OUTPUT)/libperfbuf.a
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(TOOL_LDLIBS) $(NATS_LIBS)

$(OUTPUT)/perfbuf-bench: $(BENCH_OBJS) $(filter-out $(OUTPUT)/tools/perfbuf.o,$(TOOL_OBJS)) \
		$(SHARED_OBJS) $(OUTPUT)/libperfbuf-object.a $(OUTPUT)/libperfbuf.a
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(TOOL_LDLIBS) $(NATS_LIBS)

# tests drive bpf/emit.bpf.c with the tool's producer code; they link the
# libraries' objects, not the archives, and so may call what a library
# does not export (its private headers under src/: -Isrc)
$(OUTPUT)/tests/%: $(OUTPUT)/tests/%.o $(TEST_LIB_OBJS) $(OUTPUT)/tools/common/producer.o \
		$(OUTPUT)/tools/common/kfeat.o $(OUTPUT)/tools/common/kbtf.o $(OUTPUT)/tools/common/ksyms.o \
		$(OUTPUT)/tools/common/say.o $(INTERNAL_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $(filter %.o,$^) $(TOOL_LDLIBS)

# the tool's error words (cli_strerror(), cli_bad_option())
$(OUTPUT)/tests/test_cli_errors: $(OUTPUT)/tools/common/cli.o \
	$(OUTPUT)/tools/common/loaderr.o $(OUTPUT)/tools/common/say.o $(OUTPUT)/lib/load_log.o \
	$(OUTPUT)/tools/common/rings.o $(OUTPUT)/tools/common/units.o

# capture files: the record/report code, the output files (output/file.c)
# and the ledger a capture keeps (record/ledger_io.c, output/ledger.c)
$(OUTPUT)/tests/test_capture: $(addprefix $(OUTPUT)/tools/record/,reader.o writer.o stream.o crc.o \
	ledger_io.o) $(OUTPUT)/tools/output/file.o $(OUTPUT)/tools/output/ledger.o \
	$(OUTPUT)/tools/common/say.o

# the metrics server and its exposition writer (tools/metrics/)
$(OUTPUT)/tests/test_metrics: $(addprefix $(OUTPUT)/tools/metrics/,server.o http.o expo.o)

# nats-tail's merge: its hosts as sources of perfbuf_merge (no server)
$(OUTPUT)/tests/test_tail_merge: $(addprefix $(OUTPUT)/tools/nats/,tail_src.o tail_check.o tail_out.o)

# tests of the trace pipeline link its libbpf-free part: the engine's
# decoder and the output layer's sinks
TRACE_PIPE_OBJS := $(addprefix $(OUTPUT)/tools/trace/,format.o printfmt.o decode.o tracefs.o) \
		   $(addprefix $(OUTPUT)/tools/output/,buf.o sink_buf.o sink_text.o sink_json.o) \
		   $(OUTPUT)/tools/common/clock.o $(OUTPUT)/tools/common/say.o
$(OUTPUT)/tests/test_trace_sink: $(TRACE_PIPE_OBJS)
# --aggregate's maps and their sink
$(OUTPUT)/tests/test_trace_agg: $(TRACE_PIPE_OBJS) $(addprefix $(OUTPUT)/tools/output/,agg.o \
	agg_parse.o agg_text.o sink_agg.o)
# and kernel functions' typed arguments, from the kernel's BTF
$(OUTPUT)/tests/test_trace_args: $(TRACE_PIPE_OBJS) $(OUTPUT)/tools/trace/args_btf.o \
	$(OUTPUT)/tools/common/say.o

# A machine of many CPUs for the commands: LD_PRELOAD'ed by the tests of
# trace, record and run (tests/targets/fake_cpus.c; not a test itself).
all: $(OUTPUT)/tests/fake_cpus.so
$(OUTPUT)/tests/fake_cpus.so: tests/targets/fake_cpus.c | $(OUTPUT)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) -O1 -shared -fPIC -Wall -Wextra -o $@ $<

# Functions of known latency and a struct argument, for the latency and
# struct member tests of `perfbuf trace` (-g: DWARF types the arguments)
all: $(OUTPUT)/tests/latency_target
$(OUTPUT)/tests/latency_target: tests/targets/latency_target.c | $(OUTPUT)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) -O1 -g -fno-inline -Wall -Wextra -o $@ $<
# A library with two versions of one function, for uprobes (not a test).
all: $(OUTPUT)/tests/libpbver.so
$(OUTPUT)/tests/libpbver.so: tests/targets/uprobe_versioned.c tests/targets/uprobe_versioned.map | $(OUTPUT)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) -O1 -shared -fPIC -Wall -Wextra -Wl,--version-script=tests/targets/uprobe_versioned.map -o $@ $<

# A binary the tests of `perfbuf trace` put uprobes on (not a test itself).
all: $(OUTPUT)/tests/uprobe_target
$(OUTPUT)/tests/uprobe_target: tests/targets/uprobe_target.c | $(OUTPUT)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) -O1 -g -fno-inline -Wall -Wextra -o $@ $<

# The tests of `perfbuf run`: BPF objects of their own (tests/bpf/), as a
# person builds theirs: clang -g, <perfbuf/bpf.h> from include/ (and the
# license and `events` map of bpf/common.bpf.h)
TEST_BPF_OBJS := $(patsubst tests/bpf/%.bpf.c,$(OUTPUT)/tests/bpf/%.bpf.o,$(wildcard tests/bpf/*.bpf.c))
all: $(TEST_BPF_OBJS)
$(TEST_BPF_OBJS): $(OUTPUT)/tests/bpf/%.bpf.o: tests/bpf/%.bpf.c bpf/common.bpf.h $(OUTPUT)/vmlinux.h
	$(call msg,BPF,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(BPF_CFLAGS) -Iinclude -Itests/bpf -Ibpf -c $< -o $@

# The examples' BPF objects, built here too: tests/test_bpf_load.c loads
# every program the project ships on the running kernel
EXAMPLE_BPF_OBJS := $(patsubst examples/%.bpf.c,$(OUTPUT)/examples/%.bpf.o,$(wildcard examples/*.bpf.c))
all: $(EXAMPLE_BPF_OBJS)
$(EXAMPLE_BPF_OBJS): $(OUTPUT)/examples/%.bpf.o: examples/%.bpf.c include/perfbuf/bpf.h $(OUTPUT)/vmlinux.h
	$(call msg,BPF,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(BPF_CFLAGS) -Iinclude -Iexamples -c $< -o $@

# Known call paths for the tests of `perfbuf profile`: frame pointers in
# every function, leaves too (gcc 12 ignores -mno-omit-leaf-frame-pointer)
all: $(OUTPUT)/tests/profile_target
$(OUTPUT)/tests/profile_target: tests/targets/profile_target.c | $(OUTPUT)/tests
	$(call msg,CC,$@)
	$(Q)$(CLANG) -O1 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer \
		-fno-inline -Wall -Wextra -o $@ $<

# The whole suite: the normal build, then the same tests under ASan/UBSan.
# (The fuzz targets are built with ASan and UBSan whatever SAN says: once.
# Scripts marked "normal build only" are not run again under ASan.)
# Both builds a job per CPU unless make was given -j (README's `make setup
# check` was not: 2 CPUs built in 69 s what -j2 builds in 33).
CHECK_JOBS = $(if $(filter -j%,$(MAKEFLAGS)),,-j$(shell nproc))
check: setup-test
	$(Q)$(MAKE) --no-print-directory $(CHECK_JOBS) all $(FUZZ_BINS)
	$(Q)$(MAKE) --no-print-directory $(CHECK_JOBS) SAN=1 OUTPUT=$(OUTPUT)/san all
	$(Q)tests/run.sh $(OUTPUT) $(OUTPUT)/san

test: check

# Without RUN_ARGS: every exec() on the machine for 5 seconds, while a
# little workload (sleep 1 then /bin/true, four times) makes sure there are
# some on a quiet machine.
run: setup-tracefs all
ifeq ($(RUN_ARGS),)
	$(Q)(for i in 1 2 3 4; do sleep 1; /bin/true; done) & \
	$(OUTPUT)/perfbuf trace -d 5 tracepoint:sched:sched_process_exec; \
	rc=$$?; wait; exit $$rc
else
	$(Q)$(OUTPUT)/perfbuf $(RUN_ARGS)
endif

# bpftrace and gnuplot-nox (and tracefs) for the comparison and the plot
# the C consumer the python part drives through ctypes (python/bench/)
$(OUTPUT)/python/c_reader.so: python/bench/c_reader.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(PB_CFLAGS) $(CFLAGS) -shared -fvisibility=default -o $@ $< -lbpf
all: $(OUTPUT)/python/c_reader.so

# bcc (its Python readers) finds kernel headers the setup unpacked into the
# build tree through BCC_KERNEL_SOURCE, when the kernel has none of its own
bench: all
	$(Q)OUTPUT=$(OUTPUT) scripts/setup.sh --bench
	$(Q)k=$(OUTPUT)/bcc-headers/kernel; \
	if [ -z "$$BCC_KERNEL_SOURCE" ] && [ -e $$k/include/linux/kconfig.h ]; then \
		export BCC_KERNEL_SOURCE=$$(realpath $$k); fi; \
	$(OUTPUT)/perfbuf-bench --out $(OUTPUT)/bench $(BENCH_ARGS)

# examples/: built from an installed copy (its Makefile uses pkg-config)
EXAMPLE_FILES := examples/Makefile examples/README.md \
		 $(wildcard examples/*.c examples/*.h)

# Where pkg-config and a packager expect them. The .pc file is made at
# install time: it holds the PREFIX and LIBDIR given then.
.PHONY: install install-lib uninstall FORCE
$(OUTPUT)/libperfbuf.pc $(OUTPUT)/libperfbuf-object.pc: FORCE
# The libraries alone: built and installed with their own dependencies
# only (libperfbuf: libbpf; libperfbuf-object: libperfbuf, libbpf, libdw),
# never the tool's (libnats, libdeflate)
install-lib: lib $(OUTPUT)/libperfbuf.pc $(OUTPUT)/libperfbuf-object.pc
	$(call msg,INSTALL,$(DESTDIR)$(PREFIX) (libraries))
	$(Q)install -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(PKGCONFIGDIR) \
		$(DESTDIR)$(INCLUDEDIR)/perfbuf $(DESTDIR)$(MANDIR)/man3
	$(Q)install -m 644 $(OUTPUT)/libperfbuf.a $(OUTPUT)/libperfbuf-object.a $(DESTDIR)$(LIBDIR)
	$(Q)install -m 755 $(OUTPUT)/$(SOFILE) $(OUTPUT)/$(OBJECT_SOFILE) $(DESTDIR)$(LIBDIR)
	$(Q)ln -sf $(SOFILE) $(DESTDIR)$(LIBDIR)/$(SONAME)
	$(Q)ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libperfbuf.so
	$(Q)ln -sf $(OBJECT_SOFILE) $(DESTDIR)$(LIBDIR)/$(OBJECT_SONAME)
	$(Q)ln -sf $(OBJECT_SONAME) $(DESTDIR)$(LIBDIR)/libperfbuf-object.so
	$(Q)install -m 644 $(OUTPUT)/libperfbuf.pc $(OUTPUT)/libperfbuf-object.pc \
		$(DESTDIR)$(PKGCONFIGDIR)
	$(Q)install -m 644 include/perfbuf.h $(DESTDIR)$(INCLUDEDIR)
	$(Q)install -m 644 include/perfbuf/*.h $(DESTDIR)$(INCLUDEDIR)/perfbuf
	$(Q)install -m 644 man/*.3 $(DESTDIR)$(MANDIR)/man3
	$(Q)scripts/man-links.sh src/libperfbuf.map $(DESTDIR)$(MANDIR)/man3
	$(Q)scripts/man-links.sh src/object/libperfbuf-object.map $(DESTDIR)$(MANDIR)/man3
	$(Q)install -d $(DESTDIR)$(DOCDIR)/examples
	$(Q)install -m 644 $(EXAMPLE_FILES) $(DESTDIR)$(DOCDIR)/examples

install: install-lib $(OUTPUT)/perfbuf
	$(call msg,INSTALL,$(DESTDIR)$(PREFIX) (tool))
	$(Q)install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man8
	$(Q)install -m 755 $(OUTPUT)/perfbuf $(DESTDIR)$(BINDIR)
	$(Q)install -m 644 man/*.8 $(DESTDIR)$(MANDIR)/man8
	$(Q)install -d $(DESTDIR)$(PYTHON_SITE)/perfbuf
	$(Q)install -m 644 $(filter-out %/_config.py,$(PY_FILES)) $(DESTDIR)$(PYTHON_SITE)/perfbuf
	$(Q)printf 'LIBDIR = %s\nMAJOR = %s\n' "$(PY_LIBDIR)" $(MAJOR) \
		> $(DESTDIR)$(PYTHON_SITE)/perfbuf/_config.py

uninstall:
	$(call msg,UNINSTALL,$(DESTDIR)$(PREFIX))
	$(Q)rm -f $(DESTDIR)$(LIBDIR)/libperfbuf.a $(DESTDIR)$(LIBDIR)/$(SOFILE) \
		$(DESTDIR)$(LIBDIR)/$(SONAME) $(DESTDIR)$(LIBDIR)/libperfbuf.so \
		$(DESTDIR)$(LIBDIR)/libperfbuf-object.a $(DESTDIR)$(LIBDIR)/$(OBJECT_SOFILE) \
		$(DESTDIR)$(LIBDIR)/$(OBJECT_SONAME) $(DESTDIR)$(LIBDIR)/libperfbuf-object.so \
		$(DESTDIR)$(PKGCONFIGDIR)/libperfbuf.pc $(DESTDIR)$(PKGCONFIGDIR)/libperfbuf-object.pc \
		$(DESTDIR)$(INCLUDEDIR)/perfbuf.h $(DESTDIR)$(BINDIR)/perfbuf \
		$(addprefix $(DESTDIR)$(MANDIR)/man3/,$(notdir $(wildcard man/*.3))) \
		$(addprefix $(DESTDIR)$(MANDIR)/man8/,$(notdir $(wildcard man/*.8)))
	$(Q)rm -rf $(DESTDIR)$(INCLUDEDIR)/perfbuf $(DESTDIR)$(DOCDIR) \
		$(DESTDIR)$(PYTHON_SITE)/perfbuf
	$(Q)scripts/man-links.sh --remove src/libperfbuf.map $(DESTDIR)$(MANDIR)/man3
	$(Q)scripts/man-links.sh --remove src/object/libperfbuf-object.map $(DESTDIR)$(MANDIR)/man3

# perfbuf stress with a slow consumer (tests/test_soak.sh: the same, 6 s)
SOAK_SECONDS ?= 60
.PHONY: soak
soak: all
	$(Q)tests/soak.sh $(OUTPUT) $(SOAK_SECONDS)

# Debian's kernels in qemu, downloaded once into $(OUTPUT)/vm
VM_KERNELS ?= 5.10 6.1 6.12 sid
# and the tests of many CPUs (a `# vcpus: N` header), on 6.1: a guest each
VM_MANY_VCPUS ?= 64 128
.PHONY: vmtest
vmtest: all
	$(Q)rc=0; for k in $(VM_KERNELS); do tests/vm/vm.sh $(OUTPUT) $$k || rc=1; done; \
	for n in $(VM_MANY_VCPUS); do VM_VCPUS=$$n tests/vm/vm.sh $(OUTPUT) 6.1 || rc=1; done; exit $$rc

setup:
	$(Q)scripts/setup.sh

# the test suite's own packages (valgrind, qemu, nats-server, ...): make
# check's first step, so that `make setup check` sets up a fresh machine
setup-test:
	$(Q)scripts/setup.sh --test

setup-tracefs:
	$(Q)scripts/setup.sh --tracefs-only

clean:
	$(call msg,CLEAN,$(OUTPUT))
	$(Q)rm -rf $(OUTPUT)

-include $(wildcard $(OUTPUT)/*/*.d $(OUTPUT)/*/*/*.d)

# libFuzzer (clang + libclang-rt): make fuzz FUZZ_SECONDS=60, or one of
# them: make fuzz-json. fuzz/fuzz_X.c, its seeds and crash reproducers in
# tests/fuzz/X/ (copied: the corpus grows in $(OUTPUT)/fuzz-corpus/X).
#   ring    the ring parser (the library)
#   sample  the sample parser (the library): every layout and record type
#   format  tracefs format files, decoding records with them, the sinks
#   json    the JSON string escaper of perfbuf trace
#   capture the capture file reader of perfbuf report
#   filter  trace --filter: the parser and the compiler
#   type    a record type found in a BPF object (its .BTF and .debug_*
#           sections mutated) or read from a capture; records decoded by it
#   agg     trace --aggregate: the expression parser, maps fed and printed
FUZZ_SECONDS ?= 30
FUZZ_CFLAGS := -g -O1 -fsanitize=fuzzer,address,undefined \
	       -fno-sanitize-recover=undefined -Wall -Wextra \
	       -Wno-missing-field-initializers -Iinclude -Ibpf -Ilib -Itools
# the trace tool's libbpf-free files: format files, decoder, sinks
FUZZ_TRACE_SRCS := $(addprefix tools/trace/,format.c printfmt.c decode.c tracefs.c) \
		   $(addprefix tools/output/,buf.c sink_buf.c sink_text.c sink_json.c) \
		   tools/common/clock.c tools/common/say.c \
		   $(wildcard tools/trace/*.h tools/output/*.h tools/common/*.h) \
		   bpf/trace.h src/clock.c

# the libraries' sources, internal functions visible (-Isrc)
$(OUTPUT)/fuzz_ring $(OUTPUT)/fuzz_sample: $(OUTPUT)/fuzz_%: fuzz/fuzz_%.c $(LIB_SRCS) | $(OUTPUT)
	$(call msg,FUZZ,$@)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) -Isrc -o $@ $^ -lbpf

$(OUTPUT)/fuzz_type: fuzz/fuzz_type.c $(sort $(LIB_SRCS) $(OBJECT_SRCS)) | $(OUTPUT)
	$(call msg,FUZZ,$@)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) -Isrc -o $@ $^ -lbpf -ldw -lelf -lz

$(OUTPUT)/fuzz_capture: fuzz/fuzz_capture.c tools/record/reader.c tools/record/stream.c \
		       tools/record/crc.c $(sort $(LIB_SRCS) $(OBJECT_SRCS)) | $(OUTPUT)
	$(call msg,FUZZ,$@)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) -Isrc -o $@ $^ -lbpf -ldw -lelf -lz -ldeflate

$(OUTPUT)/fuzz_format: fuzz/fuzz_format.c $(FUZZ_TRACE_SRCS) | $(OUTPUT)
	$(call msg,FUZZ,$@)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) -o $@ $(filter %.c,$^)

$(OUTPUT)/fuzz_filter: fuzz/fuzz_filter.c tools/trace/filter.c tools/trace/filter_parse.c \
		      tools/common/say.c $(wildcard tools/trace/*.h tools/common/*.h) | $(OUTPUT)
	$(call msg,FUZZ,$@)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) -I$(OUTPUT) -o $@ $(filter %.c,$^)

$(OUTPUT)/fuzz_agg: fuzz/fuzz_agg.c $(addprefix tools/output/,agg.c agg_parse.c agg_text.c buf.c) \
		   tools/common/say.c \
		   $(wildcard tools/trace/*.h tools/output/*.h tools/common/*.h lib/*.h) | $(OUTPUT)
	$(call msg,FUZZ,$@)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) -o $@ $(filter %.c,$^)

$(OUTPUT)/fuzz_json: fuzz/fuzz_json.c tools/output/buf.c \
		    $(wildcard tools/output/*.h tools/common/*.h lib/*.h) | $(OUTPUT)
	$(call msg,FUZZ,$@)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) -o $@ $(filter %.c,$^)

.PHONY: $(FUZZ_TARGETS:%=fuzz-%)
fuzz: $(FUZZ_TARGETS:%=fuzz-%)
$(FUZZ_TARGETS:%=fuzz-%): fuzz-%: $(OUTPUT)/fuzz_%
	$(Q)mkdir -p $(OUTPUT)/fuzz-corpus/$* $(OUTPUT)/fuzz-crash/$*
	$(Q)cp tests/fuzz/$*/* $(OUTPUT)/fuzz-corpus/$*/
	$(Q)$< -max_total_time=$(FUZZ_SECONDS) \
		-artifact_prefix=$(OUTPUT)/fuzz-crash/$*/ $(OUTPUT)/fuzz-corpus/$*
