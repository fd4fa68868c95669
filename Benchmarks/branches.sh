#!/usr/bin/env bash
# First sync of a repository with 20 branches (issue #29, acceptance 4):
# `commitsctl sync --all-branches` into a new store, with the branches read
# over git in one fetch (the default) and over REST only (`--no-git-bootstrap`),
# side by side, then the idle run after each, with github-sim adding 0 and
# 100 ms to every request (`--latency-ms`). github-sim serves a synthetic
# history of COMMITS commits: main 1,000 commits short of its end, ten topic/N
# branches ahead of it along the rest, nine release/N branches behind it.
#
#   Benchmarks/branches.sh                 # COMMITS=20000 RUNS=3 LATENCIES="0 100"
#
# Writes a Markdown section to stdout; progress goes to stderr.
set -euo pipefail

cd "$(dirname "$0")/.."
source Benchmarks/lib.sh
COMMITS=${COMMITS:-20000}
RUNS=${RUNS:-3}
LATENCIES=${LATENCIES:-"0 100"}
SCRATCH=${SCRATCH:-.build-bench-static}
WORK=Benchmarks/work/branches
TOKEN=benchmark-token
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

build_products github-sim commitsctl
CTL=$BIN/commitsctl

rm -rf "$WORK"
mkdir -p "$WORK"
SIM_PID=
trap stop_sim EXIT
# start_branches_sim LATENCY_MS : a simulator adding LATENCY_MS to every request (a network's round trip), with the 20 branches
start_branches_sim() {
    stop_sim
    start_sim --latency-ms "$1" --synthetic "bench/branches=$COMMITS:17"
    control POST "/head?back=1000"
    for k in $(seq 10); do control POST "/branch?name=topic/$k&forward=$((90 * k))"; done
    for k in $(seq 9); do control POST "/branch?name=release/$k&back=$((1500 * k))"; done
}
control() { curl -sf -X "$1" "$SIM/_sim/repos/bench/branches$2" > /dev/null; }

# one_run DB [FLAGS…] : sets WALL, POINTS, GIT_REQ, LISTS, PACK_MB
one_run() {
    local db=$1; shift
    curl -sf -X POST "$SIM/_sim/reset-stats" > /dev/null
    local s e st
    s=$(date +%s%N)
    GITHUB_TOKEN=$TOKEN "$CTL" sync bench/branches --all-branches --db "$db" --api-url "$SIM" "$@" \
        > "$WORK/sync.out" 2> "$WORK/sync.err" || { cat "$WORK/sync.err" >&2; exit 1; }
    e=$(date +%s%N)
    WALL=$(python3 -c "print(round(($e - $s) / 1e9, 2))")
    st=$(curl -sf "$SIM/_sim/stats")
    POINTS=$(jq '[.rateLimitUsed[]] | add // 0' <<< "$st")
    GIT_REQ=$(jq '.gitRequests // 0' <<< "$st")
    LISTS=$(jq '.listRequests' <<< "$st")
    PACK_MB=$(jq '(.gitPackBytes // 0) / 1e6 * 10 | round / 10' <<< "$st")
}

ROWS=""
RATIOS=""
for latency in $LATENCIES; do
    start_branches_sim "$latency"
    declare -A FIRST_WALL
    for mode in git rest; do
        flags=()
        [ "$mode" = rest ] && flags=(--no-git-bootstrap)
        walls=()
        for run in $(seq "$RUNS"); do
            db=$WORK/$mode.sqlite
            rm -rf "$db" "$db-wal" "$db-shm" "$db.locks"
            one_run "$db" "${flags[@]}"
            walls+=("$WALL")
            log "$latency ms, $mode run $run: $WALL s, $POINTS points, $GIT_REQ git requests, $LISTS commit listings"
        done
        first=$(median "${walls[@]}")
        FIRST_WALL[$mode]=$first
        first_row="$first | $POINTS | $GIT_REQ | $PACK_MB | $LISTS"
        commits=$(sqlite3 "$db" "SELECT count(*) FROM commits")
        complete=$(sqlite3 "$db" "SELECT count(*) FROM sync_state WHERE complete = 1")
        "$CTL" check --db "$db" > /dev/null || { echo "check failed on the $mode store" >&2; exit 1; }
        one_run "$db" "${flags[@]}"
        ROWS+="| $latency | $mode | $first_row | $commits | $complete | $WALL | $POINTS | $GIT_REQ |"$'\n'
    done
    RATIOS+="$latency ms: **$(python3 -c "print(round(${FIRST_WALL[rest]} / ${FIRST_WALL[git]}, 1))")×**; "
done

cat << EOF
## Every branch: first sync of 20 branches (Benchmarks/branches.sh)

\`commitsctl sync bench/branches --all-branches\` into a new SQLite store: a
synthetic history of $COMMITS commits, 20 branches (main, ten ahead of it, nine
behind it). "git" is the default (the new branches read in one fetch); "rest"
is \`--no-git-bootstrap\`; github-sim adds the latency to every request.
First sync: median of $RUNS runs; the idle run follows the last. \`check\` passes on both stores.

| latency ms | path | first sync s | REST points | git requests | pack MB | commit listings | commits stored | branches complete | idle s | idle points | idle git requests |
|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|
$ROWS
First sync over git against REST only (wall time, REST / git): ${RATIOS%; }.
EOF
