// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The record type finder and decoder (perfbuf/type.h) and the object
 * loader's --set (perfbuf/object.h), on the BPF objects of tests/bpf/
 * (built next to this binary, in bpf/): each record kind decoded to the
 * JSON expected of the values written, every place a type is found in,
 * hostile text and input.
 */
#include <limits.h>
#include <unistd.h>
#include <sys/stat.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "test.h"
#include "object/type_priv.h"
#include "cstr.h"
#include "bpf/run_test.h"

static char objdir[PATH_MAX];

static const char *obj(const char *name)
{
	static char path[PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/bpf/%s.bpf.o", objdir, name);
	return path;
}

static char json[4096];

static const char *to_json(const struct perfbuf_type *t, const void *rec, size_t sz)
{
	int n = perfbuf_type__fit(t, sz);

	if (n < 0)
		return "(does not fit)";
	perfbuf_type__json(t, 0, rec, n, json, sizeof(json));
	return json;
}

TEST(marker_every_kind)
{
	struct perfbuf_type *t = perfbuf_type__from_file(obj("run_types"), "events", NULL);
	struct run_event e = {
		.s8 = -8, .u8 = 200, .s16 = -16000, .u16 = 65000, .s32 = -2000000000,
		.u32 = 4000000000u, .s64 = -9000000000000000000LL,
		.u64 = 18000000000000000000ULL, .state = RUN_GONE, .ok = true,
		.comm = "perfbuf", .inner = { .port = 443, .level = -3, .flags = { 1, 2, 3 } },
		.addr = { .v4 = 0x0100007f }, .counts = { -1, 0, 1, 2147483647 },
		.ptr = (void *)0xffff888012345678ULL, .bits_lo = 5, .bits_hi = 17,
		.tag = "abcdefg",
	};
	const char *want = "{\"s8\":-8,\"u8\":200,\"s16\":-16000,\"u16\":65000,"
		"\"s32\":-2000000000,\"u32\":4000000000,\"s64\":-9000000000000000000,"
		"\"u64\":18000000000000000000,\"state\":\"RUN_GONE\",\"ok\":true,"
		"\"comm\":\"perfbuf\",\"inner\":{\"port\":443,\"level\":-3,\"flags\":[1,2,3]},"
		"\"addr\":{\"v4\":16777343,\"v6\":[127,0,0,1,0,0,0,0,0,0,0,0,0,0,0,0]},"
		"\"counts\":[-1,0,1,2147483647],\"ptr\":\"0xffff888012345678\","
		"\"bits_lo\":5,\"bits_hi\":17,\"tag\":\"abcdefg\"}";

	if (!ASSERT_OK_PTR(t, "from_file"))
		return;
	ASSERT_TRUE(!strcmp(perfbuf_type__source(t), "marker"), "source");
	ASSERT_EQ(perfbuf_type__size(t), sizeof(e), "size");
	ASSERT_TRUE(!strcmp(to_json(t, &e, sizeof(e)), want), "json");
	if (strcmp(json, want))
		fprintf(stderr, "  got  %s\n  want %s\n", json, want);
	/* perf pads a record by up to 7 bytes; more is the wrong size */
	ASSERT_EQ(perfbuf_type__fit(t, sizeof(e) + 4), sizeof(e), "padded");
	ASSERT_EQ(perfbuf_type__fit(t, sizeof(e) + 8), -EMSGSIZE, "too long");
	ASSERT_EQ(perfbuf_type__fit(t, sizeof(e) - 1), sizeof(e) - 1, "tag cut");
	ASSERT_EQ(perfbuf_type__fit(t, offsetof(struct run_event, tag) - 1), -EMSGSIZE, "too short");
	perfbuf_type__free(t);
}

/* Strings inside the library's JSON (nested structs' too) by the tool's
 * escaper: a byte that is not UTF-8 is \udcXX (its bytes come back), not
 * \u00XX (the character U+00XX); valid UTF-8 as it is */
/* lib/cstr.h's rule, each byte position after the NUL (its word loop's
 * edges): the last non-zero byte ends the text, all zeros the NUL does */
TEST(cstr_len_every_position)
{
	char a[41];
	bool ok = true;

	for (size_t n = 1; n <= sizeof(a); n++)
		for (size_t at = 0; at < n; at++) {
			memset(a, 0, sizeof(a));
			memcpy(a, "ab", n < 2 ? n : 2);
			size_t text = n < 2 ? n : 2, want = text;

			if (at > text)
				a[at] = 'x';
			if (at > text)
				want = at + 1;
			if (cstr_len(a, n) != want) {
				ok = false;
				fprintf(stderr, "n %zu, x at %zu: %zu, want %zu\n", n, at,
					cstr_len(a, n), want);
			}
		}
	memset(a, 'z', sizeof(a));
	ASSERT_TRUE(ok && cstr_len(a, sizeof(a)) == sizeof(a), "every position");
}

TEST(json_string_escapes)
{
	struct perfbuf_type *t = perfbuf_type__from_file(obj("run_types"), "events", NULL);
	struct run_event e = { .comm = "y\xff y\xc3\xbf\n\"\x01", .tag = "a\x80" };
	const char *comm = "\"comm\":\"y\\udcff y\xc3\xbf\\n\\\"\\u0001\"";
	const char *tag = "\"tag\":\"a\\udc80\"";

	if (!ASSERT_OK_PTR(t, "from_file"))
		return;
	to_json(t, &e, sizeof(e));
	ASSERT_TRUE(strstr(json, comm) != NULL, "comm");
	ASSERT_TRUE(strstr(json, tag) != NULL, "tag");
	if (!strstr(json, comm) || !strstr(json, tag))
		fprintf(stderr, "  got  %s\n  want %s and %s\n", json, comm, tag);
	perfbuf_type__free(t);
}

/* (unsigned) __int128 as decimal numbers, not hex bytes */
TEST(json_int128)
{
	struct perfbuf_type *t = perfbuf_type__from_text(
		"perfbuf-type 1 w\n"
		"f 8 0 32 0 0 0 -1 1 2 0 w\n"
		"f 1 0 16 0 0 0 0 -1 0 0 u\n"
		"f 1 16 16 0 0 0 0 -1 0 1 s\n");
	struct { unsigned __int128 u; __int128 s; } w = {
		.u = ~(unsigned __int128)0, .s = -((__int128)1 << 100) };
	const char *want = "{\"u\":340282366920938463463374607431768211455,"
			   "\"s\":-1267650600228229401496703205376}";

	if (!ASSERT_OK_PTR(t, "from_text"))
		return;
	perfbuf_type__json(t, 0, &w, sizeof(w), json, sizeof(json));
	ASSERT_TRUE(!strcmp(json, want), "json");
	if (strcmp(json, want))
		fprintf(stderr, "  got  %s\n  want %s\n", json, want);
	perfbuf_type__free(t);
}

TEST(field_table)
{
	struct perfbuf_type *t = perfbuf_type__from_file(obj("run_types"), NULL, "run_event");
	const struct perfbuf_field *root, *f;
	__s64 v;
	int inner = -1;

	if (!ASSERT_OK_PTR(t, "by name"))
		return;
	root = perfbuf_type__field(t, 0);
	ASSERT_EQ(root->kind, PERFBUF_FIELD_STRUCT, "root kind");
	ASSERT_EQ(root->nchildren, 18, "members");
	for (int i = 0; i < root->nchildren; i++) {
		f = perfbuf_type__field(t, root->first_child + i);
		ASSERT_EQ(f->parent, 0, "parent");
		if (!strcmp(f->name, "inner"))
			inner = root->first_child + i;
		if (!strcmp(f->name, "state")) {
			ASSERT_EQ(f->kind, PERFBUF_FIELD_ENUM, "enum");
			ASSERT_EQ(f->nenum, 3, "enum values");
			ASSERT_TRUE(!strcmp(perfbuf_type__enum_at(t, root->first_child + i, 1, &v),
					    "RUN_BUSY") && v == 5, "enum_at");
		}
		if (!strcmp(f->name, "bits_hi"))
			ASSERT_TRUE(f->bit_size == 5 && f->bit_offset == 3, "bitfield");
		if (!strcmp(f->name, "comm"))
			ASSERT_TRUE(f->kind == PERFBUF_FIELD_STRING && f->nelem == 16, "string");
	}
	if (ASSERT_GT(inner, 0, "inner")) {
		f = perfbuf_type__field(t, inner);
		ASSERT_TRUE(f->kind == PERFBUF_FIELD_STRUCT && f->offset ==
			    offsetof(struct run_event, inner) && f->nchildren == 3, "nested");
		f = perfbuf_type__field(t, f->first_child + 2);
		ASSERT_TRUE(f->kind == PERFBUF_FIELD_ARRAY && f->nelem == 3 &&
			    f->offset == offsetof(struct run_inner, flags), "array");
	}
	ASSERT_TRUE(!perfbuf_type__field(t, perfbuf_type__field_cnt(t)), "past the end");
	perfbuf_type__free(t);
}

TEST(dwarf_only)
{
	struct perfbuf_type *t = perfbuf_type__from_file(obj("run_dwarf"), "events", NULL);
	struct { __u32 seq; __s16 delta; char name[12]; __u64 value; } e = {
		7, -2, "dwarf", 1ULL << 40 };

	if (!ASSERT_OK_PTR(t, "from_file"))
		return;
	ASSERT_TRUE(!strcmp(perfbuf_type__source(t), "dwarf"), "source");
	ASSERT_TRUE(!strcmp(to_json(t, &e, sizeof(e)),
			    "{\"seq\":7,\"delta\":-2,\"name\":\"dwarf\",\"value\":1099511627776}"),
		    "json");
	perfbuf_type__free(t);
}

/* Bitfields from DWARF as each producer writes them: a bit offset from
 * the struct's start (DW_AT_data_bit_offset: gcc's DWARF 5) or from the top
 * of the member's storage unit (DW_AT_bit_offset: gcc's DWARF 4; clang 14
 * writes it in DWARF 5 too, for BPF objects as well) */
#define BF_STRUCT struct bf { int a : 3; unsigned int b : 13; char c; \
			      unsigned short e : 5; unsigned int f : 20; }
