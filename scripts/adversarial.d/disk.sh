# Issue 20 (trust, second round), the disk backends: 1.2 foundation-urlcache's reused folder,
# 1.3 a symlinked --cache-dir or TMPDIR, 1.4 a FIFO named like a cache file, 1.5 sqlite's
# orphaned bodies; and the review of those fixes: R5 a tier's disk refusals, R7 planted
# entries in a warm files folder, R14 hard links. Run by scripts/adversarial in an empty
# $WORK with $BENCH and $REPO.
set -u
cd "$WORK"

ok() { echo "ok $1"; }
fail() { echo "FAIL $1: $2"; }

# A trace of N URL keys of 5000 bytes (above sqlite's 4 KiB inline limit), each twice.
make_trace() {
    local file="$1" count="$2" pass item
    echo "time,key,size" > "$file"
    for pass in 0 1; do
        for ((item = 0; item < count; item++)); do echo "$((pass * count + item)),https://img.test/$item.jpg,5000"; done
    done >> "$file"
}
make_trace t.csv 4

# One column of the first row of a results CSV.
column() { python3 -c 'import csv,sys; print(next(csv.DictReader(open(sys.argv[1])))[sys.argv[2]])' "$1" "$2"; }

# run NAME ARGS...: bench bounded by timeout; output in NAME.out, status in $status (124: it hung).
run() {
    local name="$1"; shift
    timeout 30 "$BENCH" "$@" > "$name.out" 2>&1
    status=$?
}

# 1.2: an entry of a warm foundation-urlcache folder replaced by a symlink to a file outside.
case_urlcache_symlink() {
    local name="1.2 urlcache-symlinked-entry" d="$WORK/u1" entry
    run warm run --trace t.csv --backend foundation-urlcache --cache-dir "$d" --capacity 1MiB
    [ "$status" -eq 0 ] || { fail "$name" "warm run exited $status"; return; }
    entry="$(ls "$d/foundation-urlcache" | grep 'storedcachedurlresponse$' | head -1)"
    echo "secret" > "$WORK/secret.txt"
    rm "$d/foundation-urlcache/$entry" && ln -s "$WORK/secret.txt" "$d/foundation-urlcache/$entry"
    run rerun run --trace t.csv --backend foundation-urlcache --cache-dir "$d" --capacity 1MiB
    if [ "$status" -ne 1 ]; then fail "$name" "exit $status, expected 1 (a failed row)"
    elif ! grep -q "$entry.*a symbolic link, not a regular file" rerun.out; then fail "$name" "the message does not name the link: $(head -c 300 rerun.out)"
    elif [ ! -L "$d/foundation-urlcache/$entry" ] || [ "$(cat "$WORK/secret.txt")" != "secret" ]; then fail "$name" "the link or its target changed"
    else ok "$name"; fi
}

# 1.2: a file of another name in the folder, and a FIFO named like an entry.
case_urlcache_foreign() {
    local name="1.2 urlcache-foreign-and-fifo-entries" d="$WORK/u2" entry
    run warm run --trace t.csv --backend foundation-urlcache --cache-dir "$d" --capacity 1MiB
    echo mine > "$d/foundation-urlcache/notes.txt"
    run rerun run --trace t.csv --backend foundation-urlcache --cache-dir "$d" --capacity 1MiB
    if [ "$status" -ne 1 ] || ! grep -q "notes.txt.*name shape" rerun.out; then fail "$name" "foreign file: exit $status: $(head -c 300 rerun.out)"; return; fi
    rm "$d/foundation-urlcache/notes.txt"
    entry="$(ls "$d/foundation-urlcache" | grep 'storedcachedurlresponse$' | head -1)"
    rm "$d/foundation-urlcache/$entry" && mkfifo "$d/foundation-urlcache/$entry"
    run rerun run --trace t.csv --backend foundation-urlcache --cache-dir "$d" --capacity 1MiB
    if [ "$status" -eq 124 ]; then fail "$name" "hung on the FIFO"
    elif [ "$status" -ne 1 ] || ! grep -q "$entry.*a FIFO" rerun.out; then fail "$name" "FIFO entry: exit $status: $(head -c 300 rerun.out)"
    else ok "$name"; fi
}

# 1.3: --cache-dir a symbolic link (and a folder under one), for every disk backend.
case_symlinked_cache_dir() {
    local name="1.3 symlinked-cache-dir" backend
    mkdir -p "$WORK/target" && ln -s "$WORK/target" "$WORK/link"
    for backend in files sqlite foundation-urlcache tier:lru+files; do
        run linked run --trace t.csv --backend "$backend" --cache-dir "$WORK/link" --capacity 1MiB
        if [ "$status" -ne 2 ] || ! grep -q "^bench: error: --cache-dir '$WORK/link' is a symbolic link" linked.out || [ "$(wc -l < linked.out)" -ne 1 ]; then
            fail "$name" "$backend: exit $status: $(head -c 300 linked.out)"; return
        fi
        run under run --trace t.csv --backend "$backend" --cache-dir "$WORK/link/sub" --capacity 1MiB
        if [ "$status" -ne 2 ] || ! grep -q "has a symbolic link in its path" under.out; then
            fail "$name" "$backend under a link: exit $status: $(head -c 300 under.out)"; return
        fi
    done
    if [ -n "$(ls -A "$WORK/target")" ]; then fail "$name" "files were written into the link's target: $(ls -A "$WORK/target")"
    else ok "$name"; fi
}

# 1.3: TMPDIR a symbolic link: resolved once, the temporary folder's path has no link.
case_symlinked_tmpdir() {
    local name="1.3 symlinked-tmpdir" backend dir
    mkdir -p "$WORK/realtmp" && ln -s "$WORK/realtmp" "$WORK/tmplink"
    for backend in files sqlite; do
        TMPDIR="$WORK/tmplink" run tmp run --trace t.csv --backend "$backend" --capacity 1MiB --keep --csv tmp.csv
        dir="$(column tmp.csv cache_dir 2>/dev/null)"
        if [ "$status" -ne 0 ]; then fail "$name" "$backend: exit $status: $(head -c 300 tmp.out)"; return; fi
        case "$dir" in
            "$WORK/realtmp/cwb-$backend-"*) ;;
            *) fail "$name" "$backend: cache_dir '$dir' is not under the resolved TMPDIR"; return ;;
        esac
    done
    ok "$name"
}

# 1.4: a FIFO at each name a disk backend reads back, in a warm folder: a failed row, no hang.
case_fifos() {
    local file backend d
    for file in files/.manifest sqlite/Cache.db sqlite/Cache.db-wal sqlite/Cache.db-journal sqlite/Cache.db-shm files/.cacheworkbench; do
        backend="${file%%/*}"
        d="$WORK/fifo-${file//\//-}"
        run warm run --trace t.csv --backend "$backend" --cache-dir "$d" --capacity 1MiB
        rm -f "$d/$file" && mkfifo "$d/$file"
        run fifo run --trace t.csv --backend "$backend" --cache-dir "$d" --capacity 1MiB
        if [ "$status" -eq 124 ]; then fail "1.4 fifo $file" "the run hung"
        elif [ "$status" -ne 1 ] || ! grep -q "$d/$file.*not a regular file" fifo.out; then fail "1.4 fifo $file" "exit $status: $(head -c 300 fifo.out)"
        else ok "1.4 fifo $file"; fi
    done
}

# 1.5: planted orphans (UUID names), a foreign name and a UUID-named link to a file outside.
case_sqlite_orphans() {
    local name="1.5 sqlite-planted-orphans" d="$WORK/s1" data i link
    run warm run --trace t.csv --backend sqlite --cache-dir "$d" --capacity 1MiB
    data="$d/sqlite/fsCachedData"
    for i in 1 2 3 4 5; do head -c 5000 /dev/zero > "$data/$(python3 -c 'import uuid; print(str(uuid.uuid4()).upper())')"; done
    echo mine > "$data/notes.txt"
    echo precious > "$WORK/precious.txt"
    link="$(python3 -c 'import uuid; print(str(uuid.uuid4()).upper())')"
    ln -s "$WORK/precious.txt" "$data/$link"
    run rerun run --trace t.csv --backend sqlite --cache-dir "$d" --capacity 1MiB --csv s1.csv
    if [ "$status" -ne 0 ]; then fail "$name" "exit $status: $(head -c 300 rerun.out)"
    elif [ "$(column s1.csv orphans_removed)" != 5 ]; then fail "$name" "orphans_removed is '$(column s1.csv orphans_removed)', expected 5"
    elif ! grep -q "5 body files that no entry named" rerun.out; then fail "$name" "no note under the table"
    elif [ ! -L "$data/$link" ] || [ "$(cat "$WORK/precious.txt")" != precious ] || [ ! -e "$data/notes.txt" ]; then fail "$name" "the link, its target or the foreign file changed"
    elif [ "$(ls "$data" | wc -l)" -ne 6 ]; then fail "$name" "fsCachedData holds $(ls "$data" | wc -l) entries, expected 4 bodies + notes.txt + the link"
    else ok "$name"; fi
}

