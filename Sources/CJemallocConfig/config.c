// jemalloc reads this symbol at start-up (its documented link-time configuration; the
// MALLOC_CONF environment variable still overrides it).
//
// Keep freed pages for reuse instead of returning them to the kernel, and serve large
// blocks from the normal arenas (no purge-at-once oversize arena). With jemalloc's
// defaults every multi-megabyte bitmap a memory cache frees and the next one it
// allocates cost ~1,700 page faults plus an madvise: the default trace through nscache
// took 44.7 s instead of 1.35 s, with set p99 at 1.5 ms instead of 4.8 us -- the
// kernel's page recycling, not the cache. RSS then reads as a high-water mark.
#include "jemalloc_config.h"

const char *malloc_conf = "dirty_decay_ms:-1,muzzy_decay_ms:-1,oversize_threshold:0";

const char *cwb_jemalloc_config(void) { return malloc_conf; }
