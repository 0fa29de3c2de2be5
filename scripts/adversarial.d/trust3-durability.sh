#!/usr/bin/env bash
# One writer per results file, resumed rows checked, SIGINT/SIGTERM, cache folders
# (issue 41, items 3.1, 3.2, 5.2, 5.3 and 6's refused-link message).
# Run by scripts/adversarial in an empty $WORK with $BENCH and $REPO.
set -uo pipefail
cd "$WORK"

ok() { echo "ok $1"; }
fail() { echo "FAIL $1: $2"; }
# One line `bench: error: …`, exit 2.
refused() { [ "$1" -eq 2 ] && [ "$(wc -l < "$2")" -eq 1 ] && grep -q '^bench: error: ' "$2"; }
listing() { (cd "$1" && ls -A | tr '\n' ' '); }

timeout 60 "$BENCH" gen --requests 6000 --images 800 --seed 5 --keys id --plain --out t.csv 2>/dev/null
timeout 60 "$BENCH" gen --requests 60000 --images 8000 --seed 7 --keys id --plain --out long.csv 2>/dev/null

# `bench ARGS…` in the background with SIGINT and SIGTERM at their defaults and unblocked
# (a script's background job starts with SIGINT ignored, and a runner may block SIGTERM),
# stdout to /dev/null, stderr to bg.err; sets `pid` (bench's own: exec keeps it).
spawn() {
    TMPDIR=${SPAWN_TMPDIR:-${TMPDIR:-/tmp}} python3 -c 'import os, signal, sys
signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})
signal.signal(signal.SIGINT, signal.SIG_DFL)
signal.signal(signal.SIGTERM, signal.SIG_DFL)
os.execv(sys.argv[1], sys.argv[1:])' "$BENCH" "$@" > /dev/null 2> bg.err &
    pid=$!
}

# Waits (up to 60 s) until `test` succeeds while $pid runs; 0 when it did.
until_while_running() {
    local tries=0
    while [ "$tries" -lt 6000 ]; do
        if eval "$1"; then return 0; fi
        kill -0 "$pid" 2>/dev/null || return 1
        sleep 0.01
        tries=$((tries + 1))
    done
    return 1
}

# Waits (up to 60 s) for $pid to end, killing it after; sets `status`.
finish() {
    local tries=0
    while kill -0 "$pid" 2>/dev/null && [ "$tries" -lt 6000 ]; do sleep 0.01; tries=$((tries + 1)); done
    kill -KILL "$pid" 2>/dev/null
    wait "$pid"; status=$?
}

# 3.1: a second run on a --csv another run is writing is refused at once, naming the holder;
# the first run's rows all survive.
case_run_lock() {
    local name="3.1 second-run-same-csv-refused"
    rm -f same.csv
    spawn run --trace long.csv --backend arc,sieve,lru --capacity 1%,5%,10% --no-timing --csv same.csv
    if ! until_while_running '[ -e same.csv.lock ]'; then finish; fail "$name" "the first run was not caught holding same.csv.lock"; return; fi
    timeout 10 "$BENCH" run --trace t.csv --backend lru --capacity 10% --no-timing --csv same.csv > /dev/null 2> second.err; local second=$?
    finish
    local rows
    rows=$(($(wc -l < same.csv) - 1))
    if ! refused "$second" second.err || ! grep -q "same.csv: another bench process (pid $pid) is writing this file" second.err; then
        fail "$name" "second run: exit $second, $(head -c 300 second.err)"
    elif [ "$status" -ne 0 ] || [ "$rows" -ne 9 ] || [ -e same.csv.lock ]; then
        fail "$name" "first run: exit $status, $rows rows (9 expected), lock left: $(listing .)"
    else
        ok "$name"
    fi
    local name2="3.1 gen-same-out-refused"
    spawn gen --requests 30000000 --out g1.csv
    if ! until_while_running '[ -e g1.csv.lock ]'; then finish; fail "$name2" "gen was not caught holding g1.csv.lock"; return; fi
    timeout 10 "$BENCH" gen --requests 10 --out g1.csv > /dev/null 2> gen.err; local gen=$?
    kill -KILL "$pid"; wait "$pid" 2>/dev/null
    rm -f g1.csv.lock .g1.csv.partial-*
    if refused "$gen" gen.err && grep -q "g1.csv: another bench process (pid $pid)" gen.err; then ok "$name2"; else fail "$name2" "exit $gen: $(head -c 300 gen.err)"; fi
}

