#ifndef CWB_PREFETCH_H
#define CWB_PREFETCH_H
// A hint to start loading a cache line that will be needed soon, so that independent
// cache misses overlap instead of following one another (Swift has no prefetch builtin).
static inline __attribute__((always_inline)) void cwb_prefetch(const void *address) {
    __builtin_prefetch(address, 0, 3);
}
static inline __attribute__((always_inline)) void cwb_prefetch_for_write(const void *address) {
    __builtin_prefetch(address, 1, 3);
}
#endif
