import Foundation
import GitHubSim
import Logging
import MirrorTestSupport
import Testing

@testable import MirrorCore
@testable import MirrorSQLite
@testable import commitsctl

/// The changed paths a store keeps, over the real path: github-sim serving a real
/// repository's REST and git, real libcurl, a real SQLite file. A history first
/// mirrored over REST gets its paths from one blobless fetch (what a backfill
/// does) with no other row changed, and `show --name-status`/`--name-only` of
/// every commit then print what real `git show` prints, merges included.
@Suite struct StoredChangesTests {
    init() { TestStoreDrivers.register() }

    static let token = "ghp_storedchanges"

    @Test(.enabled(if: BareRepository.hasAlamofire, "needs ../shared/datasets/alamofire.bundle"))
    func everyAlamofireCommitShowsWhatGitShowPrints() async throws {
        let repository = try await onThread { try BareRepository.cloning(BareRepository.alamofireBundle) }
        let covered = try await expectShowAgreement(repository, branch: "master")
        #expect(covered == 1678)
    }

    @Test func aGeneratedHistoryWithEveryShapeShowsWhatGitShowPrints() async throws {
        let repository = try await onThread { try BareRepository.importing(GeneratedHistory.stream) }
        let covered = try await expectShowAgreement(repository, branch: "main")
        #expect(covered == GeneratedHistory.commitCount)
    }

    /// Mirrors `branch` over REST, reads its paths over git, compares every commit with git; returns how many commits have their paths.
    private func expectShowAgreement(_ repository: BareRepository, branch: String) async throws -> Int {
        let directory = try TemporaryDirectory()
        let path = directory.path("store.sqlite")
        try await Self.mirror(repository, branch: branch, into: path)
        let expected = try Self.gitShowLines(repository, branch: branch, option: "--name-status")
        let names = try Self.gitShowLines(repository, branch: branch, option: "--name-only")
        let reader = try MirrorReader(path: path)
        var covered = 0
        for (sha, lines) in expected {
            guard case .found(let detail) = try reader.resolveCommit(sha), let changes = detail.changes else {
                Issue.record("commit \(sha) has no stored changes")
                continue
            }
            covered += 1
            let parents = detail.commit.parents.count
            #expect(Commitsctl.Show.changeLines(changes, parents: parents, list: .nameStatus) == lines, "\(sha)")
            #expect(Commitsctl.Show.changeLines(changes, parents: parents, list: .nameOnly) == names[sha], "\(sha)")
        }
        return covered
    }

    /// Mirrors `branch` of `repository` into a new SQLite store at `path` over
    /// REST, then reads its paths with one blobless fetch, as a backfill does,
    /// checking that no other row changed.
    static func mirror(_ repository: BareRepository, branch: String, into path: String) async throws {
        var configuration = SimConfiguration()
        configuration.validTokens = [Self.token]
        let simulator = try GitHubSimulator(
            configuration: configuration,
            repositories: [SimRepository(owner: "o", name: "r", id: 9, source: .gitRepository(path: repository.gitDirectory))])
        try await simulator.start()
        let name = RepositoryName(parsing: "o/r")!
        let (before, added) = try await withRunning(simulator) { simulator in
            let client = GitHubClient.Configuration(apiURL: simulator.baseURL, token: GitHubToken(value: Self.token, source: "test"))
            let github = try GitHubClient(configuration: client, logger: Logger(label: "test"))
            let store = try MirrorStore(path: path)
            let report = try await SyncEngine(client: github, store: store, logger: Logger(label: "test"), gitBootstrap: nil)
                .sync(name, branch: branch)
            #expect(report.addedOverGit == 0)
            let before = try StoreInspection(path).commitFacts(of: "o/r")
            let stored = try #require(try store.repository(named: name))
            let head = String(decoding: try repository.git(["rev-parse", branch]), as: UTF8.self)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            let target = GitBootstrap.Target(
                cloneURL: simulator.baseURL + "/o/r.git", htmlURL: nil, tips: [branch: head], repositoryID: stored.id)
            let outcome = try await GitBootstrap(minimumPages: 1)
                .run(target, client: github, store: store, logger: Logger(label: "test"))
            guard case .stored(let added, _, _) = outcome else {
                Issue.record("no history over git: \(outcome)")
                return (before, -1)
            }
            return (before, added)
        }
        #expect(added == 0, "every commit was stored already")
        #expect(try StoreInspection(path).commitFacts(of: "o/r") == before, "no other row changed")
    }

    /// What `git show OPTION --format=` prints for every commit of `branch`, by sha, read from one
    /// `git log --cc` (which lists a merge's paths as `git show` does).
    static func gitShowLines(_ repository: BareRepository, branch: String, option: String) throws -> [String: [String]] {
        let output = try repository.git(["log", "--cc", "--no-renames", option, "--format=%x01%H", branch])
        var lines: [String: [String]] = [:]
        var current: String?
        for line in output.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true) {
            if line.first == 1 {
                current = String(decoding: line.dropFirst(), as: UTF8.self)
                lines[current!] = []
            } else if let current {
                lines[current, default: []].append(String(decoding: line, as: UTF8.self))
            }
        }
        return lines
    }
}
