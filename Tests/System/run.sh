#!/usr/bin/env bash
# The package under a real systemd (docs/SERVICE.md, "Install"): a minimal
# Debian 12 root made by debootstrap (cached outside the clone between runs),
# `apt-get install ./commits-mirror_*.deb` inside it, booted with
# `systemd-nspawn -b` on the host's network so it reaches a github-sim on the
# host's loopback, and driven from outside with nsenter. Checks: the service
# becomes active without a warning and syncs; `systemctl reload` applies a
# changed configuration; /metrics answers; a member of the commits-mirror group
# reads the store with commitsd stopped; `systemctl stop` takes seconds; the
# timer runs a one-shot sync; docs/GITHUB-APP.md's drop-in for a GitHub App key (LoadCredential=
# github-app-key) mirrors from a github-sim in App mode; docs/POSTGRESQL.md's drop-in for a
# PostgreSQL store (LoadCredential=postgresql-password) mirrors into a PostgreSQL 15 on the host's
# loopback, and the host's Prometheus scrapes that commitsd with the packaged alerting rules and
# dashboard (every rule evaluated, every dashboard query answered); docs/POSTGRESQL.md's three
# commands for a PostgreSQL store (install, role, sync over the socket) work as a login in the
# container, with its own postgresql-15;
# `systemd-analyze security` <= 2.0; remove keeps the store and purge names it.
#   Tests/System/run.sh [DEB]    (default: the newest dist/commits-mirror_*.deb)
# Skips (exit 0, saying why) where it cannot run: not root, or nspawn cannot boot here.
set -euo pipefail
cd "$(dirname "$0")/../.."
started=$(date +%s)
say() { echo "system-test: $*"; }
# Between two polls of a condition that has its own deadline (never as a wait for something to be done).
pause() { sleep 0.2; }
skip() { say "SKIPPED: $*"; exit 0; }
fail() { say "FAILED: $*"; exit 1; }

[[ $(id -u) -eq 0 ]] || skip "needs root (debootstrap, systemd-nspawn)"
if ! command -v systemd-nspawn >/dev/null || ! command -v debootstrap >/dev/null; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap systemd-container >/dev/null \
        || skip "cannot install debootstrap and systemd-container"
fi
deb=${1:-$(ls -t dist/commits-mirror_*.deb 2>/dev/null | head -1)}
[[ -f $deb ]] || fail "no package: run make deb first"
sim=${GITHUB_SIM:-$(swift build -c release --show-bin-path)/github-sim}
[[ -x $sim ]] || fail "no $sim: run swift build -c release first"

# The cached root: made once (a few minutes), atomically, so a failed run never leaves half a root.
# Its name changes with the package list below (v2: libpq5), so an older cache is never used.
cache=${COMMITS_MIRROR_SYSTEST_CACHE:-/var/cache/commits-mirror/debootstrap-bookworm-v2}
if [[ ! -d $cache ]]; then
    mirror=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -1)
    [[ -n $mirror ]] || mirror=$(awk '$1 == "deb" {print $2; exit}' /etc/apt/sources.list 2>/dev/null)
    [[ -n $mirror ]] || skip "no Debian mirror configured for apt on this machine"
    say "debootstrap bookworm into $cache (once; cached)"
    mkdir -p "$(dirname "$cache")"
    rm -rf "$cache.tmp"
    debootstrap --variant=minbase --include=systemd,systemd-sysv,dbus,libcurl4,libpq5,libsqlite3-0,zlib1g,adduser \
        bookworm "$cache.tmp" "$mirror" >/tmp/commits-mirror-debootstrap.log 2>&1 \
        || { tail -5 /tmp/commits-mirror-debootstrap.log; skip "debootstrap failed (no mirror reachable?)"; }
    mv "$cache.tmp" "$cache"
fi

