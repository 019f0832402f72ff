#!/usr/bin/env python3
"""A NATS client of its own for tests/test_nats.sh: the wire protocol over
a socket, so what perfbuf stored is read back by code that shares nothing
with libnats.

  nats_util.py info URL STREAM     the stream's info (JSON), exit 1 if none
  nats_util.py dump URL STREAM     every message: one JSON object a line,
                                   {"seq", "subject", "headers", "data"}
  nats_util.py lines URL STREAM    the same for every line of every message
                                   (a batch of JSON Lines): "data" a line
  nats_util.py ready URL [SEC [R]] wait until the server answers and its
                                   JetStream does (exit 1 after SEC, 10),
                                   and can place a stream of R replicas
  nats_util.py spool-check URL STREAM FIELD FIRST N [HOST=LOST...]
                                   each host's events: argument FIELD
                                   takes each value FIRST..FIRST+N-1 once
                                   but for LOST of them (its rings' loss);
                                   message ids unique (exit 1 if not)
  nats_util.py pub URL SUBJ HOST   publish stdin's bytes (one message) with
                                   header Perfbuf-Host: HOST (as given:
                                   a forged or hostile message), stored
"""
import base64
import collections
import json
import socket
import sys
import time


class Conn:
    def __init__(self, url):
        hostport = url.split("://")[-1]
        host, port = hostport.rsplit(":", 1)
        self.s = socket.create_connection((host, int(port)), timeout=10)
        self.buf = b""
        self.line()  # INFO
        self.s.sendall(b'CONNECT {"verbose":false,"pedantic":false,'
                       b'"headers":true,"no_responders":true,"protocol":1}'
                       b'\r\nPING\r\n')
        while self.line() != b"PONG":
            pass
        self.s.sendall(b"SUB _INBOX.t.* 1\r\n")

    def fill(self):
        d = self.s.recv(1 << 16)
        if not d:
            raise EOFError("connection closed")
        self.buf += d

    def line(self):
        while b"\r\n" not in self.buf:
            self.fill()
        l, self.buf = self.buf.split(b"\r\n", 1)
        if l == b"PING":
            self.s.sendall(b"PONG\r\n")
            return self.line()
        return l

    def take(self, n):
        while len(self.buf) < n + 2:
            self.fill()
        d, self.buf = self.buf[:n], self.buf[n + 2:]
        return d

    def reply(self):
        """The next MSG/HMSG: (subject, payload)."""
        while True:
            l = self.line().split()
            if l and l[0] == b"MSG":
                return l[1].decode(), self.take(int(l[-1]))
            if l and l[0] == b"HMSG":
                d = self.take(int(l[-1]))
                return l[1].decode(), d[int(l[-2]):]

    def hpub(self, subj, hdrs, payload):
        """A message with headers @hdrs (bytes, NATS/1.0 block), acknowledged
        by the stream that holds @subj."""
        self.s.sendall(b"HPUB %s _INBOX.t.0 %d %d\r\n%s%s\r\n" %
                       (subj.encode(), len(hdrs), len(hdrs) + len(payload),
                        hdrs, payload))
        if b'"error"' in self.reply()[1]:
            sys.exit("pub: the stream refused the message")

    def request(self, subj, payload, tag):
        self.s.sendall(b"PUB %s _INBOX.t.%d %d\r\n%s\r\n" %
                       (subj.encode(), tag, len(payload), payload))


def headers(raw):
    out = {}
    for l in raw.decode().split("\r\n")[1:]:
        if ": " in l:
            k, v = l.split(": ", 1)
            out[k] = v
    return out


def info(c, stream):
    c.request("$JS.API.STREAM.INFO." + stream, b"", 0)
    r = json.loads(c.reply()[1])
    if "error" in r:
        print(r["error"].get("description"), file=sys.stderr)
        sys.exit(1)
    return r


def messages(c, stream, window=256):
    """Every message of @stream in order: {"seq", "subject", "headers",
    "data"} (data: bytes), requests pipelined @window at a time."""
    st = info(c, stream)["state"]
    first, last = st["first_seq"], st["last_seq"]
    if st["messages"] == 0:
        return
    for lo in range(first, last + 1, window):
        hi = min(lo + window, last + 1)
        for seq in range(lo, hi):
            c.request("$JS.API.STREAM.MSG.GET." + stream,
                      json.dumps({"seq": seq}).encode(), seq)
        got = {}
        for _ in range(lo, hi):
            subj, d = c.reply()
            got[int(subj.rsplit(".", 1)[1])] = json.loads(d)
        for seq in range(lo, hi):
            m = got[seq].get("message")
            if not m:
                continue  # deleted
            yield {"seq": seq, "subject": m["subject"],
                   "headers": headers(base64.b64decode(m.get("hdrs", ""))),
                   "data": base64.b64decode(m.get("data", ""))}


