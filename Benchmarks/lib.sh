# Helpers the benchmark scripts share; sourced, not run. Each script sets
# SCRATCH (its build directory) and WORK (its scratch files) before using them.

log() { printf '== %s\n' "$*" >&2; }
calc() { python3 -c "print($1)"; }
commas() { python3 -c 'import sys; print(f"{int(float(sys.argv[1])):,}")' "$1"; }
# median VALUE… : their median, unrounded (callers round with calc)
# ms COMMAND… : the median of 5 runs in milliseconds (DIGITS decimals, whole by default); the
# last run's output in $WORK/ms.out.
ms() {
    local times=() s e
    for _ in 1 2 3 4 5; do
        s=$(date +%s%N)
        "$@" > "$WORK/ms.out"
        e=$(date +%s%N)
        times+=("$(calc "($e - $s) / 1e6")")
    done
    calc "round($(median "${times[@]}")${DIGITS:+, $DIGITS})"
}
median() { python3 -c 'import statistics, sys; print(statistics.median(float(x) for x in sys.argv[1:]))' "$@"; }

# timed NAME COMMAND… : runs it under /usr/bin/time; appends "seconds MB" to $WORK/NAME
timed() {
    local name=$1; shift
    local s e
    s=$(date +%s%N)
    /usr/bin/time -v -o "$WORK/time.txt" "$@" > "$WORK/out.txt" 2> "$WORK/err.txt" || { cat "$WORK/err.txt" >&2; exit 1; }
    e=$(date +%s%N)
    echo "$(calc "round(($e - $s) / 1e9, 2)") $(awk -F': ' '/Maximum resident/ { printf "%.1f", $2 / 1024 }' "$WORK/time.txt")" \
        >> "$WORK/$name"
    log "  $name: $(tail -n 1 "$WORK/$name") $(head -c 200 "$WORK/out.txt")"
}

# write_history COMMITS DIRECTORY : a bare repository of Benchmarks/git-history.py's
# history, written by git fast-import, every commit on main.
write_history() {
    log "writing a history of $1 commits with git fast-import"
    git init -q --bare -b main "$2"
    python3 Benchmarks/git-history.py "$1" | git -C "$2" fast-import --quiet
    git -C "$2" update-ref -d refs/heads/scratch
    git -C "$2" gc -q
}

# need_commands COMMAND… : installs the Debian package of each missing command
# (each named as its command: sqlite3, jq, hyperfine).
need_commands() {
    local command
    for command in "$@"; do
        command -v "$command" > /dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$command" > /dev/null
    done
}

# stop_sim_and_postgresql : what a script that started both stops on exit.
stop_sim_and_postgresql() {
    stop_sim
    stop_postgresql
}

# build_products PRODUCT… : release builds with the static Swift runtime into
# $SCRATCH (what a user installs); sets BIN to their directory.
build_products() {
    local product
    # The libraries the build needs (libcurl's header is not on a fresh Debian 12).
    .ci/install-deps >&2
    for product in "$@"; do
        swift build -c release --static-swift-stdlib --scratch-path "$SCRATCH" --product "$product" >&2
    done
    BIN=$(swift build -c release --static-swift-stdlib --scratch-path "$SCRATCH" --show-bin-path)
}

# start_sim ARG… : starts $BIN/github-sim with a limit no benchmark reaches and
# ARGs, its output in $WORK/sim.out and $WORK/sim.err; sets SIM_PID, and SIM to
# the base URL it prints once it listens (up to 5 minutes: a large
# --git-repository is read first). Exits the script when it does not start.
start_sim() {
    : > "$WORK/sim.out"
    "$BIN/github-sim" --authenticated-limit 1000000000 "$@" > "$WORK/sim.out" 2> "$WORK/sim.err" &
    SIM_PID=$!
    SIM=
    for _ in $(seq 3000); do
        SIM=$(head -n 1 "$WORK/sim.out")
        [ -n "$SIM" ] && return
        kill -0 "$SIM_PID" 2> /dev/null || { cat "$WORK/sim.err" >&2; exit 1; }
        sleep 0.1
    done
    echo "github-sim did not start" >&2
    exit 1
}

# stop_sim : stops the simulator start_sim started, if it runs.
stop_sim() {
    if [ -n "${SIM_PID:-}" ]; then kill "$SIM_PID" 2> /dev/null || true; wait "$SIM_PID" 2> /dev/null || true; SIM_PID=; fi
}

# start_git_http ROOT : real git (`git http-backend`, Tests/git-http-backend.py)
# serving every repository under ROOT as /OWNER/NAME.git; sets GIT_HTTP_PID, and
# GIT_HTTP to its base URL. stop_git_http stops it.
start_git_http() {
    : > "$WORK/git-http.out"
    BRIDGE_SCRATCH=$WORK python3 Tests/git-http-backend.py "$1" > "$WORK/git-http.out" 2> "$WORK/git-http.err" &
    GIT_HTTP_PID=$!
    for _ in $(seq 100); do
        if [ -s "$WORK/git-http.out" ]; then GIT_HTTP=http://127.0.0.1:$(head -n 1 "$WORK/git-http.out"); return; fi
        kill -0 "$GIT_HTTP_PID" 2> /dev/null || { cat "$WORK/git-http.err" >&2; exit 1; }
        sleep 0.1
    done
    echo "git http-backend did not start" >&2
    exit 1
}
stop_git_http() {
    if [ -n "${GIT_HTTP_PID:-}" ]; then kill "$GIT_HTTP_PID" 2> /dev/null || true; wait "$GIT_HTTP_PID" 2> /dev/null || true; GIT_HTTP_PID=; fi
}

# start_postgresql [CONF_LINE…] : a PostgreSQL 15 server of its own in a new
# directory under /tmp (initdb, trust, no TCP: its Unix socket only), with
# synchronous_commit off (the durability of the SQLite store's WAL at
# synchronous=NORMAL) and the CONF_LINEs; sets PGDIR, PORT, AS (how to run as
# the server's owner: PostgreSQL refuses root, so under root it is nobody) and
# PGVERSION; psql then runs its client against it. stop_postgresql stops it.
PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}
start_postgresql() {
    PGDIR=$(mktemp -d /tmp/cm-bench-pg.XXXXXX)
    AS=()
    if [ "$(id -u)" = 0 ]; then chown nobody:nogroup "$PGDIR"; AS=(setpriv --reuid=nobody --regid=nogroup --clear-groups --); fi
    PORT=$((20000 + RANDOM % 30000))
    "${AS[@]}" "$PGBIN/initdb" -D "$PGDIR/data" -U postgres --auth=trust --encoding=UTF8 --locale=C > /dev/null
    {
        echo "listen_addresses = ''"
        echo "port = $PORT"
        echo "unix_socket_directories = '$PGDIR'"
        echo "synchronous_commit = off"
        printf '%s\n' "$@"
    } >> "$PGDIR/data/postgresql.conf"
    "${AS[@]}" "$PGBIN/pg_ctl" -D "$PGDIR/data" -l "$PGDIR/server.log" -w start > /dev/null
    PGVERSION=$(psql -d postgres -c 'SHOW server_version')
}
psql() { "$PGBIN/psql" -h "$PGDIR" -p "$PORT" -U postgres -At "$@"; }
stop_postgresql() {
    [ -n "${PGDIR:-}" ] || return 0
    "${AS[@]}" "$PGBIN/pg_ctl" -D "$PGDIR/data" stop -m fast > /dev/null 2>&1 || true
    rm -rf "$PGDIR"
    PGDIR=
}
