// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The metrics server (tools/metrics/) on loopback, with a render callback
 * of the test's: GET /metrics and the other answers, keep-alive, pipelined
 * requests, HTTP/1.0; the abuse it must survive (a full house of idle
 * sockets, a client sending a byte at a time, one that never reads its
 * response, garbage) while a scraper is still served; the exposition's
 * escaping; the [ADDR:]PORT syntax.
 */
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "test.h"
#include "metrics/expo.h"
#include "metrics/http.h"
#include "metrics/server.h"

static int renders;
static int hold;	/* set: a rendering waits until it is cleared */

static void render(void *ctx, struct expo *e)
{
	struct expo_label l = { "cpu", "0" };

	(void)ctx;
	__atomic_add_fetch(&renders, 1, __ATOMIC_RELAXED);
	while (__atomic_load_n(&hold, __ATOMIC_ACQUIRE))
		usleep(1000);
	expo_family(e, "t_total", "counter", "A test counter.");
	expo_u64(e, "t_total", &l, 1, 42);
}

static struct metrics_server *start(int max_conns, int timeout_ms)
{
	struct metrics_server_opts o = { .sz = sizeof(o), .max_conns = max_conns,
					 .timeout_ms = timeout_ms,
					 .idle_ms = timeout_ms * 3, .cache_ms = -1 };

	return metrics_server__new("127.0.0.1:0", render, NULL, &o);
}

static int dial_port(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons(port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		close(fd);
		return -1;
	}
	return fd;
}

/* What comes within @ms (or until the peer closes) into @buf; its length */
static size_t read_for(int fd, char *buf, size_t sz, int ms)
{
	size_t len = 0;
	struct pollfd p = { .fd = fd, .events = POLLIN };

	while (len + 1 < sz && poll(&p, 1, ms) == 1) {
		ssize_t n = read(fd, buf + len, sz - 1 - len);

		if (n <= 0)
			break;
		len += n;
		ms = 50;	/* the rest of a response comes at once */
	}
	buf[len] = 0;
	return len;
}

/* One request on a new connection: the whole answer in @buf */
static size_t ask_port(int port, const char *req, char *buf, size_t sz)
{
	int fd = dial_port(port);
	size_t n = 0;

	if (fd < 0)
		return 0;
	if (write(fd, req, strlen(req)) == (ssize_t)strlen(req))
		n = read_for(fd, buf, sz, 2000);
	close(fd);
	return n;
}

static int dial(const struct metrics_server *s)
{
	return dial_port(metrics_server__port(s));
}

static size_t ask(const struct metrics_server *s, const char *req, char *buf,
		  size_t sz)
{
	return ask_port(metrics_server__port(s), req, buf, sz);
}

static bool status_is(const char *buf, int status)
{
	char want[32];

	snprintf(want, sizeof(want), "HTTP/1.1 %d ", status);
	return !strncmp(buf, want, strlen(want));
}

