/*
 * What the running kernel's BPF offers, probed in this one place (as
 * libbpf-tools' trace_helpers.c does): each feature that perfbuf's
 * programs use or fall back from, with the Linux version that brought
 * it, probed once; kprobes; fentry on a function.
 *
 * A BPF object serves every kernel from 5.10 on, pruned at load time
 * (kfeat_prepare()): its constants named kfeat_NAME say whether the
 * kernel has feature NAME, and the verifier drops the branch not taken;
 * a program that calls bpf_loop() (which older verifiers refuse even in
 * dead code) has a twin NAME_bounded, and only one of the two loads.
 * Atomic fetch-and-add alone cannot be pruned (kernels before 5.12 check
 * every instruction's fields before following any branch): the objects
 * that use it have a second build, PERFBUF_NO_FETCH (KFEAT_OPEN).
 *
 * PERFBUF_KFEAT_OFF=NAME,... (or "all") makes the probes say no to those
 * features: how the tests run the old kernels' choices on a new one.
 */
#ifndef PERFBUF_COMMON_KFEAT_H
#define PERFBUF_COMMON_KFEAT_H

#include <stdbool.h>
#include <stddef.h>

struct bpf_object;
struct bpf_program;

/* the first four probed by loading programs, the others from vmlinux's
 * BTF, each group on its first use (kfeat.c) */
enum kfeat {
	KFEAT_LOOP,		/* bpf_loop(): 5.17 */
	KFEAT_COOKIE,		/* bpf_get_attach_cookie(): 5.15 */
	KFEAT_FETCH,		/* atomic fetch-and-add: 5.12 */
	KFEAT_TASK_BTF,		/* bpf_get_current_task_btf(): 5.11 */
	KFEAT_FUNC_ARG,		/* bpf_get_func_arg(): 5.17 */
	KFEAT_KPROBE_MULTI,	/* kprobe.multi links: 5.18 */
	KFEAT_MODULE_BTF,	/* BTF of modules: 5.11 */
	KFEAT__N,
};

/* Whether the kernel has @f (probed on the first call) */
bool kfeat_has(enum kfeat f);

/* "bpf_loop()" and "5.17" for @f */
const char *kfeat_name(enum kfeat f);
const char *kfeat_since(enum kfeat f);

/* Kprobes (CONFIG_KPROBES): the kprobe PMU or tracefs' kprobe_events.
 * Probed once. */
bool kfeat_kprobes(void);
/* fentry on @func, as libbpf-tools' fentry_can_attach(): an empty fentry
 * program loaded. 0, -ENOENT (@func not in vmlinux's BTF), -EOPNOTSUPP (no
 * BTF), or the load's error (EPERM under lockdown). Each call probes. */
int kfeat_fentry(const char *func);

/* The missing features that objects built for new kernels only (the
 * examples) need, as "bpf_loop() (Linux 5.17), ..." into @buf; how many */
int kfeat_missing(char *buf, size_t sz);

/*
 * Before @obj's load, after the caller chose which programs load:
 * - each const volatile bool kfeat_KEY of its .rodata set from the probe
 *   of that feature (KEY: "cookie", "fetch", ..., kfeat.c's keys);
 * - of each pair NAME / NAME_bounded, the one this kernel takes
 *   (kfeat_prog()) loads if the caller left NAME to load, the other not
 *   (NAME_bounded's own autoload is not looked at).
 * 0, or a negative errno said on stderr under @prog's name: -EINVAL for
 * a word of PERFBUF_KFEAT_OFF that names no feature, -ENOENT for a
 * kfeat_ constant that does not (the object and this file disagree).
 */
int kfeat_prepare(struct bpf_object *obj, const char *prog);
/* Only the constants of kfeat_prepare(): each program's autoload left as
 * it is (a test that loads every program this kernel can take) */
int kfeat_set_consts(struct bpf_object *obj, const char *prog);

/* The program of @prog's pair (NAME and NAME_bounded, @prog either) that
 * this kernel loads: NAME_bounded without bpf_loop(). @prog when it has
 * no twin. */
struct bpf_program *kfeat_prog(struct bpf_object *obj, struct bpf_program *prog);
/* Whether this kernel can load @prog: false only for a NAME that has a
 * twin where the kernel has no bpf_loop() */
bool kfeat_prog_loads(struct bpf_object *obj, struct bpf_program *prog);

/*
 * KFEAT_OPEN(NAME): NAME__open(), from the PERFBUF_NO_FETCH build where
 * the kernel has no atomic fetch-and-add: the skeleton of NAME (its
 * programs, maps and constants, the same in both builds: the Makefile
 * compares them) over the other build's ELF bytes. Needs NAME.skel.h and
 * NAME_nofetch.skel.h included.
 */
#define KFEAT_OPEN(NAME) ({						\
	struct NAME *o_ = calloc(1, sizeof(*o_));			\
	int e_ = o_ ? NAME##__create_skeleton(o_) : -ENOMEM;		\
	if (!e_ && !kfeat_has(KFEAT_FETCH))				\
		o_->skeleton->data =					\
			(void *)NAME##_nofetch__elf_bytes(&o_->skeleton->data_sz); \
	if (!e_)							\
		e_ = bpf_object__open_skeleton(o_->skeleton, NULL);	\
	if (e_) {							\
		NAME##__destroy(o_);					\
		o_ = NULL;						\
		errno = -e_;						\
	}								\
	o_;								\
})

#endif
