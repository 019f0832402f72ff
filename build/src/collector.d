build/src/collector.o: src/collector.c src/internal.h include/perfbuf.h
src/internal.h:
include/perfbuf.h:
