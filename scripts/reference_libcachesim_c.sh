#!/bin/sh
# Runs one eviction algorithm of libCacheSim's C code directly (not through cachesim, which
# has no MRU and seeds its generator from the clock) over a plain trace (time,key,size;
# integer keys) and prints `hits=H byte_hits=B requests=N`, as reference_libcachesim.py does.
# The generator starts at 0 (set_rand_seed(0)) and the hash table at hashpower 24, as the PyPI
# package's; each request carries its next access, for BeladySize.
#
# Usage: LIBCACHESIM_SRC=DIR LIBCACHESIM_BUILD=DIR reference_libcachesim_c.sh POLICY CAPACITY TRACE [PARAMS] [HASHPOWER]
#   LIBCACHESIM_SRC   a libCacheSim checkout (https://github.com/cacheMon/libCacheSim)
#   LIBCACHESIM_BUILD its cmake build folder (cmake -DCMAKE_BUILD_TYPE=Release -DENABLE_TESTS=OFF; make)
#   POLICY            mru, size, random, randomtwo, hyperbolic, lruprob, beladysize, lru, srlru, crlfu, fiforeinsertion
# The harness is built once into $REFERENCE_BINARY (default ${TMPDIR:-/tmp}/workbench-libcachesim-reference).
set -eu
: "${LIBCACHESIM_SRC:?set LIBCACHESIM_SRC to a libCacheSim checkout}"
: "${LIBCACHESIM_BUILD:?set LIBCACHESIM_BUILD to its cmake build folder}"
binary="${REFERENCE_BINARY:-${TMPDIR:-/tmp}/workbench-libcachesim-reference}"
here=$(cd "$(dirname "$0")" && pwd)
# A build's archives: one per folder (cacheMon's cmake) or one liblibCacheSim.a (the PyPI
# package's source, 1a1a11a/libCacheSim@dbf8423).
archives() {
    if [ -f "$LIBCACHESIM_BUILD/liblibCacheSim.a" ]; then echo "$LIBCACHESIM_BUILD/liblibCacheSim.a"
    else find "$LIBCACHESIM_BUILD/libCacheSim" -name '*.a' | tr '\n' ' '; fi
}
if [ ! -x "$binary" ] || [ "$here/reference_libcachesim_c.c" -nt "$binary" ]; then
    source_dir="$LIBCACHESIM_SRC/libCacheSim"
    # shellcheck disable=SC2046
    cc -O2 $(pkg-config --cflags glib-2.0) -I"$source_dir/include" -I"$source_dir/include/libCacheSim" -I"$LIBCACHESIM_BUILD/libCacheSim/include" \
        "$here/reference_libcachesim_c.c" -o "$binary" \
        -Wl,--start-group $(archives) -Wl,--end-group \
        $(pkg-config --libs glib-2.0) -lstdc++ -lm -lpthread -lzstd
fi
exec "$binary" "$@"
