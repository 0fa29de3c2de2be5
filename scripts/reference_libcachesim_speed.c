// The libCacheSim side of the replay-speed comparison (docs/benchmarks.md, issue 23), built by
// scripts/reference_libcachesim_speed.sh against a libCacheSim build outside the project.
//
// Replays a libCacheSim oracleGeneral binary trace through libCacheSim's own C
// eviction policies with the trace preloaded into memory; only the replay loop
// (cache->get per request) is timed.
//
// Usage: reference_libcachesim_speed POLICY CAPACITY_BYTES HASHPOWER TRACE [MAX_REQUESTS]
//   POLICY: LRU FIFO Sieve ARC Clock SLRU S3FIFO (case-insensitive), or WSS to
//           print the trace's working set (no cache is run).
//   MAX_REQUESTS: replay only the first N requests (0 = load + build cache,
//           replay nothing; used to subtract the fixed cost under callgrind).
// Env LCS_REQ_ARRAY=1: preload a full request_t array (one request_t per
//   record, ~200 B each) and pass &reqs[i]; default: preload packed 32-byte
//   records and copy 4 fields into one reused request_t per request, which is
//   what libCacheSim's own reader does (read_one_req fills one request_t).
//
// Record handling mirrors libCacheSim's oracleGeneralBin reader: 24-byte
// records (uint32 clock_time, uint64 obj_id, uint32 obj_size, int64
// next_access_vtime), next_access_vtime -1 -> MAX_REUSE_DISTANCE, size-0
// records skipped (reader default ignore_size_zero_req = true), hv = 0,
// ttl = -1, valid = true.
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "libCacheSim.h"

void set_rand_seed(uint64_t seed);
typedef cache_t *(*init_f)(const common_cache_params_t, const char *);

typedef struct {
  int64_t clock_time;
  uint64_t obj_id;
  int64_t obj_size;
  int64_t next_access_vtime;
} rec_t;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static rec_t *load(const char *path, long long *n_out, long long *n_zero) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    perror(path);
    exit(2);
  }
  fseek(f, 0, SEEK_END);
  long long bytes = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char *buf = malloc(bytes);
  if (fread(buf, 1, bytes, f) != (size_t)bytes) {
    perror("fread");
    exit(2);
  }
  fclose(f);
  long long nrec = bytes / 24, n = 0;
  rec_t *r = malloc(sizeof(rec_t) * (nrec ? nrec : 1));
  *n_zero = 0;
  for (long long i = 0; i < nrec; i++) {
    const unsigned char *p = buf + i * 24;
    uint32_t t, s;
    uint64_t id;
    int64_t nx;
    memcpy(&t, p, 4), memcpy(&id, p + 4, 8), memcpy(&s, p + 12, 4), memcpy(&nx, p + 16, 8);
    if (s == 0) {
      (*n_zero)++;
      continue;
    }
    if (nx == -1 || nx == INT64_MAX) nx = MAX_REUSE_DISTANCE;
    r[n].clock_time = t, r[n].obj_id = id, r[n].obj_size = s, r[n].next_access_vtime = nx;
    n++;
  }
  free(buf);
  *n_out = n;
  return r;
}

// Working set: distinct objects and the sum of their sizes (first-seen size,
// and max size in case an object's size changes).
static void wss(const rec_t *r, long long n) {
  long long slots = 1;
  while (slots < 2 * n + 2) slots <<= 1;
  uint64_t *key = calloc(slots, 8);
  int64_t *sz = calloc(slots, 8);  // 0 = empty (sizes are > 0)
  long long distinct = 0, changed = 0;
  long long first_sum = 0, max_sum = 0, max_obj = 0;
  for (long long i = 0; i < n; i++) {
    uint64_t h = (r[i].obj_id * 0x9E3779B97F4A7C15ull) & (slots - 1);
    while (sz[h] && key[h] != r[i].obj_id) h = (h + 1) & (slots - 1);
    if (!sz[h]) {
      key[h] = r[i].obj_id, sz[h] = r[i].obj_size, distinct++;
      first_sum += r[i].obj_size, max_sum += r[i].obj_size;
    } else if (r[i].obj_size != sz[h]) {
      changed++;
      if (r[i].obj_size > sz[h]) max_sum += r[i].obj_size - sz[h], sz[h] = r[i].obj_size;
    }
    if (r[i].obj_size > max_obj) max_obj = r[i].obj_size;
  }
  printf("requests=%lld distinct_objects=%lld working_set_bytes=%lld working_set_bytes_maxsize=%lld "
         "requests_with_changed_size=%lld max_obj_size=%lld ten_percent=%lld\n",
         n, distinct, first_sum, max_sum, changed, max_obj, first_sum / 10);
}

