#!/usr/bin/env bash
# Issue #28 acceptance 1 at full length: commitsd with a GitHub App against a
# github-sim whose installation tokens live 20 s, polling and syncing several
# repositories for 90 s while their heads move. (The CI test,
# CommitsdAppTests, runs the same with 4 s tokens for about 13 s.)
#
#   Benchmarks/app-token-rotation.sh
#   LIFETIME=20 DURATION=90 Benchmarks/app-token-rotation.sh
#   SCRATCH=.build-static Benchmarks/app-token-rotation.sh   # reuse make deb's build
#
# 1. Builds github-sim, commitsd and commitsctl in release (static Swift runtime).
# 2. Makes an RSA key (openssl, PKCS#1 as GitHub hands it out) and starts
#    github-sim in App mode with it: installation 678 on acme, tokens living
#    LIFETIME seconds, and an empty tokens file, so no personal token works.
# 3. Starts commitsd (`github_app`, `acme/*`, polling every 2 s, log at trace)
#    and, every 5 s for DURATION seconds, moves each repository's head forward.
# 4. Waits for every head to be stored, stops commitsd, and prints: tokens
#    issued, 401s to expired tokens (each answered by a new token), requests
#    with and without Authorization, errors other than those 401s, commits
#    stored against commits served, and where a token, JWT or key was found
#    (the log, the store, status --json, /metrics, argv, environment).
#
# Exit status: 0 when every check holds. This is a benchmark, not a test.
set -euo pipefail

cd "$(dirname "$0")/.."
LIFETIME=${LIFETIME:-20}
DURATION=${DURATION:-90}
SCRATCH=${SCRATCH:-.build-bench-static}
FLAGS=(--static-swift-stdlib)
REPOSITORIES=(alpha=2000 beta=1200 gamma=800 delta=400)
STEP=10 # commits each head moves every 5 s
MOVES=$((DURATION / 5))

echo "== building (release, scratch path $SCRATCH, ${FLAGS[*]})" >&2
for product in github-sim commitsd commitsctl; do
    swift build -c release "${FLAGS[@]}" --scratch-path "$SCRATCH" --product "$product" >&2
done
BIN=$(swift build -c release "${FLAGS[@]}" --scratch-path "$SCRATCH" --show-bin-path)

