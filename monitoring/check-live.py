#!/usr/bin/env python3
"""Starts a real Prometheus (Debian's package) on loopback scraping a running
commitsd's /metrics every second as job="commitsd" with the rules loaded, and
checks that every rule group is evaluated with health "ok" and every dashboard
query is valid and answered with data. Used by monitoring/check.sh --live and
by Tests/System/run.sh.

  check-live.py METRICS_ADDRESS RULES DASHBOARD [--timeout S] [--unexercised PREFIX,...]

METRICS_ADDRESS is commitsd's metrics_listen (HOST:PORT).

--unexercised names metric prefixes the run does not exercise (e.g. the
webhook metrics where no webhook_listen is set): queries reading only those
must evaluate without error but may return no data; each is listed.
"""
import argparse
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

# What Grafana substitutes before a query is sent; the rate window covers several 1 s scrapes.
GRAFANA_VARIABLES = {"$instance": ".*", "$__rate_interval": "1m"}


def get(base, path, **params):
    url = base.rstrip("/") + path + ("?" + urllib.parse.urlencode(params) if params else "")
    with urllib.request.urlopen(url, timeout=10) as response:
        return json.load(response)


def eventually(timeout, probe):
    """probe() -> (done, detail); polls until done or the deadline, then returns the last detail."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            done, detail = probe()
        except OSError as error:  # Prometheus not listening yet
            done, detail = False, str(error)
        if done or time.monotonic() >= deadline:
            return done, detail
        time.sleep(0.5)


def scraped(base):
    result = get(base, "/api/v1/query", query='up{job="commitsd"}')["data"]["result"]
    return any(sample["value"][1] == "1" for sample in result), f"up{{job=\"commitsd\"}}: {result}"


def rules_evaluated(base, groups, alerts):
    answered = {group["name"]: group for group in get(base, "/api/v1/rules")["data"]["groups"]}
    missing = [name for name in groups if name not in answered]
    if missing:
        return False, f"rule groups not loaded: {missing}"
    rules = [rule for name in groups for rule in answered[name]["rules"]]
    failed = [f"{rule['name']}: {rule.get('lastError', '')}" for rule in rules if rule["health"] == "err"]
    if failed:
        return True, "rules failed: " + "; ".join(failed)
    pending = [rule["name"] for rule in rules if rule["health"] != "ok"]
    if pending or len(rules) != alerts:
        return False, f"{len(rules)} of {alerts} rules loaded, not yet evaluated: {pending}"
    return True, ""


def answered(base, expr):
    try:
        reply = get(base, "/api/v1/query", query=expr)
    except urllib.error.HTTPError as error:
        return True, f"error: {json.load(error).get('error', error)}"
    return bool(reply["data"]["result"]), f"{len(reply['data']['result'])} series"


PROMETHEUS_CONFIGURATION = """global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files:
  - {rules}
scrape_configs:
  - job_name: commitsd
    static_configs:
      - targets: ["{target}"]
"""


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("target")
    parser.add_argument("rules")
    parser.add_argument("dashboard")
    parser.add_argument("--timeout", type=float, default=60)
    parser.add_argument("--unexercised", default="")
    options = parser.parse_args()
    work = tempfile.mkdtemp(prefix="commits-mirror-prometheus.")
    with open(os.path.join(work, "prometheus.yml"), "w", encoding="utf-8") as configuration:
        configuration.write(PROMETHEUS_CONFIGURATION.format(rules=os.path.abspath(options.rules), target=options.target))
    port = free_port()
    log = open(os.path.join(work, "log"), "w+", encoding="utf-8")
    server = subprocess.Popen(
        ["prometheus", f"--config.file={work}/prometheus.yml", f"--storage.tsdb.path={work}/data",
         f"--web.listen-address=127.0.0.1:{port}"], stdout=log, stderr=subprocess.STDOUT)
    try:
        failures = check(f"http://127.0.0.1:{port}", options)
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        log.seek(0)
        tail = log.read().splitlines()[-3:]
        log.close()
        shutil.rmtree(work, ignore_errors=True)
    if failures:
        sys.exit("check-live: FAILED:\n  " + "\n  ".join(failures + ["prometheus: " + line for line in tail]))


def check(base, options):
    """What failed, as lines; empty when every rule and query passed."""
    unexercised = [prefix for prefix in options.unexercised.split(",") if prefix]
    rules_text = open(options.rules, encoding="utf-8").read()
    groups = re.findall(r"^  - name: (\S+)$", rules_text, re.MULTILINE)
    alerts = len(re.findall(r"^      - alert: ", rules_text, re.MULTILINE))
    failures = []

    done, detail = eventually(options.timeout, lambda: scraped(base))
    if not done:
        return [f"Prometheus never scraped commitsd: {detail}"]
    done, detail = eventually(options.timeout, lambda: rules_evaluated(base, groups, alerts))
    if not done or detail:
        failures.append(detail or "rules never evaluated")
    else:
        print(f"check-live: {alerts} rules in {len(groups)} group(s) evaluated, health ok")

    dashboard = json.load(open(options.dashboard, encoding="utf-8"))
    targets = [(panel["title"], target["expr"]) for panel in dashboard["panels"] for target in panel.get("targets", [])]
    with_data = 0
    # One deadline for every query: after a failure the others are not waited out one by one.
    deadline = time.monotonic() + options.timeout
    for title, expr in targets:
        for variable, value in GRAFANA_VARIABLES.items():
            expr = expr.replace(variable, value)
        names = set(re.findall(r"\bcommits_mirror_[a-z_]+", expr))
        optional = bool(names) and all(any(name.startswith(prefix) for prefix in unexercised) for name in names)
        # A rate needs two scrapes in its window: wait for data rather than judge the first answer.
        # A query of metrics the run does not exercise is asked once: it need only evaluate.
        left = max(0, deadline - time.monotonic())
        done, detail = eventually(0 if optional else left, lambda: answered(base, expr))
        if detail.startswith("error:"):
            failures.append(f"{title}: {expr}: {detail}")
        elif done:
            with_data += 1
        elif optional:
            print(f"check-live: no data (not exercised in this run): {title}: {expr}")
        else:
            failures.append(f"{title}: {expr}: no data")
    print(f"check-live: {with_data} of {len(targets)} dashboard queries returned data")
    return failures


if __name__ == "__main__":
    main()
