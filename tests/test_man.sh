#!/usr/bin/env bash
# The man pages: they render without a warning, every exported function is
# in the NAME and SYNOPSIS of its group's page, the library pages name no
# function a program cannot call (pages_name_only_exports), perfbuf(8) has every
# command, long option and short option that `perfbuf [COMMAND] --help`
# prints (and no long option a command does not have).
# normal build only: the pages and --help texts are the same in the ASan build
source "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if ! command -v man >/dev/null || ! command -v groff >/dev/null; then
	fail man_tools "man and groff are not installed: run 'make setup'"
	finish
fi

# Rendered as `man` does on an 80-column terminal, with all warnings
for page in man/*.[38]; do
	name=render_${page##*/}
	MANWIDTH=80 man --warnings -E UTF-8 -l "$page" >"$tmp/out" 2>"$tmp/err"
	groff -ww -z -man -Tutf8 "$page" 2>>"$tmp/err"
	if [[ -s $tmp/err ]]; then
		fail "$name" "$(head -3 "$tmp/err" | tr '\n' ' ')"
	elif ! grep -q '^NAME' "$tmp/out"; then
		fail "$name" "no NAME section in the rendered page"
	else
		pass "$name"
	fi
done

# section TEXT NAME: the lines of section NAME of a rendered page
section() {
	awk -v s="$2" '/^[A-Z]/ { on = ($0 == s) ; next } on' "$1"
}

# Each exported function and its group page (scripts/man-links.sh)
if ! { scripts/man-links.sh --list src/libperfbuf.map &&
	scripts/man-links.sh --list src/object/libperfbuf-object.map; } >"$tmp/groups" 2>"$tmp/err"; then
	fail functions_have_pages "$(cat "$tmp/err")"
else
	missing=
	while read -r fn group; do
		[[ -f $tmp/$group.txt ]] ||
			MANWIDTH=200 man -E UTF-8 -l "man/$group.3" >"$tmp/$group.txt" 2>/dev/null
		section "$tmp/$group.txt" NAME >"$tmp/name"
		section "$tmp/$group.txt" SYNOPSIS >"$tmp/syn"
		grep -qw -- "$fn" "$tmp/name" && grep -q -- "[ *]$fn(" "$tmp/syn" ||
			missing+=" $fn (man/$group.3)"
	done <"$tmp/groups"
	if [[ -z $missing ]]; then
		pass functions_documented
	else
		fail functions_documented "not in the NAME and SYNOPSIS of their page:$missing"
	fi
fi

# A library page names only what a program can call: a function of the
# two version scripts, an inline function of the public headers or the BPF
# side's perfbuf_output(); a struct it names is one of the public headers.
# A name is a function when a "(" follows it or it has "__" (object__method).
# The roff source (fonts, \% and .BR's parts joined, comments left out)
# and the rendered page are both read.
sed -n 's/^[[:space:]]*\(perfbuf[a-z_0-9]*\);$/\1/p' \
	src/libperfbuf.map src/object/libperfbuf-object.map >"$tmp/callable"
grep -hE '^static (inline|__always_inline) ' include/perfbuf/*.h |
	grep -oE '[^_a-z0-9]perfbuf_[a-z0-9_]+\(' | tr -d ' *(' >>"$tmp/callable"
grep -oE '^#define perfbuf_[a-z0-9_]+\(' include/perfbuf/bpf.h |
	sed 's/#define //; s/($//' >>"$tmp/callable"
grep -ohE '(struct|union|enum) perfbuf_[a-z0-9_]+' include/perfbuf/*.h include/perfbuf.h |
	sort -u >"$tmp/types"
# names PAGE: "perfbuf_x(" or "perfbuf_x" and "struct perfbuf_x" it names
names() {
	{
		sed -E 's/\\".*//; s/\\f(\[[^]]*\]|\([A-Z]{2}|[A-Z1-4])//g; s/\\[%&]//g
			/^\.(BR|RB|IR|RI|BI|IB) /{s/"//g; s/(perfbuf_[a-z0-9_]+) +\(/\1(/g}' "$1"
		MANWIDTH=1000 man -E UTF-8 -l "$1" 2>/dev/null
	} | grep -oE '(^|[^A-Za-z0-9_])((struct|union|enum) )?perfbuf_[a-z0-9_]+\(?' |
		sed -E 's/^[^a-z]//; s/^((struct|union|enum) .*)\($/\1/' | sort -u
}
for page in man/*.3; do
	while read -r n; do
		case $n in
		struct\ * | union\ * | enum\ *)
			grep -qxF -- "$n" "$tmp/types" || echo "${page##*/}:'$n'" ;;
		*'(' | *__*)
			grep -qxF -- "${n%(}" "$tmp/callable" || echo "${page##*/}:${n%(}()" ;;
		esac
	done < <(names "$page")
done | sort -u >"$tmp/bad"
bad=$(tr '\n' ' ' <"$tmp/bad")
if [[ -n $bad ]]; then
	fail pages_name_only_exports "not exported nor in the public headers: $bad"
else
	pass pages_name_only_exports
fi

