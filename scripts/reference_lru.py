#!/usr/bin/env python3
"""Independent LRU reference for cross-checking `bench run --backend lru`.

Follows libCacheSim's cache_get_base: a hit leaves the stored size alone; a miss whose
size exceeds the capacity is not inserted; otherwise evict the least recently used until
used + size <= capacity, then insert. Size-0 requests are dropped (not counted), as the
workbench does. Reads the native CSV or the plain `timestamp,key,size` shape.

    scripts/reference_lru.py TRACE.csv CAPACITY_BYTES [CAPACITY_BYTES ...]

Prints one line per capacity: capacity, requests, hits, hit bytes, requested bytes,
evictions. Slow (pure Python), but shares no code with the workbench.
"""
import csv
import sys
from collections import OrderedDict


def rows(path):
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.reader(f)
        first = next(reader, None)
        if first is None:
            return
        try:
            float(first[0])
            header = None
        except ValueError:
            header = [name.strip().lower() for name in first]
        key_col = header.index("key") if header and "key" in header else 1
        size_col = header.index("size") if header and "size" in header else 2
        if header is None:
            yield first[key_col], int(first[size_col])
        for row in reader:
            if row:
                yield row[key_col], int(row[size_col])


def replay(path, capacity):
    cache = OrderedDict()  # key -> size, least recent first
    used = requests = hits = hit_bytes = requested_bytes = evictions = 0
    for key, size in rows(path):
        if size == 0:
            continue
        requests += 1
        requested_bytes += size
        if key in cache:
            cache.move_to_end(key)
            hits += 1
            hit_bytes += size
            continue
        if size > capacity:
            continue
        while used + size > capacity:
            _, evicted = cache.popitem(last=False)
            used -= evicted
            evictions += 1
        cache[key] = size
        used += size
    return requests, hits, hit_bytes, requested_bytes, evictions


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    for capacity in map(int, sys.argv[2:]):
        print(capacity, *replay(sys.argv[1], capacity))
