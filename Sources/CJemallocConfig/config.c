// jemalloc reads this symbol at start-up (its documented link-time configuration; the
// MALLOC_CONF environment variable still overrides it).
//
// Keep freed pages for reuse instead of returning them to the kernel, and serve large
// blocks from the normal arenas (no purge-at-once oversize arena). With jemalloc's
// defaults every multi-megabyte bitmap a memory cache frees and the next one it
// allocates cost ~1,700 page faults plus an madvise: the default trace through nscache
// took 44.7 s instead of 1.35 s, with set p99 at 1.5 ms instead of 4.8 us -- the
// kernel's page recycling, not the cache. RSS then reads as a high-water mark.
//
// Kept pages must be reused, or RSS grows without bound: freed neighbours coalesce into
// large dirty extents, and by default (lg_extent_max_active_fit:6) jemalloc will not carve
// a request out of a dirty extent more than 64 times its size, so it maps fresh memory
// instead. nscache on 500,000 requests with unique 2 KB keys reached 1 GB of RSS with a
// 16 MB heap (3 million: 6.7 GB). lg_extent_max_active_fit:20 lets any kept extent serve:
// 49 MB there, and the default trace keeps its set latencies (nscache set p99 1.7-2.5 us
// with or without it, 1.3 ms with page recycling).
#include "jemalloc_config.h"

const char *malloc_conf = "dirty_decay_ms:-1,muzzy_decay_ms:-1,oversize_threshold:0,lg_extent_max_active_fit:20";

const char *cwb_jemalloc_config(void) { return malloc_conf; }
