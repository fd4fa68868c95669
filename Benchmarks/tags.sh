#!/usr/bin/env bash
# Where a commit went: revision ranges and tag containment against git itself.
# A history written by git (Benchmarks/git-history.py through `git fast-import`)
# gets TAGS tags on evenly spaced first-parent commits (every third annotated),
# is served by one github-sim (`--git-repository`), and is mirrored commits-only
# (`paths: false`). Then, whole processes, medians of 5 (ms):
#   - `commitsctl query --format oneline vA..vB` for consecutive tags against
#     `git log --format=%H vA..vB` on a bare clone with a commit-graph;
#   - `commitsctl show SHA` on that store against the same store with its tags
#     removed (what `show` cost before containment);
#   - the requests and points of an idle `commitsctl sync` with tags and pull
#     requests on and off;
#   - the requests a first mirror of PULLS pull requests spends listing them
#     (a generated github-sim history whose merges are pull requests).
#
#   Benchmarks/tags.sh                      # COMMITS=82000, TAGS=300
#   COMMITS=20000 Benchmarks/tags.sh
#
# Writes a Markdown section to stdout; progress goes to stderr.
set -euo pipefail

cd "$(dirname "$0")/.."
source Benchmarks/lib.sh
COMMITS=${COMMITS:-82000}
TAGS=${TAGS:-300}
# A realistic github-sim history of this many commits has about 10,000 pull requests.
PULL_COMMITS=${PULL_COMMITS:-26700}
SCRATCH=${SCRATCH:-.build-bench-static}
WORK=Benchmarks/work/tags
TOKEN=benchmark-token
REPO=bench/history

build_products github-sim commitsctl
CTL=$BIN/commitsctl
need_commands sqlite3