# A throwaway copy per run (the cache stays pristine).
work=$(mktemp -d /var/tmp/commits-mirror-systest.XXXXXX)
root=$work/root
machine=cm-systest-$$
nspawn_pid= sim_pid= app_sim_pid= pg_dir=
pg_bin=/usr/lib/postgresql/15/bin
as_nobody=(setpriv --reuid=nobody --regid=nogroup --clear-groups --)
cleanup() {
    [[ -n $pg_dir ]] && { "${as_nobody[@]}" "$pg_bin/pg_ctl" -D "$pg_dir/data" stop -m immediate >/dev/null 2>&1 || true; rm -rf "$pg_dir"; }
    [[ -n $nspawn_pid ]] && kill -TERM "$nspawn_pid" 2>/dev/null && wait "$nspawn_pid" 2>/dev/null || true
    [[ -n $sim_pid ]] && kill "$sim_pid" 2>/dev/null || true
    [[ -n $app_sim_pid ]] && kill "$app_sim_pid" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
cp -a "$cache" "$root"
cp "$deb" "$root/root/commits-mirror.deb"

# github-sim on the host's loopback; the container shares the host's network.
# acme/gadgets is long enough (26 pages) for its first sync to read its history over git.
"$sim" --synthetic acme/widgets=600:3 --synthetic acme/gadgets=2600:5 --head-back acme/widgets=20 \
    >"$work/sim.url" 2>"$work/sim.log" &
sim_pid=$!
until [[ -s $work/sim.url ]]; do kill -0 "$sim_pid" 2>/dev/null || fail "github-sim did not start: $(cat "$work/sim.log")"; pause; done
api=$(head -1 "$work/sim.url")
metrics_port=$((20000 + $$ % 20000))

# Boot. nspawn's own failure to boot (no cgroup access, no namespaces) is a skip, not a failure.
systemd-nspawn --quiet --directory="$root" --machine="$machine" --boot --register=no --keep-unit \
    --console=passive >"$work/nspawn.log" 2>&1 &
nspawn_pid=$!
inside() { nsenter --target "$leader" --mount --uts --ipc --net --pid --root --wd -- env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin "$@"; }
leader=
deadline=$((SECONDS + 60))
while [[ -z $leader ]]; do
    kill -0 "$nspawn_pid" 2>/dev/null || skip "systemd-nspawn cannot boot here: $(tail -3 "$work/nspawn.log" | tr '\n' ' ')"
    ((SECONDS < deadline)) || skip "systemd-nspawn started no init within 60 s"
    leader=$(pgrep -P "$nspawn_pid" -x systemd | head -1 || true)
    [[ -n $leader ]] || pause
done
# systemctl needs systemd's private socket, which appears a little after init starts.
until inside test -S /run/systemd/private; do
    ((SECONDS < deadline)) || skip "systemd in the container never opened its control socket"
    pause
done
state=$(inside timeout 120 systemctl is-system-running --wait || true)
[[ $state == running || $state == degraded ]] || skip "the container did not finish booting ($state)"
boot=$(date +%s)
say "booted ($state) in $((boot - started)) s"

# Install like an operator: the package, a configuration, the token.
inside apt-get install -y -qq /root/commits-mirror.deb >"$work/install.log" 2>&1 \
    || fail "apt-get install: $(tail -5 "$work/install.log")"
inside systemctl is-enabled commitsd >/dev/null 2>&1 && fail "commitsd is enabled before it is configured"
inside systemctl is-active commitsd >/dev/null 2>&1 && fail "commitsd started before it is configured"
inside getent group commits-mirror >/dev/null || fail "no commits-mirror group after install"
[[ $(inside stat -c %U:%a /var/lib/commits-mirror) == commits-mirror:750 ]] || fail "state directory: $(inside stat -c %U:%a /var/lib/commits-mirror)"
write_config() {
    inside sh -c "cat > /etc/commits-mirror/config.yaml" <<YAML
api_url: $api
default_interval: 1h
metrics_listen: 127.0.0.1:$metrics_port
repositories:
$(for repository in "$@"; do echo "  - $repository"; done)
YAML
}
write_config acme/widgets
inside sh -c 'umask 077; echo system-test-token > /etc/commits-mirror/token'
inside commitsd --check-config --config /etc/commits-mirror/config.yaml >/dev/null || fail "commitsd --check-config"

# Poll a condition (a command) for up to $1 seconds.
eventually() {
    local limit=$1; shift
    local until=$((SECONDS + limit))
    until "$@"; do ((SECONDS < until)) || return 1; pause; done
}
# Variables for commitsctl inside (a password file for a PostgreSQL store); none for a SQLite one.
status_env=()
synced() {
    inside env "${status_env[@]}" commitsctl status --config /etc/commits-mirror/config.yaml --json >"$work/status.json" 2>&1 || return 1
    python3 -c '
import json, sys
rows = [r for r in json.load(sys.stdin) if r["repository"] == sys.argv[1]]
sys.exit(0 if rows and rows[0]["complete"] and rows[0]["last_success_at"] and not rows[0]["last_error"] else 1)' "$1" <"$work/status.json"
}

# 1. Enabled, active, synced; no warning at start.
inside systemctl enable --now commitsd >/dev/null 2>&1 || fail "systemctl enable --now commitsd: $(inside journalctl -u commitsd --no-pager | tail -5)"
[[ $(inside systemctl is-active commitsd) == active ]] || fail "commitsd is not active"
eventually 60 synced acme/widgets || fail "acme/widgets never synced: $(cat "$work/status.json"; inside journalctl -u commitsd --no-pager | tail -5)"
say "commitsd active and synced acme/widgets"
warnings=$(inside journalctl -u commitsd --no-pager -o cat | grep -iE 'warn|fail|error|errno' || true)
[[ -z $warnings ]] || fail "commitsd logged at start: $warnings"
# Mirroring yields the CPU to queries (Nice=10 in the unit).
pid=$(inside systemctl show commitsd -p MainPID --value)
nice=$(inside cat "/proc/$pid/stat" | awk '{ print $19 }')
[[ $nice == 10 ]] || fail "commitsd runs at nice $nice, not 10"

# 2. Metrics on the host's loopback.
metrics=$(curl -fsS "http://127.0.0.1:$metrics_port/metrics") || fail "no /metrics on 127.0.0.1:$metrics_port"
stored=$(python3 -c 'import json, sys; print([r for r in json.load(sys.stdin) if r["repository"] == "acme/widgets"][0]["commits"])' <"$work/status.json")
grep -qE "^commits_mirror_commits\{repository=\"acme/widgets\"\} $stored(\.0)?\$" <<<"$metrics" \
    || fail "/metrics lacks the commit count: $(grep commits_mirror_commits <<<"$metrics")"
grep -q '^commits_mirror_last_success_timestamp_seconds{' <<<"$metrics" || fail "/metrics lacks last_success"
curl -fsS "http://127.0.0.1:$metrics_port/readyz" >/dev/null || fail "/readyz not ready"

# 3. A changed configuration, applied by systemctl reload (no /bin/kill in this root).
inside test -e /bin/kill && say "note: /bin/kill exists in the root"
write_config acme/widgets acme/gadgets
inside systemctl reload commitsd || fail "systemctl reload commitsd failed"
eventually 30 synced acme/gadgets || fail "acme/gadgets not synced after reload: $(inside journalctl -u commitsd --no-pager | tail -5)"
inside journalctl -u commitsd --no-pager -o cat | grep -q 'repository added: acme/gadgets' || fail "the reload was not logged"
say "systemctl reload applied a new repository"
# Its history came over git from inside the sandbox (a pack spooled and indexed in the unit's
# private temporary directory), with nothing logged about falling back to REST.
git_requests=$(curl -fsS "$api/_sim/stats" | python3 -c 'import json, sys; print(json.load(sys.stdin).get("gitRequests", 0))')
((git_requests >= 3)) || fail "acme/gadgets's first sync made $git_requests git requests, not 3"
inside journalctl -u commitsd --no-pager -o cat | grep -q 'history read over git' \
    || fail "commitsd did not log reading acme/gadgets over git: $(inside journalctl -u commitsd --no-pager | tail -5)"
warnings=$(inside journalctl -u commitsd --no-pager -o cat | grep -iE 'warn|fail|error|errno' || true)
[[ -z $warnings ]] || fail "commitsd logged while reading acme/gadgets over git: $warnings"
say "acme/gadgets's first sync read its history over git ($git_requests git requests)"

# 4. systemctl stop within seconds.
t0=$(date +%s%N)
inside systemctl stop commitsd
stop_ms=$((($(date +%s%N) - t0) / 1000000))
((stop_ms < 5000)) || fail "systemctl stop took $stop_ms ms"
say "systemctl stop took $stop_ms ms"

# 5. A member of the commits-mirror group reads the store while commitsd is stopped.
inside useradd --create-home --groups commits-mirror reader
author=$(inside commitsctl authors --config /etc/commits-mirror/config.yaml --top 1 --format json \
    | python3 -c 'import json, sys; print(json.load(sys.stdin)[0]["name"])')
out=$(inside runuser -u reader -- commitsctl query --config /etc/commits-mirror/config.yaml --author "$author" --limit 3 2>&1) \
    || fail "the group member cannot query: $out"
grep -q "$author" <<<"$out" || fail "the group member's query printed no commits by $author: $out"
out=$(inside runuser -u nobody -- commitsctl query --config /etc/commits-mirror/config.yaml --limit 1 2>&1) && fail "nobody could read the store"
grep -q 'permission denied' <<<"$out" || fail "an outsider is not told it is a permission problem: $out"
say "a commits-mirror group member queried the stopped service's store; an outsider got: $out"

# 6. The timer runs a one-shot sync (made due at once by a runtime drop-in).
curl -fsS -X POST "$api/_sim/repos/acme/widgets/head?forward=20" >/dev/null
inside mkdir -p /run/systemd/system/commits-sync.timer.d
inside sh -c 'printf "[Timer]\nOnCalendar=\nOnActiveSec=1s\nRandomizedDelaySec=0\n" > /run/systemd/system/commits-sync.timer.d/now.conf'
inside systemctl daemon-reload
inside systemctl start commits-sync.timer
done_sync() { [[ $(inside systemctl show commits-sync.service -p ExecMainExitTimestampMonotonic --value) != 0 ]]; }
eventually 60 done_sync || fail "the timer never ran commits-sync.service"
[[ $(inside systemctl show commits-sync.service -p Result --value) == success ]] \
    || fail "commits-sync.service: $(inside journalctl -u commits-sync --no-pager | tail -5)"
out=$(inside journalctl -u commits-sync.service --no-pager -o cat)
grep -qE 'acme/widgets@main: [1-9][0-9]* new' <<<"$out" || fail "the one-shot did not sync the new commits: $out"
warnings=$(grep -iE 'warn|fail|error|errno' <<<"$out" || true)
[[ -z $warnings ]] || fail "the one-shot logged: $warnings"
say "the timer ran a one-shot sync: $(grep -o 'acme/widgets@main: [0-9]* new' <<<"$out")"

# 7. The drop-in for a GitHub App (docs/GITHUB-APP.md, "Setting it up"), taken from the docs as
# written: the key, root's alone (mode 600), reaches the service only as the credential
# github-app-key, and the token credential is dropped. A second github-sim in App mode accepts
# no personal token, so a sync can only succeed with installation tokens minted with that key.
inside systemctl stop commits-sync.timer
openssl genrsa -traditional -out "$work/app.pem" 2048 2>/dev/null || fail "openssl genrsa"
: >"$work/no-tokens"
"$sim" --synthetic acme/vault=700:9 --app-id 12345 --app-key-file "$work/app.pem" --app-installation 678=acme \
    --app-token-lifetime-seconds 3600 --tokens-file "$work/no-tokens" >"$work/app-sim.url" 2>"$work/app-sim.log" &
app_sim_pid=$!
until [[ -s $work/app-sim.url ]]; do kill -0 "$app_sim_pid" 2>/dev/null || fail "github-sim (App) did not start: $(cat "$work/app-sim.log")"; pause; done
app_api=$(head -1 "$work/app-sim.url")
inside sh -c 'umask 077; cat > /etc/commits-mirror/app.pem' <"$work/app.pem"
[[ $(inside stat -c %U:%a /etc/commits-mirror/app.pem) == root:600 ]] || fail "app.pem: $(inside stat -c %U:%a /etc/commits-mirror/app.pem)"
dropin=$(awk '/^# \/etc\/systemd\/system\/commitsd.service.d\/github-app.conf$/ {on = 1; next} on && /^```/ {exit} on' docs/GITHUB-APP.md)
grep -q '^LoadCredential=github-app-key:/etc/commits-mirror/app.pem$' <<<"$dropin" || fail "docs/GITHUB-APP.md has no github-app-key drop-in: $dropin"
inside mkdir -p /etc/systemd/system/commitsd.service.d
inside sh -c 'cat > /etc/systemd/system/commitsd.service.d/github-app.conf' <<<"$dropin"
inside sh -c "cat > /etc/commits-mirror/config.yaml" <<YAML
api_url: $app_api
store: /var/lib/commits-mirror/app.sqlite
default_interval: 1h
metrics_listen: 127.0.0.1:$metrics_port
github_app:
  app_id: 12345
repositories:
  - acme/*
YAML
inside systemctl daemon-reload
findings=$(inside systemd-analyze verify --man=no commitsd.service 2>&1) || fail "systemd-analyze verify with the drop-in: $findings"
[[ -z $findings ]] || fail "systemd-analyze verify with the drop-in: $findings"
journal_from=$(inside date '+%Y-%m-%d %H:%M:%S')
inside systemctl start commitsd || fail "systemctl start commitsd (App): $(inside journalctl -u commitsd --no-pager | tail -5)"
eventually 60 synced acme/vault || fail "acme/vault never synced with the App: $(cat "$work/status.json"; inside journalctl -u commitsd --no-pager | tail -5)"
# What systemd handed the service: the key alone (the drop-in's empty LoadCredential= dropped the token).
credentials=$(inside ls /run/credentials/commitsd.service 2>&1 | paste -sd ' ')
[[ $credentials == github-app-key ]] || fail "the service's credentials are: $credentials"
app_stats=$(curl -fsS "$app_api/_sim/stats")
read -r issued requests authorized errors < <(python3 -c '
import json, sys
s = json.load(sys.stdin)
print(s.get("appTokensIssued", 0), s["requests"], s["authorizationHeadersSeen"], s.get("errors", 0))' <<<"$app_stats")
((issued >= 1)) || fail "the App sim issued no installation token: $app_stats"
((requests == authorized)) || fail "$((requests - authorized)) of $requests requests to the App sim had no Authorization: $app_stats"
((errors == 0)) || fail "the App sim answered $errors errors: $app_stats"
journal=$(inside journalctl -u commitsd --no-pager -o cat --since "$journal_from")
warnings=$(grep -iE 'warn|fail|error|errno' <<<"$journal" || true)
[[ -z $warnings ]] || fail "commitsd logged with the App: $warnings"
grep -qE 'ghs_|BEGIN (RSA )?PRIVATE|eyJ' <<<"$journal" && fail "the journal holds a token, JWT or key"
inside systemctl stop commitsd
say "docs/GITHUB-APP.md's github-app-key drop-in: acme/vault mirrored over the App ($issued installation token(s), $requests requests, all authorised)"

# 8. The drop-in for a PostgreSQL store (docs/POSTGRESQL.md, "commitsd"), taken from the docs as
# written: a PostgreSQL 15 server on the host's loopback (the container shares the host's network)
# whose role needs a password (scram-sha-256); the password, root's alone, reaches the service only
# as the credential postgresql-password. The server is not the container's own, so the drop-in's
# ordering on postgresql.service stays commented out, as the docs say.
[[ -x $pg_bin/initdb ]] || fail "no PostgreSQL 15 on the host (.ci/install-deps installs postgresql-15)"
pg_dir=$(mktemp -d /tmp/commits-mirror-systest-pg.XXXXXX)
chown nobody:nogroup "$pg_dir"
pg_port=$((20000 + ($$ + 10000) % 20000))
pg_password=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
"${as_nobody[@]}" "$pg_bin/initdb" -D "$pg_dir/data" -U postgres --auth=trust --encoding=UTF8 --locale=C --no-sync >/dev/null \
    || fail "initdb"
printf 'local all all trust\nhost all all 127.0.0.1/32 scram-sha-256\n' >"$pg_dir/data/pg_hba.conf"
printf "listen_addresses = '127.0.0.1'\nport = $pg_port\nunix_socket_directories = '$pg_dir'\nfsync = off\n" \
    >>"$pg_dir/data/postgresql.auto.conf"
"${as_nobody[@]}" "$pg_bin/pg_ctl" -D "$pg_dir/data" -l "$pg_dir/server.log" -w -t 60 start >/dev/null \
    || fail "pg_ctl start: $(tail -3 "$pg_dir/server.log")"
host_psql() { "${as_nobody[@]}" "$pg_bin/psql" -h "$pg_dir" -p "$pg_port" -U postgres -v ON_ERROR_STOP=1 -qAt "$@"; }
# The password through stdin, not argv.
host_psql -d postgres -f - <<<"CREATE ROLE mirror LOGIN PASSWORD '$pg_password'; CREATE DATABASE mirror OWNER mirror;" \
    || fail "creating the mirror role and database"
inside rm /etc/systemd/system/commitsd.service.d/github-app.conf
dropin=$(awk '/^# \/etc\/systemd\/system\/commitsd.service.d\/postgresql.conf$/ {on = 1; next} on && /^```/ {exit} on' docs/POSTGRESQL.md)
grep -q '^LoadCredential=postgresql-password:/etc/commits-mirror/postgresql-password$' <<<"$dropin" \
    || fail "docs/POSTGRESQL.md has no postgresql-password drop-in: $dropin"
inside sh -c 'cat > /etc/systemd/system/commitsd.service.d/postgresql.conf' <<<"$dropin"
inside sh -c 'umask 077; cat > /etc/commits-mirror/postgresql-password' <<<"$pg_password"
[[ $(inside stat -c %U:%a /etc/commits-mirror/postgresql-password) == root:600 ]] \
    || fail "postgresql-password: $(inside stat -c %U:%a /etc/commits-mirror/postgresql-password)"
# commitsctl inside reads the same database as root, with the password in root's password file.
inside sh -c 'umask 077; cat > /root/.pgpass' <<<"127.0.0.1:$pg_port:mirror:mirror:$pg_password"
status_env=(PGPASSFILE=/root/.pgpass)
inside sh -c "cat > /etc/commits-mirror/config.yaml" <<YAML
api_url: $api
store: postgresql://mirror@127.0.0.1:$pg_port/mirror
default_interval: 1h
metrics_listen: 127.0.0.1:$metrics_port
repositories:
  - acme/widgets
YAML
inside systemctl daemon-reload
findings=$(inside systemd-analyze verify --man=no commitsd.service 2>&1) || fail "systemd-analyze verify with the PostgreSQL drop-in: $findings"
[[ -z $findings ]] || fail "systemd-analyze verify with the PostgreSQL drop-in: $findings"
journal_from=$(inside date '+%Y-%m-%d %H:%M:%S')
inside systemctl start commitsd || fail "systemctl start commitsd (PostgreSQL): $(inside journalctl -u commitsd --no-pager | tail -5)"
eventually 60 synced acme/widgets \
    || fail "acme/widgets never synced into PostgreSQL: $(cat "$work/status.json"; inside journalctl -u commitsd --no-pager | tail -5)"
credentials=$(inside ls /run/credentials/commitsd.service 2>&1 | paste -sd ' ')
[[ $credentials == "github-token postgresql-password" ]] || fail "the service's credentials are: $credentials"
stored=$(host_psql -d mirror -c 'SELECT count(*) FROM repository_commits') || fail "cannot count the PostgreSQL store"
listed=$(python3 -c 'import json, sys; print([r for r in json.load(sys.stdin) if r["repository"] == "acme/widgets"][0]["commits"])' <"$work/status.json")
((stored > 0 && stored == listed)) || fail "the PostgreSQL store holds $stored commits, status says $listed"
journal=$(inside journalctl -u commitsd --no-pager -o cat --since "$journal_from")
warnings=$(grep -iE 'warn|fail|error|errno' <<<"$journal" || true)
[[ -z $warnings ]] || fail "commitsd logged on PostgreSQL: $warnings"
grep -qF "$pg_password" <<<"$journal" && fail "the journal holds the database password"
say "docs/POSTGRESQL.md's postgresql-password drop-in: acme/widgets mirrored into PostgreSQL on the host ($stored commits)"

# 8a. Monitoring (docs/MONITORING.md): the host's Prometheus (Debian's package; the container shares
# the host's network) scrapes the booted commitsd every second with the rules the package installed:
# every rule evaluates with health ok, and every query of the packaged dashboard returns data (on
# this PostgreSQL store commitsd claims from the shared queue, so the lease panel has data too) but
# the webhook panels' (no webhook_listen here; monitoring/check.sh --live has them), which must evaluate.
command -v prometheus >/dev/null || fail "no prometheus on the host (.ci/install-deps installs it)"
monitoring=$root/usr/share/commits-mirror/monitoring
[[ -f $monitoring/commits-mirror.rules.yml && -f $monitoring/grafana-dashboard.json ]] \
    || fail "the package installed no alerting rules or dashboard in /usr/share/commits-mirror/monitoring"
monitoring_from=$SECONDS
monitoring/check-live.py "127.0.0.1:$metrics_port" "$monitoring/commits-mirror.rules.yml" "$monitoring/grafana-dashboard.json" \
    --timeout 45 --unexercised commits_mirror_webhook_ >"$work/check-live.log" 2>&1 \
    || fail "Prometheus on the booted commitsd: $(cat "$work/check-live.log")"
say "Prometheus scraped commitsd in $((SECONDS - monitoring_from)) s: $(grep -E 'rules in|queries returned' "$work/check-live.log" | sed 's/^check-live: //' | paste -sd ';' | sed 's/;/; /')"
inside systemctl stop commitsd
status_env=()

# 8b. docs/POSTGRESQL.md's "Setting one up (Debian 12)" in a fresh Debian 12 root, its commands as
# written but for what a test needs: the server installed in the container (its own cluster, started by the
# container's systemd), a role named after a login, and that login's commitsctl syncing into
# postgresql:///mirror over the server's Unix socket, where Debian's pg_hba.conf knows it by its
# login name: no password anywhere. The container shares the host's network, so its cluster is made
# to listen on no TCP port (createcluster.d), which the recipe does not use; runuser stands in for
# sudo (not in this root), and the repository is the simulator's.
recipe=$(awk '/^## Setting one up \(Debian 12\)$/ {on = 1; next} on && /^```sh$/ {code = 1; next} code && /^```$/ {exit} code' docs/POSTGRESQL.md)
install_line=$(grep '^sudo apt-get install ' <<<"$recipe" || true)
role_line=$(grep 'createuser' <<<"$recipe" || true)
store_uri=$(sed -n 's/^commitsctl sync .* --db \(postgresql:[^ ]*\)$/\1/p' <<<"$recipe")
[[ -n $install_line && -n $role_line && -n $store_uri ]] || fail "docs/POSTGRESQL.md's PostgreSQL recipe is not install, role and sync: $recipe"
inside sh -c "mkdir -p /etc/postgresql-common/createcluster.d && echo \"listen_addresses = ''\" > /etc/postgresql-common/createcluster.d/no-tcp.conf"
inside apt-get update -qq >"$work/pg-install.log" 2>&1 || fail "apt-get update in the container: $(tail -3 "$work/pg-install.log")"
read -r -a install_words <<<"${install_line#sudo }"
inside env DEBIAN_FRONTEND=noninteractive "${install_words[@]}" -y -qq >>"$work/pg-install.log" 2>&1 \
    || fail "${install_line#sudo } in the container: $(tail -5 "$work/pg-install.log")"
eventually 60 inside test -S /var/run/postgresql/.s.PGSQL.5432 \
    || fail "the container's PostgreSQL never opened its socket: $(inside journalctl -u postgresql@15-main --no-pager | tail -5)"
inside useradd --create-home analyst
inside env USER=analyst sh -c "${role_line//sudo -u postgres/runuser -u postgres --}" || fail "as written, failed: $role_line"
as_analyst() { inside runuser -u analyst -- env HOME=/home/analyst GITHUB_TOKEN=system-test-token "$@"; }
out=$(as_analyst commitsctl sync acme/widgets --db "$store_uri" --api-url "$api" 2>&1) \
    || fail "commitsctl sync --db $store_uri as a login with its own role: $out"
grep -q '^acme/widgets@main: [1-9][0-9]* new' <<<"$out" || fail "docs/POSTGRESQL.md's PostgreSQL store synced nothing: $out"
newest=$(as_analyst commitsctl query --db "$store_uri" -n 1 --format ndjson 2>&1) || fail "commitsctl query --db $store_uri: $newest"
grep -qE '"sha" ?: ?"[0-9a-f]{40}"' <<<"$newest" || fail "commitsctl query --db $store_uri answered: $newest"
count=$(inside runuser -u analyst -- psql -qAt -d mirror -c 'SELECT count(*) FROM repository_commits') || fail "psql as analyst"
((count == stored)) || fail "docs/POSTGRESQL.md's PostgreSQL store holds $count commits of acme/widgets, the service's $stored"
say "docs/POSTGRESQL.md's PostgreSQL recipe in a fresh root: $count commits over the socket, no password"

# 9. The sandbox.
exposure=$(inside systemd-analyze security commitsd --no-pager | sed -n 's/.*Overall exposure level for commitsd.service: \([0-9.]*\).*/\1/p')
[[ -n $exposure ]] || fail "systemd-analyze security printed no score"
awk -v e="$exposure" 'BEGIN {exit !(e <= 2.0)}' || fail "systemd-analyze security: $exposure > 2.0"
say "systemd-analyze security commitsd: $exposure"

# 10. remove keeps the store; purge removes configuration and user, and names the store.
inside apt-get remove -y -qq commits-mirror >/dev/null 2>&1 || fail "apt-get remove"
inside test -f /var/lib/commits-mirror/commits.sqlite || fail "remove deleted the store"
inside test -f /etc/commits-mirror/config.yaml || fail "remove deleted the configuration"
out=$(inside apt-get purge -y commits-mirror 2>&1) || fail "apt-get purge: $out"
grep -q '/var/lib/commits-mirror' <<<"$out" || fail "purge did not say where the store is: $out"
inside test -e /etc/commits-mirror && fail "purge left /etc/commits-mirror"
inside getent passwd commits-mirror >/dev/null && fail "purge left the user"
inside test -f /var/lib/commits-mirror/commits.sqlite || fail "purge deleted the store"

say "passed in $(($(date +%s) - started)) s ($((boot - started)) s to boot)"
