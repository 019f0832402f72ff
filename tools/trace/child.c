// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * trace -c CMD: the command is forked at the start, before the programs
 * load (its PID is -p's filter), and held in a read() of a pipe until
 * the probes are attached, so none of its events is missed; then it
 * execs. The run ends when it exits (the -p watch: pidwatch.c) with its
 * events drained. The fork comes before any BPF object, ring or output
 * file exists: the child inherits none of them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"
#include "common/say.h"
#include "common/which.h"

void child_argv_free(char **argv)
{
	for (size_t i = 0; argv && argv[i]; i++)
		free(argv[i]);
	free(argv);
}

/* The next word of @s (at a non-blank) into @out: where it ends, NULL
 * on an open quote */
static const char *next_word(const char *s, char *out)
{
	char q = 0;

	for (; *s && (q || (*s != ' ' && *s != '\t' && *s != '\n')); s++) {
		if (!q && (*s == '\'' || *s == '"')) {
			q = *s;
		} else if (q && *s == q) {
			q = 0;
		} else if (*s == '\\' && s[1] && q != '\'' &&
			   (!q || strchr("\"\\$`", s[1]))) {
			*out++ = *++s;
		} else {
			*out++ = *s;
		}
	}
	*out = '\0';
	return q ? NULL : s;
}

char **child_split(const char *cmd)
{
	size_t n = 0, len = strlen(cmd);
	char **argv = calloc(len / 2 + 2, sizeof(*argv));	/* words <= len/2 + 1 */

	if (!argv)
		return NULL;
	for (;;) {
		cmd += strspn(cmd, " \t\n");
		if (!*cmd)
			break;
		argv[n] = malloc(len + 1);
		if (!argv[n] || !(cmd = next_word(cmd, argv[n]))) {
			errno = argv[n] ? EINVAL : ENOMEM;
			child_argv_free(argv);
			return NULL;
		}
		n++;
	}
	if (!n) {
		free(argv);
		errno = EINVAL;
		return NULL;
	}
	return argv;
}

/* argv[0] found before the fork, into c->path, as uprobe:BIN is: 0, or
 * -errno said */
static int find_exec(struct trace_child *c, const char *prog)
{
	const char *name = c->argv[0];
	int err = cli_which(name, c->path, sizeof(c->path));

	/* a path is run only when it may be (a uprobe's need not) */
	if (!err && access(c->path, X_OK))
		err = -errno;
	if (err)
		cli_which_say(prog, "-c", name, err);
	return err;
}

/* execv(), and a file that is no executable format run by /bin/sh, as
 * execvp() does (a script without #!) */
static void exec_as_execvp(const char *path, char **argv)
{
	size_t n = 0;
	char **sh;

	execv(path, argv);
	if (errno != ENOEXEC)
		return;
	while (argv[n])
		n++;
	sh = calloc(n + 2, sizeof(*sh));
	if (!sh)
		return;
	sh[0] = "/bin/sh";
	sh[1] = (char *)path;
	memcpy(sh + 2, argv + 1, n * sizeof(*sh));	/* argv[1..n], its NULL */
	execv(sh[0], sh);
	errno = ENOEXEC;	/* the command's own error, not the shell's */
}

/* The child: wait for the go, then exec (a run that ended first closed
 * the pipe: exit without running) */
static void child_main(int wait_fd, const char *path, char **argv, const char *prog)
{
	char go;

	sigset_t none;

	if (read(wait_fd, &go, 1) != 1)
		_exit(127);
	close(wait_fd);
	/* what perfbuf ignores or blocks, the command must not inherit */
	signal(SIGPIPE, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	exec_as_execvp(path, argv);
	cli_say(prog, "-c: cannot run %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

int child_start(struct trace_child *c, const char *prog, const char *cmd)
{
	int fds[2], err;

	c->pid = 0;
	c->go = -1;
	c->argv = child_split(cmd);
	if (!c->argv) {
		cli_say(prog, "-c '%s': %s\n", cmd, errno == ENOMEM ? "out of memory" :
			"want a command, its words quoted as a shell quotes them (no quote left open)");
		return -EINVAL;
	}
	err = find_exec(c, prog);
	if (err)
		return err;
	if (pipe2(fds, O_CLOEXEC))
		return -errno;
	c->pid = fork();
	if (c->pid < 0) {
		err = -errno;
		cli_say(prog, "-c: fork failed: %s\n", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		c->pid = 0;
		return err;
	}
	if (!c->pid) {
		close(fds[1]);
		child_main(fds[0], c->path, c->argv, prog);
	}
	close(fds[0]);
	c->go = fds[1];
	return 0;
}

void child_release(struct trace_child *c)
{
	if (c->pid <= 0)
		return;		/* no -c (a zeroed struct) */
	if (c->go >= 0 && write(c->go, "g", 1) != 1)
		kill(c->pid, SIGKILL);	/* cannot happen: a pipe of ours */
	if (c->go >= 0)
		close(c->go);
	c->go = -1;
}

/* Wait for @pid; one that ignores SIGTERM (@killed) gets SIGKILL after
 * a second */
static void reap(pid_t pid, int *st, bool killed)
{
	for (int i = 0; killed && i < 100; i++) {
		if (waitpid(pid, st, WNOHANG) == pid)
			return;
		usleep(10000);
	}
	if (killed)
		kill(pid, SIGKILL);
	while (waitpid(pid, st, 0) < 0 && errno == EINTR)
		;
}

void child_end(struct trace_child *c, const char *prog, bool stop)
{
	bool ran = c->go < 0;
	int st;

	if (c->pid > 0 && c->go >= 0)
		close(c->go);	/* never released: it exits unrun */
	c->go = -1;
	if (c->pid > 0) {
		if (stop && ran)
			kill(c->pid, SIGTERM);
		reap(c->pid, &st, stop && ran);
		if (ran && WIFEXITED(st))
			cli_say(prog, "-c: %s exited with status %d\n", c->argv[0], WEXITSTATUS(st));
		else if (ran && WIFSIGNALED(st))
			cli_say(prog, "-c: %s was killed by signal %d (%s)\n", c->argv[0], WTERMSIG(st), strsignal(WTERMSIG(st)));
	}
	c->pid = 0;
	child_argv_free(c->argv);
	c->argv = NULL;
}
