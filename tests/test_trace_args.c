// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Typed arguments of kernel functions from this kernel's BTF (args_btf.c),
 * without attaching: the fields of kprobe, kretprobe, fentry and fexit
 * probes (names, kinds, offsets, string slots), the decoder's values for
 * records laid out as trace.bpf.c writes them, the prototype `list -v`
 * prints, and the plain arg0..arg5 of a function BTF lacks; a glob's
 * functions typed as when named alone.
 */
#include <unistd.h>
#include <bpf/btf.h>

#include "test.h"
#include "trace/decode.h"
#include "trace/args.h"
#include "common/kbtf.h"
#include "common/ksyms.h"

#define ASSERT_STREQ(a, b, name) ASSERT_TRUE(!strcmp((a), (b)), name)

/* A probe of @kind on @func typed from BTF: 0, or a skip reason */
static const char *typed_probe(struct trace_probe *p, enum probe_kind kind,
			       const char *func)
{
	static const char *const kinds[] = { [PK_KPROBE] = "kprobe",
		[PK_KRETPROBE] = "kretprobe", [PK_FENTRY] = "fentry",
		[PK_FEXIT] = "fexit" };
	static char spec[128];

	if (access("/sys/kernel/btf/vmlinux", R_OK))
		return "no /sys/kernel/btf/vmlinux";
	memset(p, 0, sizeof(*p));
	snprintf(spec, sizeof(spec), "%s:%s", kinds[kind], func);
	p->kind = kind;
	p->prog = "perfbuf trace";
	p->spec = spec;
	p->label = spec;
	p->target = (char *)func;
	p->cfg.argv_slot = -1;
	if (kfunc_fields(p))
		return "BTF lacks the function";
	return NULL;
}

static const struct tp_field *field(const struct trace_probe *p, const char *name)
{
	for (int i = 0; i < p->nfields; i++)
		if (!strcmp(p->fields[i].name, name))
			return &p->fields[i];
	return NULL;
}

/* ssize_t vfs_read(struct file *file, char *buf, size_t count, loff_t *pos) */
TEST(vfs_read_fields)
{
	struct trace_probe p;
	const struct tp_field *f;
	const char *why = typed_probe(&p, PK_FENTRY, "vfs_read");

	if (why)
		TEST_SKIP(why);
	ASSERT_TRUE(p.typed, "typed");
	ASSERT_EQ(p.nfields, 4, "as many fields as parameters");
	f = field(&p, "count");
	if (ASSERT_OK_PTR(f, "count")) {
		ASSERT_EQ(f->kind, FK_INT, "count: an integer");
		ASSERT_EQ(f->off, 16, "count: the third u64");
		ASSERT_EQ(f->size, 8, "size_t: 8 bytes");
		ASSERT_EQ(f->is_signed, false, "size_t: unsigned");
	}
	f = field(&p, "buf");	/* followed by its length: a buffer, not a string */
	if (ASSERT_OK_PTR(f, "buf"))
		ASSERT_EQ(f->kind, FK_PTR, "buf: an address");
	f = field(&p, "file");
	if (ASSERT_OK_PTR(f, "file"))
		ASSERT_EQ(f->kind, FK_PTR, "struct file *: an address");
	ASSERT_EQ(p.cfg.nstr, 0, "no string slot");
	tp_fields_free(&p);
}

/* fexit: ret first, typed by the return type, then the parameters */
TEST(fexit_kretprobe_ret)
{
	struct trace_probe p;
	const struct tp_field *f;
	const char *why = typed_probe(&p, PK_FEXIT, "vfs_read");

	if (why)
		TEST_SKIP(why);
	ASSERT_EQ(p.nfields, 5, "ret and 4 parameters");
	ASSERT_STREQ(p.fields[0].name, "ret", "ret first");
	ASSERT_EQ(p.fields[0].off, 0, "ret at 0");
	ASSERT_EQ(p.fields[0].is_signed, true, "ssize_t: signed");
	f = field(&p, "count");
	if (ASSERT_OK_PTR(f, "count"))
		ASSERT_EQ(f->off, 24, "after ret");
	tp_fields_free(&p);
	why = typed_probe(&p, PK_KRETPROBE, "vfs_read");
	ASSERT_EQ(why, NULL, "kretprobe typed");
	ASSERT_EQ(p.nfields, 1, "kretprobe: ret only");
	tp_fields_free(&p);
}

/* A record as trace.bpf.c's fentry writes it for do_sys_openat2(int dfd,
 * const char *filename, struct open_how *how): 3 u64s, the string slot */
