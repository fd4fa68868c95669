import Foundation
import MirrorTestSupport
import PostgreSQL
import SQLite
import Testing

/// `commitsctl sync OWNER/NAME --all-branches` on a repository never mirrored (issue #29,
/// acceptance 4): the new branches are read over git in one fetch (every tip one `want`), each
/// recorded complete at the head the branch listing named, so the REST side is the listing, the
/// repository lookup and a 304 per branch. Real commitsctl and github-sim processes over
/// loopback, a real SQLite file and a real PostgreSQL 15; each branch compared with the
/// simulator's `rev-list`.
@Suite struct BranchesOverGitCLITests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }
    var db: String { directory.path("commits.sqlite") }

    /// Where the test mirrors: a SQLite file, or a database of the suite's PostgreSQL server.
    enum Store: String, CaseIterable, Sendable {
        case sqlite, postgresql
    }

    func location(_ store: Store) async throws -> String {
        store == .sqlite ? db : try await PostgreSQLServer.shared().createDatabase()
    }

    func sync(_ arguments: [String], _ sim: SimulatorProcess, db: String) async throws -> ProcessResult {
        try await run(
            "commitsctl", ["sync", "acme/widgets", "--db", db, "--api-url", sim.baseURL] + arguments,
            environment: ["GITHUB_TOKEN": "test-token"])
    }

    /// A history of 3,000 commits with `main` 300 commits short of its end, ten `topic/N`
    /// branches ahead of main along the rest, and nine `release/N` branches behind it.
    /// A sync line that cost nothing beyond what an idle round must: no request for a
    /// branch the listing names at its stored head, one free tag listing for the default branch.
    static func isIdle(_ line: String) -> Bool {
        line.contains(": 0 new, 0 updated, 0 requests,")
            || (line.hasPrefix("acme/widgets@main:") && line.contains(": 0 new, 0 updated, 1 request (1 not modified),"))
    }

    static func twentyBranches() async throws -> (SimulatorProcess, branches: [String]) {
        let sim = try await SimulatorProcess.start(["--synthetic", "acme/widgets=3000:11"])
        try await sim.control("/_sim/repos/acme/widgets/head?back=300", method: "POST")
        var branches = ["main"]
        for k in 1...10 {
            try await sim.control("/_sim/repos/acme/widgets/branch?name=topic/\(k)&forward=\(25 * k)", method: "POST")
            branches.append("topic/\(k)")
        }
        for k in 1...9 {
            try await sim.control("/_sim/repos/acme/widgets/branch?name=release/\(k)&back=\(150 * k)", method: "POST")
            branches.append("release/\(k)")
        }
        try await sim.control("/_sim/reset-stats", method: "POST")
        return (sim, branches)
    }

    static let branchRows = """
        SELECT b.name, c.sha FROM branch_commits bc
        JOIN repository_branches b ON b.id = bc.branch_id JOIN commits c ON c.id = bc.commit_id
        """

    /// The shas each branch holds in the store, by branch name, and how many commits it holds.
    func stored(_ db: String) throws -> (branches: [String: Set<String>], commits: Int, complete: Int) {
        var rows: [(String, String)] = []
        let commits: Int, complete: Int
        if db.hasPrefix("postgresql:") {
            let connection = try PostgreSQLConnection(uri: db)
            let result = try connection.execute(Self.branchRows)
            rows = (0..<result.count).map { (result.string($0, 0) ?? "", result.string($0, 1) ?? "") }
            commits = try connection.execute("SELECT count(*) FROM commits").int(0, 0) ?? -1
            complete = try connection.execute("SELECT count(*) FROM sync_state WHERE complete").int(0, 0) ?? -1
        } else {
            let connection = try Connection(path: db, mode: .readOnly)
            rows = try connection.prepare(Self.branchRows).map { ($0.string(0), $0.string(1)) }
            commits = try connection.scalarInt("SELECT count(*) FROM commits") ?? -1
            complete = try connection.scalarInt("SELECT count(*) FROM sync_state WHERE complete = 1") ?? -1
        }
        return (Dictionary(grouping: rows, by: \.0).mapValues { Set($0.map(\.1)) }, commits, complete)
    }

    func stats(_ sim: SimulatorProcess) async throws -> (points: Int, git: Int, lists: Int) {
        let stats = try await sim.control("/_sim/stats")
        let points = (stats["rateLimitUsed"] as? [String: Int] ?? [:]).values.reduce(0, +)
        return (points, stats["gitRequests"] as? Int ?? -1, stats["listRequests"] as? Int ?? -1)
    }

    @Test(arguments: Store.allCases)
    func twentyNewBranchesAreOneFetchAndEachIsExact(store: Store) async throws {
        let (sim, branches) = try await Self.twentyBranches()
        defer { sim.stop() }
        let db = try await location(store)

        let first = try await sync(["--all-branches"], sim, db: db)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.lines.first?.hasPrefix("acme/widgets: 20 branches read over git in one fetch, ") == true, "\(first.stdout)")
        #expect(first.lines.count == 21, "\(first.stdout)")
        let cost = try await stats(sim)
        #expect(cost.git == 3, "one advertisement, one ls-refs, one fetch: \(cost.git) git requests")
        #expect(cost.points <= 5, "the listing, the lookup and free 304s: \(cost.points) points")
        #expect(cost.lists == 0, "no commit listed over REST")
        print("20 new branches, \(store): \(cost.git) git requests, \(cost.points) REST points, \(cost.lists) commit listings")

        var union: Set<String> = []
        let stored = try stored(db)
        for branch in branches {
            let expected = try await BranchSyncCLITests.revList(branch, sim)
            #expect(
                stored.branches[branch] == expected, "\(branch): \(stored.branches[branch]?.count ?? 0) stored, \(expected.count) reachable"
            )
            union.formUnion(expected)
        }
        #expect(stored.commits == union.count, "each commit stored once")
        #expect(stored.complete == 20)
        #expect(try await run("commitsctl", ["check", "--db", db]).status == 0)

        // Nothing moved: the listing the store kept is sent back and answered 304, and
        // it names every branch at the head stored, so no branch costs a request; the tag listing is a 304 too.
        try await sim.control("/_sim/reset-stats", method: "POST")
        let idle = try await sync(["--all-branches"], sim, db: db)
        #expect(idle.status == 0, "\(idle.stderr)")
        #expect(idle.lines.count == 20 && idle.lines.allSatisfy(Self.isIdle), "\(idle.stdout)")
        let idleCost = try await stats(sim)
        let idleStats = try await sim.control("/_sim/stats")
        #expect(idleCost.git == 0 && idleCost.points == 0, "\(idleCost)")
        #expect(idleStats["requests"] as? Int == 2 && idleStats["notModified"] as? Int == 2, "two listings, answered 304: \(idleStats)")
    }

    @Test func aBrokenPackLeavesEveryBranchToRESTAndEachIsStillExact() async throws {
        let (sim, branches) = try await Self.twentyBranches()
        defer { sim.stop() }
        try await sim.control("/_sim/faults", method: "POST", body: #"{"git":"truncated-pack"}"#)

        let first = try await sync(["--branch", "release/*", "--branch", "main"], sim, db: db)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stderr.contains("acme/widgets: its new branches were not read over git ("), "\(first.stderr)")
        #expect(first.lines.count == 10, "\(first.stdout)")
        let stored = try stored(db).branches
        for branch in branches where !branch.hasPrefix("topic/") {
            #expect(stored[branch] == (try await BranchSyncCLITests.revList(branch, sim)), "\(branch)")
        }
        #expect(try await run("commitsctl", ["check", "--db", db]).status == 0)
    }
}