TEST(get_metrics)
{
	struct metrics_server *s = start(0, 0);
	char buf[4096];

	if (!ASSERT_OK_PTR(s, "server"))
		return;
	ask(s, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", buf, sizeof(buf));
	ASSERT_TRUE(status_is(buf, 200), "200");
	ASSERT_TRUE(strstr(buf, "Content-Type: text/plain; version=0.0.4; charset=utf-8\r\n") != NULL,
		    "content type");
	ASSERT_TRUE(strstr(buf, "\r\n\r\n# HELP t_total A test counter.\n# TYPE t_total counter\nt_total{cpu=\"0\"} 42\n") != NULL,
		    "body");
	ask(s, "GET /metrics?x=1 HTTP/1.1\r\n\r\n", buf, sizeof(buf));
	ASSERT_TRUE(status_is(buf, 200), "with a query");
	ask(s, "HEAD /metrics HTTP/1.1\r\n\r\n", buf, sizeof(buf));
	ASSERT_TRUE(status_is(buf, 200) && strstr(buf, "\r\n\r\n")[4] == 0, "HEAD: no body");
	ask(s, "GET / HTTP/1.1\r\n\r\n", buf, sizeof(buf));
	ASSERT_TRUE(status_is(buf, 404), "404 for /");
	ask(s, "GET /metricsx HTTP/1.1\r\n\r\n", buf, sizeof(buf));
	ASSERT_TRUE(status_is(buf, 404), "404 for /metricsx");
	ask(s, "POST /metrics HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc", buf, sizeof(buf));
	ASSERT_TRUE(status_is(buf, 405) && strstr(buf, "Allow: GET, HEAD"), "405");
	ask(s, "\x16\x03\x01\x02\x01\x01\xfc\x03\x03\r\n\r\n", buf, sizeof(buf));
	ASSERT_TRUE(status_is(buf, 400), "400 for a TLS hello");
	ask(s, "GET /metrics HTTP/2.0\r\n\r\n", buf, sizeof(buf));
	ASSERT_TRUE(status_is(buf, 400), "400 for HTTP/2.0");
	metrics_server__free(s);
}

TEST(keep_alive_and_pipelining)
{
	struct metrics_server *s = start(0, 0);
	const char *two = "GET /metrics HTTP/1.1\r\n\r\nGET /nope HTTP/1.1\r\n\r\n";
	char buf[8192];
	int fd;

	if (!ASSERT_OK_PTR(s, "server"))
		return;
	fd = dial(s);
	ASSERT_EQ(write(fd, two, strlen(two)), (ssize_t)strlen(two), "write");
	read_for(fd, buf, sizeof(buf), 2000);
	ASSERT_TRUE(status_is(buf, 200) && strstr(buf, "HTTP/1.1 404 "), "both answered");
	/* still open: a third on the same connection */
	ASSERT_EQ(write(fd, "GET /metrics HTTP/1.1\r\n\r\n", 25), 25, "write");
	read_for(fd, buf, sizeof(buf), 2000);
	ASSERT_TRUE(status_is(buf, 200), "kept alive");
	close(fd);
	/* HTTP/1.0 and Connection: close end the connection */
	fd = dial(s);
	ASSERT_EQ(write(fd, "GET /metrics HTTP/1.0\r\n\r\n", 25), 25, "write");
	read_for(fd, buf, sizeof(buf), 2000);
	ASSERT_TRUE(strstr(buf, "Connection: close\r\n") != NULL, "1.0 closes");
	ASSERT_EQ(read(fd, buf, 1), 0, "EOF after 1.0");
	close(fd);
	metrics_server__free(s);
}

/* RFC 9112: a space before a header's colon is a 400 (its body is not
 * taken for a request); Connection is a list of tokens; empty lines
 * before a request are ignored; HTTP/1.0 stays open only when it asked,
 * and is told so. */
TEST(rfc9112_heads)
{
	struct metrics_server *s = start(0, 0);
	const char *smuggle = "GET /metrics HTTP/1.1\r\nContent-Length : 24\r\n\r\n"
			      "GET /nope HTTP/1.1\r\n\r\n";
	const char *ka10 = "GET /metrics HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n";
	char buf[8192];
	int fd;

	if (!ASSERT_OK_PTR(s, "server"))
		return;
	ask(s, smuggle, buf, sizeof(buf));
	ASSERT_TRUE(status_is(buf, 400) && !strstr(buf, " 404 "),
		    "space before the colon: 400, no second request");
	ask(s, "GET /metrics HTTP/1.1\r\nConnection: foo, close\r\n\r\n", buf, sizeof(buf));
	ASSERT_TRUE(status_is(buf, 200) && strstr(buf, "Connection: close\r\n"),
		    "Connection: foo, close");
	ask(s, "\r\nGET /metrics HTTP/1.1\r\n\r\n", buf, sizeof(buf));
	ASSERT_TRUE(status_is(buf, 200), "an empty line first");
	fd = dial(s);
	ASSERT_EQ(write(fd, "\r\n", 2), 2, "write");
	usleep(50000);	/* the empty line alone first */
	ASSERT_EQ(write(fd, "GET /metrics HTTP/1.1\r\n\r\n", 25), 25, "write");
	read_for(fd, buf, sizeof(buf), 2000);
	ASSERT_TRUE(status_is(buf, 200), "an empty line alone, then the request");
	close(fd);
	fd = dial(s);
	ASSERT_EQ(write(fd, ka10, strlen(ka10)), (ssize_t)strlen(ka10), "write");
	read_for(fd, buf, sizeof(buf), 2000);
	ASSERT_TRUE(status_is(buf, 200) && strstr(buf, "Connection: keep-alive\r\n"),
		    "1.0 keep-alive: said in the response");
	ASSERT_EQ(write(fd, ka10, strlen(ka10)), (ssize_t)strlen(ka10), "write");
	read_for(fd, buf, sizeof(buf), 2000);
	ASSERT_TRUE(status_is(buf, 200), "1.0 keep-alive: kept");
	close(fd);
	/* a body announced before keep-alive is asked still closes */
	ask(s, "GET /metrics HTTP/1.1\r\nContent-Length: 24\r\nConnection: keep-alive\r\n\r\n"
	       "GET /nope HTTP/1.1\r\n\r\n", buf, sizeof(buf));
	ASSERT_TRUE(status_is(buf, 200) && !strstr(buf, " 404 "), "a body is never a request");
	metrics_server__free(s);
}

/* A full house of idle sockets, a byte-a-second client, one that never
 * reads, an oversized head: a scraper is still answered at once. */
TEST(abuse)
{
	enum { MAX = 16 };
	struct metrics_server *s = start(MAX, 500);
	int idle[MAX + 8], slow, deaf, big;
	char buf[8192], junk[8192];
	__u64 t0;

	if (!ASSERT_OK_PTR(s, "server"))
		return;
	signal(SIGPIPE, SIG_IGN);	/* the server closes on some */
	for (int i = 0; i < MAX + 8; i++)
		idle[i] = dial(s);
	slow = dial(s);
	ASSERT_EQ(write(slow, "G", 1), 1, "slow");
	deaf = dial(s);
	/* many requests, never a read: its responses fill the socket */
	for (int i = 0; i < 200; i++)
		if (write(deaf, "GET /metrics HTTP/1.1\r\n\r\n", 25) != 25)
			break;
	big = dial(s);
	memset(junk, 'A', sizeof(junk));
	ASSERT_EQ(write(big, junk, sizeof(junk)), (ssize_t)sizeof(junk), "big");
	t0 = perfbuf_now_ns();
	ask(s, "GET /metrics HTTP/1.1\r\n\r\n", buf, sizeof(buf));
	ASSERT_TRUE(status_is(buf, 200), "scraped among them");
	ASSERT_LT(perfbuf_now_ns() - t0, 500000000ULL, "at once (ns)");
	read_for(big, buf, sizeof(buf), 2000);
	ASSERT_TRUE(status_is(buf, 431), "431 for a head too big");
	/* the byte-a-second client: closed once its request is overdue */
	t0 = perfbuf_now_ns();
	for (int i = 0; i < 20; i++) {
		usleep(100000);
		if (write(slow, "E", 1) != 1)
			break;
	}
	ASSERT_EQ(read_for(slow, buf, sizeof(buf), 1500), 0, "slow: closed, no answer");
	ASSERT_LT(perfbuf_now_ns() - t0, 2500000000ULL, "slow: within its time (ns)");
	for (int i = 0; i < MAX + 8; i++)
		close(idle[i]);
	close(slow);
	close(deaf);
	close(big);
	metrics_server__free(s);
}

/* Two events of one epoll round: a new connection, whose accept evicts
 * idle connection A (max_conns reached), then A's reset. The new
 * connection's memory may be A's: A's event must not reach it. The
 * server's thread is held in a rendering while both happen. */
TEST(stale_event_after_eviction)
{
	struct metrics_server *s = start(2, 2000);
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };
	char buf[4096];
	int a, c, b, before;

	if (!ASSERT_OK_PTR(s, "server"))
		return;
	a = dial(s);
	usleep(50000);	/* A accepted: the oldest idle one */
	before = __atomic_load_n(&renders, __ATOMIC_RELAXED);
	__atomic_store_n(&hold, 1, __ATOMIC_RELEASE);
	c = dial(s);
	ASSERT_EQ(write(c, "GET /metrics HTTP/1.1\r\n\r\n", 25), 25, "scrape");
	for (int i = 0; i < 2000 && __atomic_load_n(&renders, __ATOMIC_RELAXED) == before; i++)
		usleep(1000);
	b = dial(s);	/* queued first: the listener's event */
	setsockopt(a, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	close(a);	/* then A's: EPOLLERR | EPOLLHUP */
	usleep(50000);
	__atomic_store_n(&hold, 0, __ATOMIC_RELEASE);
	read_for(c, buf, sizeof(buf), 2000);
	ASSERT_TRUE(status_is(buf, 200), "the held scrape");
	usleep(100000);	/* B accepted, A's stale event seen */
	ASSERT_EQ(write(b, "GET /metrics HTTP/1.1\r\n\r\n", 25), 25, "B's request");
	read_for(b, buf, sizeof(buf), 2000);
	ASSERT_TRUE(status_is(buf, 200), "B answered, not closed by A's event");
	close(b);
	close(c);
	metrics_server__free(s);
}

/* The CPU time of process @pid in ms (utime + stime) */
static long cpu_ms(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long ut = 0, st = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	p = fgets(buf, sizeof(buf), f) ? strrchr(buf, ')') : NULL;
	fclose(f);
	/* after "pid (comm)": state is field 3, utime 14, stime 15 */
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu",
			 &ut, &st) != 2)
		return -1;
	return (long)((ut + st) * 1000 / sysconf(_SC_CLK_TCK));
}

