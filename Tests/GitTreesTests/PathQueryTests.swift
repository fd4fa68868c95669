import Foundation
import MirrorTestSupport
import Testing

@testable import MirrorCore
@testable import MirrorSQLite

/// History by path against real git: a real history mirrored through github-sim
/// over libcurl into a real SQLite store, and for every pathspec below (files,
/// deleted and re-added files, directories, globs, exclusions, several paths)
/// in each simplification mode, the commits `PathQuery` lists are exactly the
/// ones `git log` lists.
@Suite struct PathQueryTests {
    init() { TestStoreDrivers.register() }

    /// git log's options, and the same question as a filter and a simplification.
    struct Mode: Sendable {
        var gitOptions: [String]
        var simplification: HistorySimplification
        var merges: CommitFilter.Merges
    }

    static let modes = [
        Mode(gitOptions: [], simplification: .simplified, merges: .include),
        Mode(gitOptions: ["--no-merges"], simplification: .simplified, merges: .exclude),
        Mode(gitOptions: ["--full-history"], simplification: .fullHistory, merges: .include),
        Mode(gitOptions: ["--full-history", "--no-merges"], simplification: .fullHistory, merges: .exclude),
        Mode(gitOptions: ["--first-parent"], simplification: .firstParent, merges: .include),
        Mode(gitOptions: ["--merges"], simplification: .simplified, merges: .only),
    ]

    @Test(.enabled(if: BareRepository.hasAlamofire, "needs ../shared/datasets/alamofire.bundle"))
    func alamofirePathQueriesEqualGitLog() async throws {
        let repository = try await onThread { try BareRepository.cloning(BareRepository.alamofireBundle) }
        let specs = try Self.specs(of: repository, branch: "master")
        #expect(specs.count >= 50)
        try await expectAgreement(repository, branch: "master", specs: specs)
    }

    @Test func generatedPathQueriesEqualGitLog() async throws {
        let repository = try await onThread { try BareRepository.importing(GeneratedHistory.stream) }
        var specs = try Self.specs(of: repository, branch: "main")
        specs += [["latin*"], ["caf*"], ["x"], ["x/"], ["dual"], ["sp ace"], ["o?.txt"], [":!a.txt"]]
        try await expectAgreement(repository, branch: "main", specs: specs)
    }

    private func expectAgreement(_ repository: BareRepository, branch: String, specs: [[String]]) async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("store.sqlite")
        try await StoredChangesTests.mirror(repository, branch: branch, into: path)
        // The same store on PostgreSQL, by copy-store: both stores answer alike.
        let database = try StoreLocation(try await PostgreSQLServer.shared().createDatabase())
        _ = try StoreTransfer.copy(from: .sqliteFile(path), to: database)
        let readers: [any MirrorReading] = [try MirrorReader(path: path), try database.openCommitReader()]
        var nonEmpty = 0
        for spec in specs {
            for mode in Self.modes {
                let expected = try Self.gitLog(repository, branch: branch, options: mode.gitOptions, spec: spec)
                for reader in readers {
                    var filter = CommitFilter(merges: mode.merges)
                    let coverage = try PathQuery.restrict(
                        &filter, to: try Pathspec(spec), simplification: mode.simplification, in: reader)
                    var listed: Set<String> = []
                    try reader.forEachCommit(matching: filter) { listed.insert($0.sha) }
                    #expect(coverage.notCovered == 0)
                    #expect(listed == expected, "\(reader.location): git log \(mode.gitOptions.joined(separator: " ")) -- \(spec)")
                }
                if !expected.isEmpty { nonEmpty += 1 }
            }
        }
        #expect(nonEmpty > specs.count, "most pathspecs list commits")
    }

    static func gitLog(_ repository: BareRepository, branch: String, options: [String], spec: [String]) throws -> Set<String> {
        let output = try repository.git(["log", "--format=%H"] + options + [branch, "--"] + spec)
        return Set(String(decoding: output, as: UTF8.self).split(separator: "\n").map(String.init))
    }

    /// Pathspecs drawn from the history itself: a spread of its files (deleted
    /// ones too), files deleted and added again, directories, then globs,
    /// exclusions and several paths at once.
    static func specs(of repository: BareRepository, branch: String) throws -> [[String]] {
        let log = String(
            decoding: try repository.git(["-c", "core.quotePath=false", "log", "--name-status", "--no-renames", "--format=", branch]),
            as: UTF8.self)
        var statuses: [String: Set<Character>] = [:]
        for line in log.split(separator: "\n") {
            let fields = line.split(separator: "\t", maxSplits: 1)
            guard fields.count == 2, let status = fields[0].first, !fields[1].hasPrefix("\"") else { continue }
            statuses[String(fields[1]), default: []].insert(status)
        }
        let files = statuses.keys.sorted()
        let spread = stride(from: 0, to: files.count, by: max(1, files.count / 30)).map { [files[$0]] }
        let readded = files.filter { statuses[$0]!.isSuperset(of: ["A", "D"]) }.prefix(5).map { [$0] }
        var directories: [String] = []
        for file in files {
            let parts = file.split(separator: "/")
            for depth in 1..<min(parts.count, 3) {
                let directory = parts.prefix(depth).joined(separator: "/")
                if !directories.contains(directory) { directories.append(directory) }
            }
        }
        let globs = ["*.swift", "Source/*.swift", "*Tests.swift", "*.md", "Tests/?*", "[A-M]*", "*.[hm]", "*/Info.plist", "*.txt", "*/*"]
        let patterns: [[String]] = [
            [":!Tests"], ["Source", ":(exclude)Source/Alamofire.swift"], [":^*.md"], ["*.swift", ":!Tests"], ["README.md", "CHANGELOG.md"],
            ["Source", "Tests"], ["no/such/path"], ["."],
        ]
        return spread + readded + directories.prefix(12).map { [$0] } + [directories.first.map { $0 + "/" } ?? "x/"].map { [$0] }
            + globs.map { [$0] } + patterns
    }
}
