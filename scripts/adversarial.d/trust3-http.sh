#!/usr/bin/env bash
# Issue 41, items 1.1, 2.1, 2.2 and two messages of 6: the request's own Cache-Control,
# repeated header lines (linear, capped), http-check's input, `_run` and `--har-view repeat`.
# Each case builds a small HAR in $WORK, runs $BENCH under `timeout`, and checks the
# results CSV, the output or the error.
set -u
B() { timeout "${LIMIT:-60}" "$BENCH" "$@"; }
check() { if eval "$2"; then echo "ok $1"; else echo "FAIL $1: ${3:-condition false: $2}"; fi; }

# make OUT KIND [ARG]: a HAR for one case (python3 writes it; no shared state between cases).
#   directive D  three GETs of one URL 10 s apart, each request sending Cache-Control: D,
#                the response max-age=3600 with an ETag ("disable-cache" adds Pragma: no-cache)
#   lines N      one entry whose response repeats Cache-Control: max-age=60 N times
#   run R        a WebPageTest first + repeat view export whose pages say _run: R as written
make() {
    python3 - "$@" <<'PY'
import json, sys, time
out, kind, arg = sys.argv[1], sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else ""
t0 = 1767225600
def entry(at, request=(), response=(("Cache-Control", "max-age=3600"), ("ETag", '"v1"')), page=None):
    t = t0 + at
    e = {"startedDateTime": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t)),
         "request": {"method": "GET", "url": "https://x.test/a.jpg", "headers": [{"name": n, "value": v} for n, v in request]},
         "response": {"status": 200, "headers": [{"name": "Date", "value": time.strftime("%a, %d %b %Y %H:%M:%S GMT", time.gmtime(t))}]
                      + [{"name": n, "value": v} for n, v in response], "content": {"size": 1000, "mimeType": "image/jpeg"}}}
    if page: e["pageref"] = page
    return e
doc = {"log": {"entries": []}}
if kind == "directive":
    request = [("Cache-Control", "no-cache"), ("Pragma", "no-cache")] if arg == "disable-cache" else [("Cache-Control", arg)]
    doc["log"]["entries"] = [entry(10 * i, request) for i in range(3)]
elif kind == "lines":
    doc["log"]["entries"] = [entry(0, response=[("Cache-Control", "max-age=60")] * int(arg))]
elif kind == "run":
    doc["log"]["pages"] = [{"id": "p1", "startedDateTime": "2026-01-01T00:00:00Z", "_run": 1, "_cached": 0},
                           {"id": "p2", "startedDateTime": "2026-01-01T00:01:00Z", "_run": 1, "_cached": 1}]
    doc["log"]["entries"] = [entry(1, page="p1")]
text = json.dumps(doc)
if kind == "run":
    text = text.replace('"_run": 1', '"_run": ' + arg)
open(out, "w").write(text)
PY
}
# field CSV COLUMN: the first data row's cell.
field() { python3 -c 'import csv, sys; print(next(csv.DictReader(open(sys.argv[1]))).get(sys.argv[2], "?"))' "$1" "$2" 2>/dev/null; }

# 1.1: the request's own Cache-Control under rfc9111 and apple.
make nostore.har directive no-store
make nocache.har directive no-cache
make disabled.har directive disable-cache
make onlyif.har directive only-if-cached
for profile in rfc9111 apple; do
    B run --trace nostore.har --mode http --http-profile "$profile" --backend lru --capacity 1MiB --no-timing --csv "ns-$profile.csv" >/dev/null 2>&1
    check "1.1 request-no-store-$profile" "[ \"\$(field ns-$profile.csv fresh_hits)\" = 0 ] && [ \"\$(field ns-$profile.csv hits)\" = 0 ] && [ \"\$(field ns-$profile.csv not_stored_reasons)\" = request-no-store=3 ]" \
        "fresh_hits $(field "ns-$profile.csv" fresh_hits), hits $(field "ns-$profile.csv" hits), not stored $(field "ns-$profile.csv" not_stored_reasons)"
    B run --trace nocache.har --mode http --http-profile "$profile" --backend lru --capacity 1MiB --no-timing --csv "nc-$profile.csv" >/dev/null 2>&1
    check "1.1 request-no-cache-revalidates-$profile" "[ \"\$(field nc-$profile.csv fresh_hits)\" = 0 ] && [ \"\$(field nc-$profile.csv not_modified)\" = 2 ]" \
        "fresh_hits $(field "nc-$profile.csv" fresh_hits), not_modified $(field "nc-$profile.csv" not_modified)"
