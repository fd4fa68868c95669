import Foundation
import GitHubSim
import MirrorTestSupport
import SQLite
import Testing

/// commitsd with `branches:` on an `OWNER/*` entry (issue #29): the repositories the
/// pattern selects each have their branches listed, and what the globs select is
/// mirrored, exact; a repository created later is picked up with its branches. A
/// real commitsd process, github-sim on loopback, a real SQLite file.
@Suite struct CommitsdPatternBranchesTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }
    var store: String { directory.path("state/commits.sqlite") }

    /// `OWNER/NAME@BRANCH` → head of every complete branch.
    func completeHeads() -> [String: String] {
        guard FileManager.default.fileExists(atPath: store), let connection = try? Connection(path: store, mode: .readOnly) else {
            return [:]
        }
        let rows = try? connection.prepare(
            """
            SELECT r.full_name || '@' || s.branch, s.head_sha FROM sync_state s JOIN repositories r ON r.id = s.repository_id
            WHERE s.complete = 1
            """
        ).map { ($0.string(0), $0.string(1)) }
        return Dictionary(rows ?? [], uniquingKeysWith: { first, _ in first })
    }

    @Test func theBranchesOfEveryRepositoryThePatternSelectsAreMirrored() async throws {
        let simulator = try await startSimulator([("widgets", 3301, 80, 21), ("gadgets", 3302, 60, 22)])
        try await withRunning(simulator) { simulator in
            _ = try simulator.moveBranch(owner: "acme", name: "widgets", branch: "release/1.0", back: 10)
            _ = try simulator.moveBranch(owner: "acme", name: "gadgets", branch: "release/2.0", back: 4)
            _ = try simulator.moveBranch(owner: "acme", name: "gadgets", branch: "dev", back: 2)
            let daemon = try DaemonProcess.mirroringBranches(#"["release/*"]"#, of: "acme/*", from: simulator, in: directory)
            defer { daemon.stop() }
            func expected() throws -> [String: String] {
                var heads: [String: String] = [:]
                for name in ["widgets", "gadgets", "tools"] {
                    guard let branches = try? simulator.branchHeads(owner: "acme", name: name) else { continue }
                    for (branch, head) in branches where branch.hasPrefix("release/") { heads["acme/\(name)@\(branch)"] = head }
                }
                return heads
            }
            let first = try expected()
            #expect(first.count == 2)
            #expect(await waitUntil(timeout: .seconds(60)) { completeHeads() == first }, "\(completeHeads()) \(daemon.log)")

            // A repository created later, with a release branch: found by the pattern, its branches listed.
            try simulator.addRepository(
                SimRepository(owner: "acme", name: "tools", id: 3303, source: .synthetic(SyntheticSpec(commits: 40, seed: 23))))
            _ = try simulator.moveBranch(owner: "acme", name: "tools", branch: "release/0.1", back: 3)
            let second = try expected()
            #expect(second.count == 3)
            #expect(await waitUntil(timeout: .seconds(60)) { completeHeads() == second }, "\(completeHeads()) \(daemon.log)")
            daemon.signal(SIGTERM)
            #expect(await daemon.waitForExit(timeout: .seconds(10)) == 0)
        }
    }
}
