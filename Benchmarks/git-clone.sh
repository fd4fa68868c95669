#!/usr/bin/env bash
# Issue #30, goal 1: a first sync over git against git itself. A history written
# by git (Benchmarks/git-history.py through `git fast-import`: COMMITS commits,
# about a fifth of them merges, messages with bodies and trailers) is served by one
# github-sim (`--git-repository`); from that same server, alternating, RUNS
# times each: `git clone --bare --filter=tree:0` (the commits without their
# trees, what a first sync needs) and `commitsctl sync` into a new store (its
# git bootstrap: ls-refs and one fetch with the same filter, then storing every
# commit). Wall time and peak RSS (`/usr/bin/time -v`), medians. Then goal 2 on
# the last store: `--grep` while the message index lags, the next sync's
# catch-up, and `--grep` after it.
#
#   Benchmarks/git-clone.sh                     # RUNS=3, COMMITS=82000
#   RUNS=1 COMMITS=20000 Benchmarks/git-clone.sh
#
# Writes a Markdown section to stdout (Benchmarks/run puts it in BENCHMARKS.md);
# progress goes to stderr.
set -euo pipefail

cd "$(dirname "$0")/.."
source Benchmarks/lib.sh
RUNS=${RUNS:-3}
COMMITS=${COMMITS:-82000}
SCRATCH=${SCRATCH:-.build-bench-static}
WORK=Benchmarks/work/git-clone
TOKEN=benchmark-token
REPO=bench/history

build_products github-sim commitsctl
CTL=$BIN/commitsctl

rm -rf "$WORK"
mkdir -p "$WORK"
write_history "$COMMITS" "$WORK/history.git"
ON_MAIN=$(git -C "$WORK/history.git" rev-list --count main)
MERGES=$(git -C "$WORK/history.git" rev-list --count --merges main)
MESSAGE_BYTES=$(git -C "$WORK/history.git" log --format=%B main | wc -c)

trap stop_sim EXIT
start_sim --git-repository "$REPO=$WORK/history.git"

# The token goes to git in its environment, never on its command line.
BASIC=$(printf 'x-access-token:%s' "$TOKEN" | base64 -w0)
export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=http.extraHeader GIT_CONFIG_VALUE_0="Authorization: Basic $BASIC"

# What #30 measured: commits without their trees (Benchmarks/paths.sh times the sync with them).
printf 'paths: false\nrepositories: [%s]\n' "$REPO" > "$WORK/commits-only.yaml"
for run in $(seq "$RUNS"); do
    log "run $run of $RUNS"
    rm -rf "$WORK/clone.git"
    timed clone git clone -q --bare --filter=tree:0 "$SIM/$REPO.git" "$WORK/clone.git"
    rm -rf "$WORK"/store.sqlite*
    timed sync env GITHUB_TOKEN=$TOKEN "$CTL" sync "$REPO" --db "$WORK/store.sqlite" --api-url "$SIM" --config "$WORK/commits-only.yaml"