#define STR_(...) #__VA_ARGS__
#define STR(...) STR_(__VA_ARGS__)
BF_STRUCT;

/* @src written to @dir/x.c and built into @dir/@out: "btf" a BPF object
 * by clang (its BTF), else an executable by cc with flags @how (DWARF) */
static bool build_src(const char *dir, const char *src, const char *how,
		      const char *out)
{
	const char *cc = getenv("CC") ? getenv("CC") : "cc";
	const char *clang = getenv("CLANG") ? getenv("CLANG") : "clang";
	char cmd[512];
	FILE *f;
	bool ok;

	snprintf(cmd, sizeof(cmd), "%s/x.c", dir);
	f = fopen(cmd, "w");
	if (!ASSERT_OK_PTR(f, "source"))
		return false;
	ok = fputs(src, f) >= 0;
	if (!ASSERT_TRUE(!fclose(f) && ok, "source written"))
		return false;
	if (!strcmp(how, "btf"))
		snprintf(cmd, sizeof(cmd), "%s -g -O2 -target bpf -c -o %s/%s %s/x.c",
			 clang, dir, out, dir);
	else
		snprintf(cmd, sizeof(cmd), "%s -g %s -o %s/%s %s/x.c", cc, how, dir, out, dir);
	return ASSERT_OK(system(cmd), cmd);
}

