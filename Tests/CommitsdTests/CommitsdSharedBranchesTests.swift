import Foundation
import GitHubSim
import MirrorTestSupport
import Testing

/// Branch globs on a shared PostgreSQL store (issue #29): two commitsd claim the
/// repository in turn, and whichever holds the claim lists its branches (on the
/// listing kept in `branch_listings`) and syncs what the globs select, each
/// branch exact; a new branch is picked up, a deleted one marked gone with its
/// commits kept. Real commitsd processes, github-sim on loopback, a real PostgreSQL 15.
@Suite(.serialized) struct CommitsdSharedBranchesTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }

    func startDaemon(_ name: String, uri: String, simulator: GitHubSimulator) throws -> DaemonProcess {
        try DaemonProcess.mirroring(
            ["name: acme/*\nbranches: [main, \"release/*\"]\ninterval: 1s"], from: simulator, in: directory, store: uri,
            named: name, interval: nil, settings: "git_bootstrap: false", logLevel: "info")
    }

    /// `OWNER/NAME@BRANCH` → head, of every complete, active branch.
    static func completeHeads(_ server: PostgreSQLServer, _ uri: String) -> [String: String] {
        let rows = try? server.execute(
            """
            SELECT r.full_name || '@' || s.branch, s.head_sha FROM sync_state s
            JOIN repositories r ON r.id = s.repository_id
            JOIN repository_branches b ON b.repository_id = s.repository_id AND b.name = s.branch
            WHERE s.complete AND b.state = 'active'
            """, database: String(uri.split(separator: "/").last!))
        return Dictionary((rows ?? []).map { ($0[0] ?? "", $0[1] ?? "") }, uniquingKeysWith: { first, _ in first })
    }

    @Test func theDaemonHoldingAClaimListsItsBranchesAndEachIsExact() async throws {
        let server = try await PostgreSQLServer.shared()
        let uri = try server.createDatabase()
        let simulator = try await startSimulator([("widgets", 3401, 120, 31), ("gadgets", 3402, 90, 32)])
        try await withRunning(simulator) { simulator in
            _ = try simulator.moveBranch(owner: "acme", name: "widgets", branch: "release/1.0", back: 10)
            _ = try simulator.moveBranch(owner: "acme", name: "widgets", branch: "feature/x", back: 2)
            _ = try simulator.moveBranch(owner: "acme", name: "gadgets", branch: "release/2.0", back: 5)
            func expected() throws -> [String: String] {
                var heads: [String: String] = [:]
                for name in ["widgets", "gadgets"] {
                    for (branch, head) in try simulator.branchHeads(owner: "acme", name: name)
                    where branch == "main" || branch.hasPrefix("release/") {
                        heads["acme/\(name)@\(branch)"] = head
                    }
                }
                return heads
            }
            let daemons = try ["one", "two"].map { try startDaemon($0, uri: uri, simulator: simulator) }
            defer { for daemon in daemons { daemon.stop() } }
            let logs = { daemons.map(\.log).joined(separator: "\n---\n") }
            let first = try expected()
            #expect(first.count == 4)
            #expect(await waitUntil(timeout: .seconds(90)) { Self.completeHeads(server, uri) == first }, "\(logs())")

            // A new release branch is picked up; a deleted one is marked gone, its commits kept.
            _ = try simulator.moveBranch(owner: "acme", name: "widgets", branch: "release/3.0", back: 1)
            try simulator.deleteBranch(owner: "acme", name: "widgets", branch: "release/1.0")
            let second = try expected()
            #expect(second.count == 4 && second["acme/widgets@release/3.0"] != nil)
            #expect(await waitUntil(timeout: .seconds(90)) { Self.completeHeads(server, uri) == second }, "\(logs())")
            let check = try await run("commitsctl", ["check", "--db", uri])
            #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
            let kept = try server.execute("SELECT count(*) FROM branch_listings", database: String(uri.split(separator: "/").last!))
            #expect(kept.first?.first == "2", "each repository's listing kept: \(kept)")
            for daemon in daemons { daemon.signal(SIGTERM) }
            for daemon in daemons { #expect(await daemon.waitForExit(timeout: .seconds(15)) == 0, "\(daemon.log)") }
        }
    }
}
