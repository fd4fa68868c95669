#!/usr/bin/env bash
# What changed: a first sync with changed paths against git itself, history by
# path against `git log -- PATH`, and what the paths cost the store. A history
# written by git (Benchmarks/git-history.py through `git fast-import`) is served
# by one github-sim (`--git-repository`: git's own objects, packed by git); from
# that same server, alternating, RUNS times each:
#   - git: `git clone --bare --filter=blob:none`, then
#     `git log --raw --no-renames --diff-merges=first-parent` (every commit's
#     changed paths), timed together;
#   - `commitsctl sync` into a new store (its first sync over git, with trees);
#   - a backfill: a store first synced commits-only (`paths: false`), then
#     `commitsctl sync --paths` timed alone.
# Then on the last store, for the most changed file and its directory: whole
# `commitsctl query -- PATH` processes against `git log -- PATH` on the clone
# with a changed-path commit-graph, each listing every match (medians of 5),
# `-n 50` against the sqlite3 CLI reading the same rows, and the bytes the
# path tables take (dbstat).
#
#   Benchmarks/paths.sh                     # RUNS=3, COMMITS=82000
#   RUNS=1 COMMITS=20000 Benchmarks/paths.sh
#
# Writes a Markdown section to stdout; progress goes to stderr.
set -euo pipefail

cd "$(dirname "$0")/.."
source Benchmarks/lib.sh
RUNS=${RUNS:-3}
COMMITS=${COMMITS:-82000}
SCRATCH=${SCRATCH:-.build-bench-static}
WORK=Benchmarks/work/paths
TOKEN=benchmark-token
REPO=bench/history

build_products github-sim commitsctl
CTL=$BIN/commitsctl
need_commands sqlite3

rm -rf "$WORK"
mkdir -p "$WORK"
write_history "$COMMITS" "$WORK/history.git"
ON_MAIN=$(git -C "$WORK/history.git" rev-list --count main)
MERGES=$(git -C "$WORK/history.git" rev-list --count --merges main)

trap stop_sim EXIT
start_sim --git-repository "$REPO=$WORK/history.git"
# The token goes to git in its environment, never on its command line.
BASIC=$(printf 'x-access-token:%s' "$TOKEN" | base64 -w0)
export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=http.extraHeader GIT_CONFIG_VALUE_0="Authorization: Basic $BASIC"
printf 'paths: false\nrepositories: [%s]\n' "$REPO" > "$WORK/commits-only.yaml"
SYNC=(env "GITHUB_TOKEN=$TOKEN" "$CTL" sync "$REPO" --api-url "$SIM")

for run in $(seq "$RUNS"); do
    log "run $run of $RUNS"
    rm -rf "$WORK/clone.git"
    timed git sh -c "git clone -q --bare --filter=blob:none '$SIM/$REPO.git' '$WORK/clone.git' &&
        git -C '$WORK/clone.git' log --raw --no-renames --diff-merges=first-parent --format=%H main | wc -l"
    rm -rf "$WORK"/store.sqlite*
    timed sync "${SYNC[@]}" --db "$WORK/store.sqlite"
    rm -rf "$WORK"/backfill.sqlite*
    "${SYNC[@]}" --db "$WORK/backfill.sqlite" --config "$WORK/commits-only.yaml" > /dev/null
    timed backfill "${SYNC[@]}" --db "$WORK/backfill.sqlite" --paths
done
RAW_LINES=$(git -C "$WORK/clone.git" log --raw --no-renames --diff-merges=first-parent --format= main | grep -c '^:')