static void rm_dir(const char *dir)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		fprintf(stderr, "could not remove %s\n", dir);
}

/* Type @name of @dir/@bin as JSON of the @sz bytes at @rec, decoded from a
 * copy of exactly @sz bytes (ASan sees a read past them) */
static const char *decode_copy(const char *dir, const char *bin, const char *name,
			       const void *rec, size_t sz)
{
	char path[PATH_MAX];
	struct perfbuf_type *t;
	const char *r;
	void *copy = malloc(sz);

	snprintf(path, sizeof(path), "%s/%s", dir, bin);
	t = perfbuf_type__from_file(path, NULL, name);
	if (!copy || !t) {
		free(copy);
		perfbuf_type__free(t);
		return "(no type)";
	}
	memcpy(copy, rec, sz);
	r = to_json(t, copy, sz);
	free(copy);
	perfbuf_type__free(t);
	return r;
}

TEST(dwarf_bitfields)
{
	static const char *const flags[] = { "-gdwarf-5", "-gdwarf-4" };
	static const char src[] = STR(BF_STRUCT) " bf;\nint main(void) { return 0; }\n";
	struct bf v = { .a = -3, .b = 4000, .c = 'x', .e = 17, .f = 1000000 };
	char dir[] = "/tmp/perfbuf-bf.XXXXXX";
	libbpf_print_fn_t old = libbpf_set_print(NULL);	/* no BTF: said */

	if (!ASSERT_OK_PTR(mkdtemp(dir), "temporary directory"))
		return;
	for (int i = 0; i < 2; i++) {
		if (!build_src(dir, src, flags[i], "bf"))
			continue;
		ASSERT_TRUE(!strcmp(decode_copy(dir, "bf", "struct bf", &v, sizeof(v)),
				    "{\"a\":-3,\"b\":4000,\"c\":120,\"e\":17,\"f\":1000000}"),
			    flags[i]);
	}
	libbpf_set_print(old);
	rm_dir(dir);
}

/* Bitfields that end their struct, their storage unit reaching past it:
 * d's long long would be 8 bytes from byte 3 of 8; a packed struct's 64
 * bits from bit 1 are in 9 bytes. And enums of signed underlying types. */
#define TAIL_STRUCTS \
	struct bft { char a[3]; long long d : 40; }; \
	struct bft2 { char a[5]; int d : 20; }; \
	struct __attribute__((packed)) bf9 { unsigned char x : 1; \
					     unsigned long long y : 64; }; \
	struct bfc { char a[3]; long long d : 40; char s[8]; }; \
	enum __attribute__((packed)) sc { SC_NEG = -2, SC_ONE = 1 }; \
	struct se { enum sc s; enum sc u; short pad; int i : 4; enum sc b : 4; }
TAIL_STRUCTS;
static const char tail_src[] = STR(TAIL_STRUCTS) ";\n"
	"struct bft t1; struct bft2 t2; struct bf9 t3; struct bfc t4; struct se t5;\n"
	"int main(void) { return 0; }\n";

static const char *const tail_builds[] = { "-gdwarf-5", "-gdwarf-4", "btf" };

