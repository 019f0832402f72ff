build/src/ring.o: src/ring.c src/internal.h include/perfbuf.h
src/internal.h:
include/perfbuf.h:
