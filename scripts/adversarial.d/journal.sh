#!/usr/bin/env bash
# Sweep journals, plans, shards and merge (issue 20, items 2.1–2.6 and 4.4's messages).
# Run by scripts/adversarial in an empty $WORK with $BENCH and $REPO.
set -uo pipefail
cd "$WORK"

ok() { echo "ok $1"; }
fail() { echo "FAIL $1: $2"; }
# One line `bench: error: …`, exit 2.
refused() { [ "$1" -eq 2 ] && [ "$(wc -l < "$2")" -eq 1 ] && grep -q '^bench: error: ' "$2"; }

# A trace long enough that a sweep over it runs for seconds (so it can be caught running).
# The sweeps read it once per point (--no-fan-out): fed from one read, all points finish
# together at the end of the pass, and a journal with N rows is then followed within
# milliseconds by the finished file, too soon to be caught between the two.
timeout 60 "$BENCH" gen --requests 100000 --images 10000 --seed 7 --keys id --plain --out long.csv 2>/dev/null
timeout 60 "$BENCH" gen --requests 6000 --images 800 --seed 5 --out t.csv 2>/dev/null
long_sweep=(sweep --trace long.csv --backend arc,sieve --capacity 1%..50% --points 12 --jobs 1 --no-timing --no-fan-out)

# Kills timeout's process PID and its bench, and waits until it has gone. `wait` cannot: PID was started in a command substitution, so it is not
# this shell's child, and a sweep still exiting would hold its journal's lock.
stop() {
    # SIGKILL, as a crash would: a test runner may start this script with SIGTERM blocked
    # (inherited through exec), and a paused sweep would then run on to its end.
    pkill -KILL -P "$1" 2>/dev/null
    kill -KILL "$1" 2>/dev/null
    local tries=0
    while [ "$tries" -lt 1200 ] && [ -e "/proc/$1" ] && [ "$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)" != "Z" ]; do
        sleep 0.05
        tries=$((tries + 1))
    done
}

# Starts `bench ARGS…` in the background (under timeout, which passes a TERM on to it) and
# waits until FILE has at least N lines, then pauses the sweep (SIGSTOP: a paused sweep
# still holds its journal's lock, and cannot finish while a case acts on it, however fast
# the machine). Sets `started` to timeout's pid (empty when it did not get there within
# 60 s, or had finished by then). Not run in a command substitution: timeout's process
# group must keep a live parent, or the kernel hangs up an orphaned group holding a
# stopped process.
start_until() {
    local file=$1 lines=$2
    shift 2
    started=""
    timeout 300 "$BENCH" "$@" > /dev/null 2> started.err &
    local pid=$! tries=0
    while [ "$tries" -lt 6000 ]; do
        if [ -f "$file" ] && [ "$(wc -l < "$file")" -ge "$lines" ]; then
            pkill -STOP -P "$pid"
            # A sweep that finished before the pause has no journal left: not caught running.
            [ -f "$file" ] && started=$pid
            [ -n "$started" ] || stop "$pid"
            return
        fi
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.01
        tries=$((tries + 1))
    done
    stop "$pid"
}

# Leaves an interrupted sweep's journal (at least N lines) for `bench ARGS… --csv CSV`.
interrupted() {
    local csv=$1 lines=$2
    shift 2
    local pid
    start_until "$csv.partial" "$lines" "$@" --csv "$csv"
    pid=$started
    [ -n "$pid" ] || return 1
    stop "$pid"
    return 0
}

