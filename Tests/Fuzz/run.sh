#!/usr/bin/env bash
# Builds and runs the libFuzzer targets for what the network hands the mirror:
#   link     the Link header parser      (Sources/MirrorCore/GitHub/LinkHeader.swift)
#   payload  list-commits page decoding  (PayloadDecoder, CommitPayload, its mapping to Commit, ISO8601Timestamp)
#   pktline  git's pkt-line reader and side-band demultiplexing (Sources/MirrorCore/Git)
#   pack     the git pack reader, deltas and the history read from it (Sources/MirrorCore/Git)
#   commit   git commit objects and their mapping to Commit (Sources/MirrorCore/Git)
# Each target is compiled from those source files with `swiftc -sanitize=fuzzer,address`
# (the Swift 6.3 toolchain on Linux ships libFuzzer) and run for a bounded time.
#
# Usage: Tests/Fuzz/run.sh [SECONDS_PER_TARGET] [TARGET...]     (default: 30 s, every target;
# FUZZ_SEED=N picks libFuzzer's seed, default 1, so a CI run can be replayed)
# Outputs go to .build-fuzz/ (git-ignored): binaries, the growing corpus, and any crash
# input (crash-*, timeout-*, oom-*), which reproduces with `.build-fuzz/<target> <file>`.
# Exit status: 0 when no target found a crash, hang or leak; non-zero otherwise.
set -euo pipefail
cd "$(dirname "$0")/../.."

seconds=${1:-30}
shift || true
targets=("$@")
((${#targets[@]})) || targets=(link payload pktline pack commit)
out=.build-fuzz
mkdir -p "$out"

sources_for() {
    case "$1" in
        link) echo "Tests/Fuzz/LinkHeaderFuzz.swift Sources/MirrorCore/GitHub/LinkHeader.swift Sources/MirrorModel/Sync/PageNumber.swift" ;;
        payload) echo "Tests/Fuzz/PayloadFuzz.swift Sources/MirrorCore/GitHub/PayloadDecoder.swift Sources/MirrorCore/GitHub/CommitPayload.swift Sources/MirrorModel/Names/HexDigits.swift Sources/MirrorCore/Support/ISO8601Timestamp.swift Sources/MirrorModel/Domain/Commit.swift Sources/MirrorModel/Domain/FileChange.swift Sources/MirrorModel/Domain/CoAuthorTrailers.swift Sources/MirrorCore/GitHub/CommitPayload+Commit.swift" ;;
        pktline) echo "Tests/Fuzz/PacketLineFuzz.swift $git/PacketLine.swift $git/SideBand.swift $git_errors" ;;
        pack) echo "Tests/Fuzz/PackFuzz.swift $git/Pack*.swift Sources/MirrorSQLite/SQLitePackCommitIndex.swift $git/GrowingPackStorage.swift $git/Inflater.swift $git/DeltaInstructions.swift $git_commits $git_errors" ;;
        commit) echo "Tests/Fuzz/CommitObjectFuzz.swift $git_commits $git_errors" ;;
        *) echo "fuzz: unknown target $1 (link, payload, pktline, pack, commit)" >&2; exit 64 ;;
    esac
}
git=Sources/MirrorCore/Git
git_errors="$git/GitError.swift Sources/MirrorModel/Names/BranchName.swift Sources/MirrorModel/Names/RefNameRules.swift"
git_commits="$git/GitCommitObject.swift $git/GitCommitObject+Commit.swift $git/GitTextDecoding.swift Sources/MirrorModel/Domain/Commit.swift Sources/MirrorModel/Domain/FileChange.swift Sources/MirrorModel/Domain/CoAuthorTrailers.swift"

