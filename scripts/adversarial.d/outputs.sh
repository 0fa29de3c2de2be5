# Issue 20 §4.2–4.4 (the lead's part): CSV formula neutralization, pure CSV/JSON on
# standard output, messages that point the right way. Cases print `ok` or `FAIL`.
B() { timeout 120 "$BENCH" "$@"; }
check() { if eval "$2"; then echo "ok $1"; else echo "FAIL $1: ${3:-condition false: $2}"; fi; }
printf 'time,key,size\n0,A,4\n1,B,4\n2,A,4\n3,C,4\n' > hand.csv
cp hand.csv "=cmd|' -C calc'!A0.csv"

# 4.2: a trace named like a formula is neutralized in every results CSV.
B run --trace "=cmd|' -C calc'!A0.csv" --backend lru --capacity 1KiB --csv run.csv >/dev/null 2>&1
check "4.2 run-csv-formula" "grep -q \",'=cmd\" run.csv || grep -q \"^'=cmd\" run.csv" "$(sed -n 2p run.csv | cut -c1-120)"
check "4.2 no-raw-formula-cell" "[ -s run.csv ] && ! grep -qE '(^|,)=cmd' run.csv"
B sweep --trace "=cmd|' -C calc'!A0.csv" --backend lru --capacity 4,8 --csv sweep.csv >/dev/null 2>&1
check "4.2 sweep-csv-formula" "grep -q \"'=cmd\" sweep.csv && ! grep -qE '(^|,)=cmd' sweep.csv"
B mrc --trace "=cmd|' -C calc'!A0.csv" --points 2 --csv mrc.csv >/dev/null 2>&1
check "4.2 mrc-csv-formula" "grep -q \"^'=cmd\" mrc.csv && ! grep -qE '(^|,)=cmd' mrc.csv"

# 4.3: --csv - and --json - leave standard output pure.
B run --trace hand.csv --backend lru,fifo --capacity 8 --csv - > out.csv 2> err.txt
check "4.3 run-csv-stdout-pure" "[ \$(wc -l < out.csv) -eq 3 ] && ! grep -q 'hit ratio' out.csv && grep -q 'hit ratio' err.txt"
B sweep --trace hand.csv --backend lru --capacity 4,8 --csv - > sweep-out.csv 2>/dev/null
check "4.3 sweep-csv-stdout-pure" "[ \$(wc -l < sweep-out.csv) -eq 3 ] && ! grep -q 'hit ratio' sweep-out.csv"
B run --trace hand.csv --backend lru --capacity 8 --json - > out.json 2>/dev/null
check "4.3 run-json-stdout-pure" "python3 -c 'import json,sys; json.load(open(\"out.json\"))'"

# 4.4: capacities, binary input.
B run --trace hand.csv --backend lru --capacity 1024PiB >/dev/null 2>err.txt; status=$?
check "4.4 capacity-1024PiB-accepted" "[ $status -eq 0 ] && ! grep -q error err.txt" "$(cat err.txt)"
B run --trace hand.csv --backend lru --capacity 2048PiB >/dev/null 2>err.txt; status=$?
check "4.4 capacity-2048PiB-names-limit" "[ $status -eq 2 ] && grep -q 'above the largest capacity accepted, 1EiB' err.txt" "$(cat err.txt)"
B run --trace hand.csv --backend lru --capacity 99999999999999999999999 >/dev/null 2>err.txt; status=$?
check "4.4 capacity-huge-integer-names-limit" "[ $status -eq 2 ] && grep -q 'above the largest capacity' err.txt && ! grep -q fraction err.txt" "$(cat err.txt)"
B convert hand.csv t.bin >/dev/null 2>&1
B sweep --trace t.bin --backend lru --capacity 4,8 --csv bin.csv >/dev/null 2>err.txt; status=$?
check "4.4 convert-bin-reads-back" "[ $status -eq 0 ] && [ \$(wc -l < bin.csv) -eq 3 ]" "$(cat err.txt)"
cp t.bin t.data
B run --trace t.data --backend lru --capacity 8 >/dev/null 2>err.txt; status=$?
check "4.4 binary-as-text-one-short-line" "[ $status -eq 2 ] && [ \$(wc -l < err.txt) -eq 1 ] && [ \$(wc -c < err.txt) -lt 300 ] && grep -q 'binary data' err.txt" "$(head -c 300 err.txt)"

