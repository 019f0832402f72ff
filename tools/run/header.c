// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * --header FILE.h --type TYPE: the header compiled by clang into a BPF
 * object, whose BTF libperfbuf reads as any object's (the library runs no
 * compiler). The source, the object and clang's messages live in memfds:
 * a signal that ends us mid-compile leaves no file behind.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "common/cli.h"
#include "run.h"
#include "output/file.h"

extern char **environ;

/* NAME, struct NAME or union NAME, NAME a C identifier: nothing else
 * reaches the source (a ';' or a newline would be C of the caller's) */
static bool c_type_name(const char *s)
{
	if (!strncmp(s, "struct ", 7))
		s += 7;
	else if (!strncmp(s, "union ", 6))
		s += 6;
	if (!isalpha((unsigned char)*s) && *s != '_')
		return false;
	while (isalnum((unsigned char)*s) || *s == '_')
		s++;
	return !*s;
}

/* $CLANG, unless we run with privileges our caller may lack (file
 * capabilities: secure_getenv() then ignores it, and PATH too) */
static const char *clang_path(bool *search)
{
	const char *c = secure_getenv("CLANG");

	*search = false;
	if (c && *c)
		return c;
	if (getauxval(AT_SECURE))
		return access("/usr/bin/clang", X_OK) ? "/bin/clang" : "/usr/bin/clang";
	*search = true;
	return "clang";
}

/* The header, a regular file (a FIFO is never opened for good: its open()
 * would wait for a writer), as an absolute path, and its directory (-I:
 * its own includes); said and -errno when unusable */