done
# Where the sync's time goes: the same rows written by the sqlite3 CLI into a
# table without indexes, and the store's trigram message index built alone
# from them (the tokenizer and merge setting of commits_fts), each in one statement.
need_commands sqlite3
cli_seconds() {  # SQL… : seconds the sqlite3 CLI takes on a new scratch database
    rm -f "$WORK/scratch.sqlite"
    local s e
    s=$(date +%s%N)
    sqlite3 "$WORK/scratch.sqlite" "$@" > /dev/null
    e=$(date +%s%N)
    calc "round(($e - $s) / 1e9, 2)"
}
ROWS_S=$(cli_seconds "ATTACH '$WORK/store.sqlite' AS s; CREATE TABLE c AS SELECT * FROM s.commits;")
sqlite3 "$WORK/scratch.sqlite" "CREATE TABLE m AS SELECT id, message FROM c; DROP TABLE c; VACUUM" > /dev/null
mv "$WORK/scratch.sqlite" "$WORK/messages.sqlite"
INDEX_S=$(cli_seconds "ATTACH '$WORK/messages.sqlite' AS s;
    CREATE VIRTUAL TABLE f USING fts5(message, content='', tokenize = 'trigram case_sensitive 0');
    INSERT INTO f (f, rank) VALUES ('automerge', $(sqlite3 "$WORK/store.sqlite" "SELECT v FROM commits_fts_config WHERE k = 'automerge'"));
    INSERT INTO f (rowid, message) SELECT id, message FROM s.m;")
# Goal 2 on the last sync's store: what the sync left of the message index, what
# --grep costs meanwhile (it reads the unindexed messages), what the next sync
# spends catching the index up, and --grep once it has.
index_lag() { sqlite3 "$WORK/store.sqlite" 'SELECT count(*) FROM commits WHERE id > (SELECT through_id FROM message_index_coverage)'; }
LAG=$(index_lag)
grep_ms() {  # NEEDLE : median milliseconds of 5 whole `query --grep NEEDLE` processes
    local times=() s e
    for _ in 1 2 3 4 5; do
        s=$(date +%s%N)
        "$CTL" query --grep "$1" --db "$WORK/store.sqlite" > /dev/null
        e=$(date +%s%N)
        times+=("$(calc "($e - $s) / 1e6")")
    done
    calc "round($(median "${times[@]}"))"
}
LAGGING_ASCII=$(grep_ms xyzzy) LAGGING_ACCENT=$(grep_ms école)
s=$(date +%s%N)
GITHUB_TOKEN=$TOKEN "$CTL" sync "$REPO" --db "$WORK/store.sqlite" --api-url "$SIM" --config "$WORK/commits-only.yaml" > /dev/null
e=$(date +%s%N)
CATCH_UP_S=$(calc "round(($e - $s) / 1e9, 2)")
LAG_AFTER=$(index_lag)
INDEXED_ASCII=$(grep_ms xyzzy) INDEXED_ACCENT=$(grep_ms école)
CLONED=$(git -C "$WORK/clone.git" rev-list --count main)
STORED=$(sqlite3 "$WORK/store.sqlite" 'SELECT count(*) FROM commits')
OVER_GIT=$(sed -n 's/.* new (\([0-9]*\) over git).*/\1/p' "$WORK/out.txt")
column_median() { calc "round($(median $(cut -d' ' -f"$2" "$WORK/$1")), 2)"; }  # NAME FIELD
clone_s=$(column_median clone 1) clone_mb=$(column_median clone 2)
sync_s=$(column_median sync 1) sync_mb=$(column_median sync 2)
ratio=$(calc "round($sync_s / $clone_s, 2)")
mark() { python3 -c "import sys; print('met' if $1 else '**missed**')"; }

echo "## First sync over git against git itself (issue #30, goal 1; Benchmarks/git-clone.sh)"
echo
echo "| target | goal | now | |"
echo "|---|---|---|---|"
echo "| first sync over git vs \`git clone --bare --filter=tree:0\`, same server | ≤ 2× | ${ratio}× | $(mark "$ratio <= 2") |"
echo "| its peak RSS | ≤ 64 MB | $sync_mb MB | $(mark "$sync_mb <= 64") |"
echo
if python3 -c "import sys; sys.exit(0 if $ratio > 2 else 1)"; then
    echo "Missed. Where a first sync over git waits (a timeline of its threads) is in *Issue #30 goal 1: a"
    echo "first sync over git reads its pack while it comes* below (by hand); the pack's second pass and the"
    echo "store are what follow the download."
    echo
fi
echo "A history written by \`git fast-import\` (\`Benchmarks/git-history.py $COMMITS\`): $ON_MAIN commits on \`main\`,"
echo "$MERGES of them merges, $(calc "round($MESSAGE_BYTES / $ON_MAIN)") bytes of message per commit; served by github-sim"
echo "(\`--git-repository\`, its own pack writer) on loopback, on the same 2 cores as the client. Both clients read"
echo "the same objects from the same server: git's clone keeps the pack ($(du -sm "$WORK/clone.git" | cut -f1) MB on disk,"
echo "$CLONED commits); the sync stores every commit on \`main\` ($STORED commits, ${OVER_GIT:-?} read over git) with"
echo "its people, parents and message index ($(du -cm "$WORK"/store.sqlite* | tail -n 1 | cut -f1) MB). Medians of $RUNS alternating runs."
echo
echo "| client | seconds | peak RSS (MB) | runs (s, MB) |"
echo "|---|---:|---:|---|"
echo "| \`git clone --bare --filter=tree:0\` | $clone_s | $clone_mb | $(paste -sd';' "$WORK/clone" | sed 's/;/; /g') |"
echo "| \`commitsctl sync\` | $sync_s | $sync_mb | $(paste -sd';' "$WORK/sync" | sed 's/;/; /g') |"
echo
echo "The sync returns with the message index $LAG commits behind its rows (a first sync of 20,000 commits or more"
echo "leaves them to the next writer, \`messageIndexLagAfterBulkLoad\`): \`--grep\` reads those messages meanwhile and"
echo "answers exactly (goal 2), in **$LAGGING_ASCII ms** (\`xyzzy\`, found nowhere) and **$LAGGING_ACCENT ms** (\`école\`), whole"
echo "processes, medians of 5. The next \`commitsctl sync\` (one 304) indexes them before its own work: **$CATCH_UP_S s**,"
echo "leaving $LAG_AFTER behind; \`--grep\` then takes $INDEXED_ASCII ms and $INDEXED_ACCENT ms."
echo
echo "Where the time goes, replayed by the sqlite3 CLI from the synced store: its commit rows copied into a table"
echo "without indexes take **$ROWS_S s**; the trigram message index built alone from their messages (the tokenizer"
echo "and merge setting of \`commits_fts\`, one statement) takes **$INDEX_S s**, $(calc "round($INDEX_S / $clone_s, 1)")× the whole clone: what the"
echo "first sync no longer does. The sync itself reads the pack (inflating, hashing and ordering every commit) and"
echo "stores the rows; a first sync builds its date, person and co-author indexes once after the load"
echo "(\`BulkLoadIndexes\`)."
echo
echo "The objects are git's own but the text is generated: a real history differs in its messages and its people."
echo "The issue's figures for git/git (81,966 commits, served by \`git http-backend\`, on this machine when it ran"
echo "faster: compare ratios, not seconds) were 2.4–2.7 s for the clone against 12.2–15.7 s for the sync (4.5–5.8×),"
echo "before the message index moved behind a watermark."
