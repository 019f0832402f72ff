build/tools/perfbuf.o: tools/perfbuf.c tools/commands.h
tools/commands.h:
