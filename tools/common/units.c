// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Sizes and durations (units.h): parsed exactly, in integers (a double
 * would take 17179869188G as some other number of bytes), and said in
 * one set of words. */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "say.h"
#include "units.h"

struct unit {
	const char *name;
	unsigned long long mult;
};

static const struct unit size_units[] = {
	{ "", 1 }, { "K", 1ULL << 10 }, { "M", 1ULL << 20 },
	{ "G", 1ULL << 30 }, { "T", 1ULL << 40 },
};

static const struct unit time_units[] = {
	{ "", NS_PER_S }, { "ns", 1 }, { "us", 1000 }, { "ms", 1000000 },
	{ "s", NS_PER_S }, { "m", 60 * NS_PER_S }, { "h", 3600 * NS_PER_S },
	{ "d", 86400 * NS_PER_S },
};

static const struct unit *find_unit(const struct unit *u, size_t n,
				    const char *s, bool any_case)
{
	for (size_t i = 0; i < n; i++)
		if (any_case ? !strcasecmp(s, u[i].name) : !strcmp(s, u[i].name))
			return &u[i];
	return NULL;
}

/*
 * DIGITS[.DIGITS]UNIT, no sign, no blanks: the whole part times the unit
 * plus the fraction's share of it (rounded down), each step checked for
 * 64-bit overflow. @sizes: units in either case, and a "B" may follow
 * one ("8MB").
 */
static int parse(const char *arg, const struct unit *u, size_t n,
		 bool sizes, unsigned long long *out)
{
	unsigned __int128 whole = 0, frac = 0, scale = 1, v;
	const struct unit *unit;
	const char *s = arg;
	char name[4];
	size_t len;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	for (; isdigit((unsigned char)*s); s++)
		if ((whole = whole * 10 + (unsigned)(*s - '0')) > UINT64_MAX)
			return -ERANGE;
	if (*s == '.' && isdigit((unsigned char)s[1]))
		for (s++; isdigit((unsigned char)*s); s++)
			if (scale < 1000000000000000000ULL)	/* digits past 18: nothing */
				frac = frac * 10 + (unsigned)(*s - '0'), scale *= 10;
	len = strlen(s);
	if (sizes && len == 2 && (s[1] == 'B' || s[1] == 'b'))
		len = 1;	/* "8MB" as "8M" */
	if (len >= sizeof(name))
		return -EINVAL;
	memcpy(name, s, len);
	name[len] = '\0';
	unit = find_unit(u, n, name, sizes);
	if (!unit)
		return -EINVAL;
	v = whole * unit->mult + frac * unit->mult / scale;
	if (v > UINT64_MAX)
		return -ERANGE;
	*out = (unsigned long long)v;
	return 0;
}

int units_size(const char *arg, unsigned long long *out)
{
	return parse(arg, size_units, sizeof(size_units) / sizeof(*size_units),
		     true, out);
}

int units_duration(const char *arg, unsigned long long *out_ns)
{
	return parse(arg, time_units, sizeof(time_units) / sizeof(*time_units),
		     false, out_ns);
}

/* The largest unit that divides @v, "1536" for 1.5K: read back exactly */
static const char *exact_str(unsigned long long v, const struct unit *u,
			     size_t n, char *buf, size_t sz)
{
	const struct unit *best = &u[0];

	for (size_t i = 1; i < n; i++)
		if (u[i].mult > best->mult && v && v % u[i].mult == 0)
			best = &u[i];
	snprintf(buf, sz, "%llu%s", v / best->mult, best->name);
	return buf;
}

const char *units_size_str(unsigned long long bytes, char *buf, size_t sz)
{
	return exact_str(bytes, size_units, sizeof(size_units) / sizeof(*size_units),
			 buf, sz);
}

const char *units_duration_str(unsigned long long ns, char *buf, size_t sz)
{
	/* from 1: the bare number (seconds) is not the way to say 1s */
	return exact_str(ns, time_units + 1,
			 sizeof(time_units) / sizeof(*time_units) - 1, buf, sz);
}

/* @arg by @parse into [@lo, @hi], else the one line of the words given,
 * its bounds said by @str */
static bool parse_said(const char *prog, const char *opt, const char *arg,
		       unsigned long long lo, unsigned long long hi,
		       unsigned long long *out,
		       int (*parse)(const char *, unsigned long long *),
		       const char *(*str)(unsigned long long, char *, size_t),
		       const char *what, const char *eg)
{
	char a[32], b[32];
	unsigned long long v;

	if (!parse(arg, &v) && v >= lo && v <= hi) {
		*out = v;
		return true;
	}
	cli_say(prog, "%s wants a %s from %s to %s (e.g. %s), not '%s'\n", opt, what,
		str(lo, a, sizeof(a)), str(hi, b, sizeof(b)), eg, arg);
	return false;
}

bool cli_parse_size(const char *prog, const char *opt, const char *arg,
		    unsigned long long lo, unsigned long long hi,
		    unsigned long long *out)
{
	return parse_said(prog, opt, arg, lo, hi, out, units_size, units_size_str,
			  "size", "8M, 512M");
}

bool cli_parse_duration(const char *prog, const char *opt, const char *arg,
			unsigned long long lo_ns, unsigned long long hi_ns,
			unsigned long long *out_ns)
{
	return parse_said(prog, opt, arg, lo_ns, hi_ns, out_ns, units_duration,
			  units_duration_str, "duration", "5, 0.5, 500ms, 2m");
}
