#!/usr/bin/env python3
"""Compare `bench analyze --csv DIR` with libCacheSim traceAnalyzer's output files, cell by cell.

Usage: compare_trace_analyzer.py BENCH_CSV_DIR TRACEANALYZER_PREFIX
  TRACEANALYZER_PREFIX is the path traceAnalyzer wrote its files under (e.g. out/trace.csv,
  giving out/trace.csv.reuse, .size, .reqRate_w300). Prints one line per table and exits 1
  on any difference. traceAnalyzer counts first requests under reuse bin -1; bench reports
  them as `objects` in summary.csv instead, so that cell is compared against it.
"""
import csv
import sys


def sections(path):
    """traceAnalyzer's files: '# title' lines, then 'key:value' or comma lists."""
    out, current = {}, None
    for line in open(path):
        line = line.strip()
        if line.startswith("#"):
            current = line
            out[current] = []
        elif line and current is not None:
            out[current].append(line)
    return list(out.values())[1:]  # the first '#' line is the trace path


def pairs(lines):
    return {int(k): int(v) for k, v in (l.split(":") for l in lines)}


def table(folder, name):
    with open(f"{folder}/{name}.csv", newline="") as f:
        return list(csv.DictReader(f))


def main():
    folder, prefix = sys.argv[1], sys.argv[2]
    summary = {r["figure"]: r["value"] for r in table(folder, "summary")}
    ok = True

    def check(label, ours, theirs):
        nonlocal ok
        same = ours == theirs
        ok &= same
        print(f"{label}: {'equal' if same else 'DIFFERENT'} ({len(theirs)} cells)")
        if not same:
            keys = sorted(set(ours) | set(theirs))
            for k in keys:
                if ours.get(k) != theirs.get(k):
                    print(f"  {k}: bench {ours.get(k)} traceAnalyzer {theirs.get(k)}")

    rtime, vtime = [pairs(s) for s in sections(prefix + ".reuse")]
    objects = int(summary["objects"])
    ours_rt = {int(r["bin"]): int(r["requests"]) for r in table(folder, "reuse_time")}
    ours_vt = {int(r["bin"]): int(r["requests"]) for r in table(folder, "reuse_requests")}
    ours_rt[-1] = objects
    ours_vt[-1] = objects
    check("reuse time (5 s bins)", ours_rt, rtime)
    check("reuse time (requests, log 1.5 bins)", ours_vt, vtime)

    size_req, size_obj = [pairs(s) for s in sections(prefix + ".size")]
    sizes = table(folder, "size")
    check("size: requests", {int(r["size_bytes"]): int(r["requests"]) for r in sizes}, size_req)
    check("size: objects", {int(r["size_bytes"]): int(r["objects"]) for r in sizes if int(r["objects"]) > 0}, size_obj)

    window = int(summary["window_seconds"])
    rate = [r for r in table(folder, "rate") if r["complete"] == "1"]
    req_rate, byte_rate, obj_rate, new_rate = [[int(x) for x in s[0].split(",") if x] for s in sections(f"{prefix}.reqRate_w{window}")]
    # traceAnalyzer prints count / window with integer division.
    check("windows: requests/s", dict(enumerate(int(r["requests"]) // window for r in rate)), dict(enumerate(req_rate)))
    check("windows: bytes/s", dict(enumerate(int(r["bytes"]) // window for r in rate)), dict(enumerate(byte_rate)))
    check("windows: objects/s", dict(enumerate(int(r["objects"]) // window for r in rate)), dict(enumerate(obj_rate)))
    check("windows: new objects/s", dict(enumerate(int(r["new_objects"]) // window for r in rate)), dict(enumerate(new_rate)))

    freq = pairs(sections(prefix + ".popularity")[0])
    check("frequency (requests per object: objects)", {int(r["requests_per_object"]): int(r["objects"]) for r in table(folder, "frequency")}, freq)
    sys.exit(0 if ok else 1)


main()
