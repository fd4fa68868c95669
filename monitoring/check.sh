#!/usr/bin/env bash
# The alerting rules and the dashboard, checked with the real tools (docs/MONITORING.md):
#   monitoring/check.sh              promtool check rules, promtool test rules, the dashboard's shape
#   monitoring/check.sh --live BIN   and then github-sim, commitsd (webhooks on) and Prometheus on
#                                    loopback, from BIN (e.g. .build/release): every rule evaluated
#                                    with health ok, every dashboard query answered with data
#                                    (the lease panel's need only evaluate: no shared queue here)
# promtool and prometheus are Debian's `prometheus` package (.ci/install-deps installs it).
set -euo pipefail
live=${1:-}
[[ $live != --live ]] || bin=$(cd "${2:?--live needs the directory of the built commitsd and github-sim}" && pwd)
cd "$(dirname "$0")"
say() { echo "monitoring: $*"; }
fail() { say "FAILED: $*"; exit 1; }
command -v promtool >/dev/null || fail "no promtool: install Debian's prometheus package (.ci/install-deps)"
work=$(mktemp -d)
pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

promtool check rules commits-mirror.rules.yml
promtool test rules commits-mirror.rules.test.yml
# Every panel query reads the data source variable, and parses as PromQL (promtool checks it
# as a rule's expression once Grafana's variables are substituted).
python3 - grafana-dashboard.json >"$work/dashboard-rules.yml" <<'PY'
import json, sys
dashboard = json.load(open(sys.argv[1], encoding="utf-8"))
names = [v["name"] for v in dashboard["templating"]["list"]]
assert "datasource" in names, "the dashboard has no datasource variable"
print("groups:\n  - name: dashboard\n    rules:")
count = 0
for panel in dashboard["panels"]:
    for target in panel.get("targets", []):
        for holder in (panel, target):
            uid = holder.get("datasource", {}).get("uid")
            assert uid == "${datasource}", f"{panel['title']}: data source {uid}, not the variable"
        expr = target["expr"].replace("$instance", ".*").replace("$__rate_interval", "1m")
        count += 1
        print(f"      - record: dashboard:query{count}\n        expr: {json.dumps(expr)}")
assert count > 0, "the dashboard has no queries"
PY
promtool check rules "$work/dashboard-rules.yml" >/dev/null \
    || { promtool check rules "$work/dashboard-rules.yml"; fail "a dashboard query is not valid PromQL"; }
# The example scrape configuration, naming the rules where this checkout has them.
sed "s#/usr/share/commits-mirror/monitoring/#$PWD/#" prometheus.example.yml >"$work/prometheus.example.yml"
promtool check config "$work/prometheus.example.yml" >/dev/null \
    || { promtool check config "$work/prometheus.example.yml"; fail "prometheus.example.yml"; }
say "rules, rule tests, dashboard queries and the example configuration valid"

[[ $live == --live ]] || exit 0
command -v prometheus >/dev/null || fail "no prometheus: install Debian's prometheus package (.ci/install-deps)"
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
metrics_port=$(free_port) webhook_port=$(free_port)
(umask 077; od -An -N16 -tx1 /dev/urandom | tr -d ' \n' >"$work/webhook-secret")
"$bin/github-sim" --synthetic acme/widgets=300:3 --head-back acme/widgets=10 \
    --webhook-url "http://127.0.0.1:$webhook_port/webhook" --webhook-secret-file "$work/webhook-secret" \
    >"$work/sim.url" 2>"$work/sim.log" &
pids+=($!)
for _ in $(seq 100); do [[ -s $work/sim.url ]] && break; sleep 0.1; done
api=$(head -1 "$work/sim.url") || true
[[ -n $api ]] || fail "github-sim did not start: $(cat "$work/sim.log")"
cat >"$work/config.yaml" <<YAML
store: $work/commits.sqlite
api_url: $api
default_interval: 1h
metrics_listen: 127.0.0.1:$metrics_port
webhook_listen: 127.0.0.1:$webhook_port
webhook_secret_file: $work/webhook-secret
repositories:
  - acme/widgets
YAML
GITHUB_TOKEN=monitoring-check-token "$bin/commitsd" --config "$work/config.yaml" >"$work/commitsd.log" 2>&1 &
pids+=($!)
# The first sync, then a push: github-sim delivers it signed, commitsd syncs the branch at once.
for _ in $(seq 300); do grep -q 'commits_mirror_syncs_total{repository="acme/widgets",outcome="success"} [1-9]' \
    <(curl -fsS "http://127.0.0.1:$metrics_port/metrics" 2>/dev/null) && break; sleep 0.2; done
curl -fsS -X POST "$api/_sim/repos/acme/widgets/head?forward=5" >/dev/null || fail "github-sim did not move the head"
# Not exercised here: the shared queue's lease metrics (a PostgreSQL store shared by daemons).
python3 check-live.py "127.0.0.1:$metrics_port" commits-mirror.rules.yml grafana-dashboard.json \
    --timeout 90 --unexercised commits_mirror_lease \
    || { tail -n 5 "$work/sim.log" "$work/commitsd.log"; fail "the live check"; }
say "live: Prometheus scraped commitsd; rules and dashboard queries answered"
