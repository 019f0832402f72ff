build/bpf/emit.bpf.o: bpf/emit.bpf.c build/vmlinux.h bpf/emit.h

build/vmlinux.h:

bpf/emit.h:
