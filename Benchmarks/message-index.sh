#!/usr/bin/env bash
# The message index behind a watermark (issue #30, goals 1–3), side by side in
# one run: first syncs into a new SQLite store by commitsctl built from
# BEFORE_REV (default e62b9ea: the message index filled batch by batch) and by
# this tree (the index catching up in chunks of 50,000 after the rows), from one
# github-sim, alternating, RUNS runs each; commits/s, peak RSS, the store's
# size, and a `--grep` on each store. Writes a Markdown section to stdout.
#
#   Benchmarks/message-index.sh              # RUNS=3
#   RUNS=1 Benchmarks/message-index.sh
set -euo pipefail

cd "$(dirname "$0")/.."
source Benchmarks/lib.sh
RUNS=${RUNS:-3}
SCRATCH=${SCRATCH:-.build-bench-static}
BEFORE_REV=${BEFORE_REV:-e62b9ea}
DATASET=${DATASET:-../shared/datasets/swift-evolution.commits.jsonl.gz}
WORK=Benchmarks/work/message-index
TOKEN=benchmark-token

build_products github-sim commitsctl
AFTER=$BIN/commitsctl
rev=$(git rev-parse --short "$BEFORE_REV")
src=.build-bench-baseline/$rev
BEFORE=$src/.build/release/commitsctl
if [ ! -x "$BEFORE" ]; then
    log "building commitsctl $rev into $src"
    rm -rf "$src"; mkdir -p "$src"
    git archive "$rev" | tar -x -C "$src"
    (cd "$src" && swift build -c release --static-swift-stdlib --product commitsctl >&2)
fi
need_commands sqlite3
[ -x /usr/bin/time ] || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq time > /dev/null
rm -rf "$WORK"; mkdir -p "$WORK"

SIM_PID=
trap stop_sim EXIT
SIM_ARGS=(--synthetic "bench/s100000=100000:1" --synthetic "bench/r100000=100000:5:realistic")
HISTORIES=("bench/s100000 rest" "bench/s100000 git" "bench/r100000 rest")
if [ -f "$DATASET" ]; then
    SIM_ARGS+=(--dataset "swiftlang/swift-evolution=$DATASET")
    HISTORIES+=("swiftlang/swift-evolution rest")
fi
start_sim "${SIM_ARGS[@]}"
log "github-sim at $SIM; before: $BEFORE ($rev); after: $AFTER"

# sync_once BINARY REPOSITORY PATH DB : one first sync; prints "commits/s rss_mb".
sync_once() {
    local ctl=$1 repo=$2 path=$3 db=$4 flags=() s e
    rm -rf "$db" "$db-wal" "$db-shm" "$db.locks"
    [ "$path" = rest ] && flags=(--no-git-bootstrap)
    s=$(date +%s%N)
    GITHUB_TOKEN=$TOKEN /usr/bin/time -v -o "$WORK/time.txt" "$ctl" sync "$repo" --db "$db" --api-url "$SIM" "${flags[@]}" \
        > "$WORK/sync.out" 2> "$WORK/sync.err" || { cat "$WORK/sync.err" >&2; exit 1; }
    e=$(date +%s%N)
    local commits
    commits=$(sqlite3 "$db" "SELECT count(*) FROM commits")
    echo "$(calc "round($commits / (($e - $s) / 1e9))") $(awk -F': ' '/Maximum resident/ { printf "%.1f", $2 / 1024 }' "$WORK/time.txt")"
}

echo "### The message index behind a watermark (Benchmarks/message-index.sh)"
echo
echo "First syncs into a new SQLite store, whole process, from one github-sim; *before* is"
echo "commitsctl built from $rev (each batch's messages indexed in its transaction), *after* this"
echo "tree (the index catching up in chunks of 50,000 commits; a sync returns with it whole)."
echo "Alternating runs, median of $RUNS each. Load average at start: $(cut -d' ' -f1-3 /proc/loadavg)."
echo
echo "| history | path | before commits/s | after commits/s | after / before | peak RSS before (MB) | after (MB) | store MB before | after |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|"
for entry in "${HISTORIES[@]}"; do
    read -r repo path <<< "$entry"
    b=(); a=(); brss=(); arss=()
    for ((i = 1; i <= RUNS; i++)); do
        read -r rate rss < <(sync_once "$BEFORE" "$repo" "$path" "$WORK/before.sqlite"); b+=("$rate"); brss+=("$rss")
        read -r rate rss < <(sync_once "$AFTER" "$repo" "$path" "$WORK/after.sqlite"); a+=("$rate"); arss+=("$rss")
        log "$repo $path run $i: before ${b[-1]}/s, after ${a[-1]}/s"
    done
    bsize=$(calc "round($(stat -c %s "$WORK/before.sqlite") / 1048576, 1)")
    asize=$(calc "round($(stat -c %s "$WORK/after.sqlite") / 1048576, 1)")
    bm=$(median "${b[@]}"); am=$(median "${a[@]}")
    echo "| $repo | $path | $(printf %.0f "$bm") | $(printf %.0f "$am") | **$(calc "round($am / $bm, 2)")×** | $(median "${brss[@]}") | $(median "${arss[@]}") | $bsize | $asize |"
    # The after store answers as the before store does.
    for needle in fix parser "review manager"; do
        [ "$("$BEFORE" query --grep "$needle" --db "$WORK/before.sqlite" | wc -l)" = "$("$AFTER" query --grep "$needle" --db "$WORK/after.sqlite" | wc -l)" ] \
            || { echo "--grep $needle differs on $repo" >&2; exit 1; }
    done
done
echo
echo "Load average at end: $(cut -d' ' -f1-3 /proc/loadavg)."