/* A connection the server closes while a forked child holds its socket
 * too (trace's detach can leave the rest to a child, the server still
 * running): close() alone leaves it in the epoll set then, and its events
 * (the client's FIN, level-triggered) kept naming the freed connection:
 * read after free, each round, the server spinning on them. */
TEST(closed_while_a_child_holds_it)
{
	struct metrics_server *s = start(0, 2000);
	int a, gate[2] = { -1, -1 };
	char buf[4096];
	long before;
	pid_t child;

	if (!ASSERT_OK_PTR(s, "server") || !ASSERT_OK(pipe(gate), "pipe"))
		goto out;
	a = dial(s);
	usleep(50000);	/* accepted: the child gets the server's socket */
	child = fork();
	if (child == 0) {
		char c;

		close(a);	/* the client's end stays the parent's alone */
		close(gate[1]);
		if (read(gate[0], &c, 1) < 0)	/* until the parent is done */
			_exit(1);
		_exit(0);
	}
	ASSERT_GT(child, 0, "fork");
	ASSERT_EQ(write(a, "GET /metrics HTTP/1.0\r\n\r\n", 25), 25, "request");
	read_for(a, buf, sizeof(buf), 2000);
	ASSERT_TRUE(status_is(buf, 200), "answered (then closed by the server)");
	close(a);	/* the socket the child holds sees the FIN */
	usleep(100000);
	before = cpu_ms(getpid());
	usleep(500000);
	ASSERT_LT(cpu_ms(getpid()) - before, 150, "no events of the closed connection");
	close(gate[1]);
	gate[1] = -1;
	if (child > 0)
		waitpid(child, NULL, 0);
out:
	if (gate[0] >= 0)
		close(gate[0]);
	if (gate[1] >= 0)
		close(gate[1]);
	metrics_server__free(s);
}

