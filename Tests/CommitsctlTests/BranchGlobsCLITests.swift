import Foundation
import MirrorTestSupport
import SQLite
import Testing

/// Globs in the configuration's `branches:` with `commitsctl sync` (issue #29, discovery): each
/// run lists the repository's branches once and syncs the names the file gives, then what the
/// globs select; a stored branch the listing no longer has is marked gone once GitHub answers 404
/// for it alone, its commits kept (one the listing omits but GitHub has is kept), and a
/// branch named exactly is marked gone when its head answers "not found". `status` says so, and a
/// branch that comes back is active again. Real commitsctl and github-sim processes, a real SQLite file.
@Suite struct BranchGlobsCLITests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }
    var db: String { directory.path("commits.sqlite") }

    func synced(_ result: ProcessResult) -> [String] { result.lines.map { String($0.prefix { $0 != ":" }) } }

    func storedCommits() throws -> Int { try Connection(path: db, mode: .readOnly).scalarInt("SELECT count(*) FROM commits") ?? -1 }

    /// `commitsctl status --json`, by branch.
    func status(_ config: String) async throws -> [String: [String: Any]] {
        let result = try await run("commitsctl", ["status", "--json", "--config", config])
        #expect(result.status == 0, "\(result.stderr)")
        let rows = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]] ?? []
        return Dictionary(rows.map { ($0["branch"] as? String ?? "", $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// github-sim serving `acme/widgets` (`commits` of seed 5) with `branches` cut `back` commits behind main.
    func simulator(commits: Int, branches: [(name: String, back: Int)]) async throws -> SimulatorProcess {
        let sim = try await SimulatorProcess.start(["--synthetic", "acme/widgets=\(commits):5"])
        for branch in branches {
            _ = try await sim.control("/_sim/repos/acme/widgets/branch?name=\(branch.name)&back=\(branch.back)", method: "POST")
        }
        return sim
    }

    /// A configuration mirroring `acme/widgets` with `branches` (YAML flow list) into `store`, over REST.
    func configuration(_ branches: String, store: String, _ sim: SimulatorProcess) throws -> String {
        try directory.write(
            "config.yaml",
            """
            store: \(store)
            api_url: \(sim.baseURL)
            git_bootstrap: false
            repositories:
              - name: acme/widgets
                branches: \(branches)

            """)
    }

    @Test func eachRunSyncsWhatTheGlobsSelectAndMarksWhatIsGone() async throws {
        let sim = try await simulator(commits: 300, branches: [("release/1.0", 40), ("feature/x", 5)])
        defer { sim.stop() }
        let config = try configuration(#"[main, "release/*"]"#, store: db, sim)
        let sync = { try await run("commitsctl", ["sync", "--config", config], environment: ["GITHUB_TOKEN": "test-token"]) }
        let first = try await sync()
        #expect(first.status == 0, "\(first.stderr)")
        #expect(synced(first) == ["acme/widgets@main", "acme/widgets@release/1.0"], "the name first, then the glob's")

        _ = try await sim.control("/_sim/repos/acme/widgets/branch?name=release/2.0&back=10", method: "POST")
        let second = try await sync()
        #expect(second.status == 0, "\(second.stderr)")
        #expect(synced(second) == ["acme/widgets@main", "acme/widgets@release/1.0", "acme/widgets@release/2.0"])
        #expect(try await status(config)["release/2.0"]?["configured"] as? Bool == true)
        #expect(try await status(config)["feature/x"] == nil, "not selected, never synced")

        // Deleted upstream: marked gone on the next run, not synced, nothing deleted.
        let commits = try storedCommits()
        _ = try await sim.control("/_sim/repos/acme/widgets/branch?name=release/1.0", method: "DELETE")
        let third = try await sync()
        #expect(third.status == 0, "\(third.stderr)")
        #expect(synced(third) == ["acme/widgets@main", "acme/widgets@release/2.0"])
        #expect(third.stderr.contains("acme/widgets@release/1.0 is gone from GitHub; its history is kept"), "\(third.stderr)")
        let gone = try await status(config)["release/1.0"]
        #expect(gone?["state"] as? String == "gone", "\(gone ?? [:])")
        #expect((gone?["state_reason"] as? String)?.hasPrefix("branch deleted on GitHub (since 20") == true, "\(gone ?? [:])")
        #expect(try await status(config)["main"]?["state"] as? String == "active")
        #expect(try storedCommits() == commits)
        let table = try await run("commitsctl", ["status", "--config", config])
        #expect(table.stdout.contains("STATE"), "a STATE column once a branch is gone: \(table.stdout)")
        #expect(try await run("commitsctl", ["check", "--db", db]).status == 0)
        let stats = try await run("commitsctl", ["stats", "--branches", "--format", "oneline", "--db", db])
        #expect(
            stats.lines.map { String($0.prefix { $0 != ":" }) } == [
                "acme/widgets@main", "acme/widgets@release/1.0", "acme/widgets@release/2.0",
            ])
        #expect(stats.lines.filter { $0.hasSuffix(", gone") }.map { String($0.prefix { $0 != ":" }) } == ["acme/widgets@release/1.0"])
        let statsTable = try await run("commitsctl", ["stats", "--branches", "--db", db])
        #expect(statsTable.lines.first?.contains("STATE") == true, "\(statsTable.stdout)")
        #expect(!(try await sync()).stderr.contains("is gone"), "marked once")

        // It comes back: synced again and active.
        _ = try await sim.control("/_sim/repos/acme/widgets/branch?name=release/1.0&back=30", method: "POST")
        let back = try await sync()
        #expect(synced(back) == ["acme/widgets@main", "acme/widgets@release/1.0", "acme/widgets@release/2.0"], "\(back.stderr)")
        #expect(try await status(config)["release/1.0"]?["state"] as? String == "active")
    }

    /// `sync --all-branches` and `--branch '*'` settle a deleted branch exactly as a
    /// configuration's `branches: ["*"]` does: confirmed by `GET …/branches/{b}`, marked gone,
    /// nothing deleted, and `status` and `query --branch` answering the same on all three stores.
    @Test func theCommandLineGlobsMarkADeletedBranchGoneAsTheConfigurationDoes() async throws {
        let sim = try await simulator(commits: 300, branches: [("release/1.0", 40), ("feature/x", 5)])
        defer { sim.stop() }
        let configured = try configuration(#"["*"]"#, store: directory.path("configured.sqlite"), sim)
        let token = ["GITHUB_TOKEN": "test-token"]
        let ways: [(db: String, arguments: [String])] = [
            (directory.path("configured.sqlite"), ["sync", "--config", configured]),
            (directory.path("all.sqlite"), ["sync", "acme/widgets", "--all-branches", "--db", directory.path("all.sqlite")]),
            (directory.path("star.sqlite"), ["sync", "acme/widgets", "--branch", "*", "--db", directory.path("star.sqlite")]),
        ]
        func syncEach() async throws -> [ProcessResult] {
            var results: [ProcessResult] = []
            for way in ways {
                results.append(
                    try await run("commitsctl", way.arguments + ["--api-url", sim.baseURL, "--no-git-bootstrap"], environment: token))
            }
            return results
        }
        for first in try await syncEach() { #expect(first.status == 0 && first.lines.count == 3, "\(first.stdout)\(first.stderr)") }
        let counts = try ways.map { try Connection(path: $0.db, mode: .readOnly).scalarInt("SELECT count(*) FROM commits") }

        _ = try await sim.control("/_sim/repos/acme/widgets/branch?name=release/1.0", method: "DELETE")
        for (way, result) in zip(ways, try await syncEach()) {
            #expect(result.status == 0, "\(way.arguments): \(result.stderr)")
            #expect(synced(result) == ["acme/widgets@feature/x", "acme/widgets@main"], "\(way.arguments): \(result.stdout)")
            #expect(
                result.stderr.contains("acme/widgets@release/1.0 is gone from GitHub; its history is kept"),
                "\(way.arguments): \(result.stderr)")
        }
        #expect(try ways.map { try Connection(path: $0.db, mode: .readOnly).scalarInt("SELECT count(*) FROM commits") } == counts)
        var answers: [[String]] = []
        for way in ways {
            let rows = try await run("commitsctl", ["status", "--json", "--db", way.db])
            let status = try JSONSerialization.jsonObject(with: Data(rows.stdout.utf8)) as? [[String: Any]] ?? []
            let states = status.map { "\($0["branch"] ?? "") \($0["state"] ?? "") \($0["head_sha"] ?? "")" }.sorted()
            #expect(states.filter { $0.hasPrefix("release/1.0 gone ") }.count == 1, "\(way.arguments): \(states)")
            let query = try await run("commitsctl", ["query", "--branch", "release/1.0", "--format", "oneline", "--db", way.db])
            #expect(query.status == 0 && !query.lines.isEmpty, "\(way.arguments): \(query.stderr)")
            let lookups = try await run("commitsctl", ["status", "--requests", "--format", "json", "--db", way.db])
            #expect(lookups.stdout.contains("branch_lookup"), "\(way.arguments): confirmed alone: \(lookups.stdout)")
            #expect(try await run("commitsctl", ["check", "--db", way.db]).status == 0)
            answers.append(states + query.lines)
        }
        #expect(answers[1] == answers[0] && answers[2] == answers[0], "\(answers)")
    }

    /// A listing that omits a branch (its pages shifted while read; here github-sim's
    /// `branchListingOmits`) does not decide: the branch is asked for alone, GitHub has it,
    /// and it is synced in the same run (here it moved meanwhile).
    @Test func aBranchTheListingOmitsIsAskedForAloneAndKeptWhileGitHubHasIt() async throws {
        let sim = try await simulator(commits: 200, branches: [("release/1.0", 40), ("release/2.0", 5)])
        defer { sim.stop() }
        let config = try configuration(#"["release/*"]"#, store: db, sim)
        let sync = { try await run("commitsctl", ["sync", "--config", config], environment: ["GITHUB_TOKEN": "test-token"]) }
        #expect(synced(try await sync()) == ["acme/widgets@release/1.0", "acme/widgets@release/2.0"])
        func lookups() async throws -> Int {
            let spent = try await run("commitsctl", ["status", "--requests", "--format", "json", "--db", db])
            let rows = try JSONSerialization.jsonObject(with: Data(spent.stdout.utf8)) as? [[String: Any]] ?? []
            return rows.filter { $0["kind"] as? String == "branch_lookup" }.map { $0["requests"] as? Int ?? 0 }.reduce(0, +)
        }
        #expect(try await lookups() == 0)

        _ = try await sim.control("/_sim/faults", method: "POST", body: #"{"branchListingOmits":["release/1.0"]}"#)
        let moved = try await sim.control("/_sim/repos/acme/widgets/branch?name=release/1.0&forward=10", method: "POST")["head"] as? String
        let omitted = try await sync()
        #expect(
            omitted.status == 0 && Set(synced(omitted)) == ["acme/widgets@release/1.0", "acme/widgets@release/2.0"],
            "\(omitted.stdout) \(omitted.stderr)")
        #expect(try await status(config)["release/1.0"]?["head_sha"] as? String == moved)
        #expect(!omitted.stderr.contains("is gone"), "\(omitted.stderr)")
        #expect(try await status(config)["release/1.0"]?["state"] as? String == "active")
        #expect(try await lookups() == 1, "one confirmation request")

        // Deleted while omitted: the confirmation answers 404, and it is marked gone.
        _ = try await sim.control("/_sim/repos/acme/widgets/branch?name=release/1.0", method: "DELETE")
        let deleted = try await sync()
        #expect(deleted.stderr.contains("acme/widgets@release/1.0 is gone from GitHub; its history is kept"), "\(deleted.stderr)")
        #expect(try await status(config)["release/1.0"]?["state"] as? String == "gone")
        #expect(try await lookups() == 2)
    }

    @Test func aBranchNamedExactlyIsMarkedGoneWhenItsHeadIsNotFound() async throws {
        let sim = try await SimulatorProcess.start(["--synthetic", "acme/widgets=120:3"])
        defer { sim.stop() }
        _ = try await sim.control("/_sim/repos/acme/widgets/branch?name=topic&back=7", method: "POST")
        let sync = {
            try await run(
                "commitsctl",
                ["sync", "acme/widgets", "--branch", "topic", "--db", self.db, "--api-url", sim.baseURL, "--no-git-bootstrap"],
                environment: ["GITHUB_TOKEN": "test-token"])
        }
        #expect(try await sync().status == 0)
        let commits = try storedCommits()
        _ = try await sim.control("/_sim/repos/acme/widgets/branch?name=topic", method: "DELETE")
        let failed = try await sync()
        #expect(failed.status != 0)
        #expect(failed.stderr.contains("branch 'topic' not found in acme/widgets"), "\(failed.stderr)")
        let row = try await run("commitsctl", ["status", "--format", "oneline", "--db", db])
        #expect(row.stdout.contains("acme/widgets@topic: ") && row.stdout.contains(", gone (branch deleted on GitHub"), "\(row.stdout)")
        #expect(try storedCommits() == commits, "a deleted branch deletes nothing")

        _ = try await sim.control("/_sim/repos/acme/widgets/branch?name=topic&back=2", method: "POST")
        #expect(try await sync().status == 0)
        let active = try await run("commitsctl", ["status", "--format", "oneline", "--db", db])
        #expect(!active.stdout.contains("gone"), "\(active.stdout)")
    }
}
