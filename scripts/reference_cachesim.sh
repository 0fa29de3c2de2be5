#!/bin/sh
# Replays a plain trace (time,key,size; integer keys; no header) through libCacheSim's C
# `cachesim` binary (built from libCacheSim's source beside the workbench, never in it) and
# prints `requests=N miss_ratio=R`, R as cachesim prints it (4 decimals; its sim.c prints
# no counts). For policies libCacheSim's PyPI package does not build (SFIFO, S3LRU); the
# others go through scripts/reference_libcachesim.py, which gives exact counts.
#
# Usage: reference_cachesim.sh CACHESIM ALGORITHM CAPACITY_BYTES TRACE.csv [EVICTION_PARAMS]
# EVICTION_PARAMS is cachesim's -e string (n-seg=2). Objects are sized (--ignore-obj-size 0).
set -eu
if [ $# -lt 4 ]; then
    sed -n '2,9p' "$0" >&2
    exit 2
fi
cachesim=$1 algorithm=$2 capacity=$3 trace=$4
shape="time-col=1, obj-id-col=2, obj-size-col=3, has-header=false"
output=$(mktemp -d)
trap 'rm -rf "$output"' EXIT
if [ $# -ge 5 ] && [ -n "$5" ]; then
    line=$("$cachesim" "$trace" csv "$algorithm" "$capacity" -t "$shape" --ignore-obj-size 0 -e "$5" -o "$output/out" 2>/dev/null | grep ' req, miss ratio ')
else
    line=$("$cachesim" "$trace" csv "$algorithm" "$capacity" -t "$shape" --ignore-obj-size 0 -o "$output/out" 2>/dev/null | grep ' req, miss ratio ')
fi
# "TRACE NAME cache size   1MiB,   5000 req, miss ratio 0.8880, throughput ..."
echo "$line" | sed -E 's/.* ([0-9]+) req, miss ratio ([0-9.]+),.*/requests=\1 miss_ratio=\2/'
