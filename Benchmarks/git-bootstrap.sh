#!/usr/bin/env bash
# First syncs over git against REST only (issue #12): the same 100,000-commit
# history synced into new stores by `commitsctl sync` with and without
# `--no-git-bootstrap`, side by side, with github-sim adding 0, 100 and 300 ms
# to every request (`--latency-ms`, a network's round trip); then the
# bootstrap's peak memory at 10,000, 100,000 and 1,000,000 commits.
#
#   Benchmarks/git-bootstrap.sh                 # LATENCIES="0 100 300" SIZES="10000 100000 1000000"
#   LATENCIES="0 100" SIZES="10000 100000" Benchmarks/git-bootstrap.sh
#
# Writes a Markdown section to stdout (Benchmarks/run puts it in BENCHMARKS.md);
# progress goes to stderr.
set -euo pipefail

cd "$(dirname "$0")/.."
source Benchmarks/lib.sh
LATENCIES=${LATENCIES:-"0 100 300"}
SIZES=${SIZES:-"10000 100000 1000000"}
SCRATCH=${SCRATCH:-.build-bench-static}
WORK=Benchmarks/work/git-bootstrap
TOKEN=benchmark-token
REPO=bench/g100000

build_products github-sim commitsctl
CTL=$BIN/commitsctl

rm -rf "$WORK"
mkdir -p "$WORK"

SIM_PID=
trap stop_sim EXIT
stats() { curl -sf "$SIM/_sim/stats"; }

# one_sync REPO DB [FLAGS…] : a first sync; sets WALL, RSS_MB, REQ, POINTS, GIT_REQ, PACK_BYTES, OVER_GIT, NEW
one_sync() {
    local repo=$1 db=$2; shift 2
    rm -rf "$db" "$db-wal" "$db-shm" "$db.locks"
    curl -sf -X POST "$SIM/_sim/reset-stats" > /dev/null
    local s e
    s=$(date +%s%N)
    GITHUB_TOKEN=$TOKEN /usr/bin/time -v -o "$WORK/time.txt" "$CTL" sync "$repo" --db "$db" --api-url "$SIM" "$@" \
        > "$WORK/sync.out" 2> "$WORK/sync.err" || { cat "$WORK/sync.err" >&2; exit 1; }
    e=$(date +%s%N)
    WALL=$(calc "($e - $s) / 1e9")
    RSS_MB=$(awk -F': ' '/Maximum resident/ { printf "%.1f", $2 / 1024 }' "$WORK/time.txt")
    local st
    st=$(stats)
    REQ=$(jq .requests <<< "$st")
    POINTS=$(jq '[.rateLimitUsed[]] | add // 0' <<< "$st")
    GIT_REQ=$(jq '.gitRequests // 0' <<< "$st")
    PACK_BYTES=$(jq '.gitPackBytes // 0' <<< "$st")
    NEW=$(sed -n 's/.*: \([0-9]*\) new.*/\1/p' "$WORK/sync.out")
    OVER_GIT=$(sed -n 's/.* new (\([0-9]*\) over git).*/\1/p' "$WORK/sync.out")
    OVER_GIT=${OVER_GIT:-0}
    log "  $(cat "$WORK/sync.out") | ${RSS_MB} MB"
}

# A digest of every stored fact but the logins (only REST knows them): the
# same digest means the same commits, messages, people, dates and parents.
facts() {
    sqlite3 "$1" "SELECT c.sha, c.message, c.html_url, a.name, a.email, c.author_date, m.name, m.email, c.committer_date, c.tree_sha,
        (SELECT group_concat(parent_sha) FROM (SELECT parent_sha FROM commit_parents p WHERE p.commit_id = c.id ORDER BY position))
        FROM commits c JOIN authors a ON a.id = c.author_id JOIN authors m ON m.id = c.committer_id ORDER BY c.sha" | sha256sum
}

# rest_bytes REPO : the bytes (headers and gzip'd bodies) of the REST pages of a
# first sync: every page of the pinned listing fetched once with curl, as the
# client asks for it (Accept-Encoding: gzip).
rest_bytes() {
    local head first last
    head=$(curl -sf -H "Authorization: Bearer $TOKEN" "$SIM/repos/$1/commits?per_page=1" | jq -r '.[0].sha')
    first="$SIM/repos/$1/commits?sha=$head&per_page=100"
    last=$(curl -sf -D - -o /dev/null -H "Authorization: Bearer $TOKEN" "$first" | sed -n 's/.*page=\([0-9]*\)>; rel="last".*/\1/p')
    local urls=()
    for ((page = 1; page <= last; page++)); do urls+=(-o /dev/null "$first&page=$page"); done
    curl -s --compressed -H "Authorization: Bearer $TOKEN" -w '%{size_header} %{size_download}\n' "${urls[@]}" \
        | awk '{ total += $1 + $2 } END { print total }'
}