# Review findings: FIFO inputs to plot/report, terminal escapes in names, Content-Length lists.
mkfifo fifo.csv
B report fifo.csv --out r.html >/dev/null 2>err.txt; status=$?
check "review report-fifo-input" "[ $status -eq 2 ] && grep -q 'not a regular file' err.txt" "exit $status: $(head -c 200 err.txt)"
B plot fifo.csv --out charts >/dev/null 2>err.txt; status=$?
check "review plot-fifo-input" "[ $status -eq 2 ] && grep -q 'not a regular file' err.txt" "exit $status: $(head -c 200 err.txt)"
escaped="$(printf 'x\033]0;PWNED\007.csv')"
cp hand.csv "$escaped"
B run --trace "$escaped" --backend lru --capacity 8 --no-timing > table.txt 2>/dev/null
check "review table-escapes-name" "[ -s table.txt ] && ! grep -q \"\$(printf '\\033')\" table.txt && grep -q 'x\\\\x1b' table.txt"
B stats "$escaped" > stats.txt 2>/dev/null
check "review stats-escapes-name" "[ -s stats.txt ] && ! grep -q \"\$(printf '\\033')\" stats.txt"
printf '{"log":{"entries":[{"startedDateTime":"2026-01-01T00:00:00Z","request":{"method":"GET","url":"https://x.test/a","headers":[]},"response":{"status":200,"headers":[{"name":"Content-Length","value":"100, 200"}],"content":{"mimeType":"image/jpeg"}}}]}}' > cl.har
B run --trace cl.har --backend lru --capacity 1MiB >/dev/null 2>err.txt; status=$?
check "review content-length-list" "[ $status -eq 2 ] && grep -q 'is not a length' err.txt" "exit $status: $(head -c 200 err.txt)"

# Review of 20, 3: one document on standard output, whatever its name.
for pair in "--json -" "--timeline -" "--json /dev/stdout" "--timeline /proc/self/fd/1"; do
    # shellcheck disable=SC2086
    B run --trace hand.csv --backend lru --capacity 8 --csv - $pair > two.out 2> two.err; status=$?
    check "review.3 one-stdout-document ($pair)" "[ $status -eq 2 ] && [ ! -s two.out ] && [ \$(wc -l < two.err) -eq 1 ] && grep -q 'name standard output' two.err" "$(cat two.err)"
done

# Review of 20, 9: a report's clash names its inputs, not a trace.
B run --trace hand.csv --backend lru --capacity 8 --no-timing --csv rr.csv --timeline tl.csv > /dev/null 2>&1
cp rr.csv rr.before
B report rr.csv --out rr.csv > /dev/null 2> report.err; status=$?
check "review.9 report-out-is-input" "[ $status -eq 2 ] && grep -q \"one of the report's inputs\" report.err && ! grep -q 'the trace' report.err && cmp -s rr.csv rr.before" "$(cat report.err)"
B report rr.csv --timeline tl.csv --out tl.csv > /dev/null 2> report.err; status=$?
check "review.9 report-out-is-timeline" "[ $status -eq 2 ] && grep -q \"one of the report's inputs\" report.err && ! grep -q 'the trace' report.err" "$(cat report.err)"

# Review of 20, 11: a range keeps every point asked for and says when some repeat.
printf 'time,key,size\n0,A,1\n1,B,1\n2,A,1\n3,C,1\n' > three.csv
B sweep --trace hand.csv --backend lru --capacity 1..20 --points 12 --ignore-obj-size --no-timing --csv range1.csv > /dev/null 2> range1.err; status=$?
check "review.11 size-range-keeps-points" "[ $status -eq 0 ] && [ \$(wc -l < range1.csv) -eq 13 ] && grep -q 'lru: 12 points asked, 10 distinct capacities' range1.err" "$(cat range1.err)"
B sweep --trace three.csv --backend lru --capacity 10%..20% --points 12 --no-timing --csv range2.csv > /dev/null 2> range2.err; status=$?
check "review.11 share-range-says-repeats" "[ $status -eq 0 ] && [ \$(wc -l < range2.csv) -eq 13 ] && grep -q 'lru: 12 points asked, 1 distinct capacity' range2.err" "$(cat range2.err)"
