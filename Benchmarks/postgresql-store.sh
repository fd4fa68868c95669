#!/usr/bin/env bash
# The PostgreSQL store against the SQLite store (issue #26), side by side in one
# run: the same first syncs from the same github-sim into a new SQLite file and
# into a new database on a PostgreSQL 15 server on this machine (its Unix
# socket), over REST (--no-git-bootstrap) and over git; commits/s, medians of
# RUNS alternating runs, and the ratio PostgreSQL / SQLite (goal: >= 0.8); then
# what each store takes on disk per million commits, and its message index's
# share (issue #30).
#
#   Benchmarks/postgresql-store.sh                # RUNS=3, SIZE=100000
#   RUNS=1 SIZE=20000 Benchmarks/postgresql-store.sh
#
# The server runs with synchronous_commit=off, the durability of the SQLite
# store's WAL with synchronous=NORMAL (a crash may lose the last commits, never
# corrupts). Writes a Markdown section to stdout; progress goes to stderr.
set -euo pipefail

cd "$(dirname "$0")/.."
source Benchmarks/lib.sh
RUNS=${RUNS:-3}
SIZE=${SIZE:-100000}
SCRATCH=${SCRATCH:-.build-bench-static}
DATASET=${DATASET:-../shared/datasets/swift-evolution.commits.jsonl.gz}
WORK=Benchmarks/work/postgresql-store
TOKEN=benchmark-token

build_products github-sim commitsctl
CTL=$BIN/commitsctl

need_commands sqlite3
rm -rf "$WORK"
mkdir -p "$WORK"
trap stop_sim_and_postgresql EXIT
start_postgresql

# A large synthetic history, one of swift-evolution's size (7,807 commits: what
# a small history costs over git), and swift-evolution itself, which github-sim
# serves over REST only (a dataset has no trees, so no git objects whose ids are
# its shas).
SMALL=7807
SOURCES=(--synthetic "bench/s$SIZE=$SIZE:5:realistic" --synthetic "bench/s$SMALL=$SMALL:5:realistic")
REPOS=("bench/s$SIZE" "bench/s$SMALL")
if [ -f "$DATASET" ]; then SOURCES+=(--dataset "swiftlang/swift-evolution=$DATASET"); REPOS+=(swiftlang/swift-evolution); fi
start_sim "${SOURCES[@]}"

# one_sync REPO STORE [FLAGS…] : a first sync into a new store; prints commits/s
one_sync() {
    local repo=$1 store=$2; shift 2
    case $store in
        sqlite) rm -rf "$WORK/s.sqlite"*; local db=$WORK/s.sqlite ;;
        pg) psql -d postgres -c 'DROP DATABASE IF EXISTS bench' -c 'CREATE DATABASE bench' > /dev/null
            local db="postgresql:///bench?host=$PGDIR&port=$PORT&user=postgres" ;;
    esac
    local s e
    s=$(date +%s%N)
    GITHUB_TOKEN=$TOKEN "$CTL" sync "$repo" --db "$db" --api-url "$SIM" "$@" > "$WORK/sync.out" 2> "$WORK/sync.err" \
        || { cat "$WORK/sync.err" >&2; exit 1; }
    e=$(date +%s%N)
    local new
    new=$(sed -n 's/.*: \([0-9]*\) new.*/\1/p' "$WORK/sync.out")
    log "  $store: $(cat "$WORK/sync.out")"
    # What the whole store takes, for the size table: a large first sync leaves the
    # message index to the next writer (BatchLimits.messageIndexLagAfterBulkLoad), so
    # one more sync (a 304, untimed) builds it first. Commits, bytes in all, bytes of
    # the message index.
    GITHUB_TOKEN=$TOKEN "$CTL" sync "$repo" --db "$db" --api-url "$SIM" "$@" > /dev/null 2> "$WORK/sync.err" \
        || { cat "$WORK/sync.err" >&2; exit 1; }
    case $store in
        sqlite) sqlite3 "$db" "SELECT sum(pgsize), sum(CASE WHEN name LIKE 'commits_fts%' THEN pgsize ELSE 0 END) FROM dbstat" ;;
        pg) psql -d bench -c "SELECT sum(pg_total_relation_size(c.oid)), pg_relation_size('commits_message_trgm')
                FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind = 'r'" ;;
    esac | tr '|' ' ' | sed "s/^/$new /" > "$WORK/size-$store"
    calc "round($new / (($e - $s) / 1e9))"
}
# size_cells STORE : "MB | MB per million commits | message index share" of the store's last sync
size_cells() {
    local commits bytes index
    read -r commits bytes index < "$WORK/size-$1"
    echo "$(calc "round($bytes / 1e6, 1)") | $(calc "round($bytes / $commits * 1e6 / 1e6)") | $(calc "round(100 * $index / $bytes)") %"
}
SIZES=()

