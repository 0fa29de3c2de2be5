#!/bin/sh
# Times libCacheSim's own C policies (LRU, FIFO, Sieve, ARC, Clock, SLRU, S3FIFO) over an
# oracleGeneral trace preloaded into memory, at a chosen hash-table hashpower, timing only the
# loop of cache->get calls; prints `policy=… capacity=… hashpower=… requests=… hits=…
# seconds=… mreq_per_s=…`. The libCacheSim side of docs/benchmarks.md's comparison with the
# workbench and its minimal loops. libCacheSim is built outside the project; this script
# only compiles the harness against that build, with the flags its Release build uses.
#
# Usage: LIBCACHESIM_SRC=DIR LIBCACHESIM_BUILD=DIR reference_libcachesim_speed.sh POLICY CAPACITY HASHPOWER TRACE [MAX_REQUESTS]
#   LIBCACHESIM_SRC   a libCacheSim checkout (https://github.com/1a1a11a/libCacheSim)
#   LIBCACHESIM_BUILD its cmake build folder (cmake -DCMAKE_BUILD_TYPE=Release -DENABLE_TESTS=OFF; make libCacheSim)
#   MAX_REQUESTS      the first N requests only (0: load and build, replay nothing — the
#                     fixed cost to subtract under callgrind)
# The harness is built once into $REFERENCE_BINARY (default ${TMPDIR:-/tmp}/workbench-libcachesim-speed).
set -eu
: "${LIBCACHESIM_SRC:?set LIBCACHESIM_SRC to a libCacheSim checkout}"
: "${LIBCACHESIM_BUILD:?set LIBCACHESIM_BUILD to its cmake build folder}"
binary="${REFERENCE_BINARY:-${TMPDIR:-/tmp}/workbench-libcachesim-speed}"
here=$(cd "$(dirname "$0")" && pwd)
if [ ! -x "$binary" ] || [ "$here/reference_libcachesim_speed.c" -nt "$binary" ]; then
    source_dir="$LIBCACHESIM_SRC/libCacheSim"
    # libCacheSim's Release flags for its C files (its build's CMakeFiles/libCacheSim.dir/flags.make).
    # shellcheck disable=SC2046
    cc -O3 -DNDEBUG -fno-builtin-malloc -fno-builtin-calloc -fno-builtin-realloc -fno-builtin-free \
        -DINCLUDE_PRIV=1 -DOS_LINUX -DSUPPORT_ZSTD_TRACE=1 -DUSE_HUGEPAGE=1 \
        $(pkg-config --cflags glib-2.0) -I"$source_dir/include" -I"$source_dir/include/libCacheSim" \
        "$here/reference_libcachesim_speed.c" -o "$binary" \
        -Wl,--start-group "$LIBCACHESIM_BUILD/liblibCacheSim.a" -Wl,--end-group \
        $(pkg-config --libs glib-2.0) -lzstd -lm -lpthread -ldl
fi
exec "$binary" "$@"
