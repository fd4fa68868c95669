import Curl
import Foundation
import MirrorTestSupport
import PostgreSQL
import SQLite
import Testing

/// Issue #29, "which branches hold a commit": `show SHA` names the mirrored
/// branches that reach it and `query --branch` lists what branches reach, on a
/// SQLite file and a real PostgreSQL database synced from one github-sim over
/// real libcurl. After each move of a branch (created, fast-forwarded, force-pushed
/// back) the answers are checked against the simulator's own listing of each
/// branch (`git rev-list BRANCH`), and the two stores must print the same bytes.
@Suite(.serialized) struct BranchMembershipCLITests {
    let directory: TemporaryDirectory
    let sqlite: String
    let postgreSQL: String
    init() async throws {
        directory = try TemporaryDirectory()
        sqlite = directory.path("commits.sqlite")
        postgreSQL = try await PostgreSQLServer.shared().createDatabase()
    }
    var stores: [String] { [sqlite, postgreSQL] }

    func syncBoth(_ branches: [String], _ sim: SimulatorProcess) async throws {
        for store in stores {
            let result = try await run(
                "commitsctl",
                ["sync", "acme/widgets", "--db", store, "--api-url", sim.baseURL, "--no-git-bootstrap"]
                    + branches.flatMap { ["--branch", $0] },
                environment: ["GITHUB_TOKEN": "test-token"])
            #expect(result.status == 0, "\(store): \(result.stderr)")
        }
    }