# 1.5: kill -9 during a long run, then reopen: every file left in fsCachedData is a live body.
case_sqlite_killed() {
    local name="1.5 sqlite-kill-9-then-reopen" d="$WORK/s2" i pid entries files
    echo "time,key,size" > big.csv
    for ((i = 0; i < 20000; i++)); do echo "$i,k$((i % 5000)),6000"; done >> big.csv
    for i in 1 2 3; do
        # batch=50: a kill most likely lands inside a transaction whose bodies are written.
        timeout 30 "$BENCH" run --trace big.csv --backend "sqlite[batch=50]" --cache-dir "$d" --capacity 8MiB --no-timing > /dev/null 2>&1 &
        pid=$!
        sleep 1.5
        kill -9 "$(pgrep -P "$pid" -x bench || echo "$pid")" 2>/dev/null
        wait "$pid" 2>/dev/null
    done
    run reopen run --trace t.csv --backend sqlite --cache-dir "$d" --capacity 8MiB --csv s2.csv
    entries="$(column s2.csv final_entries 2>/dev/null)"
    files="$(ls "$d/sqlite/fsCachedData" | wc -l)"
    if [ "$status" -ne 0 ]; then fail "$name" "exit $status: $(head -c 300 reopen.out)"
    elif [ "$files" != "$entries" ]; then fail "$name" "$files body files for $entries entries after the reopen (orphans_removed $(column s2.csv orphans_removed))"
    else ok "$name ($(column s2.csv orphans_removed) removed)"; fi
}

# R5: flush-to-disk over a disk tier too small for every body: nothing is flushed, 35
# refusals (7 warnings before the end, 5 stores each), said in disk_refused and a note.
case_tier_flush_refused() {
    local name="R5 tier-flush-refused-by-disk" i
    { echo time,key,size; for ((i = 0; i < 40; i++)); do echo "$i,k$((i % 10)),2000"; done; } > r5.csv
    run flush run --trace r5.csv --backend "tier:lru+files[disk-capacity=1000]" --capacity 100KiB --write back \
        --memory-warning every:5 --on-warning flush-to-disk --no-timing --csv r5-out.csv
    if [ "$status" -ne 0 ]; then fail "$name" "exit $status: $(head -c 300 flush.out)"
    elif [ "$(column r5-out.csv flushed_to_disk)/$(column r5-out.csv disk_writes)" != 0/0 ]; then
        fail "$name" "flushed_to_disk $(column r5-out.csv flushed_to_disk), disk_writes $(column r5-out.csv disk_writes), expected 0/0"
    elif [ "$(column r5-out.csv disk_refused)" != 35 ]; then fail "$name" "disk_refused is '$(column r5-out.csv disk_refused)', expected 35"
    elif ! grep -q "35 kept off the disk" flush.out || grep -q "flushed on memory warnings" flush.out; then fail "$name" "the note: $(grep -i 'bodies written' flush.out)"
    else ok "$name"; fi
}

# R5: write-through, a body that fits memory but not the disk tier: disk_refused, not skipped unsaid.
case_tier_through_refused() {
    local name="R5 tier-write-through-refused-by-disk"
    printf 'time,key,size\n0,a,2000\n1,b,400\n2,a,2000\n3,b,400\n' > r5b.csv
    run through run --trace r5b.csv --backend "tier:lru+files[disk-capacity=1000]" --capacity 100KiB --no-timing --csv r5b-out.csv
    if [ "$status" -ne 0 ]; then fail "$name" "exit $status: $(head -c 300 through.out)"
    elif [ "$(column r5b-out.csv disk_refused)/$(column r5b-out.csv disk_writes)/$(column r5b-out.csv hits)" != 1/1/2 ]; then
        fail "$name" "disk_refused/disk_writes/hits $(column r5b-out.csv disk_refused)/$(column r5b-out.csv disk_writes)/$(column r5b-out.csv hits), expected 1/1/2"
    else ok "$name"; fi
}