rm -rf "$WORK"
mkdir -p "$WORK"
write_history "$COMMITS" "$WORK/history.git"
log "tagging $TAGS commits"
mapfile -t SPINE < <(git -C "$WORK/history.git" rev-list --first-parent --reverse main)
STEP=$(( ${#SPINE[@]} / (TAGS + 1) ))
for i in $(seq 1 "$TAGS"); do
    sha=${SPINE[$((i * STEP))]}
    if (( i % 3 == 0 )); then
        GIT_COMMITTER_DATE="@$((1500000000 + i * 86400)) +0000" git -C "$WORK/history.git" tag -a -m "release $i" "v$i" "$sha"
    else
        git -C "$WORK/history.git" tag "v$i" "$sha"
    fi
done
git clone -q --bare "$WORK/history.git" "$WORK/clone.git"
git -C "$WORK/clone.git" commit-graph write --reachable 2> /dev/null

trap stop_sim EXIT
start_sim --git-repository "$REPO=$WORK/history.git"
printf 'paths: false\npull_requests: true\nrepositories: [%s]\n' "$REPO" > "$WORK/config.yaml"
printf 'paths: false\ntags: false\npull_requests: false\nrepositories: [%s]\n' "$REPO" > "$WORK/no-tags.yaml"
SYNC=(env "GITHUB_TOKEN=$TOKEN" "$CTL" sync "$REPO" --api-url "$SIM" --db "$WORK/store.sqlite")
log "first sync"
"${SYNC[@]}" --config "$WORK/config.yaml" > "$WORK/first.out"
IDLE=$("${SYNC[@]}" --config "$WORK/config.yaml")
IDLE_OFF=$("${SYNC[@]}" --config "$WORK/no-tags.yaml")
cp "$WORK/store.sqlite" "$WORK/untagged.sqlite"
sqlite3 "$WORK/untagged.sqlite" 'DELETE FROM tags; DELETE FROM tag_listings'

export DIGITS=1
log "ranges"
RANGE_ROWS=""
WORST=0
AGREE=0
for i in $(seq 10 29 "$TAGS"); do
    a=v$((i - 1)) b=v$i
    git_ms=$(ms git -C "$WORK/clone.git" log --format=%H "$a..$b")
    git_n=$(wc -l < "$WORK/ms.out")
    ours_ms=$(ms "$CTL" query --db "$WORK/store.sqlite" --format oneline -n 100000000 "$a..$b")
    ours_n=$(wc -l < "$WORK/ms.out")
    [[ $git_n == "$ours_n" ]] && AGREE=$((AGREE + 1))
    ratio=$(calc "round($ours_ms / max($git_ms, 0.1), 2)")
    WORST=$(calc "max($WORST, $ratio)")
    RANGE_ROWS+="| \`$a..$b\` | $git_ms | $git_n | $ours_ms | $ours_n | ${ratio}× |"$'\n'
done
log "show"
OLD=${SPINE[$((STEP * 5))]} NEW=${SPINE[$((STEP * (TAGS - 1)))]}
SHOW_OLD=$(ms "$CTL" show --db "$WORK/store.sqlite" "$OLD")
SHOW_OLD_BEFORE=$(ms "$CTL" show --db "$WORK/untagged.sqlite" "$OLD")
SHOW_NEW=$(ms "$CTL" show --db "$WORK/store.sqlite" "$NEW")
SHOW_NEW_BEFORE=$(ms "$CTL" show --db "$WORK/untagged.sqlite" "$NEW")
INCLUDED=$("$CTL" show --db "$WORK/store.sqlite" "$OLD" | sed -n 's/^Included in: //p')
GIT_FIRST=$(git -C "$WORK/clone.git" tag --contains "$OLD" --sort=creatordate | head -1)
mark() { python3 -c "print('met' if $1 else '**missed**')"; }
extra_old=$(calc "round($SHOW_OLD - $SHOW_OLD_BEFORE, 1)")
extra_new=$(calc "round($SHOW_NEW - $SHOW_NEW_BEFORE, 1)")

log "pull requests"
stop_sim
start_sim --synthetic "bench/pulls=$PULL_COMMITS:3:realistic"
env "GITHUB_TOKEN=$TOKEN" "$CTL" sync bench/pulls --pull-requests --api-url "$SIM" --db "$WORK/pulls.sqlite" > "$WORK/pulls.out"
PULLS=$(sqlite3 "$WORK/pulls.sqlite" 'SELECT count(*) FROM pull_requests')
PULL_REQUESTS=$(sqlite3 "$WORK/pulls.sqlite" "SELECT sum(requests) FROM request_counts WHERE kind = 'pull_requests'")

echo "## Where a commit went: ranges and tags against git itself (Benchmarks/tags.sh)"
echo
echo "| target | goal | now | |"
echo "|---|---|---|---|"
echo "| \`query vA..vB\` (consecutive tags) vs \`git log --format=%H vA..vB\` with a commit-graph, worst pair | ≤ 1× | ${WORST}× | $(mark "$WORST <= 1") |"
echo "| \`show\`'s containment line, an old commit | ≤ 1 ms more | $extra_old ms | $(mark "$extra_old <= 1") |"
echo "| \`show\`'s containment line, a recent commit | ≤ 1 ms more | $extra_new ms | $(mark "$extra_new <= 1") |"
echo "| first mirror of $PULLS pull requests | ≤ 101 requests | $PULL_REQUESTS requests | $(mark "$PULLS >= 10000 and $PULL_REQUESTS <= 101") |"
echo "| idle poll, tags and pull requests on | 0 points, ≤ 1 more request | $IDLE | |"
echo "| idle poll, tags and pull requests off | | $IDLE_OFF | |"
echo
echo "A history written by \`git fast-import\` (\`Benchmarks/git-history.py $COMMITS\`) with $TAGS tags on its"
echo "first-parent line (every third annotated), served by github-sim (\`--git-repository\`), mirrored commits-only."
echo "Whole processes, medians of 5 (ms); git on a bare clone after \`git commit-graph write --reachable\`."
echo "Ranges whose commit count equals git's: $AGREE of $(grep -c . <<< "$RANGE_ROWS")."
echo "\`show\` of an old commit names \`$INCLUDED\` (git's first: \`$GIT_FIRST\`)."
echo
echo "| range | \`git log\` | commits | \`commitsctl query\` | commits | ratio |"
echo "|---|---:|---:|---:|---:|---:|"
printf '%s' "$RANGE_ROWS"
echo
echo "| \`show\` | with tags | without tags |"
echo "|---|---:|---:|"
echo "| an old commit (${OLD:0:12}) | $SHOW_OLD | $SHOW_OLD_BEFORE |"
echo "| a recent commit (${NEW:0:12}) | $SHOW_NEW | $SHOW_NEW_BEFORE |"