# perfbuf(8) against the tool's help: a command's long options are in its
# "perfbuf COMMAND" subsection; the tool's own in OPTIONS
# longopts FILE: the --options in a help text or a roff source
longopts() {
	sed 's/\\-/-/g' "$1" | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u
}
# shortopts HELP: the -X options an option line of a help text starts with
# ("  -p, --pid PID", "  -F HZ")
shortopts() {
	grep -oE '^ +-[A-Za-z0-9]([ ,]|$)' "$1" | grep -oE -- '-[A-Za-z0-9]' | sort -u
}
# subsection CMD: the roff source of .SS "perfbuf CMD ..." (or .SH OPTIONS)
subsection() {
	awk -v c="$1" '
		/^\.S[HS]/ { on = (c == "" ? $0 == ".SH OPTIONS" : index($0, "\"perfbuf " c " ") == 5 || $0 == ".SS \"perfbuf " c "\"") ; next }
		on' man/perfbuf.8
}
# perfbuf(8) rendered, for the options' argument forms
MANWIDTH=200 man -E UTF-8 -l man/perfbuf.8 >"$tmp/perfbuf8.txt" 2>/dev/null
# forms_in TEXT: "--opt ARG" of each option line (two spaces end the form)
forms_in() {
	grep -E '^ +(-[A-Za-z0-9], )?--[a-z]' "$1" |
		sed -E 's/^ +(-[A-Za-z0-9], )?//; s/  .*//; s/ +$//' | sort -u
}
# check_forms CMD HELP: each "--opt ARG" the help prints is how perfbuf(8)
# heads that option in CMD's part (ARG may be one of the page's A|B), and
# every heading of the page closes its brackets
check_forms() {
	local what=perfbuf8_forms_${1:-perfbuf} form opt arg line bad=
	awk -v c="$1" '/^[A-Z]/ { if (c == "") on = ($0 == "OPTIONS"); next }
		/^   perfbuf / { on = (c != "" && $2 == c); next } on' \
		"$tmp/perfbuf8.txt" | forms_in /dev/stdin >"$tmp/mforms"
	while IFS= read -r line; do
		[[ $line == *"["*"]"* || $line != *"["* ]] || bad+=" '$line' (no ']')"
	done <"$tmp/mforms"
	while IFS= read -r form; do
		[[ $form == *" "* ]] || continue
		opt=${form%% *} arg=${form#* }
		[[ $arg == *" "* ]] && continue		# a list of options, not a form
		grep -qxF -- "$form" "$tmp/mforms" && continue
		# named only in a list of options shared with another command
		grep -qE -- "^$opt( |\\[|=)" "$tmp/mforms" || continue
		grep -qE -- "^$opt ([^ ]*\\|)?$(printf '%s' "$arg" | sed 's/[][\\.*^$|]/\\&/g')(\\|[^ ]*)?\$" \
			"$tmp/mforms" || bad+=" '$form'"
	done < <(forms_in "$2")
	if [[ -n $bad ]]; then
		fail "$what" "not headed so in perfbuf(8):$bad"
	else
		pass "$what"
	fi
}
if ! "$PERFBUF" --help >"$tmp/help" 2>&1; then
	fail perfbuf8_commands "'perfbuf --help' failed: $(head -1 "$tmp/help")"
	finish
fi
cmds=$(sed -n '/^Commands:/,/^$/s/^  \([a-z][a-z-]*\) .*/\1/p' "$tmp/help")
[[ -n $cmds ]] || fail perfbuf8_commands "no command found in 'perfbuf --help'"
for cmd in "" $cmds; do
	what=${cmd:-perfbuf}
	if [[ -n $cmd ]]; then
		"$PERFBUF" "$cmd" --help >"$tmp/help" 2>&1 ||
			{ fail "perfbuf8_$what" "'perfbuf $cmd --help' failed"; continue; }
	else
		printf -- '--help\n--version\n' >"$tmp/help"	# not in the usage text
		"$PERFBUF" --help >>"$tmp/help"
	fi
	check_forms "$cmd" "$tmp/help"
	subsection "$cmd" >"$tmp/sec"
	if [[ ! -s $tmp/sec ]]; then
		fail "perfbuf8_$what" "man/perfbuf.8 has no subsection .SS \"perfbuf $cmd ...\": document the command"
		continue
	fi
	longopts "$tmp/help" >"$tmp/have"
	longopts "$tmp/sec" >"$tmp/doc"
	undoc=$(comm -23 "$tmp/have" "$tmp/doc" | tr '\n' ' ')
	# and each short option, as roff writes it (\-p)
	for o in $(shortopts "$tmp/help"); do
		grep -qE -- "\\\\${o}([^A-Za-z0-9]|\$)" "$tmp/sec" || undoc+="$o "
	done
	# every command has --help, whether its usage says so or not
	stale=$(comm -13 "$tmp/have" "$tmp/doc" | grep -vx -- --help | tr '\n' ' ')
	if [[ -n $undoc ]]; then
		fail "perfbuf8_$what" "in 'perfbuf ${cmd:+$cmd }--help' but not in its part of man/perfbuf.8: $undoc"
	elif [[ -n $stale ]]; then
		fail "perfbuf8_$what" "in man/perfbuf.8 but not in 'perfbuf ${cmd:+$cmd }--help': $stale"
	else
		pass "perfbuf8_$what"
	fi
done

# The version the documents name is the one include/perfbuf/version.h sets,
# and the shared object they name has the Makefile's soname
v() { sed -n "s/^#define PERFBUF_$1_VERSION \([0-9]*\)$/\1/p" include/perfbuf/version.h; }
major=$(v MAJOR) minor=$(v MINOR) patch=$(v PATCH)
stale=$(grep -noE 'PERFBUF_VERSION` "[0-9.]+"|PERFBUF_VERSION_OF\([0-9]+, [0-9]+\)`\)|build/libperfbuf\.so\.[0-9]+' \
	README.md docs/*.md examples/README.md 2>/dev/null |
	grep -vE "\"$major\.$minor\.$patch\"|OF\($major, $minor\)|so\.$major\$")
if [[ -z $major || -z $minor || -z $patch ]]; then
	fail docs_versions "no version read from include/perfbuf/version.h"
elif [[ -n $stale ]]; then
	fail docs_versions "not version $major.$minor.$patch (or its soname): $(echo $stale)"
else
	pass docs_versions
fi
finish