# The git targets import GitHash (SHA-1), GitTrees (a pack's trees) and SQLite (the pack's commit
# index) as modules of their own, as MirrorCore does, and zlib and libsqlite3 through CZlib and CSQLite. GitHash's
# SHA-1 is swift-crypto's, which swiftc alone cannot build: the fuzz targets get a Swift core
# with the same API (Tests/Fuzz/SHA1ForFuzzing.swift) and GitHash's own conveniences.
swiftc -sanitize=fuzzer,address -parse-as-library -g -Onone -module-name GitHash -emit-module -emit-module-path "$out/GitHash.swiftmodule" \
    -emit-library -static Tests/Fuzz/SHA1ForFuzzing.swift Sources/GitHash/SHA1+Conveniences.swift Sources/GitHash/ObjectID.swift -o "$out/libGitHash.a" \
    2> "$out/GitHash.build.log" \
    || { cat "$out/GitHash.build.log" >&2; exit 1; }
# shellcheck disable=SC2046
swiftc -sanitize=fuzzer,address -parse-as-library -g -Onone -module-name GitTrees -emit-module -emit-module-path "$out/GitTrees.swiftmodule" \
    -I "$out" -emit-library -static $(ls Sources/GitTrees/*.swift) -o "$out/libGitTrees.a" 2> "$out/GitTrees.build.log" \
    || { cat "$out/GitTrees.build.log" >&2; exit 1; }
# shellcheck disable=SC2046
swiftc -sanitize=fuzzer,address -parse-as-library -g -Onone -module-name SQLite -emit-module -emit-module-path "$out/SQLite.swiftmodule" \
    -I Sources/CSQLite -emit-library -static $(ls Sources/SQLite/*.swift) -o "$out/libSQLite.a" 2> "$out/SQLite.build.log" \
    || { cat "$out/SQLite.build.log" >&2; exit 1; }

# The fuzzed sources of MirrorModel, MirrorCore and MirrorSQLite become one module, so the
# imports of the others between them name empty modules.
: > "$out/Empty.swift"
for module in MirrorModel MirrorCore; do
    swiftc -parse-as-library -module-name "$module" -emit-module -emit-module-path "$out/$module.swiftmodule" "$out/Empty.swift"
done

status=0
for target in "${targets[@]}"; do
    sources=$(sources_for "$target")
    echo "fuzz: building $target"
    # -parse-as-library: the sources are library code; libFuzzer provides main().
    # -package-name: some of them declare `package` access (shared with MirrorSQLite).
    # shellcheck disable=SC2086
    swiftc -sanitize=fuzzer,address -parse-as-library -g -Onone -module-name MirrorCoreFuzz -package-name commits_mirror_fuzz \
        -I "$out" -I Sources/CZlib -I Sources/CSQLite -L "$out" -lGitTrees -lGitHash -lSQLite $sources -o "$out/$target" 2> "$out/$target.build.log" \
        || { cat "$out/$target.build.log" >&2; exit 1; }
    # The committed seeds are copied, so fuzzing never edits the repository.
    corpus="$out/corpus-$target"
    mkdir -p "$corpus"
    cp -n Tests/Fuzz/Corpus/"$target"/* "$corpus"/ 2>/dev/null || true
    echo "fuzz: running $target for ${seconds}s"
    # timeout: a safety net should the fuzzer itself wedge (e.g. while symbolising a crash).
    if timeout --kill-after=30 $((seconds + 120)) \
        env ASAN_OPTIONS="detect_leaks=1:symbolize=0:${ASAN_OPTIONS:-}" \
        "$out/$target" "$corpus" -seed="${FUZZ_SEED:-1}" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
        -max_len=65536 -artifact_prefix="$out/" -print_final_stats=1 > "$out/$target.log" 2>&1; then
        echo "fuzz: $target: $(grep -E '^stat::number_of_executed_units' "$out/$target.log" | awk '{print $2}') inputs, no crash ($(ls "$corpus" | wc -l) in corpus)"
    else
        status=1
        echo "fuzz: $target FAILED; log: $out/$target.log" >&2
        tail -40 "$out/$target.log" >&2
    fi
done
exit $status
