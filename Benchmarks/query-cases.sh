# The cases the query benchmarks ask of a store, and hyperfine around them; sourced,
# not run (needs sqlite3, hyperfine and jq; QUERY_RUNS, and RUN or WORK for scratch files).

pick_cases() {  # STORE COMMITS : sets BUSY, BUSY_COUNT, MID (nearest to 1/1000 of the commits), MID_COUNT, SHA (the median commit)
    q() { sqlite3 "$1" "$2"; }
    BUSY=$(q "$1" "SELECT a.name FROM commits c JOIN authors a ON a.id = c.author_id GROUP BY a.name ORDER BY count(*) DESC LIMIT 1")
    BUSY_COUNT=$(q "$1" "SELECT count(*) FROM commits c JOIN authors a ON a.id = c.author_id WHERE a.name = '${BUSY//\'/\'\'}'")
    MID=$(q "$1" "SELECT name FROM (SELECT a.name, count(*) n FROM commits c JOIN authors a ON a.id = c.author_id GROUP BY a.name) ORDER BY abs(n - $2 / 1000), name LIMIT 1")
    MID_COUNT=$(q "$1" "SELECT count(*) FROM commits c JOIN authors a ON a.id = c.author_id WHERE a.name = '${MID//\'/\'\'}'")
    SHA=$(q "$1" "SELECT sha FROM commits ORDER BY committer_date LIMIT 1 OFFSET $2 / 2")
}
hf() {  # NAME CMD : hyperfine, one table row; sets HF_MEDIAN (ms)
    hyperfine -N --style none --warmup 3 --runs "${HF_RUNS:-$QUERY_RUNS}" --export-json "${RUN:-$WORK}/hf.json" "$2" > /dev/null \
        || { echo "failed: $2" >&2; exit 1; }
    HF_MEDIAN=$(jq '.results[0].median * 1000' "${RUN:-$WORK}/hf.json")
    HF_CELL=$(python3 -c 'import json, sys; r = json.load(open(sys.argv[1]))["results"][0]
print("%.1f (%.1f–%.1f)" % (r["median"] * 1e3, r["min"] * 1e3, r["max"] * 1e3))' "${RUN:-$WORK}/hf.json")
}
# hf_pair CMD_A CMD_B : the two commands measured in alternating blocks (hyperfine, a
# few runs of each per block, QUERY_RUNS of each in all), so a busy moment of this
# shared machine falls on both sides of a ratio, not on one; sets HF_MEDIAN_A,
# HF_CELL_A, HF_MEDIAN_B, HF_CELL_B (ms).
hf_pair() {
    local block=5 round rounds=$(((${HF_RUNS:-$QUERY_RUNS} + 4) / 5))
    for ((round = 1; round <= rounds; round++)); do
        hyperfine -N --style none --warmup 2 --runs "$block" --export-json "${RUN:-$WORK}/hf-pair-$round.json" "$1" "$2" > /dev/null \
            || { echo "failed: $1 / $2" >&2; exit 1; }
    done
    local cells
    cells=$(python3 -c 'import json, statistics, sys
for side in (0, 1):
    times = [t * 1e3 for f in sys.argv[1:] for t in json.load(open(f))["results"][side]["times"]]
    median = statistics.median(times)
    print(median, "%.1f (%.1f–%.1f)" % (median, min(times), max(times)))' "${RUN:-$WORK}"/hf-pair-*.json)
    rm -f "${RUN:-$WORK}"/hf-pair-*.json
    read -r HF_MEDIAN_A HF_CELL_A <<< "$(sed -n 1p <<< "$cells")"
    read -r HF_MEDIAN_B HF_CELL_B <<< "$(sed -n 2p <<< "$cells")"
}
