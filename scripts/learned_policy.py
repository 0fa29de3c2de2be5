#!/usr/bin/env python3
"""One of libCacheSim's learned policies (GLCache, LRB, 3L-Cache), which its PyPI package
`libcachesim` builds with XGBoost and LightGBM, answering the workbench's `glcache`, `lrb`
and `3lcache` backends one request at a time (Sources/CacheWorkbench/Backends/
LearnedPolicyProcess.swift starts it; it is not meant to be run by hand).

Usage: learned_policy.py POLICY CAPACITY_BYTES   (POLICY: glcache, lrb or 3lcache)

Protocol on standard input and output, little-endian. First the script writes one line, `ok`
or `error: reason`. Then each message is 25 bytes: op (1 byte: 0 get, 2 counts; there is no
removal, as LRB aborts on one),
object id (u64), size (u64), time in whole seconds (i64). A get is libCacheSim's
`cache->get` (a miss inserts the object, evicting as the policy decides) and is answered with
one byte, 1 for a hit; counts with four u64: objects held, bytes held,
objects evicted so far (counted here: libCacheSim's caches do not count evictions), and the
misses whose insertion was assumed (every one: a missed object no larger than the cache is
taken to have gone in, since LRB has no `find` and GLCache's changes its state)."""
import os
import struct
import sys

CLASSES = {"glcache": "GLCache", "lrb": "LRB", "3lcache": "ThreeLCache"}
MESSAGE = struct.Struct("<BQQq")
COUNTS = struct.Struct("<QQQQ")


def main() -> None:
    out = sys.stdout.buffer
    # libCacheSim's C code logs to stderr as it builds and trains; the workbench reads only
    # the protocol, so fd 2 goes nowhere (an error is reported on the first line instead).
    os.dup2(os.open(os.devnull, os.O_WRONLY), 2)
    try:
        policy, capacity = sys.argv[1], int(sys.argv[2])
        import libcachesim as lcs

        cache = getattr(lcs, CLASSES[policy])(cache_size=capacity)
        request = lcs.Request()
    except Exception as error:  # the reason goes back to the workbench, which names it
        out.write(f"error: {type(error).__name__}: {error}\n".replace("\n", " ").strip().encode() + b"\n")
        out.flush()
        return
    out.write(b"ok\n")
    out.flush()
    read = sys.stdin.buffer.read
    evictions = assumed = 0
    while True:
        message = read(MESSAGE.size)
        if len(message) < MESSAGE.size:
            return  # the workbench closed its end: the run is over
        op, key, size, time = MESSAGE.unpack(message)
        if op == 0:
            before = cache.get_n_obj()
            request.obj_id, request.obj_size, request.clock_time = key, size, time
            hit = cache.get(request)
            if not hit:
                # Objects that left: those held before, plus this one if it went in, minus those held now.
                # Whether it went in is assumed, not asked: LRB has no `find`, and GLCache's
                # `find` changes its state (the byte hits that follow differ).
                inserted = 1 if size <= capacity else 0
                assumed += 1
                evictions += max(0, before + inserted - cache.get_n_obj())
            out.write(b"\x01" if hit else b"\x00")
        else:
            out.write(COUNTS.pack(cache.get_n_obj(), cache.get_occupied_byte(), evictions, assumed))
        out.flush()


if __name__ == "__main__":
    main()