log "history by path"
s=$(date +%s%N)
git -C "$WORK/clone.git" commit-graph write --reachable --changed-paths 2> /dev/null
e=$(date +%s%N)
GRAPH_S=$(calc "round(($e - $s) / 1e9, 2)")
FILE=$(git -C "$WORK/clone.git" log --format= --name-only main | sort | uniq -c | sort -rn | awk 'NR == 1 { print $2 }')
DIRECTORY=${FILE%%/*}
STORE=$WORK/store.sqlite
declare -A GIT_MS OURS_MS GIT_COUNT OURS_COUNT
for path in "$FILE" "$DIRECTORY"; do
    GIT_MS[$path]=$(ms git -C "$WORK/clone.git" log --format=%H main -- "$path")
    GIT_COUNT[$path]=$(wc -l < "$WORK/ms.out")
    OURS_MS[$path]=$(ms "$CTL" query --db "$STORE" --format oneline -n 100000000 -- "$path")
    OURS_COUNT[$path]=$(wc -l < "$WORK/ms.out")
done
N50_OURS=$(ms "$CTL" query --db "$STORE" --format oneline -n 50 -- "$FILE")
N50_CLI=$(ms sqlite3 "$STORE" "SELECT substr(c.sha, 1, 7), substr(c.committer_date, 1, 10), a.name,
    substr(c.message, 1, instr(c.message || char(10), char(10)) - 1)
    FROM commits c JOIN authors a ON a.id = c.author_id
    WHERE c.id IN (SELECT commit_id FROM commit_changes WHERE parent = 0
        AND path_id = (SELECT id FROM paths WHERE path = CAST('$FILE' AS BLOB)))
    ORDER BY c.committer_date DESC, c.id LIMIT 50")
N50_GIT=$(ms git -C "$WORK/clone.git" log --format=%H -n 50 main -- "$FILE")

PATH_BYTES=$(sqlite3 "$STORE" "SELECT sum(pgsize) FROM dbstat WHERE name IN
    ('paths', 'commit_changes', 'commit_changes_path', 'commit_changes_read') OR name LIKE 'sqlite_autoindex_paths%'")
STORED=$(sqlite3 "$STORE" 'SELECT count(*) FROM commits')
CHANGES=$(sqlite3 "$STORE" 'SELECT count(*) FROM commit_changes')
FIRST_PARENT_CHANGES=$(sqlite3 "$STORE" 'SELECT count(*) FROM commit_changes WHERE parent = 0')
COVERED=$(sqlite3 "$STORE" 'SELECT count(*) FROM commit_changes_read')

column_median() { calc "round($(median $(cut -d' ' -f"$2" "$WORK/$1")), 2)"; }  # NAME FIELD
git_s=$(column_median git 1) git_mb=$(column_median git 2)
sync_s=$(column_median sync 1) sync_mb=$(column_median sync 2)
backfill_s=$(column_median backfill 1) backfill_mb=$(column_median backfill 2)
ratio=$(calc "round($sync_s / $git_s, 2)")
backfill_ratio=$(calc "round($backfill_s / $git_s, 2)")
mark() { python3 -c "print('met' if $1 else '**missed**')"; }
speedup() { calc "round(${GIT_MS[$1]} / max(${OURS_MS[$1]}, 1), 1)"; }

echo "## What changed: paths against git itself (Benchmarks/paths.sh)"
echo
echo "| target | goal | now | |"
echo "|---|---|---|---|"
echo "| first sync with paths vs \`git clone --filter=blob:none\` + \`git log --raw\`, same server | ≤ 1.2× | ${ratio}× | $(mark "$ratio <= 1.2") |"
echo "| its peak RSS | ≤ 96 MB | $sync_mb MB | $(mark "$sync_mb <= 96") |"
echo "| backfill (\`sync --paths\` of a history stored commits-only) vs the same | ≤ 1.2× | ${backfill_ratio}× | $(mark "$backfill_ratio <= 1.2") |"
echo "| \`query -- $FILE\` (a file, every match) vs \`git log\` with a changed-path commit-graph | ≥ 10× | $(speedup "$FILE")× | $(mark "$(speedup "$FILE") >= 10") |"
echo "| \`query -- $DIRECTORY\` (a directory, every match) vs the same | ≥ 10× | $(speedup "$DIRECTORY")× | $(mark "$(speedup "$DIRECTORY") >= 10") |"
echo "| \`query -n 50 -- $FILE\` vs the sqlite3 CLI reading the same rows | ≤ 2× | $(calc "round($N50_OURS / max($N50_CLI, 1), 2)")× | $(mark "$N50_OURS <= 2 * $N50_CLI") |"
echo "| store growth for paths, per million commits | reported | $(calc "round($PATH_BYTES / $STORED * 1e6 / 2**20)") MiB | |"
echo
echo "A history written by \`git fast-import\` (\`Benchmarks/git-history.py $COMMITS\`): $ON_MAIN commits on \`main\`,"
echo "$MERGES of them merges, every commit changing one to four of about 3,000 files; served by github-sim (\`--git-repository\`:"
echo "git's objects, packed by \`git pack-objects --filter=blob:none\`) on loopback, on the same 2 cores as the"
echo "clients. Medians of $RUNS alternating runs (seconds, peak RSS in MB)."
echo
echo "| client | seconds | peak RSS (MB) | runs (s, MB) |"
echo "|---|---:|---:|---|"
echo "| git: \`clone --bare --filter=blob:none\` + \`log --raw --no-renames --diff-merges=first-parent\` ($RAW_LINES paths) | $git_s | $git_mb | $(paste -sd';' "$WORK/git" | sed 's/;/; /g') |"
echo "| \`commitsctl sync\` (first sync, paths on) | $sync_s | $sync_mb | $(paste -sd';' "$WORK/sync" | sed 's/;/; /g') |"
echo "| \`commitsctl sync --paths\` (backfill) | $backfill_s | $backfill_mb | $(paste -sd';' "$WORK/backfill" | sed 's/;/; /g') |"
echo
echo "The store holds $STORED commits, $COVERED of them with their paths: $CHANGES change rows, $FIRST_PARENT_CHANGES"
echo "against first parents and the rest against the other parents of merges (what git's simplification asks of"
echo "a merge for a directory). Path tables and their indexes: $(calc "round($PATH_BYTES / 2**20, 1)") MiB."
echo
echo "History by path, whole processes, medians of 5 (ms); git on the blobless clone after"
echo "\`git commit-graph write --reachable --changed-paths\` ($GRAPH_S s):"
echo
echo "| pathspec | \`git log\` | commits | \`commitsctl query\` | commits |"
echo "|---|---:|---:|---:|---:|"
for path in "$FILE" "$DIRECTORY"; do
    echo "| \`$path\` | ${GIT_MS[$path]} | ${GIT_COUNT[$path]} | ${OURS_MS[$path]} | ${OURS_COUNT[$path]} |"
done
echo "| \`-n 50 -- $FILE\` | $N50_GIT | | $N50_OURS (sqlite3 CLI: $N50_CLI) | |"
