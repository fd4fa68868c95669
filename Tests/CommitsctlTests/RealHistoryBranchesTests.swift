import Foundation
import MirrorTestSupport
import Testing

/// Issue #29, acceptances 1 and 3, on real history: a real git repository (made
/// by git from swiftlang/swift-evolution's 7,807 commits, `RealHistoryRepository`)
/// with long-lived release branches sharing most of main's history, a real topic
/// branch and an unrelated `gh-pages`, served by github-sim (REST and git) from the
/// repository itself. `commitsctl sync --all-branches` into a real SQLite file and
/// a real PostgreSQL 15; every branch compared with `git rev-list`, `show` with
/// `git branch --contains`.
@Suite(.enabled(if: PackagePaths.hasDataset, "../shared/datasets not present: skipping the real-history branch tests"))
struct RealHistoryBranchesTests {
    enum Store: String, CaseIterable, Sendable {
        case sqlite, postgresql
    }

    @Test(arguments: Store.allCases)
    func everyBranchIsExactlyWhatGitReachesAndAnIdleSyncIsOneConditionalRequest(store: Store) async throws {
        let directory = try TemporaryDirectory()
        let repository = try await RealHistoryRepository.make(in: directory)
        let sim = try await SimulatorProcess.start(["--git-repository", "swiftlang/swift-evolution=\(repository.path)"])
        defer { sim.stop() }
        let db = store == .sqlite ? directory.path("commits.sqlite") : try await PostgreSQLServer.shared().createDatabase()
        func commitsctl(_ arguments: [String]) async throws -> ProcessResult {
            try await run(
                "commitsctl", arguments + ["--db", db], environment: ["GITHUB_TOKEN": "test-token", "GITHUB_API_URL": sim.baseURL])
        }

        let first = try await commitsctl(["sync", "swiftlang/swift-evolution", "--all-branches"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.hasPrefix("swiftlang/swift-evolution: 5 branches read over git in one fetch, "), "\(first.stdout)")
        let firstCost = try await sim.control("/_sim/stats")
        #expect(firstCost["gitRequests"] as? Int == 3 && firstCost["listRequests"] as? Int == 0, "\(firstCost)")

        // Each branch holds exactly what git reaches from it; each commit is stored once.
        var union: Set<String> = []
        for branch in RealHistoryRepository.branches {
            let expected = try await repository.revList(branch)
            let listed = try await commitsctl(["query", "--branch", branch, "--format", "ndjson", "-n", "100000"])
            let stored = Set(try Self.shas(listed.stdout))
            #expect(stored == expected, "\(branch): \(stored.count) stored, git reaches \(expected.count)")
            union.formUnion(expected)
        }
        #expect(union.count > 7_807, "the branches add commits of their own to the real history")
        print("real history, \(store): \(union.count) commits on \(RealHistoryRepository.branches.count) branches, first sync \(firstCost)")
        let all = try await commitsctl(["query", "--format", "ndjson", "-n", "100000"])
        let shas = try Self.shas(all.stdout)
        #expect(shas.count == union.count && Set(shas) == union, "every commit listed once: \(shas.count) of \(union.count)")
        let check = try await commitsctl(["check"])
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")

        // `show` names the branches git says contain each commit: the root, a commit of main's
        // recent history, one only release/6.0 reaches, and gh-pages' root.
        let samples = try await [
            repository.git(["rev-list", "--max-parents=0", "main"]), repository.git(["rev-parse", "main~200"]),
            repository.git(["rev-parse", "release/6.0^1"]), repository.git(["rev-list", "--max-parents=0", "gh-pages"]),
            repository.git(["rev-parse", "topic/proposal-review"]),
        ].map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        for sha in samples {
            let shown = try await commitsctl(["show", sha, "--format", "json"])
            let object = try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any]
            let branches = (object?["branches"] as? [String: [String]])?["swiftlang/swift-evolution"]?.sorted()
            #expect(branches == (try await repository.branchesContaining(sha)), "\(sha): \(shown.stdout)\(shown.stderr)")
        }

        // A second sync: the kept branch listing and the tag listing answered 304, and nothing for the unchanged branches.
        try await sim.control("/_sim/reset-stats", method: "POST")
        let idle = try await commitsctl(["sync", "swiftlang/swift-evolution", "--all-branches"])
        #expect(idle.status == 0, "\(idle.stderr)")
        let stats = try await sim.control("/_sim/stats")
        #expect(stats["requests"] as? Int == 2 && stats["notModified"] as? Int == 2, "\(stats)")
        #expect(stats["gitRequests"] as? Int == 0, "\(stats)")
    }

    /// The `sha` of each line of `query --format ndjson`.
    static func shas(_ ndjson: String) throws -> [String] {
        try ndjson.split(separator: "\n").map { line in
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            return object?["sha"] as? String ?? ""
        }
    }
}
