import Foundation
import GitHubSim
import Logging
import MirrorTestSupport
import Testing

@testable import MirrorCore
@testable import MirrorSQLite

/// Revision ranges and tag containment against real git: Alamofire's real
/// history and its real tags, served by github-sim over libcurl into a real
/// SQLite store (and copied into PostgreSQL): for pairs of consecutive
/// releases, `A..B`, `A...B`, `^A B`, `B~n`, `B^2` and sha forms select exactly
/// what `git rev-list` selects, and every sampled commit's earliest containing
/// tag is `git tag --contains --sort=creatordate`'s first.
@Suite struct RevisionQueryTests {
    init() { TestStoreDrivers.register() }

    @Test(.enabled(if: BareRepository.hasAlamofire, "needs ../shared/datasets/alamofire.bundle"))
    func alamofireRangesAndContainmentEqualGit() async throws {
        let repository = try await onThread { try BareRepository.cloning(BareRepository.alamofireBundle) }
        let directory = try TemporaryDirectory()
        let path = directory.path("store.sqlite")
        let changes = try await Self.mirrorWithTags(repository, branch: "master", into: path)
        #expect(changes.added == 107)
        let database = try StoreLocation(try await PostgreSQLServer.shared().createDatabase())
        _ = try StoreTransfer.copy(from: .sqliteFile(path), to: database)
        // PostgreSQL computes the same table the copy brought: nothing to change.
        let writer = try database.openSyncWriter()
        let copied = try #require(try writer.repository(named: RepositoryName(parsing: "o/r")!))
        #expect(try writer.refreshTagContainment(repositoryID: copied.id) == 0)
        let readers: [any MirrorReading] = [try MirrorReader(path: path), try database.openCommitReader()]
        let onMaster = try Self.lines(repository, ["tag", "--merged", "master", "--sort=creatordate"])
        #expect(onMaster.count >= 100)
        let ranges = try Self.ranges(repository, tags: onMaster)
        #expect(ranges.count >= 150)
        for reader in readers {
            for arguments in ranges {
                let expected = Set(try Self.lines(repository, ["rev-list"] + arguments))
                var filter = CommitFilter()
                _ = try RevisionQuery.restrict(&filter, to: try RevisionRange.parse(arguments), in: reader)
                var listed: Set<String> = []
                try reader.forEachCommit(matching: filter) { listed.insert($0.sha) }
                #expect(listed == expected, "\(reader.location): git rev-list \(arguments.joined(separator: " "))")
            }
            try expectContainment(repository, reader: reader)
        }
    }

    /// For a spread of master's commits, the earliest tag on master containing each, as git names it.
    private func expectContainment(_ repository: BareRepository, reader: any MirrorReading) throws {
        let stored = try #require(try reader.repository(named: RepositoryName(parsing: "o/r")!))
        let commits = try Self.lines(repository, ["rev-list", "master"])
        for sha in stride(from: 0, to: commits.count, by: 17).map({ commits[$0] }) {
            let expected = try Self.lines(repository, ["tag", "--contains", sha, "--merged", "master", "--sort=creatordate"]).first
            let id = try #require(try reader.revisionTargets(sha, repositoryID: stored.id).commits.first?.id)
            let first = try TagContainment.tags(containing: id, repositoryID: stored.id, in: reader).first
            #expect(first?.tag.name == expected, "\(reader.location): git tag --contains \(sha)")
            // What `show` reads: the table each sync keeps.
            #expect(
                try reader.earliestTags(containing: sha) == expected.map { [RepositoryTag(repository: "o/r", tag: $0)] } ?? [],
                "\(reader.location): \(sha)")
        }
    }

    /// For consecutive tags A, B on master: every form git's revision syntax has for them.
    static func ranges(_ repository: BareRepository, tags: [String]) throws -> [[String]] {
        var ranges: [[String]] = []
        for (a, b) in zip(tags, tags.dropFirst()).enumerated().filter({ $0.offset % 2 == 0 }).map(\.element) {
            ranges += [["\(a)..\(b)"], ["\(a)...\(b)"], ["^\(a)", b], ["\(b)~3"]]
            let shortA = String(try lines(repository, ["rev-parse", "\(a)^{commit}"])[0].prefix(9))
            ranges.append(["\(shortA)..\(b)^{}"])
            if (try? lines(repository, ["rev-parse", "--verify", "--quiet", "\(b)^{commit}^2"]))?.isEmpty == false {
                ranges.append(["\(b)^2"])
            }
        }
        let merge = try lines(repository, ["rev-list", "--merges", "-n", "1", "master"])[0]
        ranges += [["\(merge)^2"], ["\(merge)^1..\(merge)^2"], ["master~20..master"], ["HEAD~5"], [tags[0] + "..", "^" + tags[1]]]
        return ranges
    }

    static func lines(_ repository: BareRepository, _ arguments: [String]) throws -> [String] {
        String(decoding: try repository.git(arguments), as: UTF8.self).split(separator: "\n").map(String.init)
    }

    /// Mirrors `branch` over REST and records the tags as a sync of the default branch does.
    static func mirrorWithTags(_ repository: BareRepository, branch: String, into path: String) async throws -> TagChanges {
        var configuration = SimConfiguration()
        configuration.validTokens = [StoredChangesTests.token]
        let simulator = try GitHubSimulator(
            configuration: configuration,
            repositories: [SimRepository(owner: "o", name: "r", id: 9, source: .gitRepository(path: repository.gitDirectory))])
        try await simulator.start()
        return try await withRunning(simulator) { simulator in
            let client = GitHubClient.Configuration(
                apiURL: simulator.baseURL, token: GitHubToken(value: StoredChangesTests.token, source: "test"))
            let github = try GitHubClient(configuration: client, logger: Logger(label: "test"))
            let engine = SyncEngine(client: github, store: try MirrorStore(path: path), logger: Logger(label: "test"), gitBootstrap: nil)
            _ = try await engine.sync(RepositoryName(parsing: "o/r")!, branch: branch)
            let changes = try #require(try await engine.syncTags(RepositoryName(parsing: "o/r")!))
            #expect(try await engine.syncTags(RepositoryName(parsing: "o/r")!) == nil, "an unchanged listing is a 304")
            return changes
        }
    }
}
