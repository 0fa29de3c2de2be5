# Issue 41 (trust, third round), the inputs-and-outputs items: 2.3 bounded lines, 1.3
# counted conversion losses, 1.4 time going backwards in analyze, 2.4 FIFOs in output
# folders, 4.1 neutralized analyze CSVs, 5.1 pure machine output, 6 merge --against.
B() { timeout 60 "$BENCH" "$@"; }
check() { if eval "$2"; then echo "ok $1"; else echo "FAIL $1: ${3:-condition false: $2}"; fi; }
printf 'time,key,size\n0,a,1\n1,b,1\n2,a,1\n' > t.csv

# 2.3: a 20 MB line with no line end (gz), NULs after three rows (zst): FILE:LINE at 16 MiB.
(printf 'time,key,size\n0,k,1\n'; head -c 20000000 /dev/zero | tr '\0' a) | gzip -1 > big.csv.gz
timeout 20 "$BENCH" stats big.csv.gz >/dev/null 2>err.txt; status=$?
check "2.3 gz-long-line-names-line" "[ $status -eq 2 ] && [ \$(wc -l < err.txt) -eq 1 ] && grep -q '^bench: error: big.csv.gz:3: line longer than 16777216 bytes' err.txt" "exit $status: $(head -c 200 err.txt)"
(printf 'time,key,size\n0,a,1\n1,b,1\n2,c,1\n'; head -c 20000000 /dev/zero) | zstd -q -1 -o nul.csv.zst
timeout 20 "$BENCH" run --trace nul.csv.zst --backend lru --capacity 10 --no-timing >/dev/null 2>err.txt; status=$?
check "2.3 zst-nuls-after-rows" "[ $status -eq 2 ] && grep -q '^bench: error: nul.csv.zst:5: line longer than 16777216 bytes' err.txt" "exit $status: $(head -c 200 err.txt)"
# The header is 13 bytes, the row 14.
printf 'time,key,size\n0,abcdefghij,1\n' > short.csv
B stats short.csv --max-line-bytes 14 >/dev/null 2>err.txt; status=$?
check "2.3 max-line-bytes-exact" "[ $status -eq 0 ]" "exit $status: $(cat err.txt)"
B stats short.csv --max-line-bytes 13 >/dev/null 2>err.txt; status=$?
check "2.3 max-line-bytes-lowered" "[ $status -eq 2 ] && grep -q 'short.csv:2: line longer than 13 bytes' err.txt" "exit $status: $(cat err.txt)"

# 1.3: every lossy conversion counts what it lost (hand counts: 2 fractional times,
# 2 text keys, 2 rows with dimensions, 2 set/delete ops).
printf 'time,key,size,width,height,op\n0.5,10,100,,,get\n1,img/a,200,640,480,set\n2.25,img/b,300,,,delete\n3,42,400,10,20,get\n' > frac.csv
B convert frac.csv out.oracleGeneral > conv.txt 2>&1
check "1.3 oracle-general-counts" "grep -q '4 requests, 2 times cut to whole seconds, 2 keys' conv.txt && grep -q '2 requests. width×height dropped' conv.txt && grep -q '2 set/delete ops dropped' conv.txt" "$(cat conv.txt)"
B convert frac.csv out.lcs > conv.txt 2>&1
check "1.3 lcs-counts-keeps-op" "grep -q '2 times cut' conv.txt && grep -q '2 keys' conv.txt && ! grep -q 'ops dropped' conv.txt" "$(cat conv.txt)"
B gen --format har --requests 6 --out s.har >/dev/null 2>&1
B convert s.har s.csv > conv.txt 2>&1
check "1.3 har-http-facts-counted" "grep -q \"requests' HTTP facts (status, caching headers, timings) dropped\" conv.txt" "$(cat conv.txt)"

