build/src/perf_event.o: src/perf_event.c src/internal.h include/perfbuf.h
src/internal.h:
include/perfbuf.h:
