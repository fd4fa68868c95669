import Curl
import Foundation
import MirrorTestSupport
import PostgreSQL
import SQLite
import Testing

/// `commitsctl sync OWNER/NAME --branch A --branch B` (issue #29, first slice): each named branch is
/// mirrored exactly on its own with its own sync state, the commits they share are stored once,
/// and a force-push of one branch hides nothing another branch still reaches. Real commitsctl and
/// github-sim processes over loopback, a real SQLite file.
@Suite struct BranchSyncCLITests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }
    var db: String { directory.path("commits.sqlite") }

    func sync(_ arguments: [String], _ sim: SimulatorProcess) async throws -> ProcessResult {
        try await run(
            "commitsctl", ["sync", "acme/widgets", "--db", db, "--api-url", sim.baseURL, "--no-git-bootstrap"] + arguments,
            environment: ["GITHUB_TOKEN": "test-token"])
    }

    /// Every sha the branch reaches, as the simulator lists it (`git rev-list BRANCH`).
    static func revList(_ branch: String, _ sim: SimulatorProcess) async throws -> Set<String> {
        var shas: Set<String> = []
        var page = 1
        while true {
            let response = try await HTTPClient().send(
                HTTPRequest(
                    url: sim.baseURL + "/repos/acme/widgets/commits?sha=\(branch)&per_page=100&page=\(page)",
                    headers: [("User-Agent", "commits-mirror-tests"), ("Authorization", "Bearer test-token")]))
            let elements = try JSONSerialization.jsonObject(with: Data(response.body)) as? [[String: Any]] ?? []
            if elements.isEmpty { return shas }
            shas.formUnion(elements.compactMap { $0["sha"] as? String })
            page += 1
        }
    }

    func storedSHAs() throws -> Set<String> {
        let connection = try Connection(path: db, mode: .readOnly)
        return Set(
            try connection.prepare(
                "SELECT c.sha FROM commits c JOIN repository_commits rc ON rc.commit_id = c.id WHERE rc.off_branch_since IS NULL"
            ).map { $0.string(0) })
    }

    func syncedHeads() throws -> [String: String] {
        let connection = try Connection(path: db, mode: .readOnly)
        let rows = try connection.prepare("SELECT branch, head_sha FROM sync_state WHERE complete = 1").map { ($0.string(0), $0.string(1)) }
        return Dictionary(rows, uniquingKeysWith: { first, _ in first })
    }

    @Test func eachNamedBranchIsExactOnItsOwnAndSharedCommitsAreStoredOnce() async throws {
        let sim = try await SimulatorProcess.start(["--synthetic", "acme/widgets=400:7"])
        defer { sim.stop() }
        let release = try await sim.control("/_sim/repos/acme/widgets/branch?name=release/1.0&back=60", method: "POST")
        let releaseHead = try #require(release["head"] as? String)

        let first = try await sync(["--branch", "main", "--branch", "release/1.0"], sim)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.lines.count == 2)
        #expect(first.lines[0].hasPrefix("acme/widgets@main: "), "\(first.stdout)")
        #expect(first.lines[1].hasPrefix("acme/widgets@release/1.0: 0 new"), "release's history is main's: \(first.stdout)")

        let main = try await Self.revList("main", sim)
        let releaseHistory = try await Self.revList("release/1.0", sim)
        #expect(releaseHistory.isSubset(of: main) && releaseHistory.count < main.count)
        #expect(try storedSHAs() == main)
        let connection = try Connection(path: db, mode: .readOnly)
        #expect(try connection.scalarInt("SELECT count(*) FROM commits") == main.count, "each commit stored once")
        #expect(try syncedHeads()["release/1.0"] == releaseHead)

        // Nothing moved: one conditional probe per branch, each answered 304.
        let idle = try await sync(["--branch", "main", "--branch", "release/1.0"], sim)
        #expect(idle.status == 0)
        // The default branch's sync also asks for the tags: its line counts that 304 too.
        #expect(
            idle.lines.allSatisfy {
                $0.contains(
                    $0.contains("@main:")
                        ? ": 0 new, 0 updated, 2 requests (2 not modified)" : ": 0 new, 0 updated, 1 request (1 not modified)")
            },
            "\(idle.stdout)")
        #expect(try await run("commitsctl", ["check", "--db", db]).status == 0)
    }

    @Test func aForcePushOfOneBranchHidesOnlyWhatNoOtherBranchReaches() async throws {
        let sim = try await SimulatorProcess.start(["--synthetic", "acme/widgets=300:9"])
        defer { sim.stop() }
        // `keep` stays where main is now; then main is force-pushed 15 first parents back.
        _ = try await sim.control("/_sim/repos/acme/widgets/branch?name=keep&back=0", method: "POST")
        _ = try await sim.control("/_sim/repos/acme/widgets/branch?name=topic&back=5", method: "POST")
        #expect(try await sync(["--branch", "main", "--branch", "keep", "--branch", "topic"], sim).status == 0)
        let everything = try await Self.revList("keep", sim)
        #expect(try storedSHAs() == everything)

        _ = try await sim.control("/_sim/repos/acme/widgets/head?back=15", method: "POST")
        let moved = try await sync(["--branch", "main"], sim)
        #expect(moved.status == 0, "\(moved.stderr)")
        #expect(!moved.stdout.contains("left the branch"), "keep still reaches main's old commits: \(moved.stdout)")
        #expect(try storedSHAs() == everything)

        // topic force-pushed back too, then keep deleted upstream: the next sync of keep fails in
        // words, deletes nothing, and marks off-branch what only keep reached (main's old commits).
        _ = try await sim.control("/_sim/repos/acme/widgets/branch?name=topic&back=20", method: "POST")
        let topic = try await sync(["--branch", "topic"], sim)
        #expect(topic.status == 0, "\(topic.stderr)")
        #expect(!topic.stdout.contains("left the branch"), "\(topic.stdout)")
        let topicHead = try await sim.control("/_sim/repos/acme/widgets/branch?name=topic&back=0", method: "POST")["head"] as? String
        #expect(try syncedHeads()["topic"] == topicHead)
        _ = try await sim.control("/_sim/repos/acme/widgets/branch?name=keep", method: "DELETE")
        let gone = try await sync(["--branch", "keep"], sim)
        #expect(gone.status != 0)
        #expect(gone.stderr.contains("branch 'keep' not found in acme/widgets"), "\(gone.stderr)")
        let stillReached = try await Self.revList("main", sim).union(try await Self.revList("topic", sim))
        #expect(stillReached.count < everything.count)
        #expect(try storedSHAs() == stillReached, "only what a mirrored branch reaches stays on-branch")
        #expect(
            try Connection(path: db, mode: .readOnly).scalarInt("SELECT count(*) FROM commits") == everything.count,
            "a deleted branch deletes nothing")
        #expect(try await run("commitsctl", ["check", "--db", db]).status == 0)
    }

    @Test func globsAndAllBranchesSelectFromTheRepositorysBranchListing() async throws {
        let sim = try await SimulatorProcess.start(["--synthetic", "acme/widgets=300:5"])
        defer { sim.stop() }
        for (branch, back) in [("release/1.0", 40), ("release/2.0", 10), ("feature/x", 5)] {
            _ = try await sim.control("/_sim/repos/acme/widgets/branch?name=\(branch)&back=\(back)", method: "POST")
        }
        let releases = try await sync(["--branch", "release/*"], sim)
        #expect(releases.status == 0, "\(releases.stderr)")
        #expect(releases.lines.map { String($0.prefix { $0 != ":" }) } == ["acme/widgets@release/1.0", "acme/widgets@release/2.0"])
        #expect(Set(try syncedHeads().keys) == ["release/1.0", "release/2.0"])
        let releaseHistory = try await Self.revList("release/2.0", sim)
        #expect(try storedSHAs() == releaseHistory)

        let all = try await sync(["--all-branches"], sim)
        #expect(all.status == 0, "\(all.stderr)")
        #expect(
            all.lines.map { String($0.prefix { $0 != ":" }) }
                == ["acme/widgets@feature/x", "acme/widgets@main", "acme/widgets@release/1.0", "acme/widgets@release/2.0"])
        #expect(try storedSHAs() == (try await Self.revList("main", sim)))
        #expect(Set(try syncedHeads().keys) == ["feature/x", "main", "release/1.0", "release/2.0"])

        // A name given exactly comes first, then what the glob adds, each once.
        let mixed = try await sync(["--branch", "main", "--branch", "*"], sim)
        #expect(mixed.lines.map { String($0.prefix { $0 != ":" }) }.first == "acme/widgets@main")
        #expect(mixed.lines.count == 4)

        let none = try await sync(["--branch", "hotfix/*"], sim)
        #expect(none.status == 1)
        #expect(
            none.stderr == "commitsctl: error: no branch of acme/widgets matches 'hotfix/*' (4 branches listed); check --branch\n")
        #expect(try await run("commitsctl", ["check", "--db", db]).status == 0)
    }

    @Test func badBranchArgumentsAreRefusedBeforeAnyWork() async throws {
        let twice = try await run("commitsctl", ["sync", "acme/widgets", "--db", db, "--branch", "a", "--branch", "a"])
        #expect(twice.status == 64 && twice.stderr.contains("--branch 'a' is given twice"), "\(twice.stderr)")
        let badGlob = try await run("commitsctl", ["sync", "acme/widgets", "--db", db, "--branch", "*.."])
        #expect(badGlob.status == 64 && badGlob.stderr.contains("is not a branch glob: it contains '..'"), "\(badGlob.stderr)")
        let both = try await run("commitsctl", ["sync", "acme/widgets", "--db", db, "--all-branches", "--branch", "main"])
        #expect(both.status == 64 && both.stderr.contains("--all-branches mirrors every branch"), "\(both.stderr)")
        let pattern = try await run("commitsctl", ["sync", "acme/*", "--db", db, "--all-branches"])
        #expect(pattern.status == 64 && pattern.stderr.contains("--all-branches needs a single repository"), "\(pattern.stderr)")
        #expect(!FileManager.default.fileExists(atPath: db), "refused before any store is opened")
    }

    /// The shas a store holds on a branch, read from either backend.
    static func visibleSHAs(_ store: String) throws -> Set<String> {
        let query = "SELECT c.sha FROM commits c JOIN repository_commits rc ON rc.commit_id = c.id WHERE rc.off_branch_since IS NULL"
        if store.hasPrefix("postgresql://") {
            let rows = try PostgreSQLConnection(uri: store).execute(query)
            return Set((0..<rows.count).compactMap { rows.string($0, 0) })
        }
        return Set(try Connection(path: store, mode: .readOnly).prepare(query).map { $0.string(0) })
    }

    /// Every branch through a force-push of two of them, on SQLite and on a real PostgreSQL:
    /// the same commits visible, each stored once, nothing another branch reaches hidden.
    @Test(arguments: ["sqlite", "postgresql"])
    func everyBranchThroughForcePushesOnEitherStore(backend: String) async throws {
        let store = backend == "postgresql" ? try await PostgreSQLServer.shared().createDatabase() : db
        let sim = try await SimulatorProcess.start(["--synthetic", "acme/widgets=500:13"])
        defer { sim.stop() }
        func syncAll() async throws -> ProcessResult {
            try await run(
                "commitsctl", ["sync", "acme/widgets", "--db", store, "--api-url", sim.baseURL, "--all-branches"],
                environment: ["GITHUB_TOKEN": "test-token"])
        }
        _ = try await sim.control("/_sim/repos/acme/widgets/branch?name=keep&back=0", method: "POST")
        _ = try await sim.control("/_sim/repos/acme/widgets/branch?name=release/9&back=100", method: "POST")
        let first = try await syncAll()
        // A first sync of three branches reads them over git in one fetch, then probes each.
        #expect(first.status == 0 && first.lines.count == 4, "\(first.stdout)\(first.stderr)")
        #expect(first.lines.first?.hasPrefix("acme/widgets: 3 branches read over git in one fetch") == true, "\(first.stdout)")
        let everything = try await Self.revList("keep", sim)
        #expect(try Self.visibleSHAs(store) == everything)

        // main force-pushed back: keep still reaches all. Then keep itself is force-pushed back
        // behind release/9: what only it reached leaves every branch (kept, hidden).
        _ = try await sim.control("/_sim/repos/acme/widgets/head?back=20", method: "POST")
        #expect(try await syncAll().status == 0)
        #expect(try Self.visibleSHAs(store) == everything)
        _ = try await sim.control("/_sim/repos/acme/widgets/branch?name=keep&back=120", method: "POST")
        let rewritten = try await syncAll()
        #expect(rewritten.status == 0, "\(rewritten.stderr)")
        let main = try await Self.revList("main", sim)
        let stillReached = main.union(try await Self.revList("keep", sim)).union(try await Self.revList("release/9", sim))
        #expect(stillReached.count < everything.count, "the rewrite left commits on no branch")
        #expect(rewritten.stdout.contains("\(everything.count - stillReached.count) left the branch"), "\(rewritten.stdout)")
        #expect(try Self.visibleSHAs(store) == stillReached)
        let check = try await run("commitsctl", ["check", "--db", store])
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
    }

    /// GitHub renamed the default branch (main → trunk): the entry that mirrors the default
    /// branch used to probe `main` forever (exit 1 every run). Now the lookup's
    /// `default_branch` is followed: trunk is synced (its head stored whole costs no walk),
    /// main is kept as gone with its rows, nothing is deleted or hidden, and later runs poll
    /// trunk alone, answered 304.
    @Test func aRenamedDefaultBranchIsFollowedAndTheOldNameKeptAsGone() async throws {
        let sim = try await SimulatorProcess.start(["--synthetic", "acme/widgets=300:9"])
        defer { sim.stop() }
        _ = try await sim.control("/_sim/repos/acme/widgets/head?back=10", method: "POST")
        #expect(try await sync([], sim).status == 0)
        let before = try storedSHAs()
        _ = try await sim.control("/_sim/repos/acme/widgets/default-branch?name=trunk", method: "POST")
        let renamed = try await sync([], sim)
        #expect(renamed.status == 0, "\(renamed.stderr)")
        #expect(renamed.lines.count == 1 && renamed.lines[0].hasPrefix("acme/widgets@trunk: 0 new, 0 updated"), "\(renamed.stdout)")
        #expect(renamed.lines.first?.hasSuffix("; the default branch was main, renamed on GitHub (main is kept as gone)") == true)
        #expect(try storedSHAs() == before)

        let head = try await sim.control("/_sim/repos/acme/widgets/head?forward=5", method: "POST")["head"] as? String
        let moved = try await sync([], sim)
        #expect(
            moved.status == 0 && moved.lines.first?.hasPrefix("acme/widgets@trunk: 5 new, 0 updated") == true,
            "\(moved.stdout)\(moved.stderr)")
        let rows = try await run("commitsctl", ["status", "--json", "--db", db])
        let status = try JSONSerialization.jsonObject(with: Data(rows.stdout.utf8)) as? [[String: Any]] ?? []
        let states = Dictionary(status.map { ($0["branch"] as? String ?? "", $0) }, uniquingKeysWith: { first, _ in first })
        #expect(states["trunk"]?["state"] as? String == "active" && states["trunk"]?["head_sha"] as? String == head, "\(states)")
        #expect(states["main"]?["state"] as? String == "gone", "\(states)")
        #expect(try storedSHAs() == (try await Self.revList("trunk", sim)))
        let query = try await run("commitsctl", ["query", "--branch", "main", "--format", "oneline", "--db", db])
        #expect(query.status == 0 && query.lines.count == before.count, "main's rows kept: \(query.stderr)")
        #expect(try await run("commitsctl", ["query", "--db", db, "--format", "oneline"]).lines.count == before.count + 5)
        #expect(try await run("commitsctl", ["check", "--db", db]).status == 0)
        let idle = try await sync([], sim)
        #expect(idle.lines.first?.hasPrefix("acme/widgets@trunk: 0 new, 0 updated, 2 requests (2 not modified)") == true, "\(idle.stdout)")
    }

    @Test func allBranchesOfAnEmptyRepositoryIsItsDefaultBranchAsWithoutTheFlag() async throws {
        let sim = try await SimulatorProcess.start(["--empty", "acme/widgets"])
        defer { sim.stop() }
        let plain = try await run(
            "commitsctl", ["sync", "acme/widgets", "--db", directory.path("plain.sqlite"), "--api-url", sim.baseURL],
            environment: ["GITHUB_TOKEN": "test-token"])
        let all = try await sync(["--all-branches"], sim)
        #expect(all.status == 0 && all.status == plain.status, "\(all.stderr)")
        #expect(all.lines.count == 1 && all.lines[0].hasPrefix("acme/widgets@main: 0 new"), "\(all.stdout)")
        let glob = try await sync(["--branch", "release/*"], sim)
        #expect(glob.status == 1 && glob.stderr.contains("no branch of acme/widgets matches 'release/*' (0 branches listed)"))
    }
}
