# Set by `make install` (the library's directory); None in the source tree,
# where PERFBUF_LIB or the loader's search path finds it.
LIBDIR = None
MAJOR = 4
