#!/usr/bin/env bash
# Several commitsd sharing one PostgreSQL store (issue #27): the first syncs of
# many small repositories under one organisation, from a github-sim that answers
# every request after LATENCY milliseconds (a network's round trip), by one
# daemon and then by three on a new database, each daemon with a token of its
# own; then an idle round (every head unchanged) of the three. Side by side in
# one run: wall time, throughput (repositories/s) and the ratio 3 / 1 (goal:
# >= 2.5), requests and rate-limit points, and the CPU of the daemons
# and of the PostgreSQL server.
#
#   Benchmarks/several-daemons.sh                         # 600 repositories, 100 ms
#   REPOSITORIES=120 LATENCY=50 Benchmarks/several-daemons.sh
#
# Writes a Markdown section to stdout; progress goes to stderr.
set -euo pipefail

cd "$(dirname "$0")/.."
source Benchmarks/lib.sh
N=${REPOSITORIES:-600}
COMMITS=${COMMITS:-250}
LATENCY=${LATENCY:-100}
SCRATCH=${SCRATCH:-.build-bench-static}
WORK=$PWD/Benchmarks/work/several-daemons
now() { date +%s.%N; }
TICK=$(getconf CLK_TCK)

build_products github-sim commitsd commitsctl

rm -rf "$WORK"
mkdir -p "$WORK"
for i in 1 2 3; do
    printf 'benchmark-token-%s' "$i" > "$WORK/token$i"
    chmod 600 "$WORK/token$i"
    printf 'benchmark-token-%s\n' "$i" >> "$WORK/tokens"
done

SIM_PID= DAEMONS=()
cleanup() {
    for pid in "${DAEMONS[@]}"; do kill "$pid" 2> /dev/null || true; done
    [ -n "$SIM_PID" ] && kill "$SIM_PID" 2> /dev/null
    wait 2> /dev/null || true
    stop_postgresql
}
trap cleanup EXIT
start_postgresql "max_connections = 200"
# The server's CPU: its postmaster's own and that of the backends it has reaped (every daemon stopped).
server_cpu() { awk -v t="$TICK" '{ print ($14 + $15 + $16 + $17) / t }' "/proc/$(head -1 "$PGDIR/data/postmaster.pid")/stat"; }

log "github-sim: $N repositories of $COMMITS commits under acme/, $LATENCY ms per answer"
args=()
for ((i = 1; i <= N; i++)); do args+=(--synthetic "acme/r$i=$COMMITS:$i"); done
start_sim --latency-ms "$LATENCY" --tokens-file "$WORK/tokens" "${args[@]}"
stats() { curl -sf "$SIM/_sim/stats"; }