static int spare_fd = -1;

static void give_fd_back(int sig)
{
	(void)sig;
	close(spare_fd);
}

/* No fd left for a connection (RLIMIT_NOFILE reached, 100 connections
 * waiting): the server neither spins on its listener nor locks the
 * scraper out. It runs in a child of its own, under a limit of 32 fds;
 * with @full, the child then takes every fd left, and gives one back on
 * SIGUSR1. */
static void fds_run_out(bool full)
{
	struct metrics_server_opts o = { .sz = sizeof(o), .cache_ms = -1 };
	int port_pipe[2], fds[100], port = 0, n = 0;
	char buf[4096];
	long cpu0, cpu1;
	pid_t pid;

	if (!ASSERT_OK(pipe(port_pipe), "pipe"))
		return;
	pid = fork();
	if (pid == 0) {
		struct rlimit rl = { 32, 32 };
		struct metrics_server *s;
		int fd;

		close(port_pipe[0]);
		signal(SIGUSR1, give_fd_back);
		/* valgrind keeps fds of its own: it refuses (-1: skip) */
		s = setrlimit(RLIMIT_NOFILE, &rl) ? NULL :
		    metrics_server__new("127.0.0.1:0", render, NULL, &o);
		port = s ? metrics_server__port(s) : errno == EPERM ? -1 : 0;
		while (full && (fd = open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0)
			spare_fd = fd;	/* the last one is given back */
		if (write(port_pipe[1], &port, sizeof(port)) != sizeof(port))
			_exit(1);
		for (;;)
			pause();
	}
	close(port_pipe[1]);
	if (!ASSERT_GT(pid, 0, "fork") ||
	    !ASSERT_EQ(read(port_pipe[0], &port, sizeof(port)), (ssize_t)sizeof(port), "port"))
		goto out;
	if (port == -1) {
		test__skip = "RLIMIT_NOFILE cannot be lowered here (valgrind)";
		goto out;
	}
	if (!ASSERT_GT(port, 0, "server in the child"))
		goto out;
	for (n = 0; n < 100; n++)
		if ((fds[n] = dial_port(port)) < 0)
			break;
	ASSERT_EQ(n, 100, "connections");
	usleep(200000);
	cpu0 = cpu_ms(pid);
	sleep(1);
	cpu1 = cpu_ms(pid);
	ASSERT_LT(cpu1 - cpu0, 200, "CPU ms in 1 s");
	if (full)
		kill(pid, SIGUSR1);
	ask_port(port, "GET /metrics HTTP/1.1\r\n\r\n", buf, sizeof(buf));
	ASSERT_TRUE(status_is(buf, 200), "a scrape answered");
out:
	while (n > 0)
		close(fds[--n]);
	close(port_pipe[0]);
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
}

/* Some connections held, the rest waiting: the oldest makes room */
TEST(fds_run_out_some_held)
{
	fds_run_out(false);
}

/* None held: the listener rests, then takes one when an fd is free */
TEST(fds_run_out_none_held)
{
	fds_run_out(true);
}

/* The scraper holds the render callback's counter: one rendering per GET */
TEST(one_render_per_scrape)
{
	struct metrics_server *s = start(0, 0);
	char buf[4096];
	int before;

	if (!ASSERT_OK_PTR(s, "server"))
		return;
	before = __atomic_load_n(&renders, __ATOMIC_RELAXED);
	for (int i = 0; i < 5; i++)
		ask(s, "GET /metrics HTTP/1.1\r\n\r\n", buf, sizeof(buf));
	ASSERT_EQ(__atomic_load_n(&renders, __ATOMIC_RELAXED) - before, 5, "renders");
	ask(s, "GET /x HTTP/1.1\r\n\r\n", buf, sizeof(buf));
	ASSERT_EQ(__atomic_load_n(&renders, __ATOMIC_RELAXED) - before, 5, "404: none");
	metrics_server__free(s);
}

TEST(exposition_escaping)
{
	struct expo e = {};
	struct expo_label l[2] = { { "a", "q\"b\\s\nn" }, { "b", "" } };
	static const char want[] =
		"# HELP x help \\\\ and\\nnewline \"kept\"\n"
		"# TYPE x gauge\n"
		"x{a=\"q\\\"b\\\\s\\nn\",b=\"\"} 18446744073709551615\n"
		"y 0.5\n"
		"z 0\n";

	expo_family(&e, "x", "gauge", "help \\ and\nnewline \"kept\"");
	expo_u64(&e, "x", l, 2, 18446744073709551615ULL);
	expo_double(&e, "y", NULL, 0, 0.5);
	expo_u64(&e, "z", NULL, 0, 0);
	/* the whole text: a prefix (a short or empty output) is a failure */
	if (ASSERT_OK_PTR(e.buf, "buf") && ASSERT_EQ(e.len, sizeof(want) - 1, "length"))
		ASSERT_MEMEQ(e.buf, want, e.len, "text");
	expo_free(&e);
}

TEST(addr_syntax)
{
	static const struct { const char *arg; bool ok; } cases[] = {
		{ "9464", true }, { "127.0.0.1:9464", true }, { "0.0.0.0:0", true },
		{ "[::1]:9464", true }, { "localhost:1", true },
		{ "", false }, { "x", false }, { "65536", false }, { "-1", false },
		{ "1.2.3.4:", false }, { ":", false }, { "no.such.host.invalid:1", false },
	};
	struct sockaddr_storage ss;
	socklen_t len;
	const char *why;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int err = metrics_addr_parse(cases[i].arg, &ss, &len, &why);

		if (!ASSERT_EQ(err == 0, cases[i].ok, cases[i].arg))
			continue;
		if (!cases[i].ok)
			ASSERT_TRUE(why != NULL, "why");
	}
}

