/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Typed arguments of kernel functions (args_btf.c): the prototype of a
 * kprobe's, kretprobe's, fentry's or fexit's function from BTF (vmlinux's,
 * else its module's) made into the probe's fields, as a tracepoint's
 * format file is: named, decoded by type, `char *` read as strings.
 */
#ifndef PERFBUF_TRACE_ARGS_H
#define PERFBUF_TRACE_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct trace_probe;

/* The fields of function probe @p from BTF (p->typed set): 0; -ENOENT
 * when BTF lacks the function (@p untouched: arg0..arg5, said once);
 * -ENOMEM. */
int kfunc_fields(struct trace_probe *p);
/* The same for a glob's function @p, @mod its module as ftrace lists it
 * ("" built in): nothing said (the glob says how many BTF lacks) */
int kfunc_fields_glob(struct trace_probe *p, const char *mod);
/* "ssize_t vfs_read(struct file *file, char *buf, ...)" into @buf: 0,
 * or -ENOENT when BTF lacks @func */
int kfunc_proto(const char *func, char *buf, size_t sz);
/* Every BTF function whose name matches @glob (fnmatch), in BTF's order,
 * to @fn; stops when it returns non-zero. How many were given. */
long kfunc_each(const char *glob, int (*fn)(const char *name, void *ctx),
		void *ctx);
/* A capture's probe block (record, report): "typed 1", then a "field OFF
 * SIZE KIND SIGNED SLOT USER NAME" line per field, each enum value's
 * "fieldname VALUE NAME" and a struct member's "fieldfault OFF" after its
 * field; read back key by key ("typed", "field", "fieldname",
 * "fieldfault"): 0, -EBADMSG (malformed, said by the caller) or -ENOMEM */
void kfunc_fields_write(FILE *f, const struct trace_probe *p);
int kfunc_fields_read(struct trace_probe *p, const char *key, const char *val);
/* For args_btf.c and args_dwarf.c: a field at the end of @p's (NULL: out of
 * memory); its `char *` fields made strings read into slots (a user's
 * when f->user_ptr), but for buffers followed by their length */
struct tp_field *probe_field_add(struct trace_probe *p, const char *name,
				 unsigned short off);
void probe_string_slots(struct trace_probe *p);
/* args_dwarf.c: uprobe @p's (at a function's start) from the binary's DWARF:
 * 0 (p->typed), -ENOENT (no DWARF for it: arg0..arg5), -ENOMEM */
int ufunc_fields(struct trace_probe *p);
/* proto_dwarf.c: each function with code in ELF file @path's DWARF whose
 * name matches @glob (fnmatch), in DWARF's order, with its prototype as C
 * text, to @fn until it returns non-zero. How many were given, or -ENOENT
 * when the file has no DWARF. */
long ufunc_each_proto(const char *path, const char *glob,
		      int (*fn)(const char *name, const char *proto, void *ctx),
		      void *ctx);
/* A struct member expression, p->x or file->f_path.dentry->d_name.name
 * (members.c): the argument, then each member and whether `->` (a
 * pointer followed) or `.` led to it */
#define MEMBER_SEGS 16
struct member_expr {
	const char *text;	/* as given */
	char base[64];
	int nseg;
	struct {
		char name[64];
		bool arrow;
	} seg[MEMBER_SEGS];
};
/* What a member resolves to: the reads (@m, its arg_off and user left to
 * the caller), and the field's type in @f (kind FK_INT, FK_BOOL, FK_PTR,
 * or FK_STR for `char *` and char arrays; size, sign, enum names). 0;
 * -ENOENT: @p has no argument x->base (nothing said); -EINVAL: a
 * reason in @why; -ENOMEM. */
struct trace_member_cfg;
int ufunc_member(struct trace_probe *p, const struct member_expr *x,
		 struct tp_field *f, struct trace_member_cfg *m,
		 char *why, size_t whysz);
/* The same from BTF, for kernel functions (kprobe, fentry, fexit: a
 * parameter by name) and raw tracepoints (argN); m->user set when a
 * `user` tag is on the way */
int kfunc_member(struct trace_probe *p, const struct member_expr *x,
		 struct tp_field *f, struct trace_member_cfg *m,
		 char *why, size_t whysz);

/* The BTF read for the above freed */
void kfunc_btf_free(void);

#endif