# write_config DATABASE I INTERVAL: daemon I's configuration (its own name, token and metrics port).
write_config() {
    cat > "$WORK/config$2.yaml" << YAML
name: daemon-$2
store: postgresql:///$1?host=$PGDIR&port=$PORT&user=postgres
api_url: $SIM
token_file: $WORK/token$2
default_interval: $3
rate_limit_reserve: 0
log_level: warning
repositories:
  - acme/*
YAML
}
synced() { psql -d "$1" -c "SELECT count(*) FROM sync_state WHERE complete AND last_success_at IS NOT NULL" 2> /dev/null || echo 0; }
daemon_cpu() {
    local total=0
    for pid in "${DAEMONS[@]}"; do total=$(calc "$total + $(awk '{ print $14 + $15 }' "/proc/$pid/stat") / $TICK"); done
    echo "$total"
}
stop_daemons() {
    for pid in "${DAEMONS[@]}"; do kill "$pid"; done
    for pid in "${DAEMONS[@]}"; do wait "$pid" || true; done
    DAEMONS=()
}

# first_round DATABASE DAEMONS: starts DAEMONS daemons on a new database and waits
# until every repository is synced; sets WALL, DAEMON_CPU, SERVER_CPU and STATS.
first_round() {
    psql -d postgres -c "CREATE DATABASE $1" > /dev/null
    curl -sf -X POST "$SIM/_sim/reset-stats" > /dev/null
    local server_before start
    server_before=$(server_cpu)
    start=$(now)
    for ((d = 1; d <= $2; d++)); do
        write_config "$1" "$d" 1h
        "$BIN/commitsd" --config "$WORK/config$d.yaml" > "$WORK/daemon$d.out" 2>> "$WORK/daemon$d.err" &
        DAEMONS+=($!)
    done
    until [ "$(synced "$1")" -ge "$N" ]; do
        for pid in "${DAEMONS[@]}"; do kill -0 "$pid" 2> /dev/null || { tail -5 "$WORK"/daemon*.err >&2; exit 1; }; done
        sleep 0.5
    done
    WALL=$(calc "$(now) - $start")
    STATS=$(stats)
    DAEMON_CPU=$(daemon_cpu)
    stop_daemons
    SERVER_CPU=$(calc "$(server_cpu) - $server_before")
}

log "one daemon"
first_round one 1
one_wall=$WALL one_stats=$STATS one_daemon_cpu=$DAEMON_CPU one_server_cpu=$SERVER_CPU
log "  $N repositories in ${one_wall}s"
log "three daemons"
first_round three 3
three_wall=$WALL three_stats=$STATS three_daemon_cpu=$DAEMON_CPU three_server_cpu=$SERVER_CPU
log "  $N repositories in ${three_wall}s"
# Acceptance 1 of #27: every repository ends exact on both databases.
for db in one three; do
    "$BIN/commitsctl" check --db "postgresql:///$db?host=$PGDIR&port=$PORT&user=postgres" > "$WORK/check-$db.out" 2>&1 \
        || { echo "check failed on $db:" >&2; tail -5 "$WORK/check-$db.out" >&2; exit 1; }
done

# The idle round: the three again on the synced database, every repository due at
# once (a 10-second interval), until each has been polled once more.
log "idle round"
curl -sf -X POST "$SIM/_sim/reset-stats" > /dev/null
psql -d three -c "UPDATE sync_leases SET due_at = now()" > /dev/null
for d in 1 2 3; do
    write_config three "$d" 1h
    "$BIN/commitsd" --config "$WORK/config$d.yaml" > "$WORK/daemon$d.out" 2>> "$WORK/daemon$d.err" &
    DAEMONS+=($!)
done
until [ "$(stats | jq .requests)" -ge "$N" ]; do sleep 0.2; done
idle_stats=$(stats)
stop_daemons

# github-sim counts points by kind of caller (authenticated or not), not by token.
points() { jq '[.rateLimitUsed[]] | add // 0'; }
cat << EOF
## Several daemons on one PostgreSQL store (Benchmarks/several-daemons.sh)

First syncs of $(printf "%'d" "$N") repositories of $COMMITS commits (\`acme/*\`, discovered) from a github-sim
answering after $LATENCY ms, into a new database on PostgreSQL $PGVERSION on this machine (Unix socket), by one
\`commitsd\` and then by three on another new database, one token each; every daemon at its default concurrency.
CPU is user+system seconds (the server's: its postmaster and every backend, reaped). Load average at end: $(cut -d' ' -f1-3 /proc/loadavg).

| daemons | wall time | repositories/s | requests | points (all tokens) | daemons' CPU | server CPU |
|---:|---:|---:|---:|---|---:|---:|
| 1 | $(printf %.1f "$one_wall") s | $(calc "round($N / $one_wall, 1)") | $(jq .requests <<< "$one_stats") | $(points <<< "$one_stats") | $(printf %.1f "$one_daemon_cpu") s | $(printf %.1f "$one_server_cpu") s |
| 3 | $(printf %.1f "$three_wall") s | $(calc "round($N / $three_wall, 1)") | $(jq .requests <<< "$three_stats") | $(points <<< "$three_stats") | $(printf %.1f "$three_daemon_cpu") s | $(printf %.1f "$three_server_cpu") s |

Three daemons against one: **$(calc "round($one_wall / $three_wall, 2)")×** the throughput (goal: ≥ 2.5×), with
$(calc "round(100 * ($(jq .requests <<< "$three_stats") - $(jq .requests <<< "$one_stats")) / $(jq .requests <<< "$one_stats"), 1)") % more requests than one (goal: within 10 %).
\`commitsctl check\` exits 0 on both databases (every repository exact).
The idle round of the three (every head unchanged, every repository due): $(jq .requests <<< "$idle_stats") requests,
$(jq .notModified <<< "$idle_stats") answered 304, points spent: $(points <<< "$idle_stats") (goal: 0 on every token).
EOF
