# Issue #14's third goal, side by side in one run: incremental syncs and queries
# during a sync are not slower than before #14's work. "Before" is commitsctl
# built from BASELINE_REV (default 95f2b9b, the last commit before the batched
# store). Sourced by Benchmarks/run, which provides the simulator, the helpers
# (sim_head, fresh_db, hf, pick_cases, median, calc, log) and BIN/CTL/RUN.

BASELINE_REV=${BASELINE_REV:-95f2b9b}
BASELINE_REPEATS=${BASELINE_REPEATS:-10}

# Builds the baseline once per revision into .build-bench-baseline (kept between
# runs, ignored by git and by the format lint); sets BASE_CTL.
baseline_build() {
    local rev src
    rev=$(git rev-parse --short "$BASELINE_REV")
    src=.build-bench-baseline/$rev
    BASE_CTL=$src/.build/release/commitsctl
    [ -x "$BASE_CTL" ] && return
    log "building the baseline commitsctl ($rev) into $src"
    rm -rf "$src"; mkdir -p "$src"
    git archive "$rev" | tar -x -C "$src"
    (cd "$src" && swift build -c release --static-swift-stdlib --product commitsctl >&2)
}

# millis CMD… : runs CMD once (output discarded), prints its wall time in ms.
millis() {
    local s e
    s=$(date +%s%N)
    "$@" > /dev/null 2> "$RUN/baseline.err" || { cat "$RUN/baseline.err" >&2; exit 1; }
    e=$(date +%s%N)
    calc "($e - $s) / 1e6"
}

# baseline_compare REPO BIG : sets BASELINE_ROWS (markdown) and BASELINE_RATIO
# (keyed by case, now / baseline). REPO is a synthetic repository only this
# section moves; BIG is synced by each binary into a store of its own that is
# queried while the other big repository ($REAL) is synced into it.
baseline_compare() {
    local repo=$1 big=$2
    declare -A db times
    local who
    for who in now base; do
        db[$who]=$RUN/baseline-$who.sqlite
        fresh_db "${db[$who]}"
    done
    declare -A bin=([now]=$CTL [base]=$BASE_CTL)
    # Both over REST: the baseline has no other way.
    declare -A rest_only=([now]=--no-git-bootstrap [base]=)
    sync_with() { GITHUB_TOKEN=$TOKEN "${bin[$1]}" sync "$2" --db "${db[$1]}" --api-url "$SIM" ${rest_only[$1]}; }

    # Incremental syncs: both stores start at the same head, then follow it as it
    # moves forward 100 first-parent commits at a time; idle polls between. The two
    # binaries alternate who goes first.
    sim_head "$repo" back=$((100 * BASELINE_REPEATS + 100))
    log "baseline comparison: first syncs of $repo"
    for who in now base; do sync_with "$who" "$repo" > /dev/null; done
    local i order
    for ((i = 1; i <= BASELINE_REPEATS; i++)); do
        sim_head "$repo" forward=100
        order="now base"; ((i % 2)) || order="base now"
        for who in $order; do times[inc-$who]+="$(millis sync_with "$who" "$repo") "; done
        for who in $order; do times[idle-$who]+="$(millis sync_with "$who" "$repo") "; done
    done

    # Queries during a sync: each binary's own store of BIG, queried idle, then while
    # that binary syncs $REAL into a copy of it: as is, and at the packaged units'
    # Nice=10.
    log "baseline comparison: stores of $big"
    for who in now base; do sync_with "$who" "$big" > /dev/null; done
    pick_cases "${db[now]}" "$(sqlite3 "${db[now]}" 'SELECT count(*) FROM commits')"
    local query_runs=20 pid before variant work
    for who in now base; do
        HF_RUNS=$query_runs hf "idle" "${bin[$who]} query --db ${db[$who]} --author '$MID' -n 50"
        times[qidle-$who]=$HF_MEDIAN
        for variant in plain nice; do
            work=$RUN/baseline-$who-during.sqlite
            fresh_db "$work"
            cp "${db[$who]}" "$work"
            [ -f "${db[$who]}-wal" ] && cp "${db[$who]}-wal" "$work-wal"
            before=$(sqlite3 "$work" 'SELECT count(*) FROM commits')
            if [ "$variant" = nice ]; then
                GITHUB_TOKEN=$TOKEN nice -n 10 "${bin[$who]}" sync "$REAL" --db "$work" --api-url "$SIM" ${rest_only[$who]} > /dev/null &
            else
                GITHUB_TOKEN=$TOKEN "${bin[$who]}" sync "$REAL" --db "$work" --api-url "$SIM" ${rest_only[$who]} > /dev/null &
            fi
            pid=$!
            # Queries start once the sync is storing (its first page committed).
            for _ in $(seq 300); do
                [ "$(sqlite3 "$work" 'SELECT count(*) FROM commits' 2> /dev/null || echo 0)" -gt "$before" ] && break
                sleep 0.05
            done
            HF_RUNS=$query_runs hf "during" "${bin[$who]} query --db $work --author '$MID' -n 50"
            times[q$variant-$who]=$HF_MEDIAN
            if kill -0 "$pid" 2> /dev/null; then times[overlap-$variant-$who]=yes; else times[overlap-$variant-$who]=no; fi
            wait "$pid"
        done
    done

    BASELINE_ROWS=
    declare -gA BASELINE_RATIO
    row() {  # KEY LABEL BASE_MS NOW_MS
        BASELINE_RATIO[$1]=$(calc "round($4 / $3, 2)")
        BASELINE_ROWS+="| $2 | $(printf %.1f "$3") | $(printf %.1f "$4") | **${BASELINE_RATIO[$1]}×** |"$'\n'
    }
    # shellcheck disable=SC2086
    row inc "sync of 100 new first-parent commits (median of $BASELINE_REPEATS)" \
        "$(median ${times[inc-base]})" "$(median ${times[inc-now]})"
    # shellcheck disable=SC2086
    row idle "idle poll, nothing new (median of $BASELINE_REPEATS)" "$(median ${times[idle-base]})" "$(median ${times[idle-now]})"
    row qidle "\`query --author \"$MID\" -n 50\`, store idle" "${times[qidle-base]}" "${times[qidle-now]}"
    row qplain "the same query while \`sync $REAL\` writes the store" "${times[qplain-base]}" "${times[qplain-now]}"
    row qnice "the same, the sync at \`nice -n 10\` (as the packaged units run it)" "${times[qnice-base]}" "${times[qnice-now]}"
    BASELINE_OVERLAP=
    for variant in plain nice; do
        BASELINE_OVERLAP+="$variant: now ${times[overlap-$variant-now]}, baseline ${times[overlap-$variant-base]}; "
    done
    log "  baseline comparison: $(tr '\n' ' ' <<< "$BASELINE_ROWS")"
}
