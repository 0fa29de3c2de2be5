# Issue 20 §1.1, §4.1, §4.4 (the Python scripts behind bench plot and bench report): input
# names that look like options, hostile markup in a results CSV, crafted CSVs that used to
# end in a traceback. Cases print `ok` or `FAIL`.
B() { timeout 120 "$BENCH" "$@"; }
check() { if eval "$2"; then echo "ok $1"; else echo "FAIL $1: ${3:-condition false: $2}"; fi; }
if [ ! -x "$REPO/.venv/bin/python" ]; then
    echo "FAIL report-needs-venv: $REPO/.venv/bin/python missing (run scripts/bootstrap --python)"
    exit 0
fi
# A small sweep: lru, fifo and the offline bound at four capacities.
{ echo time,key,size; for i in $(seq 0 599); do k=$(( (i*i*31 + i*7) % 61 % (5 + i % 29) )); echo "$i,k$k,$(( 100 + (k % 5) * 50 ))"; done; } > t.csv
B sweep --trace t.csv --backend lru,fifo,belady --capacity 600,1200,1800,2400 --no-timing --jobs 1 --csv s.csv >/dev/null 2>&1
check "report-sweep-made" "[ \$(wc -l < s.csv) -eq 13 ]"
# set_cell COLUMN ROW VALUE < CSV: the CSV with one cell replaced (ROW 1 is the first data row; no quoted commas here).
set_cell() { awk -F, -v OFS=, -v column="$1" -v row="$2" -v value="$3" \
    'NR == 1 { for (i = 1; i <= NF; i++) if ($i == column) c = i } NR == row + 1 { $c = value } { print }'; }
one_line() {  # one_line NAME ERRFILE STATUS PATTERN: exit 2, exactly one line matching PATTERN, no traceback
    check "$1" "[ $3 -eq 2 ] && [ \$(wc -l < $2) -eq 1 ] && grep -qE '$4' $2 && ! grep -q Traceback $2" "status $3: $(head -c 300 "$2")"
}

# 1.1: an input named --out=pwned.html (a link to a file) is read as an input, not an option.
echo precious > victim.txt
ln -s victim.txt -- --out=pwned.html
B report --out r.html -- --out=pwned.html s.csv >/dev/null 2>err.txt; status=$?
one_line "1.1 report-input-named-like-out" err.txt $status '^bench: error: --out=pwned.html:1: not a workbench results CSV'
check "1.1 report-link-target-untouched" "[ \"\$(cat victim.txt)\" = precious ] && [ ! -e r.html ]"
rm -f -- --out=pwned.html && cp s.csv victim.csv && ln -s victim.csv -- --out=pwned.html
B report --out r.html -- --out=pwned.html s.csv >/dev/null 2>err.txt; status=$?
check "1.1 report-input-named-like-out-is-read" "[ $status -eq 0 ] && cmp -s s.csv victim.csv && grep -q 'from --out=pwned.html, s.csv.' r.html" "$(cat err.txt)"
# 1.1: plot with an input named --out=elsewhere, elsewhere a link to a folder.
mkdir victim && ln -s victim elsewhere && cp s.csv -- --out=elsewhere
B plot --out charts -- --out=elsewhere s.csv >/dev/null 2>err.txt; status=$?
check "1.1 plot-input-named-like-out" "[ $status -eq 0 ] && [ -z \"\$(ls -A victim)\" ] && [ -s charts/mrc.png ]" "status $status: $(cat err.txt)"
# 1.1: the scripts themselves refuse an output outside the staging folder they are given.
mkdir staging other
CWB_STAGING="$WORK/staging" timeout 120 "$REPO/.venv/bin/python" "$REPO/scripts/report.py" --out="$WORK/evil.html" -- "$WORK/s.csv" 2>err.txt; status=$?
check "1.1 report-py-refuses-outside-staging" "[ $status -eq 2 ] && [ ! -e evil.html ] && grep -q 'refused: the output must be inside the staging folder' err.txt" "$(cat err.txt)"
CWB_STAGING="$WORK/staging" timeout 120 "$REPO/.venv/bin/python" "$REPO/scripts/plot.py" --out="$WORK/other" -- "$WORK/s.csv" >/dev/null 2>err.txt; status=$?
check "1.1 plot-py-refuses-outside-staging" "[ $status -eq 2 ] && [ -z \"\$(ls -A other)\" ]" "$(cat err.txt)"
env -u CWB_STAGING timeout 120 "$REPO/.venv/bin/python" "$REPO/scripts/report.py" --out="$WORK/staging/r.html" -- "$WORK/s.csv" 2>err.txt; status=$?
check "1.1 report-py-refuses-without-staging" "[ $status -eq 2 ] && [ ! -e staging/r.html ]" "$(cat err.txt)"
ln -s "$WORK/victim.txt" staging/r.html
CWB_STAGING="$WORK/staging" timeout 120 "$REPO/.venv/bin/python" "$REPO/scripts/report.py" --out="$WORK/staging/r.html" -- "$WORK/s.csv" 2>err.txt; status=$?
check "1.1 report-py-never-writes-through-a-link" "[ $status -eq 2 ] && [ \"\$(cat victim.txt)\" = precious ]" "$(cat err.txt)"

# 4.1: markup in the cost model (the reading), the trace, a backend variant and the file name is escaped.
set_cell cost_model 1 '<script>alert(1)</script>' < s.csv | set_cell trace 2 '"""><img src=x onerror=alert(1)>"' \
    | set_cell variant 3 "'><svg onload=alert(1)>" > '"><img src=x onerror=alert(2)>.csv'
B report '"><img src=x onerror=alert(2)>.csv' --out hostile.html >/dev/null 2>err.txt; status=$?
check "4.1 report-hostile-fields" "[ $status -eq 0 ] && ! grep -qiE '<script|<img src=x|<svg' hostile.html && grep -q '&lt;script&gt;alert(1)&lt;/script&gt;' hostile.html" "status $status: $(cat err.txt)"
check "4.1 report-hostile-file-name" "grep -q 'from &quot;&gt;&lt;img src=x onerror=alert(2)&gt;.csv.' hostile.html"

# 4.4: crafted CSVs are one line FILE:LINE: not a workbench results CSV (reason), exit 2.
: > empty.csv
head -1 s.csv > header.csv
sed '1s/,capacity_bytes,/,capacity,/' s.csv > missing.csv
set_cell object_hit_ratio 2 nan < s.csv > nan.csv
set_cell byte_hit_ratio 1 inf < s.csv > inf.csv
set_cell object_hit_ratio 3 high < s.csv > text.csv
awk 'NR == 4 { $0 = $0 ",extra" } { print }' s.csv > wide.csv
{ head -2 s.csv; printf '\377\376\000\211PNG\n'; } > binary.csv
set_cell capacity_bytes 5 999999999999999999999999999999 < s.csv > huge.csv
set_cell requests 1 1e400 < s.csv > beyond.csv
for case in empty:1 header:1 missing:1 nan:3 inf:2 text:4 wide:4 binary:3 huge:6 beyond:2; do
    name=${case%%:*} line=${case#*:}
    B report $name.csv --out $name.html >/dev/null 2>err.txt; status=$?
    one_line "4.4 report-$name-csv" err.txt $status "^bench: error: $name.csv:$line: not a workbench results CSV \\(.+\\)\$"
    B plot $name.csv --out charts-$name >/dev/null 2>err.txt; status=$?
    one_line "4.4 plot-$name-csv" err.txt $status "^bench: error: $name.csv:$line: not a workbench (results )?CSV \\(.+\\)\$"
done
