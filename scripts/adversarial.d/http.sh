#!/usr/bin/env bash
# Issue 20, items 3.1–3.5: the HTTP model and the tiers. Each case builds a small HAR or CSV
# trace in $WORK, runs $BENCH under `timeout`, and checks the results CSV (or the error).
set -u

t0=1767225600
# field FILE COLUMN [ROW]: a results CSV's cell (first data row by default).
field() {
    python3 - "$1" "$2" "${3:-0}" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print(rows[int(sys.argv[3])].get(sys.argv[2], "?"))
PY
}

# har FILE ENTRY...: a HAR document; each ENTRY is `SECONDS|METHOD|STATUS|SIZE|RESPONSE-HEADERS|REQUEST-HEADERS`,
# headers as `Name: value` joined by `;;` (a name may repeat), SIZE empty for none.
har() {
    local out=$1
    shift
    python3 - "$out" "$t0" "$@" <<'PY'
import json, sys, time
out, t0, specs = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
def headers(text):
    return [{"name": h.split(":", 1)[0].strip(), "value": h.split(":", 1)[1].strip()} for h in text.split(";;") if h]
entries = []
for spec in specs:
    at, method, status, size, response, request = spec.split("|")
    t = t0 + int(at)
    content = {"mimeType": "image/jpeg"}
    if size:
        content["size"] = int(size)
    date = time.strftime("%a, %d %b %Y %H:%M:%S GMT", time.gmtime(t))
    entries.append({
        "startedDateTime": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t)),
        "request": {"method": method, "url": "https://x.test/x", "headers": headers(request)},
        "response": {"status": int(status), "headers": [{"name": "Date", "value": date}] + headers(response), "content": content},
    })
json.dump({"log": {"entries": entries}}, open(out, "w"))
PY
}

# run NAME ARGS...: bench with a deadline; the CSV is $WORK/NAME.csv.
run() {
    local name=$1
    shift
    timeout 120 "$BENCH" run --no-timing --csv "$WORK/$name.csv" "$@" > "$WORK/$name.out" 2> "$WORK/$name.err"
}

# 3.1: Cache-Control on two lines, no-store then max-age=3600: nothing may be stored.
har split.har "0|GET|200|1000|Cache-Control: no-store;;Cache-Control: max-age=3600|" \
    "1|GET|200|1000|Cache-Control: no-store;;Cache-Control: max-age=3600|" "2|GET|200|1000|Cache-Control: no-store;;Cache-Control: max-age=3600|"
if run split --trace split.har --mode http --backend lru --capacity 1MB; then
    hits=$(field split.csv hits) reasons=$(field split.csv not_stored_reasons)
    if [ "$hits" = 0 ] && [ "$reasons" = "no-store=3" ]; then echo "ok 3.1 split-cache-control"; else echo "FAIL 3.1 split-cache-control: hits $hits, not stored '$reasons' (want 0, no-store=3)"; fi
else
    echo "FAIL 3.1 split-cache-control: bench failed: $(head -c 300 split.err)"
fi

# 3.1: Vary split over two lines selects both request headers.
har vary.har "0|GET|200|1000|Cache-Control: max-age=3600;;Vary: Accept-Encoding;;Vary: Accept-Language|Accept-Encoding: gzip;;Accept-Language: en" \
    "1|GET|200|1000|Cache-Control: max-age=3600;;Vary: Accept-Encoding;;Vary: Accept-Language|Accept-Encoding: br;;Accept-Language: en"
if run vary --trace vary.har --mode http --backend lru --capacity 1MB; then
    hits=$(field vary.csv hits) mismatches=$(field vary.csv vary_mismatches)
    if [ "$hits" = 0 ] && [ "$mismatches" = 1 ]; then echo "ok 3.1 split-vary"; else echo "FAIL 3.1 split-vary: hits $hits, vary mismatches $mismatches (want 0, 1)"; fi
else
    echo "FAIL 3.1 split-vary: bench failed: $(head -c 300 vary.err)"
fi

# 3.1: two different Content-Lengths make the message invalid: one error line, exit 2.
har lengths.har "0|GET|200||Content-Length: 100;;Content-Length: 200|"
run lengths --trace lengths.har --mode http --backend lru --capacity 1MB
status=$?
lines=$(wc -l < lengths.err)
if [ "$status" = 2 ] && [ "$lines" = 1 ] && grep -q "^bench: error: .*lengths.har.*entry 1: Content-Length is given twice" lengths.err; then
    echo "ok 3.1 differing-content-length"
else
    echo "FAIL 3.1 differing-content-length: exit $status, $lines lines: $(head -c 300 lengths.err)"
fi

# 3.1: two different Expires: stale (RFC 9111 §4.2.1), said under the table.
later=$(date -u -d "@$((t0 + 3600))" "+%a, %d %b %Y %H:%M:%S GMT") latest=$(date -u -d "@$((t0 + 7200))" "+%a, %d %b %Y %H:%M:%S GMT")
har expires.har "0|GET|200|1000|Expires: $later;;Expires: $latest|" "1|GET|200|1000|Expires: $later;;Expires: $latest|"
if run expires --trace expires.har --mode http --backend lru --capacity 1MB; then
    fresh=$(field expires.csv fresh_hits)
    if [ "$fresh" = 0 ] && grep -q "repeated Date, Age, ETag, Last-Modified or Expires" expires.out; then echo "ok 3.1 conflicting-expires"; else echo "FAIL 3.1 conflicting-expires: fresh hits $fresh (want 0) or no note"; fi
else
    echo "FAIL 3.1 conflicting-expires: bench failed: $(head -c 300 expires.err)"
fi

