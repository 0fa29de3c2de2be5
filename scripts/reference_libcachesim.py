#!/usr/bin/env python3
"""Replays a plain trace (time,key,size; integer keys; header optional) through a policy of
libCacheSim's, via its PyPI package `libcachesim`, and prints one line:
`hits=H byte_hits=B requests=N` — the figures `bench run --backend NAME` must equal.

Usage: reference_libcachesim.py POLICY CAPACITY_BYTES TRACE.csv [key=value ...]
POLICY is a libcachesim class name (LRU, FIFO, Clock, Sieve, ...); key=value pairs go to
its constructor (n_bit_counter=2). Or POLICY is an `_init` function the package's native
module exports without a class (CAR_init, FIFO_Merge_init, QDLP_init, S3FIFOd_init): then
the key=value pairs are libCacheSim's own parameter string (n-exam=100), passed as is.
Size-0 requests are dropped, as the workbench does.
`--admission=KIND` (anywhere after POLICY) puts one of libCacheSim's admissioners in front
of the policy, as `cache_can_insert_default` asks it: bloomfilter, prob:P, size:N,
adaptsize or adaptsize:R (R = its reconf-interval); the workbench's `admission=` values.
The package is installed by scripts/bootstrap --python into .venv/."""
import csv
import sys

import libcachesim as lcs


def make_admissioner(text):
    """libCacheSim's admissioner for the workbench's `admission=` value."""
    from libcachesim import libcachesim_python as native
    name, _, value = text.partition(":")
    if name == "bloomfilter":
        return native.create_bloomfilter_admissioner(None)
    if name == "prob":
        return native.create_prob_admissioner(f"prob={value}")
    if name == "size":
        return native.create_size_admissioner(f"size={value}")
    if name == "adaptsize":
        return native.create_adaptsize_admissioner(f"reconf-interval={value}" if value else None)
    sys.exit(f"unknown admission {text}")


def main() -> None:
    admission = [arg for arg in sys.argv if arg.startswith("--admission=")]
    sys.argv = [arg for arg in sys.argv if not arg.startswith("--admission=")]
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    policy, capacity, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    if policy.endswith("_init"):
        # The C policies the package compiles in but wraps in no class (see
        # `dir(libcachesim.libcachesim_python)`), built as its classes build theirs.
        from libcachesim import libcachesim_python as native
        from libcachesim.cache import CacheBase, _create_common_params
        init = getattr(native, policy)
        common = _create_common_params(capacity)
        text = ",".join(sys.argv[4:])
        cache = CacheBase(_cache=init(common, text) if text else init(common))
    else:
        params = {}
        for pair in sys.argv[4:]:
            name, value = pair.split("=", 1)
            params[name] = float(value) if "." in value else int(value)
        cache = getattr(lcs, policy)(cache_size=capacity, **params)
    if admission:
        cache._cache.admissioner = make_admissioner(admission[-1].split("=", 1)[1])
    rows = []
    with open(path, newline="") as file:
        for row in csv.reader(file):
            if not row or not row[0].strip() or not row[0].strip()[0].isdigit():
                continue  # a header
            size = int(row[2])
            if size == 0:
                continue
            rows.append((int(float(row[0])), int(row[1]), size))
    # Each request's next access (its position among the replayed requests), for Belady.
    never = 2**63 - 1
    next_access = [never] * len(rows)
    seen = {}
    for index in range(len(rows) - 1, -1, -1):
        next_access[index] = seen.get(rows[index][1], never)
        seen[rows[index][1]] = index
    hits = byte_hits = requests = 0
    request = lcs.Request()
    for index, (time, key, size) in enumerate(rows):
        request.obj_id = key
        request.obj_size = size
        request.clock_time = time
        request.next_access_vtime = next_access[index]
        requests += 1
        if cache.get(request):
            hits += 1
            byte_hits += size
    print(f"hits={hits} byte_hits={byte_hits} requests={requests}")


if __name__ == "__main__":
    main()
