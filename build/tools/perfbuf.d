build/tools/perfbuf.o: tools/perfbuf.c