/* The URL printed: the address bound, IPv6 in brackets, never an empty
 * host */
TEST(url)
{
	static const struct { const char *arg, *host; } cases[] = {
		{ "0", "127.0.0.1" }, { ":0", "127.0.0.1" },
		{ "127.0.0.1:0", "127.0.0.1" }, { "0.0.0.0:0", "0.0.0.0" },
		{ "[::1]:0", "[::1]" }, { "::1:0", "[::1]" }, { "[::]:0", "[::]" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct metrics_server *s = metrics_server__new(cases[i].arg, render, NULL, NULL);
		char url[128], want[128];

		if (!s && errno == EADDRNOTAVAIL && strchr(cases[i].host, '['))
			continue;	/* no IPv6 here */
		if (!ASSERT_OK_PTR(s, cases[i].arg))
			continue;
		snprintf(want, sizeof(want), "http://%s:%d/metrics", cases[i].host,
			 metrics_server__port(s));
		if (ASSERT_OK(metrics_server__url(s, url, sizeof(url)), "url"))
			ASSERT_TRUE(!strcmp(url, want), url);
		ASSERT_EQ(metrics_server__url(s, url, 10), -ENOSPC, "too small");
		metrics_server__free(s);
	}
}

TEST(port_in_use)
{
	struct metrics_server *a = start(0, 0), *b;
	char arg[32];

	if (!ASSERT_OK_PTR(a, "server"))
		return;
	snprintf(arg, sizeof(arg), "127.0.0.1:%d", metrics_server__port(a));
	b = metrics_server__new(arg, render, NULL, NULL);
	ASSERT_TRUE(!b && errno == EADDRINUSE, "EADDRINUSE");
	metrics_server__free(b);
	metrics_server__free(a);
}

TEST_MAIN(TEST_ENTRY(get_metrics), TEST_ENTRY(keep_alive_and_pipelining),
	  TEST_ENTRY(rfc9112_heads),
	  TEST_ENTRY(abuse), TEST_ENTRY(stale_event_after_eviction),
	  TEST_ENTRY(closed_while_a_child_holds_it),
	  TEST_ENTRY(fds_run_out_some_held),
	  TEST_ENTRY(fds_run_out_none_held),
	  TEST_ENTRY(one_render_per_scrape),
	  TEST_ENTRY(exposition_escaping), TEST_ENTRY(addr_syntax), TEST_ENTRY(url),
	  TEST_ENTRY(port_in_use))