TEST(bitfield_at_end)
{
	struct bft v1 = { .a = "ab", .d = -123456789012LL };
	struct bft2 v2 = { .a = "abcd", .d = -300000 };
	struct bf9 v3 = { .x = 1, .y = 0xfedcba9876543210ULL };
	struct bfc v4 = { .a = "ab", .d = 549755813887LL, .s = "cut" };
	char dir[] = "/tmp/perfbuf-bft.XXXXXX";
	libbpf_print_fn_t old = libbpf_set_print(NULL);
	struct perfbuf_type *t;
	void *copy;
	__u64 u;

	if (!ASSERT_OK_PTR(mkdtemp(dir), "temporary directory"))
		return;
	for (int i = 0; i < 3; i++) {
		const char *how = tail_builds[i];

		if (!build_src(dir, tail_src, how, "x"))
			continue;
		ASSERT_TRUE(!strcmp(decode_copy(dir, "x", "struct bft", &v1, sizeof(v1)),
				    "{\"a\":\"ab\",\"d\":-123456789012}"), how);
		ASSERT_TRUE(!strcmp(decode_copy(dir, "x", "struct bft2", &v2, sizeof(v2)),
				    "{\"a\":\"abcd\",\"d\":-300000}"), how);
		ASSERT_TRUE(!strcmp(decode_copy(dir, "x", "struct bf9", &v3, sizeof(v3)),
				    "{\"x\":1,\"y\":18364758544493064720}"), how);
		/* a record cut in its tail array: d whole, then what is there */
		ASSERT_TRUE(!strcmp(decode_copy(dir, "x", "struct bfc", &v4, 10),
				    "{\"a\":\"ab\",\"d\":549755813887,\"s\":\"cu\"}"), how);
		/* cut inside d: refused, as any record short of a non-array */
		ASSERT_TRUE(!strcmp(decode_copy(dir, "x", "struct bft", &v1, 7),
				    "(does not fit)"), how);
	}
	/* a table written before bitfields had their own size (d: 8 bytes
	 * from byte 3): its value from the 5 bytes that hold it, none past */
	t = perfbuf_type__from_text("perfbuf-type 1 bft\nf 8 0 8 0 0 0 -1 1 2 0 bft\n"
				    "f 6 0 3 3 0 0 0 -1 0 0 a\nf 1 3 8 0 0 40 0 -1 0 1 d\n");
	copy = malloc(sizeof(v1));
	if (ASSERT_OK_PTR(t, "old table") && ASSERT_OK_PTR(copy, "copy")) {
		memcpy(copy, &v1, sizeof(v1));
		ASSERT_OK(perfbuf_type__read_int(t, 2, copy, sizeof(v1), &u), "read_int");
		ASSERT_EQ((__s64)u, -123456789012LL, "old table's d");
	}
	free(copy);
	perfbuf_type__free(t);
	libbpf_set_print(old);
	rm_dir(dir);
}

TEST(signed_enum)
{
	struct se v = { .s = SC_NEG, .u = (enum sc)-3, .i = -5, .b = SC_NEG };
	char dir[] = "/tmp/perfbuf-se.XXXXXX";
	libbpf_print_fn_t old = libbpf_set_print(NULL);

	if (!ASSERT_OK_PTR(mkdtemp(dir), "temporary directory"))
		return;
	for (int i = 0; i < 3; i++) {
		const char *how = tail_builds[i];

		if (!build_src(dir, tail_src, how, "x"))
			continue;
		ASSERT_TRUE(!strcmp(decode_copy(dir, "x", "struct se", &v, sizeof(v)),
				    "{\"s\":\"SC_NEG\",\"u\":-3,\"pad\":0,\"i\":-5,"
				    "\"b\":\"SC_NEG\"}"), how);
	}
	libbpf_set_print(old);
	rm_dir(dir);
}

/* @btf's raw bytes as the .BTF section of ELF object @dir/@out: added to
 * a small object of cc's, or (@base) replacing @base's own */
static bool elf_with_btf(const char *dir, const char *out, const struct btf *btf,
			 const char *base)
{
	char path[PATH_MAX], cmd[PATH_MAX * 4];
	const void *raw;
	__u32 sz = 0;
	FILE *f;
	bool ok;

	raw = btf__raw_data(btf, &sz);
	snprintf(path, sizeof(path), "%s/raw.btf", dir);
	f = fopen(path, "w");
	ok = raw && f && fwrite(raw, 1, sz, f) == sz;
	if (f)
		ok = !fclose(f) && ok;
	if (!ASSERT_TRUE(ok, "BTF written"))
		return false;
	if (base)
		/* binutils' objcopy does not know EM_BPF */
		snprintf(cmd, sizeof(cmd), "llvm-objcopy --update-section .BTF=%s %s %s/%s",
			 path, base, dir, out);
	else
		snprintf(cmd, sizeof(cmd), "echo 'int x;' | %s -x c -c -o %s/e.o - && "
			 "objcopy --add-section .BTF=%s %s/e.o %s/%s",
			 getenv("CC") ? getenv("CC") : "cc", dir, path, dir, dir, out);
	return ASSERT_OK(system(cmd), cmd);
}

/* BTF's own signedness (a kind flag; clang 14 writes none) as clang 15
 * writes it, from a hand-built .BTF section in an ELF object: ENUM of one
 * byte, ENUM64 signed and not, a 4-bit enum bitfield, an unsigned ENUM
 * whose value >= 2^31 looks negative */
