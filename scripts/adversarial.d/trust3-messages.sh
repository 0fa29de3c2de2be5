# Issue 41 §1.2, §4.2, §6 (messages): foundation-urlcache on a full disk, bidi controls in
# bench report's page, the admission option as written, pixel-pricing options under
# --cost encoded, docs that point at no ../shared. Cases print `ok` or `FAIL`.
B() { timeout 120 "$BENCH" "$@"; }
check() { if eval "$2"; then echo "ok $1"; else echo "FAIL $1: ${3:-condition false: $2}"; fi; }
one_line() {  # one_line NAME ERRFILE STATUS PREFIX: exit 2, exactly one line, starting with PREFIX (fixed text)
    expected=$4
    check "$1" "[ $3 -eq 2 ] && [ \$(wc -l < $2) -eq 1 ] && [ \"\$(head -c \${#expected} $2)\" = \"\$expected\" ]" "status $3: $(head -c 300 "$2")"
}
printf 'time,key,size\n0,a,10\n1,b,10\n2,a,10\n' > small.csv

# 1.2: foundation-urlcache on a full disk (a 512 KiB tmpfs; root only) fails its row, like files and sqlite.
{ echo time,key,size; for r in 0 1; do for k in $(seq 0 99); do echo "$((r * 100 + k)),https://img.example/$k.jpg,20000"; done; done; } > urls.csv
mkdir -p disk
if timeout 10 mount -t tmpfs -o size=512k tmpfs disk 2>/dev/null; then
    B run --trace urls.csv --backend foundation-urlcache --capacity 8MiB --no-timing --cache-dir disk/c --csv full.csv >out.txt 2>err.txt; status=$?
    check "1.2 urlcache-full-disk-fails-row" "[ $status -eq 1 ] && grep -q ',failed,' full.csv && grep -q 'URLCache kept no file for' full.csv && grep -q 'free on its file system' full.csv" \
        "status $status: $(grep -o 'ok,,\|failed,[^,]*' full.csv | head -c 300)"
    timeout 10 umount -l disk
    B run --trace urls.csv --backend foundation-urlcache --capacity 8MiB --no-timing --csv roomy.csv >/dev/null 2>err.txt; status=$?
    check "1.2 urlcache-with-room-ok" "[ $status -eq 0 ] && grep -q ',ok,' roomy.csv" "status $status: $(head -c 300 err.txt)"
else
    echo "ok 1.2 urlcache-full-disk-fails-row: skipped (no tmpfs mount here: needs root)"
fi

# 4.2: U+202E (and the other bidi controls) in trace and backend cells reach bench report's page escaped.
if [ -x "$REPO/.venv/bin/python" ]; then
    rlo=$(printf '\u202e')
    cp small.csv "evil${rlo}lmth.csv"
    B run --trace "evil${rlo}lmth.csv" --backend lru,fifo --capacity 20,30 --no-timing --csv r.csv >/dev/null 2>&1
    sed -i "s/,fifo,/,fi$(printf '\u202a\u2066\u200f\u061c')fo,/" r.csv
    B report r.csv --out r.html >/dev/null 2>err.txt; status=$?
    # Raw controls counted by Python (grep -P depends on the locale).
    raw=$("$REPO/.venv/bin/python" -c 'import re, sys; print(len(re.findall("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]", open(sys.argv[1], encoding="utf-8").read())))' r.html 2>&1)
    check "4.2 report-bidi-escaped" "[ $status -eq 0 ] && [ \"$raw\" = 0 ] && grep -qF 'evil\u{202e}lmth.csv' r.html" "status $status: $raw raw bidi controls in the page; $(head -c 200 err.txt)"
else
    echo "FAIL 4.2 report-bidi-escaped: $REPO/.venv/bin/python missing (run scripts/bootstrap --python)"
fi

# 6: the admission option as written, not a --admission flag.
B run --trace small.csv --backend 'lru[admission=prob:0]' --capacity 20 >/dev/null 2>err.txt; status=$?
one_line "6 admission-named-as-written" err.txt $status "bench: error: backend 'lru[admission=prob:0]': P must be"
check "6 admission-no-flag-named" "! grep -q -- '--admission' err.txt" "$(cat err.txt)"
B run --trace small.csv --backend 'lirs[admission=tinylfu]' --capacity 20 >/dev/null 2>err.txt; status=$?
one_line "6 admission-tinylfu-named-as-written" err.txt $status "bench: error: backend 'lirs[admission=tinylfu]': TinyLFU compares"

# 6: pixel-pricing options under --cost encoded are refused, naming both.
for option in "--decoded-ratio 4" "--infer-dimensions off" "--url-units points --device iphone-13"; do
    name=${option%% *}
    B run --trace small.csv --backend lru --capacity 20 --cost encoded $option >out.txt 2>err.txt; status=$?
    one_line "6 encoded-cost-refuses-${name#--}" err.txt $status "bench: error: $name prices objects by pixels, which --cost encoded does not do"
done
B sweep --trace small.csv --backend lru --capacity 10..20 --points 2 --no-timing --cost encoded --decoded-ratio 4 >out.txt 2>err.txt; status=$?
one_line "6 encoded-cost-refuses-in-sweep" err.txt $status "bench: error: --decoded-ratio prices objects by pixels"
B run --trace small.csv --backend lru --capacity 20 --cost encoded >/dev/null 2>err.txt; status=$?
check "6 encoded-cost-alone-runs" "[ $status -eq 0 ]" "$(cat err.txt)"

# 6: no doc page points at ../shared.
found=$(cd "$REPO" && grep -rln '\.\./shared' --include='*.md' docs README.md Traces Sources scripts Benchmarks Examples notebooks 2>/dev/null)
check "6 docs-name-no-shared-folder" "[ -z \"$found\" ]" "pages: $(echo $found)"
