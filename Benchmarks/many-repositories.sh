#!/usr/bin/env bash
# One commitsd mirroring many repositories on github-sim (issue #13): the first
# round (every repository's first sync) and an idle round (nothing moved), with
# the requests and rate-limit points of each, its wall time, the daemon's CPU
# time and its peak resident memory.
#
#   Benchmarks/many-repositories.sh                        # 10,000 repositories of 20 commits
#   REPOSITORIES=1000 COMMITS=300 Benchmarks/many-repositories.sh
#
# Writes a Markdown section to stdout (Benchmarks/run puts it in BENCHMARKS.md);
# progress goes to stderr. The daemon first runs with a one-hour interval, so the
# first round (every repository due at once) runs alone. It is then stopped and
# started again with a 10-second interval: the daemon spreads the repositories
# over the interval, so that round is as fast as the daemon can poll (at most
# 1,000 a second) and its wall time shows whether it keeps up.
set -euo pipefail

cd "$(dirname "$0")/.."
source Benchmarks/lib.sh
N=${REPOSITORIES:-10000}
COMMITS=${COMMITS:-20}
SCRATCH=${SCRATCH:-.build-bench-static}
WORK=Benchmarks/work/many
TOKEN=benchmark-token

build_products github-sim commitsd

rm -rf "$WORK"
mkdir -p "$WORK"
printf '%s' "$TOKEN" > "$WORK/token"
chmod 600 "$WORK/token"

SIM_PID= DAEMON_PID=
cleanup() {
    [ -n "$DAEMON_PID" ] && kill "$DAEMON_PID" 2> /dev/null && wait "$DAEMON_PID" 2> /dev/null
    [ -n "$SIM_PID" ] && kill "$SIM_PID" 2> /dev/null && wait "$SIM_PID" 2> /dev/null
    true
}
trap cleanup EXIT

log "github-sim with $N repositories of $COMMITS commits"
args=()
for ((i = 1; i <= N; i++)); do args+=(--synthetic "many/r$i=$COMMITS:$i"); done
start_sim "${args[@]}"

write_config() {  # INTERVAL
    {
        echo "store: $PWD/$WORK/commits.sqlite"
        echo "api_url: $SIM"
        echo "token_file: $PWD/$WORK/token"
        echo "default_interval: $1"
        echo "rate_limit_reserve: 0"
        echo "log_level: warning"
        echo "repositories:"
        for ((i = 1; i <= N; i++)); do echo "  - many/r$i"; done
    } > "$WORK/config.yaml.tmp"
    mv "$WORK/config.yaml.tmp" "$WORK/config.yaml"
}
stats() { curl -sf "$SIM/_sim/stats"; }
points() { jq '[.rateLimitUsed[]] | add // 0'; }
ticks() { awk '{ print $14 + $15 }' "/proc/$DAEMON_PID/stat"; }
synced() { sqlite3 "$WORK/commits.sqlite" "SELECT count(*) FROM sync_state WHERE last_success_at IS NOT NULL" 2> /dev/null || echo 0; }
now() { date +%s.%N; }
TICK=$(getconf CLK_TCK)

# round INTERVAL DONE-CONDITION POLL-SECONDS: starts the daemon with INTERVAL and waits
# until DONE-CONDITION (a shell command) holds; sets WALL, CPU, STATS and RSS (MB).
round() {
    write_config "$1"
    curl -sf -X POST "$SIM/_sim/reset-stats" > /dev/null
    local start
    start=$(now)
    "$BIN/commitsd" --config "$WORK/config.yaml" > "$WORK/daemon.out" 2>> "$WORK/daemon.err" &
    DAEMON_PID=$!
    until eval "$2"; do
        kill -0 "$DAEMON_PID" 2> /dev/null || { tail -5 "$WORK/daemon.err" >&2; exit 1; }
        sleep "$3"
    done
    WALL=$(calc "$(now) - $start")
    CPU=$(calc "$(ticks) / $TICK")
    STATS=$(stats)
    RSS=$(awk '/^VmHWM/ { printf "%.1f", $2 / 1024 }' "/proc/$DAEMON_PID/status")
    kill "$DAEMON_PID"
    wait "$DAEMON_PID" || true
    DAEMON_PID=
}

log "round 1: first syncs"
round 1h '[ "$(synced)" -ge "$N" ]' 1
first_wall=$WALL first_cpu=$CPU first=$STATS first_rss=$RSS
log "  $N repositories in ${first_wall}s"

log "round 2: idle polls"
round 10s '[ "$(stats | jq .requests)" -ge "$N" ]' 0.05
idle_wall=$WALL idle_cpu=$CPU idle=$STATS idle_rss=$RSS
log "  idle round: $(jq .requests <<< "$idle") requests in ${idle_wall}s"
peak_rss=$(calc "max($first_rss, $idle_rss)")
log "  idle round: $(jq .requests <<< "$idle") requests in ${idle_wall}s"

cat << EOF
## Many repositories in one daemon

One \`commitsd\` mirroring $(printf "%'d" "$N") repositories of $COMMITS commits each
(\`github-sim --synthetic many/rI=$COMMITS:I\`), listed in its configuration, one
request at a time on one token (\`Benchmarks/many-repositories.sh\`). Round 1 is
every repository's first sync; round 2 the idle round of a daemon started again
with a 10-second interval, over which it spreads the repositories (every head
unchanged): its wall time is 10 s when the daemon keeps up, more when it cannot.
Requests and points as the simulator counted them (round 2 until its $N-th
request was seen, so a few polls of the next round may be in it); CPU is the
daemon's user+system time, start-up included.

| round | requests | 200 | 304 | points | wall time | daemon CPU |
|---|---:|---:|---:|---:|---:|---:|
| 1: first syncs | $(jq .requests <<< "$first") | $(jq .ok <<< "$first") | $(jq .notModified <<< "$first") | $(points <<< "$first") | $(printf %.1f "$first_wall") s | $(printf %.1f "$first_cpu") s |
| 2: idle | $(jq .requests <<< "$idle") | $(jq .ok <<< "$idle") | $(jq .notModified <<< "$idle") | $(points <<< "$idle") | $(printf %.1f "$idle_wall") s | $(printf %.1f "$idle_cpu") s |

Peak resident memory of the daemon over both rounds: **$peak_rss MB**
(issue #13's target: ≤ 64 MB at 10,000 repositories).
EOF
