#!/usr/bin/python3
"""Helpers of tests/test_metrics.sh (standard library only).

  ready URL SECONDS          wait until GET URL answers 200
  get URL                    status line, headers and body of one GET
  abuse HOST PORT SECONDS    200 idle connections, a client sending a byte
                             a second, garbage requests every 50 ms; prints
                             "idle N slow_closed B garbage_answered G"
  query PROM EXPR [TIME]     an instant query: one line per series,
                             "labels value" (labels as k=v,k=v, sorted)
  scraped_after PROM JOB TS SECONDS
                             wait until JOB was scraped after unix time TS
  emit FIFO N SIZE           print our pid, wait for a line on FIFO, then
                             write(-1, SIZE zero bytes) N times (what
                             tests/bpf/run_types.bpf.o records)
"""
import json
import os
import socket
import sys
import time
import urllib.parse
import urllib.request


def ready(url, seconds):
    end = time.time() + float(seconds)
    while time.time() < end:
        try:
            with urllib.request.urlopen(url, timeout=1) as r:
                if r.status == 200:
                    return 0
        except Exception:
            pass
        time.sleep(0.1)
    return 1


def get(url):
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            print(r.status)
            print(r.headers.get("Content-Type"))
            sys.stdout.write(r.read().decode())
    except urllib.error.HTTPError as e:
        print(e.code)
        print(e.headers.get("Content-Type"))
    return 0


GARBAGE = [
    b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + b"\x00" * 64 + b"\r\n\r\n",
    b"GET /metrics HTTP/9.9\r\n\r\n",
    b"BREW /pot HTTP/1.1\r\n\r\n",
    b"GET /../../etc/passwd HTTP/1.1\r\n\r\n",
    b"GET\r\n\r\n",
    b"A" * 9000,
    b"GET /metrics HTTP/1.1\r\n" + b"X: " + b"y" * 5000 + b"\r\n\r\n",
    b"GET /metrics HTTP/1.1\r\n folded\r\n\r\n",
]


def abuse(host, port_, seconds):
    addr = (host, int(port_))
    idle = []
    for _ in range(200):
        s = socket.create_connection(addr, timeout=5)
        idle.append(s)
    slow = socket.create_connection(addr, timeout=5)
    slow.setblocking(False)
    slow_req = b"GET /metrics HTTP/1.1\r\nHost: slow\r\n\r\n"
    slow_closed = 0
    answered = 0
    end = time.time() + float(seconds)
    next_byte = 0.0
    i = 0
    while time.time() < end:
        now = time.time()
        if now >= next_byte and slow is not None:
            try:
                slow.send(slow_req[i % len(slow_req):i % len(slow_req) + 1])
                i += 1
                if slow.recv(1) == b"":
                    slow_closed = 1
                    slow = None
            except BlockingIOError:
                pass
            except OSError:
                slow_closed = 1
                slow = None
            next_byte = now + 1
        g = GARBAGE[answered % len(GARBAGE)]
        try:
            c = socket.create_connection(addr, timeout=2)
            try:
                c.sendall(g)
            except OSError:
                pass
            r = c.recv(64)
            if r.startswith(b"HTTP/1.1 4"):
                answered += 1
            c.close()
        except OSError:
            pass
        time.sleep(0.05)
    alive = 0
    for s in idle:
        s.setblocking(False)
        try:
            alive += s.recv(1) != b""
        except BlockingIOError:
            alive += 1
        except OSError:
            pass
        s.close()
    print("idle", alive, "slow_closed", slow_closed, "garbage_answered", answered)
    return 0


def query(prom, expr, at=None):
    q = {"query": expr}
    if at:
        q["time"] = at
    url = prom + "/api/v1/query?" + urllib.parse.urlencode(q)
    with urllib.request.urlopen(url, timeout=5) as r:
        res = json.load(r)["data"]["result"]
    for s in sorted(res, key=lambda s: sorted(s["metric"].items())):
        labels = ",".join("%s=%s" % kv for kv in sorted(s["metric"].items())
                          if kv[0] not in ("job", "instance", "__name__"))
        print(labels or "-", s["value"][1])
    return 0


def scraped_after(prom, job, ts, seconds):
    end = time.time() + float(seconds)
    expr = 'timestamp(up{job="%s"})' % job
    while time.time() < end:
        url = prom + "/api/v1/query?" + urllib.parse.urlencode({"query": expr})
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                res = json.load(r)["data"]["result"]
            if res and float(res[0]["value"][1]) > float(ts):
                return 0
        except Exception:
            pass
        time.sleep(0.2)
    return 1


def emit(fifo, n, size):
    print(os.getpid(), flush=True)
    with open(fifo) as f:
        f.readline()
    raw = bytes(int(size))
    for _ in range(int(n)):
        try:
            os.write(-1, raw)
        except OSError:
            pass
    return 0


if __name__ == "__main__":
    cmd, args = sys.argv[1], sys.argv[2:]
    sys.exit({"ready": ready, "get": get, "abuse": abuse,
              "query": query, "scraped_after": scraped_after,
              "emit": emit}[cmd](*args) or 0)