# 2.1: a second sweep (with or without --resume) on a journal being written is refused at
# once, naming the writer; after both are stopped, --resume completes with every point once.
case_lock() {
    local name="2.1 second-sweep-refused"
    local pid
    start_until lock.csv.partial 3 "${long_sweep[@]}" --csv lock.csv
    pid=$started
    [ -n "$pid" ] || { fail "$name" "the first sweep was not caught journaling (not started within 60 s, or already finished)"; return; }
    local first status status2
    first=$(head -1 lock.csv.partial)
    timeout 10 "$BENCH" "${long_sweep[@]}" --csv lock.csv --resume > /dev/null 2> second.err; status=$?
    timeout 10 "$BENCH" "${long_sweep[@]}" --csv lock.csv > /dev/null 2> third.err; status2=$?
    # The pid named is the running sweep's (timeout's child).
    local named
    named=$(sed -n 's/.*another sweep is writing this journal (pid \([0-9]*\)).*/\1/p' second.err)
    local parent
    parent=$(ps -o ppid= -p "${named:-0}" 2>/dev/null | tr -d ' ')
    stop "$pid"
    if ! refused "$status" second.err || ! grep -q "lock.csv.partial: another sweep is writing this journal (pid [0-9]*)" second.err || [ "$parent" != "$pid" ]; then
        fail "$name" "a --resume during the sweep: exit $status, $(head -c 300 second.err)"
    elif ! refused "$status2" third.err || ! grep -q "another sweep is writing this journal" third.err; then
        fail "$name" "a new sweep during the sweep: exit $status2, $(head -c 300 third.err)"
    elif [ "$(head -1 lock.csv.partial)" != "$first" ] || [ "$(awk -F'\t' 'NR > 2 { print $1 }' lock.csv.partial | sort | uniq -d)" != "" ]; then
        fail "$name" "the journal's identity changed or a point is journaled twice"
    else
        ok "$name"
    fi
    local name2="2.1 resume-after-kill"
    timeout 300 "$BENCH" "${long_sweep[@]}" --csv lock.csv --resume > /dev/null 2> resume.err; status=$?
    local points
    points=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "sweep_point") c = i } NR > 1 { print $c }' lock.csv 2>/dev/null | sort -n | uniq | wc -l)
    if [ "$status" -ne 0 ] || [ "$(($(wc -l < lock.csv) - 1))" -ne "$points" ] || [ -e lock.csv.partial ]; then
        fail "$name2" "exit $status, $points distinct points in $(($(wc -l < lock.csv 2>/dev/null || echo 1) - 1)) rows: $(head -c 300 resume.err)"
    else
        ok "$name2"
    fi
}

# 2.2: a journal made without a trace-reading option is not continued with it.
case_reading_options() {
    timeout 60 "$BENCH" gen --format har --requests 20000 --seed 3 --out s.har 2>/dev/null
    local har_sweep=(sweep --trace s.har --backend arc,sieve --capacity 1%..50% --points 12 --jobs 1 --no-timing --no-fan-out)
    local option
    for option in --images-only "--status 2xx" --drop-query --preload; do
        local name="2.2 resume-with-$(echo "${option%% *}" | tr -d -)"
        rm -f h.csv h.csv.partial
        interrupted h.csv 2 "${har_sweep[@]}" || { fail "$name" "could not interrupt the sweep"; continue; }
        # shellcheck disable=SC2086
        timeout 60 "$BENCH" "${har_sweep[@]}" --csv h.csv --resume $option > /dev/null 2> opt.err; local status=$?
        if refused "$status" opt.err && grep -q "h.csv.partial:1: made by a different sweep" opt.err; then ok "$name"; else fail "$name" "exit $status: $(head -c 300 opt.err)"; fi
    done
}

# 2.3: a journaled row filed under another point's index is refused, naming its line.
case_row_checked() {
    local name="2.3 row-under-wrong-index"
    rm -f w.csv w.csv.partial
    interrupted w.csv 3 "${long_sweep[@]}" || { fail "$name" "could not interrupt the sweep"; return; }
    # The first finished row, journaled again under the next index.
    awk -F'\t' 'NR == 3 { print; n = $1 + 1; sub(/^[0-9]+/, n); print; next } NR < 3 { print }' w.csv.partial > w.edited
    cp w.edited w.csv.partial
    timeout 60 "$BENCH" "${long_sweep[@]}" --csv w.csv --resume > /dev/null 2> row.err; local status=$?
    if refused "$status" row.err && grep -q "w.csv.partial:4: the row journaled as point" row.err; then ok "$name"; else fail "$name" "exit $status: $(head -c 300 row.err)"; fi
}

