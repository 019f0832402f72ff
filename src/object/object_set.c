// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * --set NAME=VALUE: VALUE parsed by the BTF type of .rodata's NAME and
 * stored in its initial value (perfbuf_object__set()).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>

#include "object_priv.h"

static __u32 skip_mods(const struct btf *btf, __u32 id)
{
	for (int hops = 0; hops < 64; hops++) {
		const struct btf_type *t = btf__type_by_id(btf, id);

		if (!t || !(btf_is_mod(t) || btf_is_typedef(t)))
			break;
		id = t->type;
	}
	return id;
}

/* An integer of @size bytes, @sgn or not: -EINVAL, -ERANGE or 0 */
static int parse_int(const char *s, unsigned int size, bool sgn, __u64 *out)
{
	unsigned int bits = size * 8;
	char *end;

	errno = 0;
	if (sgn) {
		long long v = strtoll(s, &end, 0);

		if (!*s || *end)
			return -EINVAL;
		if (errno || (bits < 64 && (v < -(1LL << (bits - 1)) ||
					    v > (1LL << (bits - 1)) - 1)))
			return -ERANGE;
		*out = (__u64)v;
		return 0;
	}
	if (!*s || *s == '-')
		return *s ? -ERANGE : -EINVAL;
	*out = strtoull(s, &end, 0);
	if (*end)
		return -EINVAL;
	if (errno || (bits < 64 && *out >> bits))
		return -ERANGE;
	return 0;
}

static int enum_value(const struct btf *btf, const struct btf_type *t,
		      const char *s, __u64 *out)
{
	for (int i = 0; i < btf_vlen(t); i++) {
		if (btf_is_enum(t) && !strcmp(btf_name(btf, btf_enum(t)[i].name_off), s)) {
			*out = (__u64)(__s64)btf_enum(t)[i].val;
			return 0;
		}
		if (btf_is_enum64(t) && !strcmp(btf_name(btf, btf_enum64(t)[i].name_off), s)) {
			*out = btf_enum64_value(&btf_enum64(t)[i]);
			return 0;
		}
	}
	return parse_int(s, t->size, btf_kflag(t) || *s == '-', out);
}

static int set_chars(const struct btf *btf, const struct btf_type *t,
		     const char *name, const char *val, void *dst)
{
	const struct btf_array *a = btf_array(t);
	const struct btf_type *e = btf__type_by_id(btf, skip_mods(btf, a->type));
	size_t n = strlen(val);

	if (!e || !btf_is_int(e) || e->size != 1) {
		pr_warn("--set %s: only integers, bools, enums and char arrays can be set\n",
			name);
		return -EINVAL;
	}
	if (n >= a->nelems) {
		pr_warn("--set %s: '%s' is %zu bytes; char %s[%u] holds %u and a NUL\n",
			name, val, n, name, a->nelems, a->nelems - 1);
		return -ERANGE;
	}
	memset(dst, 0, a->nelems);
	memcpy(dst, val, n);
	return 0;
}

/* @v into the @size bytes at @dst (1, 2, 4 or 8: size_ok()), exactly
 * those, in the host's byte order: libbpf loads only objects of the
 * host's (a byte loop would store little endian on any host) */
static void store(void *dst, __u64 v, unsigned int size)
{
	__u8 u8 = (__u8)v;
	__u16 u16 = (__u16)v;
	__u32 u32 = (__u32)v;

	switch (size) {
	case 1: memcpy(dst, &u8, 1); break;
	case 2: memcpy(dst, &u16, 2); break;
	case 4: memcpy(dst, &u32, 4); break;
	case 8: memcpy(dst, &v, 8); break;
	}
}

/* Integers, bools and enums of 1, 2, 4 or 8 bytes: what a C compiler
 * makes; other sizes (a hand-made BTF's) are refused, not guessed at */
static bool size_ok(const struct btf_type *t, const char *name)
{
	if (t->size == 1 || t->size == 2 || t->size == 4 || t->size == 8)
		return true;
	pr_warn("--set %s: its type is %u bytes wide; only integers, bools and enums of 1, 2, 4 or 8 bytes can be set\n",
		name, t->size);
	return false;
}

int object_set_value(const struct btf *btf, __u32 type, const char *name,
	      const char *val, void *dst)
{
	const struct btf_type *t = btf__type_by_id(btf, skip_mods(btf, type));
	__u64 v = 0;
	int err;

	if (t && btf_is_array(t))
		return set_chars(btf, t, name, val, dst);
	if (t && (btf_is_int(t) || btf_is_any_enum(t)) && !size_ok(t, name))
		return -EINVAL;
	if (t && btf_is_int(t) && btf_int_encoding(t) & BTF_INT_BOOL) {
		if (!strcmp(val, "true") || !strcmp(val, "1"))
			v = 1;
		else if (strcmp(val, "false") && strcmp(val, "0")) {
			pr_warn("--set %s: '%s' is not a bool: give true, false, 1 or 0\n",
				name, val);
			return -EINVAL;
		}
		store(dst, v, t->size);
		return 0;
	}
	if (!t || !(btf_is_int(t) || btf_is_any_enum(t)) || t->size > 8) {
		pr_warn("--set %s: only integers, bools, enums and char arrays can be set\n",
			name);
		return -EINVAL;
	}
	err = btf_is_int(t) ? parse_int(val, t->size,
					btf_int_encoding(t) & BTF_INT_SIGNED, &v)
			    : enum_value(btf, t, val, &v);
	if (err == -EINVAL)
		pr_warn("--set %s: '%s' is not %s\n", name, val,
			btf_is_int(t) ? "an integer" : "a name or number of its enum");
	else if (err)
		pr_warn("--set %s: %s does not fit its %u-byte %s type\n", name, val,
			t->size, btf_is_int(t) && btf_int_encoding(t) & BTF_INT_SIGNED ?
			"signed" : "unsigned");
	else
		store(dst, v, t->size);
	return err;
}
