#!/usr/bin/env bash
# Two revisions measured in one run: each benchmark that yields one of the
# project's ratios (a first sync over git against git clone, REST against
# github-to-sqlite, query/show/--version against the sqlite3 CLI, PostgreSQL
# against SQLite, three daemons against one) runs for OLD then NEW, back to
# back, so a change is judged by how its ratios move on the same machine and
# load, not against a record made on another day.
#
#   Benchmarks/side-by-side.sh OLD [NEW]         # NEW defaults to HEAD
#   BUILD_ONLY=1 Benchmarks/side-by-side.sh OLD  # build now, measure when the machine is quiet
#   SKIP_BUILD=1 Benchmarks/side-by-side.sh OLD  # reuse the checkouts' builds
#
# Each revision is a `git archive` checkout in .build-bench-sides/REV that builds
# its own binaries with its own Benchmarks/ scripts; the reduced sizes below keep
# a run under an hour on 2 cores. The outputs go to Benchmarks/work/sides/, and
# the rows holding a ratio are printed side by side on stdout.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
OLD=$(git rev-parse --short "${1:?usage: Benchmarks/side-by-side.sh OLD [NEW]}")
NEW=$(git rev-parse --short "${2:-HEAD}")
OUT=$ROOT/Benchmarks/work/sides
DATASET=${DATASET:-$ROOT/../shared/datasets/swift-evolution.commits.jsonl.gz}
source Benchmarks/lib.sh
mkdir -p "$OUT" .build-bench-baseline

checkout() {
    local rev=$1 dir=$ROOT/.build-bench-sides/$1
    if [ ! -d "$dir" ]; then
        mkdir -p "$dir"
        git archive "$rev" | tar -x -C "$dir"
        # The baseline commitsctl Benchmarks/run compares against is built once for both.
        ln -s "$ROOT/.build-bench-baseline" "$dir/.build-bench-baseline"
    fi
    echo "$dir"
}

# in_checkout REV NAME CMD… : runs CMD in REV's checkout, its stdout in OUT/NAME-REV.md.
in_checkout() {
    local rev=$1 name=$2
    shift 2
    log "$name on $rev"
    (cd "$(checkout "$rev")" && DATASET=$DATASET "$@") > "$OUT/$name-$rev.md" 2> "$OUT/$name-$rev.err" \
        || { tail -20 "$OUT/$name-$rev.err" >&2; exit 1; }
}

if [ "${SKIP_BUILD:-0}" != 1 ]; then
    for rev in "$OLD" "$NEW"; do
        log "building $rev"
        (cd "$(checkout "$rev")" && SCRATCH=.build-bench-static build_products github-sim commitsd commitsctl mirror-bench) \
            > "$OUT/build-$rev.log" 2>&1 || { tail -20 "$OUT/build-$rev.log" >&2; exit 1; }
    done
fi
[ "${BUILD_ONLY:-0}" = 1 ] && exit 0

# Benchmarks/run compares against a baseline commitsctl it builds with git archive, which a
# checkout outside git cannot run: built here, once, into the directory both checkouts share.
(BASELINE_REV=${BASELINE_REV:-95f2b9b} && source Benchmarks/against-baseline.sh && baseline_build) > "$OUT/baseline.log" 2>&1 \
    || { tail -20 "$OUT/baseline.log" >&2; exit 1; }

echo "Load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
for rev in "$OLD" "$NEW"; do
    # Benchmarks/run writes its report beside OUT and renames it into place: a file, never /dev/stdout.
    in_checkout "$rev" run env OUT="$OUT/run-$rev.report.md" BASELINE_REPEATS=${BASELINE_REPEATS:-3} Benchmarks/run --quick
done
for rev in "$OLD" "$NEW"; do
    in_checkout "$rev" postgresql env RUNS=1 SIZE=20000 Benchmarks/postgresql-store.sh
done
for rev in "$OLD" "$NEW"; do
    in_checkout "$rev" daemons env REPOSITORIES=120 LATENCY=50 Benchmarks/several-daemons.sh
done
echo "Load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"

# The lines that carry a ratio (a figure followed by ×), OLD's then NEW's.
for name in run postgresql daemons; do
    for rev in "$OLD" "$NEW"; do
        echo "### $name on $rev"
        file=$OUT/$name-$rev.md
        [ "$name" = run ] && file=$OUT/run-$rev.report.md
        grep -E '[0-9]×' "$file" || true
    done
done