done
B run --trace disabled.har --mode http --backend lru --capacity 1MiB --no-timing --csv dc.csv > dc.txt 2>&1
check "1.1 disable-cache-har-no-fresh-hits" "[ \"\$(field dc.csv fresh_hits)\" = 0 ] && grep -q '3 requests carried their own Cache-Control directives' dc.txt" "fresh_hits $(field dc.csv fresh_hits)"
B run --trace onlyif.har --mode http --backend lru --capacity 1MiB --no-timing --csv oic.csv > oic.txt 2>&1
check "1.1 only-if-cached-is-504" "[ \"\$(field oic.csv offline_failures)\" = 3 ] && [ \"\$(field oic.csv origin_requests)\" = 0 ] && grep -q '3 only-if-cached requests found nothing usable' oic.txt" \
    "offline_failures $(field oic.csv offline_failures), origin_requests $(field oic.csv origin_requests)"
B stats disabled.har > st.txt 2>&1
check "1.1 stats-says-most-requests-send-directives" "grep -q 'request directives  most requests send their own Cache-Control (3 of 3, 100.00%): no-cache 3; Pragma: no-cache 3' st.txt" "$(grep -m1 'request dir' st.txt)"

# 2.2: repeated header lines are linear and capped (the timings at 10k/100k are in the report).
# 60,000 lines: about 5 s in a debug build; quadratic joining took about 29 s (debug) there.
make lines60k.har lines 60000
start=$(date +%s%N)
LIMIT=30 B run --trace lines60k.har --mode http --backend lru --capacity 1MiB --no-timing >/dev/null 2>&1; status=$?
ms=$(( ($(date +%s%N) - start) / 1000000 ))
check "2.2 60k-cache-control-lines-fast" "[ $status -eq 0 ] && [ $ms -lt 15000 ]" "exit $status after $ms ms (quadratic joining took 11.2 s at 50k lines in a release build)"
make lines-over.har lines 100000
B run --trace lines-over.har --mode http --backend lru --capacity 1MiB >/dev/null 2>err.txt; status=$?
check "2.2 header-lines-cap-names-entry" "[ $status -eq 2 ] && [ \$(wc -l < err.txt) -eq 1 ] && grep -q 'lines-over.har: entry 1: 100001 header lines (request and response), more than the 100000 an entry may have' err.txt" "exit $status: $(head -c 200 err.txt)"
B stats lines-over.har >/dev/null 2>err.txt; status=$?
check "2.2 header-lines-cap-stats" "[ $status -eq 2 ] && grep -q 'entry 1: 100001 header lines' err.txt" "exit $status: $(head -c 200 err.txt)"

# 2.1: http-check opens its input as every command does.
LIMIT=10 B http-check /dev/zero >/dev/null 2>err.txt; status=$?
check "2.1 http-check-dev-zero" "[ $status -eq 2 ] && grep -q '/dev/zero: is not a regular file' err.txt" "exit $status: $(head -c 200 err.txt)"
mkfifo views.har
LIMIT=10 B http-check views.har >/dev/null 2>err.txt; status=$?
check "2.1 http-check-fifo" "[ $status -eq 2 ] && grep -q 'views.har: is not a regular file' err.txt" "exit $status: $(head -c 200 err.txt)"

# 6: _run values that are no run number; --har-view repeat without a repeat view.
for run in -1 9223372036854775808; do
    make "run$run.har" run "$run"
    B http-check "run$run.har" >out.txt 2>err.txt; status=$?
    check "6 http-check-run-$run" "[ $status -eq 2 ] && grep -q \"page 1 (id 'p1'): _run '$run' is not a run number\" err.txt && ! grep -q 'run 0' out.txt" "exit $status: $(head -c 200 err.txt) $(grep -m1 'run' out.txt)"
done
for capacity in 1MiB 10%; do
    B run --trace nocache.har --har-view repeat --backend lru --capacity "$capacity" >out.txt 2>err.txt; status=$?
    check "6 har-view-repeat-without-repeat-view ($capacity)" "[ $status -eq 2 ] && grep -q 'this HAR has no repeat view' err.txt && ! grep -q 'size above 0' err.txt" "exit $status: $(head -c 200 err.txt)"
done
