#!/usr/bin/python3
"""Files opened per command, each second: opensnoop.py OBJECT.bpf.o [SECONDS]"""
import collections, sys, time
import perfbuf

with perfbuf.Object(sys.argv[1]) as obj:            # load + attach, as `perfbuf run`
    dt = obj.dtype(map="events")                     # struct event, from the object's BTF
    pb = obj.perf_buffer("events", page_cnt=256)
    now = time.monotonic()
    end, tick, opens, lost = now + float(sys.argv[2] if len(sys.argv) > 2 else 10), now + 1, collections.Counter(), 0
    while time.monotonic() < end:
        batch = pb.poll(timeout_ms=100)              # every record of one drain, as arrays
        opens.update(batch.array(dt)["comm"].tolist())   # numpy: a["pid"], a["comm"], a["filename"]
        lost += batch.lost
        if time.monotonic() >= tick:
            print(" ".join("%s=%d" % (c.decode(), n) for c, n in opens.most_common(4)), "lost=%d" % lost,
                  flush=True)                        # a line a second, into a pipe too
            tick, opens = tick + 1, collections.Counter()