static bool btf_object(const char *dir, const char *out)
{
	struct btf *btf = btf__new_empty();
	int e8, s64, u64, eu, st;
	bool ok;

	if (!ASSERT_OK_PTR(btf, "btf__new_empty"))
		return false;
	e8 = btf__add_enum(btf, "e8", 1);
	btf__add_enum_value(btf, "E8_NEG", -2);
	btf__add_enum_value(btf, "E8_ONE", 1);
	s64 = btf__add_enum64(btf, "s64", 8, true);
	btf__add_enum64_value(btf, "S_NEG", (__u64)-5000000000LL);
	u64 = btf__add_enum64(btf, "u64", 8, false);
	btf__add_enum64_value(btf, "U_TOP", 1ULL << 63);
	eu = btf__add_enum(btf, "eu", 4);	/* no flag: unsigned */
	btf__add_enum_value(btf, "EU_TOP", 0x80000000LL);
	st = btf__add_struct(btf, "be", 48);
	btf__add_field(btf, "a", e8, 0, 0);
	btf__add_field(btf, "b", e8, 8, 4);
	btf__add_field(btf, "s", s64, 64, 0);
	btf__add_field(btf, "s2", s64, 128, 0);
	btf__add_field(btf, "u", u64, 192, 0);
	btf__add_field(btf, "u2", u64, 256, 0);
	btf__add_field(btf, "eu", eu, 320, 0);
	ok = btf__add_field(btf, "eu2", eu, 352, 0) == 0 && e8 > 0 && s64 > 0 &&
	     u64 > 0 && eu > 0 && st > 0;
	ok = ASSERT_TRUE(ok, "BTF built") && elf_with_btf(dir, out, btf, NULL);
	btf__free(btf);
	return ok;
}

TEST(btf_enum_flags)
{
	unsigned char rec[48] = { 0xfe, 0x0d };
	__u32 eu = 0x80000000u, eu2 = ~0U;
	__s64 s = -5000000000LL, s2 = -7;
	__u64 u = 1ULL << 63, u2 = ~0ULL;
	char dir[] = "/tmp/perfbuf-be.XXXXXX";

	memcpy(rec + 8, &s, 8);
	memcpy(rec + 16, &s2, 8);
	memcpy(rec + 24, &u, 8);
	memcpy(rec + 32, &u2, 8);
	memcpy(rec + 40, &eu, 4);
	memcpy(rec + 44, &eu2, 4);
	if (!ASSERT_OK_PTR(mkdtemp(dir), "temporary directory"))
		return;
	if (btf_object(dir, "be.o"))
		ASSERT_TRUE(!strcmp(decode_copy(dir, "be.o", "struct be", rec, sizeof(rec)),
				    "{\"a\":\"E8_NEG\",\"b\":-3,\"s\":\"S_NEG\",\"s2\":-7,"
				    "\"u\":\"U_TOP\",\"u2\":18446744073709551615,"
				    "\"eu\":\"EU_TOP\",\"eu2\":4294967295}"), json);
	rm_dir(dir);
}

/* Object @name of tests/bpf/ with its BTF passed through @edit (which
 * changes types in place: a parsed BTF's bytes are its raw data), as
 * @dir/@out */
static bool patched_object(const char *dir, const char *out, const char *name,
			   bool (*edit)(struct btf *btf))
{
	struct btf *btf = btf__parse_elf(obj(name), NULL);
	bool ok;

	if (!ASSERT_OK_PTR(btf, "BTF of the object"))
		return false;
	ok = ASSERT_TRUE(edit(btf), "BTF edited") && elf_with_btf(dir, out, btf, obj(name));
	btf__free(btf);
	return ok;
}

static struct btf_type *btf_type_w(struct btf *btf, const char *name, int kind)
{
	int id = btf__find_by_name_kind(btf, name, kind);

	return id > 0 ? (struct btf_type *)btf__type_by_id(btf, id) : NULL;
}

/* Names past the string section, as a mutated object has them (libbpf
 * 1.1 does not check): a struct's, a member's, an enum value's, char's */
static bool names_out_of_range(struct btf *btf)
{
	struct btf_type *inner = btf_type_w(btf, "run_inner", BTF_KIND_STRUCT);
	struct btf_type *ev = btf_type_w(btf, "run_event", BTF_KIND_STRUCT);
	struct btf_type *st = btf_type_w(btf, "run_state", BTF_KIND_ENUM);
	struct btf_type *ch = btf_type_w(btf, "char", BTF_KIND_INT);

	if (!inner || !ev || !st || !ch)
		return false;
	inner->name_off = 0x7fffffff;
	btf_members(ev)[0].name_off = 0x7ffffff0;
	btf_enum(st)[0].name_off = 0x7fffff00;
	ch->name_off = 0x7ffff000;
	return true;
}

TEST(btf_name_out_of_range)
{
	char dir[] = "/tmp/perfbuf-names.XXXXXX", path[PATH_MAX];
	perfbuf_print_fn old = test_capture_warnings();
	libbpf_print_fn_t lold = libbpf_set_print(NULL);
	struct perfbuf_type *t;

	if (!ASSERT_OK_PTR(mkdtemp(dir), "temporary directory"))
		goto out;
	snprintf(path, sizeof(path), "%s/names.o", dir);
	if (!patched_object(dir, "names.o", "run_types", names_out_of_range))
		goto out;
	t = perfbuf_type__from_file(path, "events", NULL);	/* every name read */
	if (ASSERT_OK_PTR(t, "by the marker"))
		ASSERT_TRUE(!strcmp(perfbuf_type__field(t, 1)->name, ""), "a name past the end: none");
	perfbuf_type__free(t);
	t = perfbuf_type__from_file(path, NULL, "run_event");
	ASSERT_OK_PTR(t, "by name");
	perfbuf_type__free(t);
out:
	libbpf_set_print(lold);
	perfbuf_set_print(old);
	rm_dir(dir);
}

