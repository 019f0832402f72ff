build/src/print.o: src/print.c src/internal.h include/perfbuf.h
src/internal.h:
include/perfbuf.h:
