build/src/cpus.o: src/cpus.c src/internal.h include/perfbuf.h
src/internal.h:
include/perfbuf.h:
