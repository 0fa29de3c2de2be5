// Debian's libjemalloc exports unprefixed symbols: linking it replaces the process's
// malloc, so jemalloc's statistics describe the whole heap (Swift runtime included).
#include <jemalloc/jemalloc.h>
