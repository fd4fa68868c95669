import Foundation
import GitHash
import GitHubSim
import GitTrees
import Logging
import MirrorCore
import MirrorModel
import MirrorTestSupport
import Synchronization
import Testing

/// Every commit's changes read from a blobless fetch, through our libcurl client and pack reader, from real
/// `git http-backend` and from github-sim serving the same repository, equal what real git prints for it.
@Suite struct FetchedChangesTests {
    @Test(.enabled(if: BareRepository.hasAlamofire, "needs ../shared/datasets/alamofire.bundle"))
    func alamofireOverGitEqualsGitLog() async throws {
        let repository = try await onThread { try BareRepository.cloning(BareRepository.alamofireBundle) }
        let fetched = try await fetchChanges(of: repository, branch: "master")
        try await expectAgreement(fetched, with: repository, branch: "master")
        #expect(fetched.count >= 1678)
    }

    @Test(.enabled(if: BareRepository.hasAlamofire, "needs ../shared/datasets/alamofire.bundle"))
    func alamofireFromGitHubSimEqualsGitLog() async throws {
        let repository = try await onThread { try BareRepository.cloning(BareRepository.alamofireBundle) }
        var configuration = SimConfiguration()
        configuration.validTokens = ["ghp_treesovergit"]
        let simulator = try GitHubSimulator(
            configuration: configuration,
            repositories: [
                SimRepository(owner: "Alamofire", name: "Alamofire", id: 9, source: .gitRepository(path: repository.gitDirectory))
            ])
        try await simulator.start()
        let fetched = try await withRunning(simulator) { simulator in
            let url = simulator.baseURL + "/Alamofire/Alamofire.git"
            let credentials = GitCredentials.forClone(
                url: url, apiURL: simulator.baseURL, token: GitHubToken(value: "ghp_treesovergit", source: "the test"))
            #expect(credentials != nil)
            return try await fetchChanges(cloneURL: url, credentials: credentials, branch: "master")
        }
        try await expectAgreement(fetched, with: repository, branch: "master")
        #expect(fetched.count >= 1678)
    }

    @Test func aGeneratedHistoryWithEveryShapeEqualsGitLog() async throws {
        let repository = try await onThread { try BareRepository.importing(GeneratedHistory.stream) }
        let fetched = try await fetchChanges(of: repository, branch: "main")
        try await expectAgreement(fetched, with: repository, branch: "main")
        #expect(fetched.values.contains { !$0.mergePaths.isEmpty })
    }

    /// The changes of every commit `branch` reaches, fetched with `filter blob:none` from `git http-backend`.
    private func fetchChanges(of repository: BareRepository, branch: String) async throws -> [String: CommitChanges] {
        let scratch = try TemporaryDirectory()
        let server = try await GitHTTPServer(root: repository.directory.url.path, scratch: scratch)
        let url = server.baseURL + "/" + URL(fileURLWithPath: repository.gitDirectory).lastPathComponent
        return try await fetchChanges(cloneURL: url, credentials: nil, branch: branch)
    }

    private func fetchChanges(cloneURL: String, credentials: GitCredentials?, branch: String) async throws -> [String: CommitChanges] {
        TestStoreDrivers.register()  // the pack index is the SQLite backend's
        let scratch = try TemporaryDirectory()
        var configuration = GitHistoryFetcher.Configuration(cloneURL: cloneURL, credentials: credentials)
        configuration.temporaryDirectory = scratch.url.path
        configuration.batchSize = 100
        let fetcher = try GitHistoryFetcher(configuration: configuration, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
        let collected = Mutex<[String: CommitChanges]>([:])
        let result = try await fetcher.fetchChanges(branches: [branch]) { batch in
            #expect(batch.count <= 100)
            try collected.withLock { changes in
                for changed in batch {
                    #expect(changes[changed.commit.sha] == nil, "\(changed.commit.sha) handed on twice")
                    changes[changed.commit.sha] = try #require(changed.changes)
                }
            }
        }
        let changes = collected.withLock { $0 }
        #expect(result.commits == changes.count)
        return changes
    }

    private func expectAgreement(
        _ fetched: [String: CommitChanges], with repository: BareRepository, branch: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let log = ["log", branch, "--no-renames", "--no-abbrev", "--format=%H"]
        let firstParent = try GitParity.byCommit(repository.lines(log + ["--raw", "--diff-merges=first-parent"]))
        let mergePaths = try GitParity.byCommit(repository.lines(log + ["--raw", "--cc", "--merges"]))
        #expect(Set(fetched.keys) == Set(firstParent.keys.map(\.hex)), sourceLocation: sourceLocation)
        for (commit, lines) in firstParent where fetched[commit.hex]?.firstParent.map(\.rawLine) != lines {
            Issue.record("first-parent diff of \(commit): git \(lines), fetched \(fetched[commit.hex]?.firstParent.map(\.rawLine) ?? [])")
        }
        #expect(!mergePaths.isEmpty, sourceLocation: sourceLocation)
        for (merge, lines) in mergePaths where fetched[merge.hex]?.mergePaths.map(\.rawLine) != lines {
            Issue.record("paths of merge \(merge): git \(lines), fetched \(fetched[merge.hex]?.mergePaths.map(\.rawLine) ?? [])")
        }
    }
}