/* Hand-made BTF the finder cannot decode: a struct 40 deep (s0 holds s1
 * ... s39 an int), one that contains itself, and one of 70,000 fields
 * (vlen holds 65,535: two members of 35,000 each) */
static bool hostile_btf_object(const char *dir, const char *out)
{
	struct btf *btf = btf__new_empty();
	int i32, id = 0, self, a, big;
	bool ok;

	if (!ASSERT_OK_PTR(btf, "btf__new_empty"))
		return false;
	i32 = btf__add_int(btf, "int", 4, BTF_INT_SIGNED);
	for (int i = 39; i >= 0; i--) {
		char name[16];

		snprintf(name, sizeof(name), "s%d", i);
		id = btf__add_struct(btf, name, 4);
		btf__add_field(btf, "m", i == 39 ? i32 : id - 1, 0, 0);
	}
	self = btf__add_struct(btf, "self", 8);
	btf__add_field(btf, "v", i32, 0, 0);
	btf__add_field(btf, "next", self, 32, 0);
	a = btf__add_struct(btf, "half", 35000 * 4);
	for (int i = 0; i < 35000; i++) {
		char name[16];

		snprintf(name, sizeof(name), "f%d", i);
		btf__add_field(btf, name, i32, i * 32, 0);
	}
	big = btf__add_struct(btf, "big", 70000 * 4);
	btf__add_field(btf, "x", a, 0, 0);
	ok = !btf__add_field(btf, "y", a, 35000 * 32, 0) && id > 0 && self > 0 && big > 0;
	ok = ASSERT_TRUE(ok, "BTF built") && elf_with_btf(dir, out, btf, NULL);
	btf__free(btf);
	return ok;
}

/* Each type the finder refuses: NULL, its errno, and the cause said */
TEST(undecodable_said)
{
	static const struct { const char *name; int err; const char *said; } want[] = {
		{ "s0", ELOOP, "nests more than 32 levels deep" },
		{ "self", ELOOP, "contains itself" },
		{ "big", E2BIG, "more than 65536 fields" },
	};
	char dir[] = "/tmp/perfbuf-hostile.XXXXXX", path[PATH_MAX];
	perfbuf_print_fn old = test_capture_warnings();
	libbpf_print_fn_t lold = libbpf_set_print(NULL);

	if (!ASSERT_OK_PTR(mkdtemp(dir), "temporary directory") ||
	    !hostile_btf_object(dir, "h.o"))
		goto out;
	snprintf(path, sizeof(path), "%s/h.o", dir);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		test_warning[0] = 0;
		errno = 0;
		ASSERT_TRUE(!perfbuf_type__from_file(path, NULL, want[i].name) &&
			    errno == want[i].err, want[i].name);
		ASSERT_TRUE(strstr(test_warning, want[i].said) != NULL, want[i].said);
		if (!strstr(test_warning, want[i].said))
			fprintf(stderr, "  said: '%s'\n", test_warning);
	}
out:
	libbpf_set_print(lold);
	perfbuf_set_print(old);
	rm_dir(dir);
}

/* A struct event 40 deep in DWARF only: that cause, not "no struct event" */
TEST(dwarf_undecodable_said)
{
	char dir[] = "/tmp/perfbuf-deep.XXXXXX", path[PATH_MAX], src[8192];
	perfbuf_print_fn old = test_capture_warnings();
	libbpf_print_fn_t lold = libbpf_set_print(NULL);
	int n = snprintf(src, sizeof(src), "struct d39 { int v; };\n");

	for (int i = 38; i >= 0; i--)
		n += snprintf(src + n, sizeof(src) - n, "struct d%d { struct d%d m; };\n", i, i + 1);
	snprintf(src + n, sizeof(src) - n, "struct event { struct d0 m; } ev;\n"
		 "int main(void) { return 0; }\n");
	if (!ASSERT_OK_PTR(mkdtemp(dir), "temporary directory") ||
	    !build_src(dir, src, "-gdwarf-5", "deep"))
		goto out;
	snprintf(path, sizeof(path), "%s/deep", dir);
	errno = 0;
	ASSERT_TRUE(!perfbuf_type__from_file(path, "events", NULL) && errno == ELOOP, "ELOOP");
	ASSERT_TRUE(strstr(test_warning, "nests more than 32 levels deep") != NULL, test_warning);
out:
	libbpf_set_print(lold);
	perfbuf_set_print(old);
	rm_dir(dir);
}

