/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the running kernel's BPF offers, probed in this one place (as
 * libbpf-tools' trace_helpers.c does): each feature that perfbuf's
 * programs use or fall back from, with the Linux version that brought
 * it, probed once; kprobes; fentry on a function. Programs that need a missing one come from the objects
 * built with PERFBUF_COMPAT (bpf/compat/, NAME_compat.skel.h).
 */
#ifndef PERFBUF_COMMON_KFEAT_H
#define PERFBUF_COMMON_KFEAT_H

#include <stdbool.h>
#include <stddef.h>

/* the first three probed by loading programs, the others from vmlinux's
 * BTF, each group on its first use (kfeat.c) */
enum kfeat {
	KFEAT_LOOP,		/* bpf_loop(): 5.17 */
	KFEAT_COOKIE,		/* bpf_get_attach_cookie(): 5.15 */
	KFEAT_FETCH,		/* atomic fetch-and-add: 5.12 */
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

/* The PERFBUF_COMPAT objects are the ones to load: the kernel lacks one
 * of bpf_loop(), attach cookies, atomic fetch-and-add */
bool kfeat_compat(void);

/* The missing features the default objects need, as "bpf_loop() (Linux
 * 5.17), ..." into @buf; how many */
int kfeat_missing(char *buf, size_t sz);

/*
 * KFEAT_OPEN(NAME): NAME__open(), from the PERFBUF_COMPAT object when
 * kfeat_compat(): the skeleton of NAME (its programs, maps and constants,
 * the same in both builds) over the other build's ELF bytes. Needs
 * NAME.skel.h and NAME_compat.skel.h included.
 */
#define KFEAT_OPEN(NAME) ({						\
	struct NAME *o_ = calloc(1, sizeof(*o_));			\
	int e_ = o_ ? NAME##__create_skeleton(o_) : -ENOMEM;		\
	if (!e_ && kfeat_compat())					\
		o_->skeleton->data =					\
			(void *)NAME##_compat__elf_bytes(&o_->skeleton->data_sz); \
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