    /// `commitsctl ARGS` on both stores: the same stdout from each, which is returned.
    func sameOutput(_ arguments: [String], _ step: String, sourceLocation: SourceLocation = #_sourceLocation) async throws
        -> String
    {
        let fromSQLite = try await commitsctl(arguments + ["--db", sqlite], columns: 200)
        let fromPostgreSQL = try await commitsctl(arguments + ["--db", postgreSQL], columns: 200)
        #expect(fromSQLite.status == 0, "\(step) \(arguments): \(fromSQLite.stderr)", sourceLocation: sourceLocation)
        #expect(fromPostgreSQL.status == 0, "\(step) \(arguments): \(fromPostgreSQL.stderr)", sourceLocation: sourceLocation)
        #expect(fromPostgreSQL.stdout == fromSQLite.stdout, "\(step) \(arguments)", sourceLocation: sourceLocation)
        return fromSQLite.stdout
    }

    /// The shas of `query ARGS --format json`, in order.
    func queriedSHAs(_ arguments: [String], _ step: String) async throws -> [String] {
        let json = try await sameOutput(["query"] + arguments + ["--format", "json"], step)
        let records = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]] ?? []
        return records.compactMap { $0["sha"] as? String }
    }

    /// Checks `query --branch` and `show` on both stores against what each branch reaches.
    func expectAnswers(_ branches: [String], _ sim: SimulatorProcess, step: String) async throws {
        var reach: [String: Set<String>] = [:]
        for branch in branches { reach[branch] = try await BranchSyncCLITests.revList(branch, sim) }
        for branch in branches {
            let listed = try await queriedSHAs(["--branch", branch], step)
            #expect(Set(listed) == reach[branch], "\(step): query --branch \(branch)")
            #expect(listed.count == reach[branch]?.count, "\(step): each commit once")
        }
        let union = branches.reduce(into: Set<String>()) { $0.formUnion(reach[$1] ?? []) }
        let all = try await queriedSHAs(["--branch", "*", "--repo", "acme/widgets"], step)
        #expect(Set(all) == union && all.count == union.count, "\(step): query --branch '*'")
        let both = try await queriedSHAs(branches.flatMap { ["--branch", $0] }, step)
        #expect(both == all, "\(step): the names given one by one are the glob's union")

        // One commit of each kind there is: on main only, on both, on topic only.
        let main = reach["main"] ?? [], topic = reach["topic"] ?? []
        let samples = [main.subtracting(topic), main.intersection(topic), topic.subtracting(main)]
            .compactMap { $0.sorted().first }
        #expect(!samples.isEmpty)
        for sha in samples {
            let expected = branches.filter { reach[$0]?.contains(sha) == true }.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            let json = try await sameOutput(["show", sha, "--format", "json"], step)
            let record = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
            let held = record?["branches"] as? [String: [String]]
            #expect(held == (expected.isEmpty ? [:] : ["acme/widgets": expected]), "\(step): show \(sha) --format json")
            let text = try await sameOutput(["show", sha], step)
            let line = text.split(separator: "\n").first { $0.hasPrefix("Branches:") }.map(String.init)
            #expect(
                line == (expected.isEmpty ? nil : "Branches:   acme/widgets: " + expected.joined(separator: ", ")),
                "\(step): show \(sha)")
        }
        for store in stores {
            let check = try await run("commitsctl", ["check", "--db", store])
            #expect(check.status == 0, "\(step): \(check.stdout)\(check.stderr)")
        }

        // stats --branches: a row per branch, in byte order, counting what it reaches; the stores agree
        // on everything but when each synced.
        var statistics: [[String: String]] = []
        for store in stores {
            let result = try await commitsctl(["stats", "--branches", "--format", "json", "--db", store])
            #expect(result.status == 0, "\(step): \(result.stderr)")
            let rows = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]] ?? []
            #expect(rows.map { $0["branch"] as? String } == branches.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
            for row in rows {
                let branch = row["branch"] as? String ?? ""
                #expect(row["commits"] as? Int == reach[branch]?.count, "\(step): stats --branches, \(branch)")
                #expect(row["repository"] as? String == "acme/widgets" && row["state"] as? String == "active")
                #expect(row["last_sync_at"] is String)
            }
            statistics.append(
                rows.reduce(into: [:]) { all, row in
                    all[row["branch"] as? String ?? ""] = "\(row.filter { $0.key != "last_sync_at" }.sorted { $0.key < $1.key })"
                })
        }
        #expect(statistics.first == statistics.last, "\(step): stats --branches on both stores")
    }

    @Test func showAndQueryFollowABranchCreatedMovedAndForcePushedBack() async throws {
        let sim = try await SimulatorProcess.start(["--synthetic", "acme/widgets=300:11"])
        defer { sim.stop() }
        try await syncBoth(["main"], sim)
        try await expectAnswers(["main"], sim, step: "main alone")

        _ = try await sim.control("/_sim/repos/acme/widgets/branch?name=topic&back=30", method: "POST")
        try await syncBoth(["main", "topic"], sim)
        try await expectAnswers(["main", "topic"], sim, step: "topic created")

        _ = try await sim.control("/_sim/repos/acme/widgets/branch?name=topic&forward=20", method: "POST")
        try await syncBoth(["main", "topic"], sim)
        try await expectAnswers(["main", "topic"], sim, step: "topic fast-forwarded")

        _ = try await sim.control("/_sim/repos/acme/widgets/branch?name=topic&back=40", method: "POST")
        try await syncBoth(["main", "topic"], sim)
        try await expectAnswers(["main", "topic"], sim, step: "topic force-pushed back")

        // main force-pushed behind topic: topic now holds commits main does not.
        _ = try await sim.control("/_sim/repos/acme/widgets/head?back=60", method: "POST")
        try await syncBoth(["main", "topic"], sim)
        try await expectAnswers(["main", "topic"], sim, step: "main force-pushed back")

        // A row lost from a branch is damage `check` names, on either store.
        let lose = """
            DELETE FROM branch_commits WHERE branch_id = (SELECT id FROM repository_branches WHERE name = 'topic')
              AND commit_id = (SELECT min(commit_id) FROM branch_commits
                               WHERE branch_id = (SELECT id FROM repository_branches WHERE name = 'topic'))
            """
        try Connection(path: sqlite).execute(lose)
        try PostgreSQLConnection(uri: postgreSQL).execute(lose)
        for store in stores {
            let check = try await run("commitsctl", ["check", "--db", store])
            #expect(check.status == 1, "\(check.stdout)")
            let topic = check.lines.first { $0.hasPrefix("acme/widgets@topic: DAMAGED") }
            #expect(topic?.contains("its branch rows do not match its head") == true, "\(check.stdout)")
            #expect(topic?.contains(": 1 missing, 0 extra)") == true, "\(check.stdout)")
        }
    }

    @Test func aBranchNoStoreMirrorsIsAnErrorNotAnEmptyAnswer() async throws {
        let sim = try await SimulatorProcess.start(["--synthetic", "acme/widgets=50:3"])
        defer { sim.stop() }
        try await syncBoth(["main"], sim)
        for store in stores {
            let result = try await commitsctl(["query", "--branch", "release/*", "--db", store])
            #expect(result.status == 1 && result.stdout.isEmpty)
            #expect(result.stderr.hasPrefix("commitsctl: error: no mirrored branch in the store "), "\(result.stderr)")
            #expect(
                result.stderr.hasSuffix(" matches 'release/*'; `commitsctl status` lists the mirrored branches\n"),
                "\(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1)
        }
        let bad = try await commitsctl(["query", "--branch", "a..b", "--db", sqlite])
        #expect(bad.status == 64 && bad.stderr.contains("--branch 'a..b' is not a branch name"), "\(bad.stderr)")
        let follow = try await commitsctl(["query", "--branch", "main", "--follow", "--db", sqlite])
        #expect(follow.status == 64 && follow.stderr.contains("--follow cannot be combined with --branch"), "\(follow.stderr)")
    }
}
