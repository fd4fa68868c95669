#!/usr/bin/env bash
# One commitsd mirroring every branch of many repositories (issue #29,
# acceptance 4): REPOSITORIES repositories of COMMITS commits on github-sim, each
# with 10 branches, each listed in the configuration with `branches: "*"`. The
# first round is every repository's first sync (its branches listed, then read
# over git in one fetch); the idle round is the next interval of the same
# daemon, nothing having moved: each repository's listing sent with its ETags
# and each branch's head probe, all answered 304.
#
#   Benchmarks/branches-idle.sh              # REPOSITORIES=1000 COMMITS=30 INTERVAL=60
#
# Writes a Markdown section to stdout; progress goes to stderr.
set -euo pipefail

cd "$(dirname "$0")/.."
source Benchmarks/lib.sh
N=${REPOSITORIES:-1000}
COMMITS=${COMMITS:-30}
INTERVAL=${INTERVAL:-60}
BRANCHES=10
SCRATCH=${SCRATCH:-.build-bench-static}
WORK=Benchmarks/work/branches-idle
TOKEN=benchmark-token
now() { date +%s.%N; }

build_products github-sim commitsd

rm -rf "$WORK"
mkdir -p "$WORK"
printf '%s\n' "$TOKEN" > "$WORK/token"
chmod 600 "$WORK/token"
SIM_PID=
DAEMON_PID=
cleanup() {
    for pid in $DAEMON_PID $SIM_PID; do kill "$pid" 2> /dev/null || true; wait "$pid" 2> /dev/null || true; done
}
trap cleanup EXIT

log "github-sim with $N repositories of $COMMITS commits, $BRANCHES branches each"
args=()
for ((i = 1; i <= N; i++)); do args+=(--synthetic "many/r$i=$COMMITS:$i"); done
start_sim "${args[@]}"
for ((i = 1; i <= N; i++)); do
    for ((k = 1; k < BRANCHES; k++)); do echo "url = \"$SIM/_sim/repos/many/r$i/branch?name=b$k&back=$((k * 2))\""; done
done > "$WORK/branches.curl"
curl -sf -X POST --parallel --parallel-max 8 -K "$WORK/branches.curl" > /dev/null

{
    echo "store: $PWD/$WORK/commits.sqlite"
    echo "api_url: $SIM"
    echo "token_file: $PWD/$WORK/token"
    echo "default_interval: ${INTERVAL}s"
    echo "rate_limit_reserve: 0"
    echo "log_level: warning"
    echo "repositories:"
    for ((i = 1; i <= N; i++)); do printf '  - name: many/r%d\n    branches: "*"\n' "$i"; done
} > "$WORK/config.yaml"

stats() { curl -sf "$SIM/_sim/stats"; }
points() { jq '[.rateLimitUsed[]] | add // 0'; }
complete() { sqlite3 "$WORK/commits.sqlite" "SELECT count(*) FROM sync_state WHERE complete = 1" 2> /dev/null || echo 0; }
ticks() { awk '{ print $14 + $15 }' "/proc/$DAEMON_PID/stat"; }
TICK=$(getconf CLK_TCK)
# wait_until CONDITION SECONDS: polls the shell CONDITION every SECONDS while the daemon runs.
wait_until() {
    until eval "$1"; do
        kill -0 "$DAEMON_PID" 2> /dev/null || { tail -5 "$WORK/daemon.err" >&2; exit 1; }
        sleep "$2"
    done
}

log "round 1: first syncs of $((N * BRANCHES)) branches"
curl -sf -X POST "$SIM/_sim/reset-stats" > /dev/null
start=$(now)
"$BIN/commitsd" --config "$WORK/config.yaml" > "$WORK/daemon.out" 2> "$WORK/daemon.err" &
DAEMON_PID=$!
wait_until '[ "$(complete)" -ge $((N * BRANCHES)) ]' 1
first_wall=$(calc "$(now) - $start")
first=$(stats)
first_cpu=$(calc "$(ticks) / $TICK")
log "  $((N * BRANCHES)) branches complete in ${first_wall}s: $(jq -c '{requests, ok, notModified, gitRequests, listRequests}' <<< "$first")"

# The same daemon's next round: every repository listed again (its ETags sent)
# and every branch probed, as their interval comes.
log "round 2: the idle round ($((N * (BRANCHES + 1))) requests)"
curl -sf -X POST "$SIM/_sim/reset-stats" > /dev/null
cpu_before=$(ticks)
start=$(now)
wait_until '[ "$(stats | jq .requests)" -ge $((N * (BRANCHES + 1))) ]' 0.5
idle_wall=$(calc "$(now) - $start")
idle=$(stats)
idle_cpu=$(calc "($(ticks) - $cpu_before) / $TICK")
rss=$(awk '/^VmHWM/ { printf "%.1f", $2 / 1024 }' "/proc/$DAEMON_PID/status")
log "  idle round: $(jq -c '{requests, ok, notModified, gitRequests, listRequests}' <<< "$idle"), $(points <<< "$idle") points"

cat << EOF
## Every branch: an idle round over $(printf "%'d" "$N") repositories × $BRANCHES branches (Benchmarks/branches-idle.sh)

One \`commitsd\` (SQLite store, one token) mirroring $(printf "%'d" "$N") repositories of $COMMITS
commits on github-sim, each with $BRANCHES branches and \`branches: "*"\` in the
configuration, interval ${INTERVAL} s. Round 1: every repository's branches listed
and read over git in one fetch, then each branch probed. Round 2: the same
daemon's next interval, nothing moved, counted until $(printf "%'d" $((N * (BRANCHES + 1)))) requests (a
listing and $BRANCHES probes per repository). CPU is the daemon's user+system time.

| round | requests | 200 | 304 | points | git requests | commit listings | wall time | daemon CPU |
|---|---:|---:|---:|---:|---:|---:|---:|---:|
| 1: first syncs | $(jq .requests <<< "$first") | $(jq .ok <<< "$first") | $(jq .notModified <<< "$first") | $(points <<< "$first") | $(jq .gitRequests <<< "$first") | $(jq .listRequests <<< "$first") | $(printf %.1f "$first_wall") s | $(printf %.1f "$first_cpu") s |
| 2: idle | $(jq .requests <<< "$idle") | $(jq .ok <<< "$idle") | $(jq .notModified <<< "$idle") | **$(points <<< "$idle")** | $(jq .gitRequests <<< "$idle") | $(jq .listRequests <<< "$idle") | $(printf %.1f "$idle_wall") s | $(printf %.1f "$idle_cpu") s |

Peak resident memory of the daemon: $rss MB.
EOF
