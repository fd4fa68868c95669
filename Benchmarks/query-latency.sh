#!/usr/bin/env bash
# Whole-process latency of `commitsctl` queries on a large synthetic store.
#
#   Benchmarks/query-latency.sh            # 1,000,000 commits (first run builds the store: ~10 min)
#   COMMITS=100000 Benchmarks/query-latency.sh
#
# 1. Builds commitsctl and mirror-bench in release, with the Swift runtime and
#    Foundation linked statically (STATIC=0 for the default dynamic linking).
# 2. Generates the store once, deterministically, through the store's own page
#    path (mirror-bench generate); it is kept in Benchmarks/work/ (gitignored)
#    and reused by later runs.
# 3. Times whole processes with hyperfine if installed (apt-get install
#    hyperfine), else with a loop of runs; prints medians. `--version` is timed
#    too: it is the process start-up floor under every figure. mirror-bench
#    then times the same queries inside one process, to show the query work.
#
# Targets (issue #5): query --author -n 50 <= 15 ms, query --grep fix -n 50 <= 100 ms,
# show <= 15 ms (medians, whole process); issue #14: query and show <= 2x the
# sqlite3 CLI answering the same question on the same file, --version <= 3x
# `sqlite3 :memory: 'select 1'`. This is a benchmark, not a test.
set -euo pipefail

cd "$(dirname "$0")/.."
COMMITS=${COMMITS:-1000000}
RUNS=${RUNS:-30}
STATIC=${STATIC:-1}
WORK=Benchmarks/work
STORE=$WORK/synthetic-$COMMITS.sqlite
FACTS=$STORE.facts

if [ "$STATIC" = 1 ]; then
    SCRATCH=${SCRATCH:-.build-bench-static}
    FLAGS=(--static-swift-stdlib)
else
    SCRATCH=${SCRATCH:-.build-bench}
    FLAGS=()
fi

echo "== building (release, scratch path $SCRATCH${FLAGS:+, ${FLAGS[*]}})" >&2
swift build -c release "${FLAGS[@]}" --scratch-path "$SCRATCH" --product commitsctl >&2
swift build -c release "${FLAGS[@]}" --scratch-path "$SCRATCH" --product mirror-bench >&2
BIN=$(swift build -c release "${FLAGS[@]}" --scratch-path "$SCRATCH" --show-bin-path)
CTL=$BIN/commitsctl

mkdir -p "$WORK"
if [ ! -f "$STORE" ] || [ ! -f "$FACTS" ]; then
    echo "== generating $STORE ($COMMITS commits)" >&2
    rm -f "$STORE" "$STORE-wal" "$STORE-shm" "$FACTS"
    "$BIN/mirror-bench" generate --db "$STORE" --commits "$COMMITS" > "$FACTS.tmp"
    mv "$FACTS.tmp" "$FACTS"
fi
fact() { sed -n "s/^$1=//p" "$FACTS"; }
BUSY=$(fact busy_author)
MID=$(fact mid_author)
SHA=$(fact sha)
# The busiest author's median commit: the slowest case for "commit k of N".
BUSY_MIDDLE=$("$CTL" query --db "$STORE" --author "$BUSY" -n "$(( $(fact busy_author_commits) / 2 ))" --format ndjson \
    | tail -n 1 | python3 -c 'import json, sys; print(json.load(sys.stdin)["sha"][:12])')

echo "== store: $(fact commits) commits, $(du -h "$STORE" | cut -f1); busy author: $BUSY ($(fact busy_author_commits) commits); mid author: $MID ($(fact mid_author_commits))" >&2
echo "== load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores" >&2

# The sqlite3 CLI answering the same questions on the same file (issue #14: query
# and show within 2x of it, --version within 3x of `sqlite3 :memory: 'select 1'`).
source Benchmarks/sqlite3-equivalents.sh

NAMES=(
    "sqlite3 :memory: 'select 1' (the CLI's start-up floor)"
    "sqlite3: author substring, newest first, LIMIT 50 (as query --author \"$MID\")"
    "sqlite3: one commit by sha (as show)"
    "commitsctl --version (start-up floor)"
    "query --author \"$MID\" -n 50"
    "query --author \"$BUSY\" -n 50"
    "query --grep fix -n 50"
    "show ${SHA:0:12}"
    "show ${BUSY_MIDDLE} (busiest author, median commit)"
)
COMMANDS=(
    "sqlite3 :memory: 'select 1'"
    "sqlite3 $STORE \"$(author_sql "$MID")\""
    "sqlite3 $STORE \"$(show_sql "$SHA")\""
    "$CTL --version"
    "$CTL query --db $STORE --author '$MID' -n 50"
    "$CTL query --db $STORE --author '$BUSY' -n 50"
    "$CTL query --db $STORE --grep fix -n 50"
    "$CTL show --db $STORE $SHA"
    "$CTL show --db $STORE $BUSY_MIDDLE"
)

median_ms() {  # runs "$1" RUNS times (after 3 warm-ups), prints the median in ms
    local samples=() i start end
    for i in 1 2 3; do bash -c "$1" > /dev/null; done
    for ((i = 0; i < RUNS; i++)); do
        start=$(date +%s%N)
        bash -c "$1" > /dev/null
        end=$(date +%s%N)
        samples+=($(( (end - start) / 1000 )))
    done
    printf '%s\n' "${samples[@]}" | sort -n | awk '{ a[NR] = $1 } END { printf "%.1f", a[int((NR + 1) / 2)] / 1000 }'
}

echo
echo "whole process, median of $RUNS runs:"
if command -v hyperfine > /dev/null; then
    for i in "${!COMMANDS[@]}"; do
        hyperfine -N --warmup 3 --runs "$RUNS" --export-json "$WORK/hyperfine.json" "${COMMANDS[$i]}" > /dev/null
        median=$(python3 -c "import json; print('%.1f' % (json.load(open('$WORK/hyperfine.json'))['results'][0]['median'] * 1000))")
        printf '  %8s ms  %s\n' "$median" "${NAMES[$i]}"
    done
else
    echo "  (hyperfine not installed: timing with a shell loop, which adds a bash start per run)"
    for i in "${!COMMANDS[@]}"; do
        printf '  %8s ms  %s\n' "$(median_ms "${COMMANDS[$i]}")" "${NAMES[$i]}"
    done
fi

echo
echo "inside one process (store open included):"
"$BIN/mirror-bench" time --db "$STORE" --author "$MID,$BUSY" --sha "$SHA,$BUSY_MIDDLE" --runs "$RUNS" | sed 's/^/  /'