int main(int argc, char **argv) {
  if (argc < 5) {
    fprintf(stderr, "usage: %s POLICY CAPACITY_BYTES HASHPOWER TRACE [MAX_REQUESTS]\n", argv[0]);
    return 2;
  }
  const char *names[] = {"LRU", "FIFO", "Sieve", "ARC", "Clock", "SLRU", "S3FIFO"};
  init_f inits[] = {LRU_init, FIFO_init, Sieve_init, ARC_init, Clock_init, SLRU_init, S3FIFO_init};
  int is_wss = !strcasecmp(argv[1], "wss");
  init_f init = NULL;
  const char *pname = argv[1];
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (!strcasecmp(argv[1], names[i])) init = inits[i], pname = names[i];
  if (!init && !is_wss) {
    fprintf(stderr, "unknown policy %s\n", argv[1]);
    return 2;
  }
  long long capacity = atoll(argv[2]);
  int hp = atoi(argv[3]);
  long long n, n_zero;
  rec_t *r = load(argv[4], &n, &n_zero);
  if (n_zero) fprintf(stderr, "skipped %lld size-0 records (as libCacheSim's reader does)\n", n_zero);
  if (argc > 5) {
    long long m = atoll(argv[5]);
    if (m >= 0 && m < n) n = m;
  }
  if (is_wss) {
    wss(r, n);
    return 0;
  }

  request_t *reqs = NULL;
  int req_array = getenv("LCS_REQ_ARRAY") && atoi(getenv("LCS_REQ_ARRAY"));
  if (req_array) {
    reqs = calloc(n ? n : 1, sizeof(request_t));
    for (long long i = 0; i < n; i++) {
      request_t *q = &reqs[i];
      q->obj_size = 1, q->op = OP_INVALID, q->valid = true;  // as new_request()
      q->hv = 0, q->ttl = -1;                                 // as read_one_req()
      q->clock_time = r[i].clock_time, q->obj_id = r[i].obj_id;
      q->obj_size = r[i].obj_size, q->next_access_vtime = r[i].next_access_vtime;
    }
    free(r);
    r = NULL;
  }

  common_cache_params_t params = default_common_cache_params();
  params.cache_size = capacity;
  params.hashpower = hp;
  params.default_ttl = 86400LL * 365 * 100;  // ~100 years; TTL support is compiled out anyway
  set_rand_seed(0);
  cache_t *cache = init(params, NULL);

  long long hits = 0;
  double t0 = now();
  if (req_array) {
    for (long long i = 0; i < n; i++)
      if (cache->get(cache, &reqs[i])) hits++;
  } else {
    request_t *req = new_request();
    req->hv = 0, req->ttl = -1, req->valid = true;
    for (long long i = 0; i < n; i++) {
      req->clock_time = r[i].clock_time, req->obj_id = r[i].obj_id;
      req->obj_size = r[i].obj_size, req->next_access_vtime = r[i].next_access_vtime;
      if (cache->get(cache, req)) hits++;
    }
  }
  double secs = now() - t0;
  printf("policy=%s capacity=%lld hashpower=%d requests=%lld hits=%lld seconds=%.6f mreq_per_s=%.3f\n",
         pname, capacity, hp, n, hits, secs, secs > 0 ? n / secs / 1e6 : 0.0);
  fflush(stdout);
  // no teardown: freeing the cache is not part of the measurement
  _exit(0);
}