# 2.4: shards of a plan with --warmup 40% are not merged into one without it, and a
# finished shard file of another plan is not "nothing to run".
case_plans() {
    local plan_sweep=(sweep --trace "$WORK/t.csv" --backend lru,arc --capacity 1%..20% --points 4 --no-timing)
    timeout 60 "$BENCH" "${plan_sweep[@]}" --plan a.json 2>/dev/null
    timeout 60 "$BENCH" "${plan_sweep[@]}" --warmup 40% --plan b.json 2>/dev/null
    timeout 60 "$BENCH" sweep --plan a.json --shard 0/1 > /dev/null 2>&1
    timeout 60 "$BENCH" sweep --plan b.json --shard 0/1 > /dev/null 2>&1
    local name="2.4 merge-other-plan" status
    timeout 60 "$BENCH" merge --plan a.json b.shard-0-of-1.csv > /dev/null 2> merge.err; status=$?
    if refused "$status" merge.err && grep -q "b.shard-0-of-1.csv:2: a row of another plan" merge.err; then ok "$name"; else fail "$name" "exit $status: $(head -c 300 merge.err)"; fi
    name="2.4 finished-shard-other-plan"
    timeout 60 "$BENCH" sweep --plan a.json --shard 0/1 --csv b.shard-0-of-1.csv > /dev/null 2> shard.err; status=$?
    if refused "$status" shard.err && grep -q "a row of another plan" shard.err && ! grep -q "nothing to run" shard.err; then ok "$name"; else fail "$name" "exit $status: $(head -c 300 shard.err)"; fi
    name="2.4 merge-plain-sweep"
    timeout 60 "$BENCH" sweep --trace t.csv --backend lru,arc --capacity 1%..20% --points 4 --no-timing --csv plain.csv > /dev/null 2>&1
    timeout 60 "$BENCH" merge --plan a.json plain.csv > /dev/null 2> plain.err; status=$?
    if refused "$status" plain.err && grep -q "plain.csv:2: a row of no plan" plain.err; then ok "$name"; else fail "$name" "exit $status: $(head -c 300 plain.err)"; fi
}

# 2.5: the README's workflow: a policies plan in 8 shards, merged --against the plan run here.
case_readme_workflow() {
    local name="2.5 readme-merge-against" status
    timeout 60 "$BENCH" sweep --trace "$WORK/t.csv" --backend policies --capacity 1%..50% --points 12 --no-timing --plan plan.json 2>/dev/null
    local shard
    for shard in 0 1 2 3 4 5 6 7; do timeout 120 "$BENCH" sweep --plan plan.json --shard "$shard/8" > /dev/null 2>&1; done
    timeout 300 "$BENCH" sweep --plan plan.json --csv local.csv > /dev/null 2>&1
    timeout 60 "$BENCH" merge --plan plan.json plan.shard-*-of-8.csv --csv sweep.csv > /dev/null 2>&1
    timeout 60 "$BENCH" merge --plan plan.json plan.shard-*-of-8.csv --against local.csv > /dev/null 2> against.err; status=$?
    if [ "$status" -eq 0 ] && grep -q "equal" against.err; then ok "$name"; else fail "$name" "exit $status: $(head -c 400 against.err)"; fi
}

# 2.6: a trace path with a line break: its own journal resumes.
case_newline_path() {
    local name="2.6 newline-trace-path" status
    local trace="$WORK/a
b.csv"
    cp long.csv "$trace"
    local nl_sweep=(sweep --trace "$trace" --backend arc,sieve --capacity 1%..50% --points 12 --jobs 1 --no-timing --no-fan-out)
    interrupted n.csv 2 "${nl_sweep[@]}" || { fail "$name" "could not interrupt the sweep"; return; }
    timeout 300 "$BENCH" "${nl_sweep[@]}" --csv n.csv --resume > /dev/null 2> nl.err; status=$?
    if [ "$status" -eq 0 ] && [ -f n.csv ] && [ ! -e n.csv.partial ]; then ok "$name"; else fail "$name" "exit $status: $(head -c 300 nl.err)"; fi
}