ROWS=
REST_MB=
for latency in $LATENCIES; do
    log "first sync of $REPO at ${latency} ms a request"
    start_sim --latency-ms "$latency" --synthetic "$REPO=100000:5:realistic"
    [ -n "$REST_MB" ] || REST_MB=$(python3 -c "print(f'{$(rest_bytes "$REPO") / 1e6:.1f}')")
    one_sync "$REPO" "$WORK/rest.sqlite" --no-git-bootstrap
    rest_wall=$WALL rest_req=$REQ rest_points=$POINTS rest_rss=$RSS_MB
    one_sync "$REPO" "$WORK/git.sqlite"
    same=$([ "$(facts "$WORK/rest.sqlite")" = "$(facts "$WORK/git.sqlite")" ] && echo yes || echo **no**)
    [ "$latency" = 100 ] && TARGET_100="$(calc "round($rest_wall / $WALL, 1)") $POINTS $same"
    ROWS+="| $latency | $(printf %.1f "$rest_wall") | $rest_req | $rest_points | $REST_MB | $rest_rss | $(printf %.1f "$WALL") | $REQ | $POINTS | $GIT_REQ | $(python3 -c "print(f'{$PACK_BYTES / 1e6:.1f}')") | $OVER_GIT | $RSS_MB | **$(calc "round($rest_wall / $WALL, 1)")×** | $same |"$'\n'
    stop_sim
done

MEMORY_ROWS=
declare -A RSS_AT REST_RSS_AT
for n in $SIZES; do
    log "bootstrap memory at $n commits"
    start_sim --synthetic "bench/m$n=$n:1"
    one_sync "bench/m$n" "$WORK/memory.sqlite" --no-git-bootstrap
    REST_RSS_AT[$n]=$RSS_MB rest_wall=$WALL
    one_sync "bench/m$n" "$WORK/memory.sqlite"
    RSS_AT[$n]=$RSS_MB
    MEMORY_ROWS+="| $(commas "$n") | $OVER_GIT | $(printf %.1f "$WALL") | $(python3 -c "print(f'{$PACK_BYTES / 1e6:.1f}')") | **$RSS_MB** | $(printf %.1f "$rest_wall") | ${REST_RSS_AT[$n]} |"$'\n'
    stop_sim
done

mark() { python3 -c "import sys; print('met' if $1 else '**missed**')"; }
TARGETS=
if [ -n "${TARGET_100:-}" ]; then
    read -r speedup points same <<< "$TARGET_100"
    TARGETS+="| first sync of 100,000 commits at 100 ms a request, over git vs REST only | ≥ 10× faster | ${speedup}× | $(mark "$speedup >= 10") |"$'\n'
    TARGETS+="| its rate-limit points | ≤ 5 | $points | $(mark "$points <= 5") |"$'\n'
    TARGETS+="| the stored rows, REST only and over git | equal | $same | $(mark "'$same' == 'yes'") |"$'\n'
fi
if [ -n "${RSS_AT[100000]:-}" ]; then
    TARGETS+="| the bootstrap's peak RSS at 100,000 commits | ≤ 64 MB | ${RSS_AT[100000]} MB | $(mark "${RSS_AT[100000]} <= 64") |"$'\n'
fi
first=${SIZES%% *} last=${SIZES##* }
if [ "$first" != "$last" ]; then
    # Flat: by 100,000 commits every bounded buffer is full (page caches, the
    # search index's merges, two batches of commits); from there the peak must
    # not grow by more than 10% up to the largest size.
    full=100000
    [ -n "${RSS_AT[$full]:-}" ] || full=$first
    TARGETS+="| … flat from $(commas "$first") to $(commas "$last") commits: the peak at $(commas "$last") within 10% of $(commas "$full")'s | flat | ${RSS_AT[$first]} → ${RSS_AT[$full]} → ${RSS_AT[$last]} MB (REST only: ${REST_RSS_AT[$first]} → ${REST_RSS_AT[$full]} → ${REST_RSS_AT[$last]} MB) | $(mark "${RSS_AT[$last]} <= 1.1 * ${RSS_AT[$full]} and ${RSS_AT[$last]} <= 64") |"$'\n'
fi

cat << EOF
## 7. First syncs over git (#12)

| target (#12) | goal | now | |
|---|---|---|---|
$TARGETS
The pack is spooled to disk, and the commits' parent links go to a scratch
SQLite database on disk to be ordered parents first (docs/GIT-PROTOCOL.md), so
no structure in memory is sized by the history; what stays in memory is meant
to be bounded buffers (page caches, the search index's merges, two batches of
commits). The REST-only columns show the store's own share of the rise. Where
the peak still rises from 100,000 to 1,000,000 commits by more than that share,
the target says so.

\`commitsctl sync $REPO\` into a new store (100,000 commits shaped like a real
history: \`--synthetic $REPO=100000:5:realistic\`), over REST only
(\`--no-git-bootstrap\`) and with the history read over git (the default), one
run each, github-sim adding the given latency to every request, REST and git
alike. *Requests* and *points* are the API's (counted by the simulator); git's
requests spend no rate limit. *Pages (MB)*: the REST pages' headers and gzip'd bodies
(fetched once more with curl); *pack (MB)*: the pack git sent. *Same rows*: both stores hold the same commits,
messages, people, dates and parents (\`Benchmarks/git-bootstrap.sh\`, logins aside).

| latency (ms) | REST only: s | requests | points | pages (MB) | peak RSS (MB) | over git: s | requests | points | git requests | pack (MB) | commits over git | peak RSS (MB) | REST / git | same rows |
|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|
$ROWS
### The bootstrap's memory

The same first sync (\`--synthetic bench/mN=N:1\`, no added latency), peak resident
memory of the whole commitsctl process (\`/usr/bin/time -v\`), over git and, for
comparison, over REST only (\`--no-git-bootstrap\`) into a new store.

| commits | over git | seconds | pack (MB) | peak RSS (MB) | REST only: seconds | peak RSS (MB) |
|---:|---:|---:|---:|---:|---:|---:|
$MEMORY_ROWS
EOF