static int header_paths(const char *prog, const char *header, char *abs, char *dir)
{
	int fd = open(header, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	char *slash;

	if (fd < 0) {
		cli_say(prog, "cannot read header '%s': %s\n", header, strerror(errno));
		return -errno;
	}
	if (!out_file_is_regular(fd)) {
		cli_say(prog, "header '%s' is not a regular file: give a C header file\n",
			header);
		close(fd);
		return -EINVAL;
	}
	close(fd);
	if (!realpath(header, abs)) {
		cli_say(prog, "cannot read header '%s': %s\n", header, strerror(errno));
		return -errno;
	}
	/* "..." takes any byte but " and a newline, <...> any but > */
	if (strchr(abs, '\n') || (strchr(abs, '"') && strchr(abs, '>'))) {
		cli_say(prog, "header '%s': a path with a newline, or with both '\"' and '>', cannot be #included; rename it\n",
			header);
		return -EINVAL;
	}
	strcpy(dir, abs);
	slash = strrchr(dir, '/');
	slash[slash == dir] = 0;	/* a header in /: "/", never "" */
	return 0;
}

/* The C source: the header, and a marker naming @decl, a complete type
 * (sizeof refuses a struct tag the header never defined) */
static int write_source(int fd, const char *abs, const char *decl)
{
	bool quote = !strchr(abs, '"');
	FILE *f;
	int err;

	if (ftruncate(fd, 0) || lseek(fd, 0, SEEK_SET))
		return -errno;
	f = fdopen(dup(fd), "w");
	if (!f)
		return -errno;
	fprintf(f, "#include %c%s%c\n%s *__perfbuf_event__h;\n"
		"enum { __perfbuf_complete = sizeof(%s) };\n",
		quote ? '"' : '<', abs, quote ? '"' : '>', decl, decl);
	err = fclose(f) ? -errno : 0;
	return err ?: (lseek(fd, 0, SEEK_SET) < 0 ? -errno : 0);
}

/* clang -c, source on stdin, object to @out, messages to @msgs: its wait
 * status, or -errno when it could not be started (said). The header's
 * directory is searched first, then -I's, in their order. */
static int run_clang(const char *prog, const char *dir, const struct run_incs *incs,
		     int src, int out, int msgs)
{
	char inc[PATH_MAX + 3];
	bool search;
	const char *clang = clang_path(&search);
	char *argv[16 + 2 * RUN_MAX_INCS] = { (char *)clang, "-g", "-O2", "-target", "bpf",
					      inc };
	posix_spawn_file_actions_t fa;
	int err, status, n = 6;
	pid_t pid;

	for (int i = 0; i < incs->n; i++) {	/* "-I" "DIR": any DIR, as given */
		argv[n++] = "-I";
		argv[n++] = (char *)incs->dirs[i];
	}
	memcpy(argv + n, (char *[]){ "-x", "c", "-", "-c", "-o", "-", NULL }, 7 * sizeof(char *));
	snprintf(inc, sizeof(inc), "-I%s", dir);
	if (ftruncate(out, 0) || ftruncate(msgs, 0) || lseek(out, 0, SEEK_SET) ||
	    lseek(msgs, 0, SEEK_SET))
		return -errno;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, src, 0);
	posix_spawn_file_actions_adddup2(&fa, out, 1);
	posix_spawn_file_actions_adddup2(&fa, msgs, 2);
	err = (search ? posix_spawnp : posix_spawn)(&pid, clang, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (err) {
		cli_say(prog, "cannot run clang '%s' to compile the header: %s%s\n",
			clang, strerror(err),
			err == ENOENT || err == EACCES ? " (set CLANG to its path)" : "");
		return -err;
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return status;
}

/* clang's messages (the last compile's) on our stderr */
static void show_messages(int msgs)
{
	char buf[4096];
	ssize_t n;

	lseek(msgs, 0, SEEK_SET);
	while ((n = read(msgs, buf, sizeof(buf))) > 0)
		if (fwrite(buf, 1, n, stderr) != (size_t)n)
			break;
}

/* "struct NAME" first, then NAME alone (a typedef): 0 when one compiled,
 * else its failure said (clang's messages, then its status) */
static int compile(const char *prog, const char *header, const char *name,
		   const char *abs, const char *dir, const struct run_incs *incs, int fds[3])
{
	bool tagged = !strncmp(name, "struct ", 7) || !strncmp(name, "union ", 6);
	char decl[RUN_TYPE_NAME_MAX + 16];
	int status = 0, err;

	for (int pass = tagged; pass < 2; pass++) {
		snprintf(decl, sizeof(decl), "%s%s", pass ? "" : "struct ", name);
		err = write_source(fds[0], abs, decl);
		if (err) {
			cli_say(prog, "writing the source for header '%s': %s\n", header, strerror(-err));
			return err;
		}
		status = run_clang(prog, dir, incs, fds[0], fds[1], fds[2]);
		if (status < 0)
			return status;	/* said */
		if (WIFEXITED(status) && !WEXITSTATUS(status))
			return 0;
		if (!WIFEXITED(status) || WEXITSTATUS(status) == 127)
			break;	/* killed, or it could not start: no other pass */
	}
	show_messages(fds[2]);
	if (WIFEXITED(status))
		cli_say(prog, "header '%s' with type '%s' did not compile: clang exited with status %d%s\n",
			header, name, WEXITSTATUS(status),
			WEXITSTATUS(status) == 127 ? " (it could not start: its message above)" :
			" (its messages above)");
	else
		cli_say(prog, "header '%s': clang was killed by signal %d (%s)\n", header, WTERMSIG(status), strsignal(WTERMSIG(status)));
	return -EINVAL;
}

/* The compiled object's type, from the marker; its failure said here, as
 * the header's (the library would name the object's /proc path) */
static struct perfbuf_type *object_type(const char *prog, const char *header,
					const char *name, int obj)
{
	perfbuf_print_fn old = perfbuf_set_print(NULL);
	struct perfbuf_type *t;
	char path[64];
	int err;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", obj);
	t = perfbuf_type__from_file(path, "h", NULL);
	err = errno;
	perfbuf_set_print(old);
	if (t)
		return t;
	cli_say(prog, "type '%s' of header '%s' %s\n", name, header,
		err == ELOOP ? "nests too deep, or contains itself" :
		err == E2BIG ? "has too many fields to decode" :
		err == EINVAL || err == ENOENT ? "is not a struct or union with a size" :
		strerror(err));
	errno = err;
	return NULL;
}

struct perfbuf_type *run_header_type(const char *prog, const char *header,
				     const char *name, const struct run_incs *incs)
{
	char abs[PATH_MAX], dir[PATH_MAX];
	struct perfbuf_type *t = NULL;
	int fds[3] = { -1, -1, -1 }, err;

	if (!c_type_name(name)) {
		char shown[128];	/* on one line: no control bytes */
		size_t i;

		for (i = 0; name[i] && i < sizeof(shown) - 1; i++)
			shown[i] = isprint((unsigned char)name[i]) ? name[i] : '?';
		shown[i] = 0;
		cli_say(prog, "--type '%s%s' is not a C type name: give NAME, struct NAME or union NAME\n",
			shown, name[i] ? "..." : "");
		errno = EINVAL;
		return NULL;
	}
	err = header_paths(prog, header, abs, dir);
	for (int i = 0; !err && i < 3; i++) {
		fds[i] = memfd_create("perfbuf-header", MFD_CLOEXEC);
		if (fds[i] < 0) {
			err = -errno;
			cli_say(prog, "memfd_create: %s\n", strerror(errno));
		}
	}
	if (!err)
		err = compile(prog, header, name, abs, dir, incs, fds);
	if (!err)
		t = object_type(prog, header, name, fds[1]);
	if (!t)
		err = err < 0 ? -err : errno ?: EINVAL;
	for (int i = 0; i < 3; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	errno = t ? 0 : err;
	return t;
}