# 1.4: time 500, 1000, 0: a trace covering 1000 s.
printf 'time,key,size\n500,A,1\n1000,B,1\n0,A,1\n' > back.csv
B analyze back.csv --csv back > an.txt 2>&1
check "1.4 span-never-negative" "grep -q 'time span             1000 s' an.txt && grep -q 'goes backwards at 1 of 3 requests' an.txt" "$(head -c 400 an.txt)"
check "1.4 no-negative-reuse-bin" "[ -s back/reuse_time.csv ] && ! grep -q '^-' back/reuse_time.csv && ! grep -q 'shorter than one' an.txt" "$(cat back/reuse_time.csv 2>/dev/null)"

# 2.4: a FIFO planted in analyze's --csv folder is refused at once; plot's too.
for name in summary.csv size.csv; do
    rm -rf fifo && mkdir fifo && mkfifo "fifo/$name"
    timeout 10 "$BENCH" analyze t.csv --csv fifo >/dev/null 2>err.txt; status=$?
    check "2.4 analyze-fifo-$name" "[ $status -eq 2 ] && grep -q 'not a regular file' err.txt && [ \$(ls fifo | wc -l) -eq 1 ]" "exit $status: $(head -c 200 err.txt)"
done
B analyze t.csv --csv an >/dev/null 2>&1
rm -rf charts && mkdir charts && mkfifo charts/analysis_rate.png
timeout 30 "$BENCH" plot an/summary.csv --out charts >/dev/null 2>err.txt; status=$?
check "2.4 plot-fifo-same-rule" "[ $status -eq 2 ] && grep -q 'not a regular file (a FIFO, device or socket)' err.txt" "exit $status: $(head -c 200 err.txt)"

B sweep --trace t.csv --backend lru --capacity 1,2 --no-timing --plan fp.json >/dev/null 2>&1
mkfifo fp.shard-0-of-1.csv
timeout 10 "$BENCH" sweep --plan fp.json --shard 0/1 >/dev/null 2>err.txt; status=$?
check "2.4 shard-results-fifo" "[ $status -eq 2 ] && grep -q 'fp.shard-0-of-1.csv: not a regular file' err.txt" "exit $status: $(head -c 200 err.txt)"

# 4.1: analyze --csv neutralizes the trace name like every results CSV.
cp t.csv "=cmd|' -C calc'!A0.csv"
B analyze "=cmd|' -C calc'!A0.csv" --csv inj >/dev/null 2>&1
check "4.1 analyze-summary-neutralized" "grep -q \"^trace,'=cmd\" inj/summary.csv && ! grep -qE '(^|,)=cmd' inj/summary.csv" "$(head -n 2 inj/summary.csv 2>/dev/null)"

# 5.1: machine output on standard output is that document alone.
B analyze t.csv --json - > an.json 2>/dev/null
check "5.1 analyze-json-stdout-pure" "python3 -c 'import json; json.load(open(\"an.json\"))' 2>/dev/null"
B experiment purge --entries 100 --rounds 1 --csv - > purge.csv 2>/dev/null
check "5.1 experiment-csv-stdout-pure" "[ -s purge.csv ] && python3 -c 'import csv; r=list(csv.reader(open(\"purge.csv\"))); assert r[0][0]==\"backend\" and all(len(x)==len(r[0]) for x in r)' 2>/dev/null" "$(tail -n 3 purge.csv)"

# 6: merge --against BAD writes nothing before its refusal.
B sweep --trace t.csv --backend lru --capacity 1,2 --no-timing --plan p.json >/dev/null 2>&1
B sweep --plan p.json --shard 0/1 >/dev/null 2>&1
B merge --plan p.json p.shard-0-of-1.csv --against missing.csv > merged.out 2>err.txt; status=$?
check "6 merge-against-checked-first" "[ $status -eq 2 ] && [ ! -s merged.out ] && [ \$(wc -l < err.txt) -eq 1 ]" "exit $status, $(wc -c < merged.out) bytes out: $(head -c 200 err.txt)"