static size_t openat2_record(struct trace_record *r, const char *path,
			     __u64 dfd_reg)
{
	__u64 *a = (__u64 *)r->data;
	size_t n = strlen(path) + 1;

	memset(r, 0, sizeof(*r));
	r->pid = r->tid = 42;
	memcpy(r->comm, "t", 2);
	a[0] = dfd_reg;
	a[1] = 0x7ffc12345678ULL;
	a[2] = 0xffff888012345678ULL;
	r->raw_size = 24;
	if (path[0]) {
		memcpy(r->data + 24, path, n);
		r->str_len[0] = n;
	} else {
		n = 0;
	}
	return (sizeof(*r) + 24 + n + 7) & ~7UL;
}

TEST(decode_openat2)
{
	union { struct trace_record r; unsigned char b[512]; } buf;
	struct probe_set set = { .n = 1 };
	struct trace_decoder *d;
	const struct tv_event *e;
	struct trace_probe p;
	const char *why = typed_probe(&p, PK_FENTRY, "do_sys_openat2");
	size_t sz;

	if (why)
		TEST_SKIP(why);
	ASSERT_EQ(p.cfg.nstr, 1, "filename: a string slot");
	ASSERT_EQ(p.cfg.str[0].kind, TRACE_STR_ANY_PTR, "kernel or user");
	ASSERT_EQ(p.cfg.str[0].user_first, 1, "a name the syscalls' rule says is the user's");
	set.v = &p;
	d = trace_decoder__new(&set);
	if (!ASSERT_OK_PTR(d, "decoder"))
		return;
	/* AT_FDCWD in the low half, garbage above: an int is 4 bytes */
	sz = openat2_record(&buf.r, "/tmp/pb_typed_x", 0xdeadbeefffffff9cULL);
	e = trace_decoder__decode(d, &buf.r, sz, 0, false);
	if (ASSERT_OK_PTR(e, "decoded") && ASSERT_EQ(e->nfields, 3, "3 values")) {
		ASSERT_STREQ(e->fields[0].name, "dfd", "named");
		ASSERT_EQ(e->fields[0].type, TV_INT, "dfd: int");
		ASSERT_EQ(e->fields[0].i, -100, "dfd: AT_FDCWD");
		ASSERT_STREQ(e->fields[1].name, "filename", "named");
		ASSERT_EQ(e->fields[1].type, TV_STR, "filename: a string");
		ASSERT_EQ(e->fields[1].len, strlen("/tmp/pb_typed_x"), "its length");
		ASSERT_MEMEQ(e->fields[1].data, "/tmp/pb_typed_x", 15, "its bytes");
		ASSERT_EQ(e->fields[2].type, TV_PTR, "how: an address");
		ASSERT_EQ(e->fields[2].u, 0xffff888012345678ULL, "its value");
	}
	/* the string could not be read: its address */
	sz = openat2_record(&buf.r, "", 5);
	e = trace_decoder__decode(d, &buf.r, sz, 0, false);
	if (ASSERT_OK_PTR(e, "decoded") && ASSERT_EQ(e->nfields, 3, "3 values")) {
		ASSERT_EQ(e->fields[1].type, TV_PTR, "unread: the pointer");
		ASSERT_TRUE(e->fields[1].flags & TV_F_UNREAD, "said unread");
		ASSERT_EQ(e->fields[1].u, 0x7ffc12345678ULL, "its address");
	}
	trace_decoder__free(d);
	tp_fields_free(&p);
}

/* list -v's line: the prototype with the parameters' names */
TEST(proto_text)
{
	char buf[512];

	if (access("/sys/kernel/btf/vmlinux", R_OK))
		TEST_SKIP("no /sys/kernel/btf/vmlinux");
	ASSERT_OK(kfunc_proto("vfs_read", buf, sizeof(buf)), "vfs_read");
	ASSERT_TRUE(strstr(buf, "vfs_read(struct file *file, char *buf, size_t count, loff_t *pos)") != NULL,
		    buf);
	ASSERT_EQ(kfunc_proto("pb_no_such_function", buf, sizeof(buf)), -ENOENT,
		  "not in BTF");
}

/* A function BTF lacks: untyped (arg0..arg5); not said for one that does
 * not exist (attaching says that) */
TEST(not_in_btf)
{
	struct trace_probe p;

	ASSERT_NEQ(typed_probe(&p, PK_KPROBE, "pb_no_such_function"), NULL, "not typed");
	ASSERT_EQ(p.typed, false, "arg0..arg5");
	ASSERT_EQ(p.nfields, 0, "no fields");
}

/* A glob's function (kfunc_fields_glob(), ftrace's module "") is typed
 * as when named alone: every vfs_* function BTF has, kprobe and
 * kretprobe; the index finds each as btf__find_by_name_kind() does */
struct glob_cmp {
	enum probe_kind kind;
	const struct btf *btf;
	int n, same, found;
};