WORK=$(mktemp -d)
SIM_PID=
DAEMON_PID=
cleanup() {
    [ -n "$DAEMON_PID" ] && kill "$DAEMON_PID" 2>/dev/null && wait "$DAEMON_PID" 2>/dev/null
    [ -n "$SIM_PID" ] && kill "$SIM_PID" 2>/dev/null && wait "$SIM_PID" 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT

(umask 077 && openssl genrsa -traditional -out "$WORK/app.pem" 2048 2>/dev/null)
: > "$WORK/no-tokens"
sim_args=()
for entry in "${REPOSITORIES[@]}"; do
    sim_args+=(--synthetic "acme/$entry" --head-back "acme/${entry%=*}=$((MOVES * STEP))")
done
"$BIN/github-sim" "${sim_args[@]}" --app-id 4242 --app-key-file "$WORK/app.pem" --app-installation 678=acme \
    --app-token-lifetime-seconds "$LIFETIME" --tokens-file "$WORK/no-tokens" > "$WORK/sim.out" 2> "$WORK/sim.log" &
SIM_PID=$!
for _ in $(seq 100); do [ -s "$WORK/sim.out" ] && break; sleep 0.1; done
SIM=$(head -n 1 "$WORK/sim.out")
METRICS_PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

cat > "$WORK/config.yaml" << YAML
store: $WORK/commits.sqlite
api_url: $SIM
default_interval: 2s
metrics_listen: 127.0.0.1:$METRICS_PORT
github_app:
  app_id: 4242
  private_key_file: $WORK/app.pem
repositories:
  - acme/*
YAML
env -u GITHUB_TOKEN -u GH_TOKEN "$BIN/commitsd" --config "$WORK/config.yaml" --log-level trace 2> "$WORK/commitsd.log" &
DAEMON_PID=$!

move() { curl -fsS -X POST "$SIM/_sim/repos/acme/$1/head?forward=$2" | python3 -c 'import json, sys; print(json.load(sys.stdin)["head"])'; }
echo "== $DURATION s: tokens live $LIFETIME s; every 5 s each head moves $STEP commits" >&2
started=$(date +%s)
for i in $(seq "$MOVES"); do
    sleep $((started + i * 5 - $(date +%s) > 0 ? started + i * 5 - $(date +%s) : 0))
    for entry in "${REPOSITORIES[@]}"; do move "${entry%=*}" "$STEP" > "$WORK/head-${entry%=*}"; done
done

echo "== waiting for every commit served to be stored" >&2
stored_all() {
    "$BIN/commitsctl" status --db "$WORK/commits.sqlite" --json > "$WORK/status.json" 2> /dev/null || return 1
    python3 -c '
import json, sys
rows = {row["repository"]: row["commits"] for row in json.load(open(sys.argv[1]))}
sys.exit(0 if all(rows.get("acme/" + e.split("=")[0]) == int(e.split("=")[1]) for e in sys.argv[2:]) else 1)' \
        "$WORK/status.json" "${REPOSITORIES[@]}"
}
for _ in $(seq 600); do stored_all && break; sleep 0.1; done
stored_all || echo "not every commit was stored within 60 s of the last move" >&2
elapsed=$(($(date +%s) - started))

curl -fsS "http://127.0.0.1:$METRICS_PORT/metrics" > "$WORK/metrics.txt"
tr '\0' '\n' < "/proc/$DAEMON_PID/cmdline" > "$WORK/argv.txt"
tr '\0' '\n' < "/proc/$DAEMON_PID/environ" > "$WORK/environ.txt"
"$BIN/commitsctl" status --db "$WORK/commits.sqlite" --json > "$WORK/status.json"
kill -TERM "$DAEMON_PID" && wait "$DAEMON_PID" || { echo "commitsd did not stop cleanly" >&2; exit 1; }
DAEMON_PID=
curl -fsS "$SIM/_sim/stats" > "$WORK/stats.json"

python3 - "$WORK" "$elapsed" "$LIFETIME" "${REPOSITORIES[@]}" << 'PY'
import json, pathlib, re, sys
work, elapsed, lifetime, repositories = pathlib.Path(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4:]
stats = json.loads((work / "stats.json").read_text())
status = {row["repository"]: row for row in json.loads((work / "status.json").read_text())}
log = (work / "commitsd.log").read_text(errors="replace")
issued, refusals = stats["appTokensIssued"], stats["expiredTokenRefusals"]
requests, authorized, errors = stats["requests"], stats["authorizationHeadersSeen"], stats["errors"]
failures = [line for line in log.splitlines() if "sync failed" in line or "discovery failed" in line]

served = {f"acme/{entry.split('=')[0]}": int(entry.split("=")[1]) for entry in repositories}
commits = {name: status.get(name, {}).get("commits") for name in served}
exact = all(commits[name] == count for name, count in served.items())

key_lines = [line for line in (work / "app.pem").read_text().splitlines() if line and not line.startswith("-----")]
secret = re.compile(r"ghs_[A-Za-z0-9]{8,}|eyJ[A-Za-z0-9_-]{8,}\.eyJ|BEGIN (RSA )?PRIVATE KEY")
places = {"log": log, "status --json": (work / "status.json").read_text(), "/metrics": (work / "metrics.txt").read_text(),
          "argv": (work / "argv.txt").read_text(), "environment": (work / "environ.txt").read_text(errors="replace")}
places["store"] = "".join(p.read_bytes().decode("utf-8", "replace") for p in work.glob("commits.sqlite*") if p.is_file())
leaks = [place for place, text in places.items() if secret.search(text) or any(line in text for line in key_lines)]

print(f"app tokens over {elapsed} s, {len(served)} repositories, tokens living {lifetime} s:")
print(f"  installation tokens issued: {issued} (needed: >= 4)")
print(f"  401s to expired tokens, each retried with a new token: {refusals}; other errors: {errors - refusals}; "
      f"syncs failed: {len(failures)}")
print(f"  API requests: {requests}, with Authorization: {authorized}; JWTs refused: {stats['jwtRefusals']}")
print("  commits stored / served: " + ", ".join(f"{name} {commits[name]}/{count}" for name, count in served.items())
      + (" (exact)" if exact else " (NOT exact)"))
print(f"  token, JWT or key found in: {', '.join(leaks) if leaks else 'nothing (log at trace, store, status --json, /metrics, argv, environment)'}")
ok = issued >= 4 and errors == refusals and not failures and requests == authorized and exact and not leaks \
    and stats["jwtRefusals"] == 0
sys.exit(0 if ok else 1)
PY
