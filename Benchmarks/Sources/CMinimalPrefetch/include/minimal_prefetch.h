#ifndef MINIMAL_PREFETCH_H
#define MINIMAL_PREFETCH_H
// A hint to start loading a cache line (Swift has no prefetch builtin). The minimal loops'
// own copy: they share no code with the workbench they are measured against.
static inline __attribute__((always_inline)) void minimal_prefetch(const void *address) {
    __builtin_prefetch(address, 0, 3);
}
#endif