# 3.2: a journal row whose trace cell was edited to a formula is refused, naming the line;
# a formula in another text cell is neutralized in the final CSV.
case_resumed_rows() {
    local sweep=(sweep --trace t.csv --backend lru,arc --capacity 5%,20% --no-timing --jobs 1)
    rm -f j.csv j.csv.partial
    # A finished sweep's journal, made by stopping it right after its first point.
    spawn "${sweep[@]}" --no-fan-out --csv j.csv
    until_while_running '[ -e j.csv.partial ] && [ "$(wc -l < j.csv.partial)" -ge 3 ]'; kill -KILL "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
    rm -f j.csv.lock
    local name="3.2 resumed-trace-formula-refused"
    if [ ! -e j.csv.partial ] || [ "$(wc -l < j.csv.partial)" -lt 3 ]; then fail "$name" "no journal with a finished point"; return; fi
    cp j.csv.partial j.keep
    # Column 2 is `trace`: replaced in line 3's row.
    awk -F'\t' 'NR == 3 { n = split($2, f, ","); f[2] = "=HYPERLINK(\"\"x\"\")"; row = f[1]; for (i = 2; i <= n; i++) row = row "," f[i]; print $1 "\t" row; next } { print }' j.keep > j.csv.partial
    timeout 60 "$BENCH" "${sweep[@]}" --no-fan-out --csv j.csv --resume > /dev/null 2> j.err; local status=$?
    if refused "$status" j.err && grep -q "j.csv.partial:3: the row journaled as point 0 has trace " j.err && [ ! -e j.csv ]; then ok "$name"; else fail "$name" "exit $status: $(head -c 300 j.err)"; fi
    local name2="3.2 resumed-formula-neutralized"
    # backend_remarks (column 155 or wherever it is): found by name in the header.
    awk -F'\t' -v col="$(head -2 j.keep | tail -1 | tr ',' '\n' | grep -n '^backend_remarks$' | cut -d: -f1)" \
        'NR == 3 { n = split($2, f, ","); f[col] = "=cmd|'"'"' /C calc'"'"'!A0"; row = f[1]; for (i = 2; i <= n; i++) row = row "," f[i]; print $1 "\t" row; next } { print }' j.keep > j.csv.partial
    timeout 60 "$BENCH" "${sweep[@]}" --no-fan-out --csv j.csv --resume > /dev/null 2> j2.err; status=$?
    if [ "$status" -eq 0 ] && grep -q ",'=cmd|' /C calc'!A0," j.csv && ! grep -q ",=cmd" j.csv; then ok "$name2"; else fail "$name2" "exit $status: $(head -c 300 j2.err); $(grep -o '.=cmd[^,]*' j.csv 2>/dev/null | head -1)"; fi
}

