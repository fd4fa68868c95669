import Foundation
import GitHubSim
import MirrorTestSupport
import SQLite
import Testing

/// commitsd's first sync of a repository whose `branches:` select several branches (issue
/// #29): the branches its glob listing selects, and those the file names, are read over git in
/// one fetch by the repository's first sync; every branch is then exact, each commit stored
/// once, and no commit page is listed over REST. A real commitsd process, github-sim's git
/// and REST on loopback, a real SQLite file, `commitsctl` for what users read.
@Suite struct CommitsdBranchesOverGitTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }
    var store: String { directory.path("state/commits.sqlite") }

    /// Each complete branch's head as the store has it.
    func storedHeads() -> [String: String] { StoreInspection(store).completeHeads() }

    /// Over git (the default): one fetch for every branch. Over REST only (`git_bootstrap:
    /// false`): each branch's walk runs in steps between the others', and a branch whose walk
    /// stops on commits another branch's unfinished walk stored lists what is still missing
    /// before it is called whole (`SyncEngine.completeHistory`): every branch exact all the same.
    @Test(arguments: [true, false])
    func theFirstSyncOfManyBranchesIsExact(overGit: Bool) async throws {
        let simulator = try await startSimulator([("widgets", 3301, 1_500, 19)])
        try await withRunning(simulator) { simulator in
            try simulator.moveHead(owner: "acme", name: "widgets", back: 100)
            for k in 1...4 { _ = try simulator.moveBranch(owner: "acme", name: "widgets", branch: "release/\(k)", back: 60 * k) }
            _ = try simulator.moveBranch(owner: "acme", name: "widgets", branch: "topic", forward: 40)
            simulator.resetStats()
            let daemon = try DaemonProcess.mirroringBranches(
                #"[main, topic, "release/*"]"#, from: simulator, in: directory, interval: nil,
                settings: "default_interval: 1h\ngit_bootstrap: \(overGit)")
            defer { daemon.stop() }
            let heads = try simulator.branchHeads(owner: "acme", name: "widgets")
            #expect(heads.count == 6)
            // The daemon records the heads, then logs the fetch: wait for both, or a loaded
            // machine can see every head stored before the line is written.
            let fetchLogged = { !overGit || daemon.log.contains("branches read over git in one fetch") }
            #expect(await waitUntil(timeout: .seconds(60)) { storedHeads() == heads && fetchLogged() }, "\(daemon.log)")
            let stats = simulator.stats()
            if overGit {
                #expect(stats.gitRequests == 3, "one advertisement, one ls-refs, one fetch: \(stats.gitRequests)")
                #expect(stats.listRequests == 0, "no commit page listed over REST: \(stats.listRequests)")
            } else {
                // 15 pages of history; each other branch lists its first page or two, and what one
                // lists of the missing history the others find stored.
                #expect(stats.gitRequests == 0)
                #expect(stats.listRequests <= 15 + 5 * 2 + 2, "\(stats.listRequests) commit pages listed")
                print("first sync of 6 branches over REST, steps interleaved: \(stats.listRequests) commit pages listed")
            }
            var union: Set<String> = []
            for branch in heads.keys {
                let reached = try simulator.reachableSHAs(owner: "acme", name: "widgets", branch: branch)
                let result = try await run("commitsctl", ["query", "--branch", branch, "--format", "json", "--db", store])
                let records = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]] ?? []
                let listed = records.compactMap { $0["sha"] as? String }
                #expect(
                    Set(listed) == reached && listed.count == reached.count,
                    "\(branch): \(listed.count) listed, \(reached.subtracting(listed).count) of the \(reached.count) reached missing")
                union.formUnion(reached)
            }
            #expect(try Connection(path: store, mode: .readOnly).scalarInt("SELECT count(*) FROM commits") == union.count)
            let check = try await run("commitsctl", ["check", "--db", store])
            #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        }
    }
}
