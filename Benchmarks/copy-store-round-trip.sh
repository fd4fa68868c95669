#!/usr/bin/env bash
# Issue #26, acceptance 2: `commitsctl copy-store` round-trips a large mirror
# SQLite -> PostgreSQL -> SQLite. A first sync of SIZE commits (default 100,000)
# from github-sim into a SQLite file is copied into a new PostgreSQL database and
# from there into a new SQLite file; then `check` must exit 0 on all three,
# `query` (several forms), `show` (five commits), `stats` and `authors` must print
# the same bytes from all three, and a sync of each copy must be one request
# answered 304. Any difference stops the script with a non-zero exit, naming it.
# (Tests/CommitsctlTests/CopyStoreTests does the same at 20,000 commits in debug.)
#
#   Benchmarks/copy-store-round-trip.sh             # SIZE=100000
#   SIZE=20000 Benchmarks/copy-store-round-trip.sh
#
# Writes a Markdown section to stdout (what was compared, the copies' times);
# progress goes to stderr.
set -euo pipefail

cd "$(dirname "$0")/.."
source Benchmarks/lib.sh
SIZE=${SIZE:-100000}
SCRATCH=${SCRATCH:-.build-bench-static}
WORK=Benchmarks/work/copy-store-round-trip
TOKEN=benchmark-token
REPO=bench/s$SIZE

build_products github-sim commitsctl
CTL=$BIN/commitsctl
need_commands sqlite3 jq
rm -rf "$WORK"
mkdir -p "$WORK"
trap stop_sim_and_postgresql EXIT
start_postgresql
psql -d postgres -c 'CREATE DATABASE copied' > /dev/null
PGURI="postgresql:///copied?host=$PGDIR&port=$PORT&user=postgres"
ORIGINAL=$WORK/original.sqlite
RETURNED=$WORK/returned.sqlite
STORES=("$ORIGINAL" "$PGURI" "$RETURNED")
start_sim --synthetic "$REPO=$SIZE:5:realistic"

# timed OUT CMD… : runs CMD (stdout to OUT, stderr shown on failure); prints its seconds
timed() {
    local out=$1 s e
    shift
    s=$(date +%s%N)
    "$@" > "$out" 2> "$WORK/err" || { echo "failed: $*" >&2; cat "$WORK/err" >&2; exit 1; }
    e=$(date +%s%N)
    calc "round(($e - $s) / 1e9, 1)"
}

log "first sync of $REPO into $ORIGINAL"
SYNC_S=$(GITHUB_TOKEN=$TOKEN timed "$WORK/sync.out" "$CTL" sync "$REPO" --db "$ORIGINAL" --api-url "$SIM")
grep -q ": $SIZE new[ ,]" "$WORK/sync.out" || { echo "the first sync did not store $SIZE commits: $(cat "$WORK/sync.out")" >&2; exit 1; }
log "copy-store into PostgreSQL"
THERE_S=$(timed "$WORK/there.out" "$CTL" copy-store "$ORIGINAL" "$PGURI")
log "copy-store back into SQLite"
BACK_S=$(timed "$WORK/back.out" "$CTL" copy-store "$PGURI" "$RETURNED")

for store in "${STORES[@]}"; do
    "$CTL" check --db "$store" > "$WORK/check.out" 2>&1 || { echo "check failed on $store:" >&2; cat "$WORK/check.out" >&2; exit 1; }
done

# The same bytes from all three stores, for each reading command.
AUTHOR=$("$CTL" authors --db "$ORIGINAL" --top 1 --format ndjson | jq -r .name)
mapfile -t SHAS < <(sqlite3 "$ORIGINAL" "SELECT sha FROM commits ORDER BY sha LIMIT 5 OFFSET $((SIZE / 2))")
# A stretch of about a hundredth of the history, from its middle: dates as stored (ISO 8601).
SINCE=$(sqlite3 "$ORIGINAL" "SELECT committer_date FROM commits ORDER BY committer_date LIMIT 1 OFFSET $((SIZE / 2))")
UNTIL=$(sqlite3 "$ORIGINAL" "SELECT committer_date FROM commits ORDER BY committer_date LIMIT 1 OFFSET $((SIZE / 2 + SIZE / 100))")
READS=(
    "query -n 1000 --format json"
    "query --author '$AUTHOR' -n 50"
    "query --grep fix -n 40"
    "query --branch main -n 60 --format ndjson"
    "query --since $SINCE --until $UNTIL --format csv"
    "stats"
    "authors"
)
for sha in "${SHAS[@]}"; do READS+=("show $sha"); done
for read in "${READS[@]}"; do
    eval "words=($read)"
    "$CTL" "${words[@]}" --db "$ORIGINAL" > "$WORK/a.out"
    [ -s "$WORK/a.out" ] || { echo "\`$read\` printed nothing on the original: nothing to compare" >&2; exit 1; }
    for store in "$PGURI" "$RETURNED"; do
        "$CTL" "${words[@]}" --db "$store" > "$WORK/b.out"
        cmp -s "$WORK/a.out" "$WORK/b.out" || { echo "\`$read\` differs on $store:" >&2; diff "$WORK/a.out" "$WORK/b.out" | head >&2; exit 1; }
    done
done

# A sync of either copy is one conditional request, answered 304.
for store in "$PGURI" "$RETURNED"; do
    GITHUB_TOKEN=$TOKEN "$CTL" sync "$REPO" --db "$store" --api-url "$SIM" > "$WORK/again.out"
    grep -q '0 new, 0 updated, 1 request (1 not modified)' "$WORK/again.out" \
        || { echo "a sync of the copy in $store was not one 304: $(cat "$WORK/again.out")" >&2; exit 1; }
done

echo "## copy-store round trip (Benchmarks/copy-store-round-trip.sh)"
echo
echo "\`$REPO\` ($(commas "$SIZE") commits, a realistic shape) synced into a SQLite file in $SYNC_S s, copied by"
echo "\`commitsctl copy-store\` into a new database on PostgreSQL $PGVERSION (Unix socket) in **$THERE_S s** ($(sed 's/.*: //' "$WORK/there.out")),"
echo "and from there into a new SQLite file in **$BACK_S s**. \`check\` exits 0 on all three stores; these print the same"
echo "bytes from all three: $(printf '`%s`, ' "${READS[@]:0:${#READS[@]}-${#SHAS[@]}}")and \`show\` of ${#SHAS[@]} commits"
echo "from the middle of the history; a sync of each copy is one request answered 304."