# R7, R14: a body of a warm files folder replaced by a FIFO, a link or a hard link to a
# file outside, or a folder: a failed row naming it, nothing removed; once it is gone, the
# folder is still warm (7 of 8 hits: the review saw a FIFO dropped unsaid, and a folder
# that took .manifest with it so the next run started cold).
case_files_planted_body() {
    local kind d body before reason
    echo precious > "$WORK/outside.bin"
    for kind in fifo symlink folder hardlink; do
        d="$WORK/planted-$kind"
        run warm run --trace t.csv --backend files --cache-dir "$d" --capacity 1MiB --no-timing
        body="$(ls "$d/files" | grep -E '^[0-9a-f]{64}$' | head -1)"
        rm "$d/files/$body"
        case "$kind" in
            fifo) mkfifo "$d/files/$body"; reason="is a FIFO, not a regular file" ;;
            symlink) ln -s "$WORK/outside.bin" "$d/files/$body"; reason="is a symbolic link, not a regular file" ;;
            folder) mkdir "$d/files/$body"; reason="is a folder, not a regular file" ;;
            hardlink) ln "$WORK/outside.bin" "$d/files/$body"; reason="has 2 hard links" ;;
        esac
        before="$(ls -A "$d/files")"
        run planted run --trace t.csv --backend files --cache-dir "$d" --capacity 1MiB --no-timing
        if [ "$status" -eq 124 ]; then fail "R7 files-planted-$kind" "the run hung"; continue; fi
        if [ "$status" -ne 1 ] || ! grep -q "$d/files/$body.*$reason" planted.out; then fail "R7 files-planted-$kind" "exit $status: $(head -c 300 planted.out)"; continue; fi
        if [ "$(ls -A "$d/files")" != "$before" ]; then fail "R7 files-planted-$kind" "the failed run removed entries"; continue; fi
        rm -rf "$d/files/$body"
        run after run --trace t.csv --backend files --cache-dir "$d" --capacity 1MiB --no-timing --csv "after-$kind.csv"
        if [ "$status" -ne 0 ] || [ "$(column "after-$kind.csv" hits)" != 7 ]; then fail "R7 files-planted-$kind" "after removing it: exit $status, hits '$(column "after-$kind.csv" hits 2>/dev/null)', expected 7 (warm)"
        elif [ "$(cat "$WORK/outside.bin")" != precious ]; then fail "R7 files-planted-$kind" "the file outside changed"
        else ok "R7 files-planted-$kind"; fi
    done
}

# R14: a body in sqlite's fsCachedData/ replaced by a hard link to a file outside: never read.
case_sqlite_hard_link() {
    local name="R14 sqlite-hard-linked-body" d="$WORK/hl" body
    run warm run --trace t.csv --backend sqlite --cache-dir "$d" --capacity 1MiB --no-timing
    body="$(ls "$d/sqlite/fsCachedData" | head -1)"
    head -c 5000 /dev/zero > "$WORK/outside-5000.bin"
    rm "$d/sqlite/fsCachedData/$body" && ln "$WORK/outside-5000.bin" "$d/sqlite/fsCachedData/$body"
    run linked run --trace t.csv --backend sqlite --cache-dir "$d" --capacity 1MiB --no-timing
    if [ "$status" -ne 1 ] || ! grep -q "fsCachedData/$body.*has 2 hard links" linked.out; then fail "$name" "exit $status: $(head -c 300 linked.out)"
    else ok "$name"; fi
}

case_urlcache_symlink
case_urlcache_foreign
case_symlinked_cache_dir
case_symlinked_tmpdir
case_fifos
case_sqlite_orphans
case_sqlite_killed
case_tier_flush_refused
case_tier_through_refused
case_files_planted_body
case_sqlite_hard_link
