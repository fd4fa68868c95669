import Foundation
import MirrorTestSupport
import SQLite
import Testing

/// The branch listing kept between runs (`branch_listings`, issue #29): the next
/// `sync --all-branches` sends its ETags back, and the heads it names spare every
/// branch stored at that head its own request. Real commitsctl and github-sim
/// processes, a real SQLite file and a real PostgreSQL 15.
extension BranchesOverGitCLITests {
    @Test(arguments: Store.allCases)
    func theKeptListingSparesEveryUnmovedBranchItsRequest(store: Store) async throws {
        let (sim, branches) = try await Self.twentyBranches()
        defer { sim.stop() }
        let db = try await location(store)
        #expect(try await sync(["--all-branches"], sim, db: db).status == 0)

        // Two branches move; the listing changes (a 200, one point), and only they are probed.
        try await sim.control("/_sim/repos/acme/widgets/branch?name=release/3&forward=40", method: "POST")
        try await sim.control("/_sim/repos/acme/widgets/branch?name=topic/2&forward=7", method: "POST")
        try await sim.control("/_sim/reset-stats", method: "POST")
        let moved = try await sync(["--all-branches"], sim, db: db)
        #expect(moved.status == 0, "\(moved.stderr)")
        let probed = moved.lines.filter { !Self.isIdle($0) }
        #expect(probed.count == 2, "\(moved.stdout)")
        // Their new heads lie in history other branches hold: nothing new, only their rows grow.
        #expect(probed.map { $0.prefix { $0 != ":" } } == ["acme/widgets@release/3", "acme/widgets@topic/2"], "\(moved.stdout)")
        let requests = try await sim.control("/_sim/stats")["requests"] as? Int ?? -1
        #expect(
            requests <= 1 + 2 * 3 + 1, "the listing, then a probe, a lookup and one page for each moved branch, and the tags: \(requests)")

        let stored = try stored(db)
        for branch in branches {
            let expected = try await BranchSyncCLITests.revList(branch, sim)
            #expect(
                stored.branches[branch] == expected, "\(branch): \(stored.branches[branch]?.count ?? 0) stored, \(expected.count) reachable"
            )
        }
        #expect(try await run("commitsctl", ["check", "--db", db]).status == 0)

        // And the listing kept after that run is the one answered 304 next.
        try await sim.control("/_sim/reset-stats", method: "POST")
        let idle = try await sync(["--all-branches"], sim, db: db)
        let idleStats = try await sim.control("/_sim/stats")
        #expect(idle.lines.count == 20 && idle.lines.allSatisfy(Self.isIdle), "\(idle.stdout)")
        #expect(idleStats["requests"] as? Int == 2 && idleStats["notModified"] as? Int == 2, "\(idleStats)")
    }

    /// A listing naming a head the store does not hold whole is no reason to skip:
    /// a branch whose stored history is incomplete is probed and finished.
    @Test func aBranchNotWholeIsProbedWhateverTheListingSays() async throws {
        let (sim, _) = try await Self.twentyBranches()
        defer { sim.stop() }
        #expect(try await sync(["--branch", "release/*"], sim, db: db).status == 0)
        try Connection(path: db).execute("UPDATE sync_state SET complete = 0 WHERE branch = 'release/5'")

        try await sim.control("/_sim/reset-stats", method: "POST")
        let again = try await sync(["--branch", "release/*"], sim, db: db)
        #expect(again.status == 0, "\(again.stderr)")
        let probed = again.lines.filter { !$0.contains(": 0 new, 0 updated, 0 requests,") }
        #expect(probed.count == 1 && probed.first?.hasPrefix("acme/widgets@release/5: 0 new,") == true, "\(again.stdout)")
        #expect(try stored(db).complete == 9)
    }

    /// A new branch cut from history stored whole costs nothing more than its head: one
    /// probe when named, nothing when a listing names its head (issue #29), and it is exact.
    @Test(arguments: Store.allCases)
    func aNewBranchAtACommitStoredWholeCostsNothingMoreThanItsHead(store: Store) async throws {
        let (sim, _) = try await Self.twentyBranches()
        defer { sim.stop() }
        let db = try await location(store)
        #expect(try await sync(["--branch", "main"], sim, db: db).status == 0)

        try await sim.control("/_sim/repos/acme/widgets/branch?name=release/10&back=50", method: "POST")
        try await sim.control("/_sim/reset-stats", method: "POST")
        let named = try await sync(["--branch", "release/10"], sim, db: db)
        #expect(named.status == 0, "\(named.stderr)")
        #expect(named.lines.first?.hasPrefix("acme/widgets@release/10: 0 new, 0 updated, 1 request,") == true, "\(named.stdout)")
        #expect(try await sim.control("/_sim/stats")["requests"] as? Int == 1, "its head, nothing more")

        // release/1 (150 behind main) and a new release/11: the listing names both heads, stored whole.
        try await sim.control("/_sim/repos/acme/widgets/branch?name=release/11&back=80", method: "POST")
        try await sim.control("/_sim/reset-stats", method: "POST")
        let listed = try await sync(["--branch", "release/1*"], sim, db: db)
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(
            listed.lines.count == 3 && listed.lines.allSatisfy { $0.contains(": 0 new, 0 updated, 0 requests,") }, "\(listed.stdout)")
        #expect(try await sim.control("/_sim/stats")["requests"] as? Int == 1, "the listing alone")

        let stored = try stored(db)
        for branch in ["main", "release/1", "release/10", "release/11"] {
            #expect(stored.branches[branch] == (try await BranchSyncCLITests.revList(branch, sim)), "\(branch)")
        }
        #expect(stored.complete == 4)
        #expect(try await run("commitsctl", ["check", "--db", db]).status == 0)
    }
}
