// The workbench's reference harness for libCacheSim's C code (built and run by
// reference_libcachesim_c.sh): one eviction algorithm over a time,key,size CSV (integer keys,
// size-0 rows dropped); prints hits=H byte_hits=B requests=N. The generator starts at 0 and
// the hash table at hashpower 24 (the PyPI package's defaults); each request carries its next
// access (position among the replayed requests, INT64_MAX for none), for BeladySize.
#include "libCacheSim.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

cache_t *MRU_init(const common_cache_params_t, const char *);
void set_rand_seed(uint64_t seed);
typedef cache_t *(*init_f)(const common_cache_params_t, const char *);

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: POLICY CAPACITY TRACE [PARAMS] [HASHPOWER]\n");
    return 2;
  }
  // SR_LRU and CR_LFU (Cacheus's experts) and FIFO_Reinsertion are in neither cachesim's
  // table nor the PyPI package's classes; libCacheSim runs them alone only through this API.
  const char *names[] = {"mru", "size", "random", "randomtwo", "hyperbolic", "lruprob", "beladysize", "lru", "srlru", "crlfu", "fiforeinsertion"};
  init_f inits[] = {MRU_init, Size_init, Random_init, RandomTwo_init, Hyperbolic_init, LRU_Prob_init, BeladySize_init, LRU_init, SR_LRU_init, CR_LFU_init, FIFO_Reinsertion_init};
  init_f init = NULL;
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (!strcasecmp(argv[1], names[i])) init = inits[i];
  if (!init) {
    fprintf(stderr, "unknown policy %s\n", argv[1]);
    return 2;
  }
  common_cache_params_t params = default_common_cache_params();
  params.cache_size = atoll(argv[2]);
  params.hashpower = argc > 5 ? atoi(argv[5]) : 24;
  set_rand_seed(0);
  cache_t *cache = init(params, argc > 4 && argv[4][0] ? argv[4] : NULL);
  FILE *file = fopen(argv[3], "r");
  if (!file) {
    perror(argv[3]);
    return 2;
  }
  char line[512];
  long long n = 0, allocated = 1024;
  long long *times = malloc(allocated * 8), *keys = malloc(allocated * 8), *sizes = malloc(allocated * 8);
  while (fgets(line, sizeof line, file)) {
    double t;
    long long k, s;
    if (sscanf(line, "%lf,%lld,%lld", &t, &k, &s) != 3 || s == 0) continue;  // a header or size 0
    if (n == allocated) {
      allocated *= 2;
      times = realloc(times, allocated * 8), keys = realloc(keys, allocated * 8), sizes = realloc(sizes, allocated * 8);
    }
    times[n] = (long long)t, keys[n] = k, sizes[n] = s, n++;
  }
  // Next accesses by a backward pass (a linear probe table keyed by id).
  int64_t *next = malloc((n + 1) * 8);
  long long slots = 1;
  while (slots < 2 * n + 2) slots <<= 1;
  long long *seenKey = malloc(slots * 8), *seenAt = malloc(slots * 8);
  for (long long i = 0; i < slots; i++) seenAt[i] = -1;
  for (long long i = n - 1; i >= 0; i--) {
    unsigned long long h = ((unsigned long long)keys[i] * 0x9E3779B97F4A7C15ull) & (slots - 1);
    while (seenAt[h] >= 0 && seenKey[h] != keys[i]) h = (h + 1) & (slots - 1);
    next[i] = seenAt[h] >= 0 ? seenAt[h] : INT64_MAX;
    seenKey[h] = keys[i], seenAt[h] = i;
  }
  long long hits = 0, byteHits = 0;
  request_t *req = new_request();
  for (long long i = 0; i < n; i++) {
    req->clock_time = times[i], req->obj_id = keys[i], req->obj_size = sizes[i], req->next_access_vtime = next[i];
    if (cache->get(cache, req)) hits++, byteHits += sizes[i];
  }
  printf("hits=%lld byte_hits=%lld requests=%lld\n", hits, byteHits, n);
  return 0;
}
