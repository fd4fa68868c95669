import Foundation
import GitHubSim
import MirrorTestSupport
import Testing

@testable import MirrorCore
import Synchronization

/// Several branches over git in one fetch (issue #29): one advertisement, one `ls-refs` naming
/// every branch, one `fetch` wanting every tip, and every commit any of them reaches handed on
/// once, parents first; a branch missing or moved fails before the pack is asked for.
@Suite struct GitSeveralBranchesTests {
    // The pack index is the SQLite backend's, registered as each executable does.
    init() { TestStoreDrivers.register() }

    static let branches = ["main", "release/1.0", "release/2.0", "old"]

    static func started() async throws -> GitHubSimulator {
        var configuration = SimConfiguration()
        configuration.validTokens = [GitFromSimulatorTests.token.value]
        let simulator = try GitHubSimulator(
            configuration: configuration,
            repositories: [
                SimRepository.widgets(id: 77, SyntheticSpec(commits: 2_000, shape: .realistic, seed: 9))
            ])
        try simulator.moveBranch(owner: "acme", name: "widgets", branch: "release/1.0", back: 700)
        try simulator.moveBranch(owner: "acme", name: "widgets", branch: "release/2.0", back: 200)
        try simulator.moveBranch(owner: "acme", name: "widgets", branch: "old", back: 1_500)
        try simulator.moveHead(owner: "acme", name: "widgets", back: 30)
        try await simulator.start()
        return simulator
    }

    func fetcher(_ simulator: GitHubSimulator, scratch: TemporaryDirectory) throws -> GitHistoryFetcher {
        let cloneURL = simulator.baseURL + "/acme/widgets.git"
        var configuration = GitHistoryFetcher.Configuration(
            cloneURL: cloneURL,
            credentials: GitCredentials.forClone(url: cloneURL, apiURL: simulator.baseURL, token: GitFromSimulatorTests.token))
        configuration.temporaryDirectory = scratch.url.path
        configuration.batchSize = 300
        configuration.pace = .forTests
        return try GitHistoryFetcher(configuration: configuration, logger: TestSupport.quietLogger)
    }

    @Test func everyBranchInOnePackEachCommitOnceParentsFirst() async throws {
        try await withRunning(try await Self.started()) { simulator async throws in
            let scratch = try TemporaryDirectory()
            let delivered = DeliveredCommits()
            simulator.resetStats()
            let result = try await fetcher(simulator, scratch: scratch).fetchHistory(branches: Self.branches) { batch in
                delivered.commits.withLock { $0 += batch }
            }
            let heads = try simulator.branchHeads(owner: "acme", name: "widgets")
            #expect(result.tips == heads && result.tip == heads["main"])
            #expect(result.requests == 3 && simulator.stats().gitRequests == 3, "advertisement, ls-refs, one fetch")
            var union: Set<String> = []
            for branch in Self.branches { union.formUnion(try simulator.reachableSHAs(owner: "acme", name: "widgets", branch: branch)) }
            let commits = delivered.commits.withLock { $0 }
            #expect(commits.count == union.count && Set(commits.map(\.sha)) == union && result.commits == union.count)
            var seen: Set<String> = []
            for commit in commits {
                #expect(commit.parents.allSatisfy(seen.contains), "\(commit.sha) before a parent")
                seen.insert(commit.sha)
            }
        }
    }

    @Test func aBranchMissingOrMovedFailsBeforeThePack() async throws {
        try await withRunning(try await Self.started()) { simulator async throws in
            let scratch = try TemporaryDirectory()
            let fetcher = try fetcher(simulator, scratch: scratch)
            simulator.resetStats()
            await #expect(throws: GitError.branchNotFound(branch: "gone")) {
                _ = try await fetcher.fetchHistory(branches: ["main", "gone"]) { _ in Issue.record("delivered") }
            }
            let stale = String(repeating: "a", count: 40)
            let release = try #require(try simulator.branchHeads(owner: "acme", name: "widgets")["release/2.0"])
            await #expect(throws: GitError.tipDiffers(branch: "release/2.0", expected: stale, found: release)) {
                _ = try await fetcher.fetchHistory(branches: ["main", "release/2.0"], expectedTips: ["release/2.0": stale]) { _ in
                    Issue.record("delivered")
                }
            }
            #expect(simulator.stats().gitPackBytes == 0, "no pack was asked for")
        }
    }
}