static bool same_fields(const struct trace_probe *a, const struct trace_probe *b)
{
	if (a->typed != b->typed || a->nfields != b->nfields ||
	    memcmp(&a->cfg, &b->cfg, sizeof(a->cfg)))
		return false;
	for (int i = 0; i < a->nfields; i++) {
		const struct tp_field *x = &a->fields[i], *y = &b->fields[i];

		if (strcmp(x->name, y->name) || x->kind != y->kind || x->off != y->off ||
		    x->size != y->size || x->is_signed != y->is_signed ||
		    x->slot != y->slot || x->ptr != y->ptr || x->nnames != y->nnames)
			return false;
	}
	return true;
}

static int glob_one(const char *name, void *ctx)
{
	struct glob_cmp *c = ctx;
	struct trace_probe named, glob;

	const struct btf *b;

	c->n++;
	c->found += kbtf_func(name, "", &b) ==
		    btf__find_by_name_kind(c->btf, name, BTF_KIND_FUNC);
	if (typed_probe(&named, c->kind, name))
		return 0;
	memset(&glob, 0, sizeof(glob));
	glob.kind = c->kind;
	glob.spec = glob.label = named.spec;
	glob.target = (char *)name;
	glob.from_glob = true;
	glob.cfg.argv_slot = -1;
	c->same += !kfunc_fields_glob(&glob, "") && same_fields(&named, &glob);
	tp_fields_free(&named);
	tp_fields_free(&glob);
	return 0;
}

TEST(glob_typed_as_named)
{
	struct btf *btf = btf__load_vmlinux_btf();
	struct glob_cmp c = { .kind = PK_KPROBE, .btf = btf };
	struct trace_probe p;

	if (!btf)
		TEST_SKIP("no vmlinux BTF");
	ASSERT_GT(kfunc_each("vfs_*", glob_one, &c), 10, "vfs_* in BTF");
	ASSERT_EQ(c.found, c.n, "the index finds each as btf__find_by_name_kind()");
	ASSERT_EQ(c.same, c.n, "each kprobe's fields as named alone");
	c = (struct glob_cmp){ .kind = PK_KRETPROBE, .btf = btf };
	kfunc_each("vfs_*", glob_one, &c);
	ASSERT_EQ(c.same, c.n, "each kretprobe's fields as named alone");
	memset(&p, 0, sizeof(p));
	p.kind = PK_KPROBE;
	p.spec = p.label = "kprobe:pb_no_such_function";
	p.target = "pb_no_such_function";
	ASSERT_EQ(kfunc_fields_glob(&p, ""), -ENOENT, "not in BTF: arg0..arg5");
	ASSERT_EQ(p.typed, false, "untyped");
	btf__free(btf);
	kfunc_btf_free();
}

/* Each kind of parameter BTF has: an enum's names, a bool */
static int first_with(const struct btf *btf, bool (*want)(const struct btf_type *))
{
	int n = btf__type_cnt(btf);

	for (int id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id), *pr;

		if (!btf_is_func(t))
			continue;
		pr = btf__type_by_id(btf, t->type);
		if (btf_vlen(pr) >= 1 && btf_vlen(pr) <= 6) {
			const struct btf_type *a = btf__type_by_id(btf, btf_params(pr)[0].type);

			while (a && (btf_is_mod(a) || btf_is_typedef(a)))
				a = btf__type_by_id(btf, a->type);
			if (a && want(a))
				return id;
		}
	}
	return -1;
}

static bool is_enum(const struct btf_type *t) { return btf_is_enum(t) && btf_vlen(t) > 1; }
static bool is_bool(const struct btf_type *t)
{
	return btf_is_int(t) && (btf_int_encoding(t) & BTF_INT_BOOL);
}

TEST(enum_and_bool)
{
	struct btf *btf = btf__load_vmlinux_btf();
	struct trace_probe p;
	int id;

	if (!btf)
		TEST_SKIP("no vmlinux BTF");
	id = first_with(btf, is_enum);
	if (ASSERT_GT(id, 0, "a function taking an enum") &&
	    !typed_probe(&p, PK_KPROBE, btf__name_by_offset(btf, btf__type_by_id(btf, id)->name_off))) {
		ASSERT_EQ(p.fields[0].hint, TV_HINT_SYMBOLIC, "its values named");
		ASSERT_GT(p.fields[0].nnames, 1, "names");
		tp_fields_free(&p);
	}
	id = first_with(btf, is_bool);
	if (ASSERT_GT(id, 0, "a function taking a bool") &&
	    !typed_probe(&p, PK_KPROBE, btf__name_by_offset(btf, btf__type_by_id(btf, id)->name_off))) {
		ASSERT_EQ(p.fields[0].kind, FK_BOOL, "a bool");
		tp_fields_free(&p);
	}
	btf__free(btf);
	kfunc_btf_free();
}