# 3.2: a no-store after 8 KB of extensions.
long=$(python3 -c 'print(", ".join("x-ext-%d=1" % i for i in range(800)))')
har long.har "0|GET|200|1000|Cache-Control: max-age=3600, $long, no-store|" "1|GET|200|1000|Cache-Control: max-age=3600, $long, no-store|"
if run long --trace long.har --mode http --backend lru --capacity 1MB; then
    hits=$(field long.csv hits) reasons=$(field long.csv not_stored_reasons)
    if [ "$hits" = 0 ] && [ "$reasons" = "no-store=2" ]; then echo "ok 3.2 no-store-after-8KB"; else echo "FAIL 3.2 no-store-after-8KB: hits $hits, not stored '$reasons'"; fi
else
    echo "FAIL 3.2 no-store-after-8KB: bench failed: $(head -c 300 long.err)"
fi

# 3.3: HEAD /x (Content-Length 50000, max-age=3600), then GET /x: a miss under every profile.
har head.har "0|HEAD|200||Cache-Control: max-age=3600;;Content-Length: 50000|" "1|GET|200|50000|Cache-Control: max-age=3600;;Content-Length: 50000|"
for profile in rfc9111 apple corelibs; do
    if run "head-$profile" --trace head.har --mode http --http-profile "$profile" --backend lru --capacity 2MB; then
        hits=$(field "head-$profile.csv" hits) bytes=$(field "head-$profile.csv" byte_hit_ratio)
        if [ "$hits" = 0 ] && python3 -c "import sys; sys.exit(0 if float('$bytes' or 1) == 0 else 1)"; then echo "ok 3.3 head-then-get-$profile"; else echo "FAIL 3.3 head-then-get-$profile: hits $hits, byte hit ratio $bytes"; fi
    else
        echo "FAIL 3.3 head-then-get-$profile: bench failed: $(head -c 300 "head-$profile.err")"
    fi
done

# 3.4: a 206 for bytes 0-999, then a full GET: never served from the partial response.
har partial.har "0|GET|206|1000|Cache-Control: max-age=3600;;Content-Range: bytes 0-999/50000|Range: bytes=0-999" \
    "1|GET|200|50000|Cache-Control: max-age=3600|"
for profile in rfc9111 apple; do
    if run "partial-$profile" --trace partial.har --mode http --http-profile "$profile" --backend lru --capacity 2MB; then
        hits=$(field "partial-$profile.csv" hits) reasons=$(field "partial-$profile.csv" not_stored_reasons)
        if [ "$hits" = 0 ] && [ "$reasons" = "partial=1" ]; then echo "ok 3.4 206-then-get-$profile"; else echo "FAIL 3.4 206-then-get-$profile: hits $hits, not stored '$reasons'"; fi
    else
        echo "FAIL 3.4 206-then-get-$profile: bench failed: $(head -c 300 "partial-$profile.err")"
    fi
done
# corelibs stores a 206 (its status list) and serves it: the table must say so.
if run partial-corelibs --trace partial.har --mode http --http-profile corelibs --backend lru --capacity 2MB; then
    if grep -q "hits served a stored 206's partial body" partial-corelibs.out; then echo "ok 3.4 206-then-get-corelibs-said"; else echo "FAIL 3.4 206-then-get-corelibs-said: no note under the table"; fi
else
    echo "FAIL 3.4 206-then-get-corelibs-said: bench failed: $(head -c 300 partial-corelibs.err)"
fi

# 3.5: 2,000-byte objects in tier:lru+files[disk-capacity=100MiB] at --capacity 1KiB: on disk, not too_large.
{ echo "time,key,size"; for i in $(seq 0 19); do echo "$i,k$((i % 10)),2000"; done; } > tier-trace.csv
if run tier --trace tier-trace.csv --backend "tier:lru+files[disk-capacity=100MiB]" --capacity 1KiB; then
    large=$(field tier.csv too_large) hits=$(field tier.csv hits) refused=$(field tier.csv memory_refused)
    if [ "$large" = 0 ] && [ "$hits" = 10 ] && [ "$refused" = 20 ]; then echo "ok 3.5 tier-too-large-for-memory"; else echo "FAIL 3.5 tier-too-large-for-memory: too_large $large, hits $hits, memory_refused $refused (want 0, 10, 20)"; fi
else
    echo "FAIL 3.5 tier-too-large-for-memory: bench failed: $(head -c 300 tier.err)"
fi
# …and too large for both tiers is too_large.
if run tier-both --trace tier-trace.csv --backend "tier:lru+files[disk-capacity=1000]" --capacity 1KiB; then
    large=$(field tier-both.csv too_large) hits=$(field tier-both.csv hits)
    if [ "$large" = 20 ] && [ "$hits" = 0 ]; then echo "ok 3.5 tier-too-large-for-both"; else echo "FAIL 3.5 tier-too-large-for-both: too_large $large, hits $hits (want 20, 0)"; fi
else
    echo "FAIL 3.5 tier-too-large-for-both: bench failed: $(head -c 300 tier-both.err)"
fi
# sdwebimage (unlimited disk) at 8 MiB on a generated feed: no request is too large.
if timeout 60 "$BENCH" gen --requests 2000 --seed 1 --out feed.csv > /dev/null 2>&1 \
    && run sdweb --trace feed.csv --backend sdwebimage --capacity 8MiB; then
    large=$(field sdweb.csv too_large)
    if [ "$large" = 0 ]; then echo "ok 3.5 sdwebimage-8MiB-no-too-large"; else echo "FAIL 3.5 sdwebimage-8MiB-no-too-large: too_large $large"; fi
else
    echo "FAIL 3.5 sdwebimage-8MiB-no-too-large: bench failed: $(head -c 300 sdweb.err)"
fi