echo "## The PostgreSQL store beside the SQLite store (Benchmarks/postgresql-store.sh)"
echo
echo "First syncs from the same github-sim into a new SQLite file and into a new database on PostgreSQL $PGVERSION"
echo "on this machine (Unix socket, \`synchronous_commit = off\`), alternating, median of $RUNS runs each."
echo "Load average at start: $(cut -d' ' -f1-3 /proc/loadavg)."
echo
echo "| history | path | SQLite commits/s | PostgreSQL commits/s | PostgreSQL / SQLite |"
echo "|---|---|---:|---:|---:|"
for repo in "${REPOS[@]}"; do
    paths=(rest git)
    [ "$repo" = swiftlang/swift-evolution ] && paths=(rest)
    for path in "${paths[@]}"; do
        flags=()
        [ "$path" = rest ] && flags=(--no-git-bootstrap)
        sqlite_rates=() pg_rates=()
        log "$repo over $path"
        for _ in $(seq "$RUNS"); do
            sqlite_rates+=("$(one_sync "$repo" sqlite "${flags[@]}")")
            pg_rates+=("$(one_sync "$repo" pg "${flags[@]}")")
        done
        a=$(calc "round($(median "${sqlite_rates[@]}"))")
        b=$(calc "round($(median "${pg_rates[@]}"))")
        echo "| $repo | $path | $a | $b | $(calc "round($b / $a, 2)")× |"
        SIZES+=("| $repo | $path | $(read -r c _ < "$WORK/size-sqlite"; echo "$c") | $(size_cells sqlite) | $(size_cells pg) |")
    done
done
[ -f "$DATASET" ] && echo "| swiftlang/swift-evolution | git | — | — | a dataset is served over REST only |"

# Query latency: the whole commitsctl process against the database the last run
# left (the last history above), beside psql answering the equivalent SQL.
need_commands hyperfine
PGURI="postgresql:///bench?host=$PGDIR&port=$PORT&user=postgres"
AUTHOR=$(psql -d bench -c "SELECT a.name FROM commits c JOIN authors a ON a.id = c.author_id GROUP BY a.name ORDER BY count(*) DESC, a.name LIMIT 1")
NEEDLE=$(python3 -c 'import sys; print(sys.argv[1].lower())' "$AUTHOR")
SQL="SELECT c.sha, a.name, a.email, c.author_date, c.committer_date, split_part(c.message, chr(10), 1)
FROM commits c JOIN authors a ON a.id = c.author_id
WHERE c.author_id IN (SELECT id FROM authors WHERE strpos(search_text, '$NEEDLE') > 0) AND NOT c.off_branch
ORDER BY c.committer_date DESC, c.id LIMIT 50"
hyperfine -N --warmup 3 --runs 30 --export-json "$WORK/query.json" \
    "$CTL query --author '$AUTHOR' -n 50 --db $PGURI" \
    "$PGBIN/psql -h $PGDIR -p $PORT -U postgres -d bench -At -c \"$SQL\"" > "$WORK/hyperfine.txt" 2>&1 \
    || { cat "$WORK/hyperfine.txt" >&2; exit 1; }
read -r Q_CTL Q_PSQL < <(jq -r '[.results[].median * 1000] | map(. * 10 | round / 10) | @tsv' "$WORK/query.json")
echo
echo "\`commitsctl query --author '$AUTHOR' -n 50\` against the PostgreSQL store: median **$Q_CTL ms**, against"
echo "**$Q_PSQL ms** for \`psql\` answering the equivalent SQL (whole processes, hyperfine, 30 runs): **$(calc "round($Q_CTL / $Q_PSQL, 2)")×** (goal: ≤ 2×)."
echo
echo "### Store size (issue #30, goal 5)"
echo
echo "What each store takes after the last first sync of each row above and the sync after it, which indexes what a"
echo "large first sync leaves unindexed: SQLite's pages (\`dbstat\`, the WAL checkpointed"
echo "in or not), PostgreSQL's tables with their indexes and TOAST (\`pg_total_relation_size\`); per million commits is"
echo "that size scaled linearly; the message index is SQLite's FTS5 trigram tables and PostgreSQL's \`pg_trgm\` GIN index."
echo
echo "| history | path | commits | SQLite MB | SQLite MB per 1M commits | its message index | PostgreSQL MB | PostgreSQL MB per 1M commits | its message index |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|"
printf '%s\n' "${SIZES[@]}"
echo
echo "Load average at end: $(cut -d' ' -f1-3 /proc/loadavg)."
