#!/usr/bin/env bash
# `swift test` with a watchdog, as `make test` runs it. A test that hangs must
# fail the run in minutes, saying which tests never finished and where every
# thread of the test process was blocked, instead of running into CI's limit
# with nothing to show for it.
#
#   Tests/run-bounded.sh [swift test arguments...]
#
# COMMITS_MIRROR_TEST_STALL_SECONDS (default 420): once tests run, this long
# without a line of output is a hang. COMMITS_MIRROR_TEST_LIMIT_SECONDS
# (default 2700): the whole command, build included.
set -uo pipefail

stall_limit=${COMMITS_MIRROR_TEST_STALL_SECONDS:-420}
total_limit=${COMMITS_MIRROR_TEST_LIMIT_SECONDS:-2700}
log=$(mktemp /tmp/commits-mirror-test.XXXXXX.log)

# At most this many tests at once (Swift Testing starts every test at once
# otherwise). Most tests wait on processes they start — github-sim, commitsctl,
# commitsd — and with all of them started together on two cores, stacks of the
# test process showed its two pool threads busy for tens of seconds with
# ordinary work while in-process servers and proxies starved, and tests hit
# their timeouts at random. COMMITS_MIRROR_TEST_WIDTH overrides it.
export SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=${COMMITS_MIRROR_TEST_WIDTH:-12}

# Its own session (swift-test puts the test process in a process group of its
# own, but not in another session), so one kill ends swift-test, the test
# process and whatever the tests started. Line-buffered (stdbuf): through a pipe the test
# process would otherwise hold its results back, and a hang would show nothing.
setsid stdbuf -oL -eL swift test "$@" > >(tee "$log") 2>&1 &
runner=$!
started=$(date +%s)

report_and_kill() {
    local why=$1
    exec 1>&2
    echo
    echo "run-bounded: $why; stopping the test run."
    local pid
    for pid in $(pgrep -s "$runner" -f 'PackageTests\.xctest'); do
        if command -v gdb > /dev/null; then
            echo "run-bounded: threads of the test process $pid (innermost frames):"
            timeout 120 gdb -p "$pid" -batch -ex 'thread apply all bt 12' 2>/dev/null \
                | grep -aE '^(Thread|#[0-9]+ )' | sed -E 's/ \(.*\) at / at /' | cut -c1-200 | tail -300
        fi
    done
    pkill -KILL -s "$runner"
    # Last, so that a log cut to its tail still names them.
    echo "run-bounded: tests started but not finished:"
    # Swift Testing prints "◇ Test name() started." and "✔/✘ Test name() [with N test cases] passed/failed …".
    grep -aoE 'Test [^ ]+\([^)]*\) started' "$log" | sed -E 's/^Test (.*) started$/\1/' | sort | uniq -c > "$log.started"
    grep -aoE 'Test [^ ]+\([^)]*\)( with [0-9]+ test cases?)? (passed|failed)' "$log" \
        | sed -E 's/^Test ([^ ]+\([^)]*\)).*$/\1/' | sort | uniq -c > "$log.finished"
    join -1 2 -2 2 -a 1 -e 0 -o 0,1.1,2.1 <(sort -k2 "$log.started") <(sort -k2 "$log.finished") \
        | awk '$2 > $3 { print "  " $1 }'
    echo "run-bounded: full log at $log"
    exit 124
}

while kill -0 "$runner" 2> /dev/null; do
    sleep 5
    now=$(date +%s)
    if ((now - started > total_limit)); then
        report_and_kill "no result after ${total_limit} s"
    fi
    # Stalls count only once tests run: the build before them may be silent for long.
    if grep -aqE '(Test run started|Test Suite .* started)' "$log"; then
        last=$(stat -c %Y "$log")
        if ((now - last > stall_limit)); then
            report_and_kill "no output for ${stall_limit} s"
        fi
    fi
done
wait "$runner"
status=$?
rm -f "$log" "$log.started" "$log.finished"
exit $status