# 4.4: the four messages say what is wrong and how to fix it.
case_messages() {
    local status
    local plan_sweep=(sweep --trace "$WORK/t.csv" --backend lru,arc --capacity 1%,5% --no-timing)
    timeout 60 "$BENCH" "${plan_sweep[@]}" --plan m.json 2>/dev/null
    sed "s|\"trace\" : \"$WORK/t.csv\"|\"trace\" : \"/elsewhere/t.csv\"|" m.json > moved.json
    timeout 60 "$BENCH" sweep --plan moved.json --shard 0/1 > /dev/null 2> moved.err; status=$?
    if refused "$status" moved.err && grep -q "trace path" moved.err && grep -q "/elsewhere/t.csv" moved.err; then ok "4.4 plan-trace-path"; else fail "4.4 plan-trace-path" "exit $status: $(head -c 300 moved.err)"; fi
    sed 's/"index" : 1,/"index" : 1e20,/' m.json > big.json
    timeout 60 "$BENCH" sweep --plan big.json --shard 0/1 > /dev/null 2> big.err; status=$?
    if refused "$status" big.err && grep -q "points\[1\].index" big.err && grep -q "out of range" big.err; then ok "4.4 plan-index-1e20"; else fail "4.4 plan-index-1e20" "exit $status: $(head -c 300 big.err)"; fi
    local cut
    for cut in 1 2; do
        rm -f c.csv c.csv.partial
        if ! interrupted c.csv 2 "${long_sweep[@]}"; then fail "4.4 truncated-journal-line-$cut" "could not interrupt the sweep"; continue; fi
        local keep
        keep=$(( $(head -"$((cut - 1))" c.csv.partial | wc -c) + 10 ))
        [ "$cut" -eq 1 ] && keep=10
        head -c "$keep" c.csv.partial > c.cut && cp c.cut c.csv.partial
        timeout 60 "$BENCH" "${long_sweep[@]}" --csv c.csv --resume > /dev/null 2> cut.err; status=$?
        if refused "$status" cut.err && grep -q "c.csv.partial:$cut: truncated" cut.err && grep -q "remove it" cut.err; then
            ok "4.4 truncated-journal-line-$cut"
        else
            fail "4.4 truncated-journal-line-$cut" "exit $status: $(head -c 300 cut.err)"
        fi
    done
    timeout 60 "$BENCH" sweep --plan m.json --shard 0/1 > /dev/null 2>&1
    local before
    before=$(md5sum < m.shard-0-of-1.csv)
    timeout 60 "$BENCH" merge --plan m.json --csv m.shard-0-of-1.csv m.shard-0-of-1.csv > /dev/null 2> same.err; status=$?
    if refused "$status" same.err && grep -q "one of the merge's inputs" same.err && [ "$(md5sum < m.shard-0-of-1.csv)" = "$before" ]; then
        ok "4.4 merge-csv-is-input"
    else
        fail "4.4 merge-csv-is-input" "exit $status: $(head -c 300 same.err)"
    fi
}

case_lock
case_reading_options
case_row_checked
case_plans
case_readme_workflow
case_newline_path
case_messages

# The review of issue 20's fixes. A plan of lru and files points over a small trace, run
# once with a regular file as TMPDIR so the files points fail (its file kept as failed.…).
review_plan() {
    [ -e r.json ] && return
    printf 'time,key,size\n0,A,4\n1,B,4\n2,A,4\n3,C,4\n' > r.csv
    timeout 60 "$BENCH" sweep --trace r.csv --backend lru,files --capacity 4,8 --no-timing --plan r.json 2>/dev/null
    : > not-a-folder
    TMPDIR="$WORK/not-a-folder" timeout 60 "$BENCH" sweep --plan r.json --shard 0/1 > /dev/null 2>&1
    cp r.shard-0-of-1.csv failed.shard-0-of-1.csv
}