/* A capture's probe block keeps the fields: report decodes as trace did */
TEST(capture_round_trip)
{
	struct trace_probe p, q = { .kind = PK_FEXIT, .cfg.argv_slot = -1 };
	const char *why = typed_probe(&p, PK_FEXIT, "do_sys_openat2");
	char *text = NULL, *save, *line;
	size_t len = 0;
	FILE *f;

	if (why)
		TEST_SKIP(why);
	f = open_memstream(&text, &len);
	kfunc_fields_write(f, &p);
	fclose(f);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *val = strchr(line, ' ');

		*val++ = '\0';
		ASSERT_OK(kfunc_fields_read(&q, line, val), line);
	}
	ASSERT_TRUE(q.typed, "typed");
	if (ASSERT_EQ(q.nfields, p.nfields, "as many fields")) {
		for (int i = 0; i < p.nfields; i++) {
			ASSERT_STREQ(q.fields[i].name, p.fields[i].name, "name");
			ASSERT_EQ(q.fields[i].off, p.fields[i].off, "offset");
			ASSERT_EQ(q.fields[i].kind, p.fields[i].kind, "kind");
			ASSERT_EQ(q.fields[i].slot, p.fields[i].slot, "slot");
			ASSERT_EQ(q.fields[i].is_signed, p.fields[i].is_signed, "sign");
		}
	}
	/* hostile lines: refused, never a slot out of range */
	ASSERT_EQ(kfunc_fields_read(&q, "field", "0 8 3 0 9 1 x"), -EBADMSG, "slot 9");
	ASSERT_EQ(kfunc_fields_read(&q, "field", "0 9 1 0 -1 0 x"), -EBADMSG, "size 9");
	ASSERT_EQ(kfunc_fields_read(&q, "field", "0 8 1 0 -1 0"), -EBADMSG, "no name");
	free(text);
	tp_fields_free(&p);
	tp_fields_free(&q);
}

/* /proc/kallsyms as grep reads it: its first text listing of @name, the
 * address and "[module]" (or "") into @addr and @mod; false if none */
static bool kallsyms_grep(const char *name, unsigned long long *addr, char *mod)
{
	char line[512], n[256], m[128], t;
	FILE *f = fopen("/proc/kallsyms", "re");
	bool found = false;
	int k;

	while (f && !found && fgets(line, sizeof(line), f)) {
		m[0] = '\0';
		k = sscanf(line, "%llx %c %255s [%127[^]]]", addr, &t, n, m);
		found = k >= 3 && strchr("TtWw", t) && !strcmp(n, name);
		if (found)
			strcpy(mod, k == 4 ? m : "");
	}
	if (f)
		fclose(f);
	return found;
}

/* One table of /proc/kallsyms for the whole tool: read once, a function's
 * address and module as the file lists them (a module's function: the
 * first text symbol of the file's last line that has a module) */
TEST(kallsyms_one_table)
{
	const struct sym_ksyms *k = ksyms_get();
	char mod[128], want_mod[128] = "", line[512], name[256] = "", m[128];
	unsigned long long want;
	FILE *f;

	if (!ASSERT_OK_PTR((void *)k, "read"))
		return;
	ASSERT_TRUE(ksyms_get() == k, "read once");
	ASSERT_TRUE(kallsyms_grep("vfs_read", &want, want_mod), "vfs_read in the file");
	ASSERT_EQ(ksyms_addr(k, "vfs_read"), (__u64)want, "vfs_read's address");
	ASSERT_TRUE(kbtf_kallsyms("vfs_read", mod, sizeof(mod)) && !strcmp(mod, ""),
		    "vfs_read built in");
	ASSERT_TRUE(!kbtf_kallsyms("no_such_function_here", mod, sizeof(mod)), "none");
	f = fopen("/proc/kallsyms", "re");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%*x %*[Tt] %255s [%127[^]]]", name, m) == 2)
			break;
	if (f)
		fclose(f);
	if (!name[0] || !kallsyms_grep(name, &want, want_mod)) {
		printf("SKIP kallsyms_module: no module's function listed\n");
		return;
	}
	ASSERT_TRUE(kbtf_kallsyms(name, mod, sizeof(mod)) && !strcmp(mod, want_mod), name);
	kbtf_free();
	ASSERT_TRUE(ksyms_get() != NULL, "read again after kbtf_free()");
	kbtf_free();
}

TEST_MAIN(TEST_ENTRY(capture_round_trip), TEST_ENTRY(vfs_read_fields), TEST_ENTRY(fexit_kretprobe_ret),
	  TEST_ENTRY(decode_openat2), TEST_ENTRY(proto_text),
	  TEST_ENTRY(not_in_btf), TEST_ENTRY(enum_and_bool), TEST_ENTRY(glob_typed_as_named),
	  TEST_ENTRY(kallsyms_one_table))
