#!/usr/bin/env bash
# The second build of the objects that need it for kernels before 5.17
# (PERFBUF_COMPAT): the tool loads it through the skeleton of the normal
# build, which holds only while both have the same programs, maps and
# globals. The build compares them (scripts/bpf_layout.c); here, that the
# built pairs are the same, and that the comparison sees a difference.
# normal build only: the BPF objects are the same in the ASan build
source "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
layout=$BUILD/bpf_layout

if [[ ! -x $layout ]]; then
	fail compat_layout "$layout not built"
	finish
fi
for o in "$BUILD"/bpf/compat/*.bpf.o; do
	name=$(basename "$o" .bpf.o)
	if ! "$layout" "$BUILD/bpf/$name.bpf.o" >"$tmp/a" || ! "$layout" "$o" >"$tmp/b"; then
		fail "compat_layout_$name" "bpf_layout failed"
	elif [[ ! -s $tmp/a ]] || ! grep -q '^program ' "$tmp/a"; then
		fail "compat_layout_$name" "no program listed: $(head -c 200 "$tmp/a")"
	elif ! diff -u "$tmp/a" "$tmp/b" >"$tmp/diff"; then
		fail "compat_layout_$name" "$(head -c 400 "$tmp/diff")"
	else
		pass "compat_layout_$name"
	fi
done

# A global only the compat build has moves the next one: seen, and the
# build stops (the rule of the Makefile, run on this pair)
cat >"$tmp/t.bpf.c" <<'C'
#define SEC(name) __attribute__((section(name), used))
#ifdef PERFBUF_COMPAT
const volatile int compat_only = 0;
#endif
const volatile int shared = 0;
SEC("raw_tp/sys_enter") int prog(void *ctx) { return shared; }
char LICENSE[] SEC("license") = "GPL";
C
if ! clang -g -O2 -target bpf -c "$tmp/t.bpf.c" -o "$tmp/t.o" 2>"$tmp/err" ||
   ! clang -g -O2 -target bpf -DPERFBUF_COMPAT -c "$tmp/t.bpf.c" -o "$tmp/tc.o" 2>>"$tmp/err"; then
	fail compat_layout_differs "clang: $(head -c 300 "$tmp/err")"
elif "$layout" "$tmp/t.o" >"$tmp/a" && "$layout" "$tmp/tc.o" >"$tmp/b" &&
     ! diff -q "$tmp/a" "$tmp/b" >/dev/null &&
     grep -qx 'global .rodata shared offset 4 size 4' "$tmp/b"; then
	pass compat_layout_differs
else
	fail compat_layout_differs "not told apart: $(cat "$tmp/a" "$tmp/b" | tr '\n' ' ')"
fi
finish