/* A FIFO (no writer) as an object: refused at once, never waited on */
TEST(fifo_refused)
{
	char dir[] = "/tmp/perfbuf-fifo.XXXXXX", path[PATH_MAX];
	perfbuf_print_fn old = test_capture_warnings();

	if (!ASSERT_OK_PTR(mkdtemp(dir), "temporary directory"))
		goto out;
	snprintf(path, sizeof(path), "%s/fifo", dir);
	if (!ASSERT_OK(mkfifo(path, 0600), "mkfifo"))
		goto out;
	alarm(20);	/* a blocking open(): killed, the test failed */
	errno = 0;
	ASSERT_TRUE(!perfbuf_type__from_file(path, NULL, NULL) && errno == ENOEXEC, "from_file");
	ASSERT_TRUE(strstr(test_warning, "not a regular file") != NULL, test_warning);
	errno = 0;
	ASSERT_TRUE(!perfbuf_object__open(path) && errno == ENOEXEC, "object__open");
	alarm(0);
out:
	perfbuf_set_print(old);
	rm_dir(dir);
}

/* --set on an integer of 3 bytes (a hand-made BTF's): refused, said; the
 * store would otherwise write 8 bytes where the bounds check saw 3 */
static bool target_pid_3_bytes(struct btf *btf)
{
	int id = btf__find_by_name_kind(btf, "target_pid", BTF_KIND_VAR);
	const struct btf_type *v = id > 0 ? btf__type_by_id(btf, id) : NULL;
	__u32 tid = v ? v->type : 0;
	struct btf_type *t;

	for (int hops = 0; tid && hops < 8; hops++) {
		t = (struct btf_type *)btf__type_by_id(btf, tid);
		if (btf_is_int(t)) {
			t->size = 3;
			*(__u32 *)(t + 1) = (*(__u32 *)(t + 1) & ~0xffu) | 24;
			return true;
		}
		tid = t->type;
	}
	return false;
}

TEST(set_odd_int_size)
{
	char dir[] = "/tmp/perfbuf-set3.XXXXXX", path[PATH_MAX];
	perfbuf_print_fn old = test_capture_warnings();
	libbpf_print_fn_t lold = libbpf_set_print(NULL);
	struct perfbuf_object *o = NULL;

	if (!ASSERT_OK_PTR(mkdtemp(dir), "temporary directory") ||
	    !patched_object(dir, "s3.o", "run_types", target_pid_3_bytes))
		goto out;
	snprintf(path, sizeof(path), "%s/s3.o", dir);
	o = perfbuf_object__open(path);
	if (!ASSERT_OK_PTR(o, "open"))
		goto out;
	ASSERT_EQ(perfbuf_object__set(o, "target_pid=5"), -EINVAL, "refused");
	ASSERT_TRUE(strstr(test_warning, "3 bytes wide") != NULL, test_warning);
out:
	perfbuf_object__free(o);
	libbpf_set_print(lold);
	perfbuf_set_print(old);
	rm_dir(dir);
}

TEST(short_tail)
{
	struct perfbuf_type *t = perfbuf_type__from_file(obj("run_ringbuf"), "rb", NULL);
	struct run_tail e = { .seq = 1, .len = 5, .args = "abcde" };

	if (!ASSERT_OK_PTR(t, "from_file"))
		return;
	ASSERT_EQ(perfbuf_type__fit(t, 8 + 5), 13, "what is there");
	ASSERT_TRUE(!strcmp(to_json(t, &e, 8 + 3), "{\"seq\":1,\"len\":5,\"args\":\"abc\"}"),
		    "cut tail");
	ASSERT_EQ(perfbuf_type__fit(t, 7), -EMSGSIZE, "shorter than the head");
	perfbuf_type__free(t);
}

/* A type's text reads back as the same table */
TEST(text_round_trip)
{
	struct perfbuf_type *a = perfbuf_type__from_file(obj("run_types"), "events", NULL);
	struct perfbuf_type *c;
	static char ta[8192], tc[8192];

	if (!ASSERT_OK_PTR(a, "object"))
		return;
	perfbuf_type__to_text(a, ta, sizeof(ta));
	c = perfbuf_type__from_text(ta);
	if (ASSERT_OK_PTR(c, "from_text")) {
		perfbuf_type__to_text(c, tc, sizeof(tc));
		ASSERT_TRUE(!strcmp(ta, tc), "round trip");
		perfbuf_type__free(c);
	}
	perfbuf_type__free(a);
}

TEST(hostile)
{
	perfbuf_print_fn old = test_capture_warnings();
	static const char *bad[] = {
		"",
		"perfbuf-type 1 x\n",
		/* a child before its parent: a cycle */
		"perfbuf-type 1 x\nf 8 0 8 0 0 0 -1 0 1 0 x\n",
		"perfbuf-type 1 x\nf 8 0 8 0 0 0 -1 1 1 0 x\nf 8 0 8 0 0 0 0 0 1 0 y\n",
		"perfbuf-type 1 x\nf 99 0 8 0 0 0 -1 -1 0 0 x\n",
		"perfbuf-type 1 x\nf 8 0 8 0 0 0 -1 1 2 0 x\nf 1 0 4 0 0 0 0 -1 0 0 a\n",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		errno = 0;
		ASSERT_TRUE(!perfbuf_type__from_text(bad[i]) && errno == EINVAL, bad[i]);
	}
	errno = 0;
	ASSERT_TRUE(!perfbuf_type__from_file("tests/bpf/run_test.h", NULL, NULL) &&
		    errno == ENOEXEC, "not ELF");
	ASSERT_TRUE(strstr(test_warning, "not an ELF object") != NULL, "said");
	errno = 0;
	ASSERT_TRUE(!perfbuf_type__from_file(obj("run_nomaps"), NULL, NULL) &&
		    errno == ENOENT, "no type");
	ASSERT_TRUE(!perfbuf_type__from_file(obj("run_types"), NULL, "no_such") &&
		    errno == ENOENT, "no such name");
	perfbuf_set_print(old);
}