# 5.2: SIGINT/SIGTERM mid-work: exit 130/143, one line saying what was kept, nothing
# unfinished left in the output folder or TMPDIR.
case_signals() {
    local signal code
    for signal in INT TERM; do
        [ "$signal" = INT ] && code=130 || code=143
        local tmp="$WORK/tmp-$signal"
        mkdir -p "$tmp" out-$signal
        local name="5.2 run-files-sqlite-sig$signal"
        SPAWN_TMPDIR=$tmp spawn run --trace long.csv --backend lru,files,sqlite --capacity 20% --csv out-$signal/r.csv
        if until_while_running "ls -A '$tmp' | grep -q '^cwb-'"; then
            local before
            before=$(listing "$tmp")
            kill -"$signal" "$pid"; finish
            if [ "$status" -eq "$code" ] && [ -z "$(listing "$tmp")" ] && [ "$(listing out-$signal)" = "r.csv " ] \
                && grep -q "^bench: stopped by SIG$signal at a safe point: kept 'out-$signal/r.csv' (1 finished row)" bg.err; then
                ok "$name"
            else
                fail "$name" "exit $status; TMPDIR before: $before; after: $(listing "$tmp"); out: $(listing out-$signal); $(tail -c 300 bg.err)"
            fi
        else
            finish; fail "$name" "the run was not caught with a cache folder in TMPDIR"
        fi
        local name2="5.2 gen-sig$signal"
        SPAWN_TMPDIR=$tmp spawn gen --requests 50000000 --out out-$signal/g.csv
        if until_while_running "ls -A out-$signal | grep -q '^.g.csv.partial-'"; then
            kill -"$signal" "$pid"; finish
            if [ "$status" -eq "$code" ] && [ "$(listing out-$signal)" = "r.csv " ] && grep -q "^bench: stopped by SIG$signal at a safe point: nothing finished to keep" bg.err; then
                ok "$name2"
            else
                fail "$name2" "exit $status; out: $(listing out-$signal); $(tail -c 300 bg.err)"
            fi
        else
            finish; fail "$name2" "gen was not caught writing its partial file"
        fi
        local name3="5.2 sweep-sig$signal"
        SPAWN_TMPDIR=$tmp spawn sweep --trace long.csv --backend arc,sieve --capacity 1%..50% --points 8 --jobs 1 --no-timing --no-fan-out --csv out-$signal/s.csv
        if until_while_running "[ -e out-$signal/s.csv.partial ] && [ \$(wc -l < out-$signal/s.csv.partial) -ge 3 ]"; then
            kill -"$signal" "$pid"; finish
            if [ "$status" -eq "$code" ] && [ "$(listing out-$signal)" = "r.csv s.csv.partial " ] && [ -z "$(listing "$tmp")" ] \
                && grep -q "^bench: stopped by SIG$signal at a safe point: kept 'out-$signal/s.csv.partial' (the sweep's journal, [0-9]* finished point" bg.err; then
                ok "$name3"
            else
                fail "$name3" "exit $status; out: $(listing out-$signal); $(tail -c 300 bg.err)"
            fi
        else
            finish; fail "$name3" "the sweep was not caught journaling"
        fi
        local name4="5.2 report-sig$signal"
        if [ -x "$REPO/.venv/bin/python" ]; then
            SPAWN_TMPDIR=$tmp spawn report out-$signal/r.csv --out out-$signal/r.html
            if until_while_running "ls -A '$tmp' | grep -q '^.cwb-staging-'"; then
                local staging
                staging=$(ls -A "$tmp" | grep '^.cwb-staging-' | head -1)
                kill -"$signal" "$pid"; finish
                sleep 0.2
                if [ "$status" -eq "$code" ] && [ -z "$(listing "$tmp")" ] && [ ! -e out-$signal/r.html ] && ! pgrep -f "$staging" > /dev/null; then
                    ok "$name4"
                else
                    fail "$name4" "exit $status; TMPDIR after: $(listing "$tmp"); python left: $(pgrep -f "$staging" | tr '\n' ' '); $(tail -c 300 bg.err)"
                fi
            else
                finish; fail "$name4" "report was not caught with its staging folder"
            fi
        else
            ok "$name4 (skipped: no .venv)"
        fi
    done
}

# 5.3: the root, system folders (through '..') and the home folder itself are refused as
# --cache-dir before anything is made; a run says which folders it created.
case_cache_dir() {
    local label dir reason
    while IFS='|' read -r label dir reason; do
        local name="5.3 cache-dir-$label"
        mkdir -p home
        # lru stores no bytes: a binary that does not refuse the folder makes nothing in it
        # (with `files`, one running as root made /files and /etc/files).
        HOME=$WORK/home timeout 30 "$BENCH" run --trace t.csv --backend lru --capacity 1MB --no-timing --cache-dir "$dir" > /dev/null 2> cd.err; local status=$?
        if refused "$status" cd.err && grep -q -- "$reason" cd.err; then ok "$name"; else fail "$name" "exit $status: $(head -c 300 cd.err)"; fi
    done <<EOF
root|/|names the file-system root
etc-through-dotdot|/tmp/../etc|the system folder /etc
under-usr|/usr/local/c|is inside /usr, a system folder
home-itself|$WORK/home|names your home folder itself
EOF
    local name="5.3 created-folders-said"
    timeout 60 "$BENCH" run --trace t.csv --backend files --capacity 1MB --no-timing --cache-dir made/c > cd.out 2> cd.err; local status=$?
    if [ "$status" -eq 0 ] && grep -q "created 'made', 'made/c', 'made/c/files' under --cache-dir; kept" cd.out; then ok "$name"; else fail "$name" "exit $status: $(grep -i created cd.out | head -c 300)"; fi
}

# 6: a refused DIR/files link is the only message (no "cold start", no "trace: 0 requests").
case_one_message() {
    local name="6 refused-link-one-message"
    mkdir -p lc elsewhere
    ln -sfn "$WORK/elsewhere" lc/files
    timeout 60 "$BENCH" run --trace t.csv --backend files --capacity 1MB --no-timing --cache-dir lc > lc.out 2> lc.err; local status=$?
    if grep -q "lc/files" lc.out lc.err && grep -q "symbolic link" lc.out lc.err && ! grep -q -e "cold start" -e "trace: 0 requests" lc.out lc.err && [ -z "$(listing elsewhere)" ]; then
        ok "$name"
    else
        fail "$name" "exit $status: $(grep -h -e 'cold start' -e 'trace: 0' lc.out lc.err | head -c 300)"
    fi
}

case_run_lock
case_resumed_rows
case_signals
case_cache_dir
case_one_message