def dump(c, stream, split=False):
    for m in messages(c, stream):
        data = m["data"].decode()
        for d in data.splitlines() if split else [data]:
            print(json.dumps(dict(m, data=d)))


def spool_check(c, stream, field, first, n, lost):
    """Each host's events of @stream: argument @field of each takes every
    value of [first, first + n) once, but for as many as @lost[host] (the
    records its rings lost, as the tracer counted them), and no
    Nats-Msg-Id comes twice. Prints a line per host; exit 1 if one is not
    so."""
    vals, ids, dup_ids = {}, set(), 0
    for m in messages(c, stream):
        h = m["headers"]
        i = h.get("Nats-Msg-Id")
        dup_ids += i in ids
        ids.add(i)
        if "Perfbuf-Probe" in h:
            v = vals.setdefault(h["Perfbuf-Host"], collections.Counter())
            for line in m["data"].splitlines():
                d = json.loads(line)
                if d["type"] == "event":
                    v[d["args"][field]] += 1
    ok = dup_ids == 0
    for host, v in sorted(vals.items()):
        want = set(range(first, first + n))
        gone = sorted(want - set(v))
        missing, extra = len(gone), len(set(v) - want)
        twice = sum(1 for k in v.values() if k > 1)
        print("%s: %d events, %d distinct, %d missing, %d not expected, "
              "%d more than once; %d message ids twice" %
              (host, sum(v.values()), len(v), missing, extra, twice, dup_ids))
        if gone:    # where: the first runs of missing values
            runs = []
            for x in gone:
                if runs and x == runs[-1][1] + 1:
                    runs[-1][1] = x
                else:
                    runs.append([x, x])
            print("  missing: %s" % ", ".join("%d-%d" % (a - first, b - first)
                                              for a, b in runs[:8]))
        ok = ok and not (missing != lost.get(host, 0) or extra or twice)
    sys.exit(0 if ok and vals else 1)


def js_ok(url, subj, payload=b""):
    """A JetStream API request answered without an error."""
    try:
        c = Conn(url)
        c.s.settimeout(1)
        c.request(subj, payload, 0)
        r = json.loads(c.reply()[1])
        c.s.close()
        return "error" not in r
    except (OSError, EOFError, ValueError):
        return False


def ready(url, sec, replicas=1):
    """JetStream up: $JS.API.INFO answered without an error (a cluster
    has elected its meta leader); with @replicas > 1, a stream of that
    many replicas can be placed too (the leader knows that many peers:
    an elected leader may not yet, and says 'no suitable peers')."""
    end = time.time() + sec
    probe = json.dumps({"name": "pbready", "subjects": ["pbready.x"],
                        "num_replicas": replicas,
                        "storage": "memory"}).encode()
    while time.time() < end:
        if js_ok(url, "$JS.API.INFO") and (
                replicas == 1 or
                js_ok(url, "$JS.API.STREAM.CREATE.pbready", probe)):
            if replicas > 1:
                js_ok(url, "$JS.API.STREAM.DELETE.pbready")
            return
        time.sleep(0.1)
    print("no JetStream at %s after %ss" % (url, sec), file=sys.stderr)
    sys.exit(1)


def main():
    if sys.argv[1] == "ready":
        ready(sys.argv[2], float(sys.argv[3]) if len(sys.argv) > 3 else 10,
              int(sys.argv[4]) if len(sys.argv) > 4 else 1)
        return
    c = Conn(sys.argv[2])
    if sys.argv[1] == "pub":
        c.hpub(sys.argv[3], b"NATS/1.0\r\nPerfbuf-Host: %s\r\n\r\n" %
               sys.argv[4].encode("utf-8", "surrogateescape"),
               sys.stdin.buffer.read())
    elif sys.argv[1] == "info":
        print(json.dumps(info(c, sys.argv[3])))
    elif sys.argv[1] == "spool-check":
        spool_check(c, sys.argv[3], sys.argv[4], int(sys.argv[5]),
                    int(sys.argv[6]), {h: int(k) for h, k in
                                       (a.split("=") for a in sys.argv[7:])})
    else:
        dump(c, sys.argv[3], sys.argv[1] == "lines")


main()