TEST(object_set)
{
	perfbuf_print_fn old = test_capture_warnings();
	struct perfbuf_object *o = perfbuf_object__open(obj("run_types"));

	if (!ASSERT_OK_PTR(o, "open"))
		goto out;
	ASSERT_OK(perfbuf_object__set(o, "target_pid=1234"), "int");
	ASSERT_OK(perfbuf_object__set(o, "tag=hello"), "chars");
	ASSERT_OK(perfbuf_object__set(o, "mark=true"), "bool");
	ASSERT_EQ(perfbuf_object__set(o, "nope=1"), -ENOENT, "unknown name");
	ASSERT_TRUE(strstr(test_warning, "no const volatile variable 'nope'") != NULL, "said");
	ASSERT_EQ(perfbuf_object__set(o, "tag=12345678"), -ERANGE, "chars too long");
	ASSERT_EQ(perfbuf_object__set(o, "target_pid=-1"), -ERANGE, "negative unsigned");
	ASSERT_EQ(perfbuf_object__set(o, "target_pid=0x100000000"), -ERANGE, "too big");
	ASSERT_EQ(perfbuf_object__set(o, "target_pid=12x"), -EINVAL, "not a number");
	ASSERT_EQ(perfbuf_object__set(o, "mark=maybe"), -EINVAL, "not a bool");
	ASSERT_EQ(perfbuf_object__set(o, "target_pid"), -EINVAL, "no =");
	ASSERT_EQ(perfbuf_object__map_fd(o, "nope"), -ENOENT, "no map");
	ASSERT_GE(perfbuf_object__map_cnt(o), 2, "maps");
	ASSERT_EQ(perfbuf_object__prog_cnt(o), 1, "programs");
	ASSERT_TRUE(!strcmp(perfbuf_object__prog_name(o, 0), "run_write"), "program name");
out:
	perfbuf_object__free(o);
	errno = 0;
	ASSERT_TRUE(!perfbuf_object__open("tests/bpf/run_test.h") && errno == ENOEXEC,
		    "open: not ELF");
	perfbuf_set_print(old);
}

/* A loaded program's fd through the object, not through libbpf's object
 * (which the caller could close under it): -ENOENT before the load,
 * -EINVAL for a bad index. */
TEST(object_prog_fd)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);
	struct perfbuf_object *o;
	int fd;

	TEST_NEED_ROOT();
	o = perfbuf_object__open(obj("run_types"));
	if (!ASSERT_OK_PTR(o, "open"))
		return;
	ASSERT_EQ(perfbuf_object__prog_fd(o, 0), -ENOENT, "before the load");
	ASSERT_OK(perfbuf_object__load(o), "load");
	fd = perfbuf_object__prog_fd(o, 0);
	if (ASSERT_GE(fd, 0, "program 0's fd"))
		ASSERT_TRUE(!bpf_obj_get_info_by_fd(fd, &info, &len) &&
			    !strcmp(info.name, "run_write"), "its program");
	ASSERT_EQ(perfbuf_object__prog_fd(o, 1), -EINVAL, "past the last");
	ASSERT_EQ(perfbuf_object__prog_fd(o, -1), -EINVAL, "negative");
	perfbuf_object__free(o);
}

int main(int argc, char **argv)
{
	static const struct test_case cases[] = {
		TEST_ENTRY(marker_every_kind), TEST_ENTRY(cstr_len_every_position), TEST_ENTRY(json_string_escapes), TEST_ENTRY(json_int128),
		TEST_ENTRY(field_table),
		TEST_ENTRY(dwarf_only), TEST_ENTRY(dwarf_bitfields),
		TEST_ENTRY(bitfield_at_end), TEST_ENTRY(signed_enum),
		TEST_ENTRY(btf_enum_flags),
		TEST_ENTRY(btf_name_out_of_range), TEST_ENTRY(undecodable_said),
		TEST_ENTRY(dwarf_undecodable_said), TEST_ENTRY(fifo_refused),
		TEST_ENTRY(set_odd_int_size),
		TEST_ENTRY(short_tail),
		TEST_ENTRY(text_round_trip), TEST_ENTRY(hostile),
		TEST_ENTRY(object_set), TEST_ENTRY(object_prog_fd),
	};
	ssize_t n = readlink("/proc/self/exe", objdir, sizeof(objdir) - 1);

	if (n > 0)
		objdir[n] = 0;
	*strrchr(objdir, '/') = 0;
	return test_main(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
}