# review 2: merge --csv naming the plan's trace is refused, the trace untouched.
case_review_merge_trace() {
    review_plan
    local status before
    before=$(md5sum < r.csv)
    timeout 60 "$BENCH" merge --plan r.json failed.shard-0-of-1.csv --csv r.csv > /dev/null 2> trace.err; status=$?
    if refused "$status" trace.err && grep -q "the same file as the trace" trace.err && [ "$(md5sum < r.csv)" = "$before" ]; then
        ok "review.2 merge-csv-is-plan-trace"
    else
        fail "review.2 merge-csv-is-plan-trace" "exit $status: $(head -c 300 trace.err)"
    fi
}

case_review_merge_trace

# review 4: a failed point is not finished: merge names it and exits 1; the shard runs it
# again (its other rows kept) and is then finished.
case_review_failed_points() {
    review_plan
    local status
    timeout 60 "$BENCH" merge --plan r.json failed.shard-0-of-1.csv --csv rm.csv > /dev/null 2> failed.err; status=$?
    if [ "$status" -eq 1 ] && grep -q "2 of 4 points failed: 2 (files 4B" failed.err; then ok "review.4 merge-names-failed"; else fail "review.4 merge-names-failed" "exit $status: $(head -c 300 failed.err)"; fi
    timeout 60 "$BENCH" sweep --plan r.json --shard 0/1 > /dev/null 2> again.err; status=$?
    if [ "$status" -eq 0 ] && grep -q "holds 2 failed points (2, 3); running them again" again.err && ! grep -q ',failed,' r.shard-0-of-1.csv; then
        ok "review.4 shard-reruns-failed"
    else
        fail "review.4 shard-reruns-failed" "exit $status: $(head -c 300 again.err)"
    fi
}

case_review_failed_points

# review 13: a refused --resume names each differing option with both values.
case_review_resume_names() {
    local status
    rm -f n.csv n.csv.partial
    interrupted n.csv 3 "${long_sweep[@]}" || { fail "review.13 resume-names-option" "could not interrupt the sweep"; return; }
    timeout 60 "$BENCH" "${long_sweep[@]}" --csv n.csv --resume --seed 9 --skip-bad > /dev/null 2> named.err; status=$?
    if refused "$status" named.err && grep -q "n.csv.partial:1: made by a different sweep: --seed is '9' here, '1' in the journal" named.err \
        && grep -q -- "--skip-bad is on here, off in the journal" named.err; then
        ok "review.13 resume-names-option"
    else
        fail "review.13 resume-names-option" "exit $status: $(head -c 300 named.err)"
    fi
}

case_review_resume_names

# review 10: merge checks capacity_bytes against the capacity, and says where a header parts.
case_review_capacity_bytes() {
    review_plan
    local status
    python3 - <<'PY'
import csv
rows = list(csv.reader(open('failed.shard-0-of-1.csv'))); h = rows[0]
rows[1][h.index('capacity_bytes')] = '8'            # point 0 is lru at 4B
csv.writer(open('edited.csv', 'w', newline='')).writerows(rows)
rows = list(csv.reader(open('failed.shard-0-of-1.csv'))); a, b = h.index('hits'), h.index('misses')
rows[0][a], rows[0][b] = rows[0][b], rows[0][a]
csv.writer(open('swapped.csv', 'w', newline='')).writerows(rows)
PY
    timeout 60 "$BENCH" merge --plan r.json edited.csv > /dev/null 2> edited.err; status=$?
    if refused "$status" edited.err && grep -q "edited.csv:2: point 0's capacity_bytes is 8" edited.err; then ok "review.10 merge-capacity-bytes"; else fail "review.10 merge-capacity-bytes" "exit $status: $(head -c 300 edited.err)"; fi
    timeout 60 "$BENCH" merge --plan r.json swapped.csv > /dev/null 2> swapped.err; status=$?
    if refused "$status" swapped.err && grep -q "is 'misses', expected 'hits'" swapped.err; then ok "review.10 merge-swapped-columns"; else fail "review.10 merge-swapped-columns" "exit $status: $(head -c 300 swapped.err)"; fi
}

case_review_capacity_bytes
