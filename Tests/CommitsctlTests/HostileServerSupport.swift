import MirrorTestSupport
import Foundation
import GitHubSim
import SQLite
import Testing

/// A store mirrored from a sane github-sim, then synced again through a
/// `HostileGitHub` that lies: the harness every "whatever the server says"
/// test uses. Processes are the real `commitsctl`, authenticated with
/// `SecretScan.token` and logging at trace, so every run can be scanned.
final class HostileHarness: ScopedService, @unchecked Sendable {
    static let repository = "acme/widgets"
    static let commits = 1_234

    let simulator: GitHubSimulator
    let proxy: HostileGitHub
    let directory: TemporaryDirectory
    var db: String { directory.path("commits.sqlite") }

    /// A simulator holding `acme/widgets` with its head `behind` first-parent steps
    /// back (so a test can "push" by moving it forward), and a proxy in front of it.
    static func start(behind: Int = 30, repository: SimRepository? = nil) async throws -> HostileHarness {
        let simulator = try GitHubSimulator(repositories: [
            repository
                ?? SimRepository.widgets(id: 501, SyntheticSpec(commits: commits, authors: 40, mergeEvery: 6, seed: 7))
        ])
        try await simulator.start()
        if behind > 0 { try simulator.moveHead(owner: "acme", name: "widgets", back: behind) }
        return try HostileHarness(simulator: simulator)
    }

    private init(simulator: GitHubSimulator) throws {
        self.simulator = simulator
        proxy = try HostileGitHub(upstream: simulator.baseURL)
        directory = try TemporaryDirectory()
    }

    func shutDownForScope() async {
        proxy.stop()
        try? await simulator.shutdown()
    }

    /// `commitsctl sync` through the proxy (or `apiURL`), token in the environment;
    /// bounded in time: whatever the server says, a sync ends (with the client's
    /// retries and backoff) well within `syncTimeLimit`.
    func sync(_ extra: [String] = [], apiURL: String? = nil, repository: String = HostileHarness.repository) async throws -> ProcessResult {
        try #require(
            try await runBounded(
                "commitsctl",
                [
                    "sync", repository, "--db", db, "--api-url", apiURL ?? proxy.baseURL,
                    "--log-level", "trace", "--no-git-bootstrap",
                ] + extra,
                limit: Self.syncTimeLimit, environment: ["GITHUB_TOKEN": SecretScan.token]),
            "commitsctl sync did not end within \(Self.syncTimeLimit)")
    }

    /// Generous: the whole suite loads both cores, and a 5xx costs the client's backoff (~15 s).
    static let syncTimeLimit = Duration.seconds(240)

    func commitsctl(_ arguments: [String]) async throws -> ProcessResult {
        try await run("commitsctl", arguments + ["--db", db])
    }

    func push(_ steps: Int) throws {
        try simulator.moveHead(owner: "acme", name: "widgets", forward: steps)
    }

    var reachable: Set<String> {
        get throws { try simulator.reachableSHAs(owner: "acme", name: "widgets") }
    }

    var store: StoreInspection { StoreInspection(db) }

    /// Every mirrored fact of every commit, for "still there byte for byte".
    func facts() throws -> Set<String> { Set(try store.mirroredFacts()) }

    /// What a refused answer must leave: one error line, no token anywhere,
    /// every fact stored before still there, a sound file that `check` never
    /// calls damaged.
    func expectRefused(
        _ result: ProcessResult, before: Set<String>, mentioning fragments: [String],
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        #expect(result.status == 1, "exit \(result.status): \(result.stderr)", sourceLocation: sourceLocation)
        let errors = result.stderr.split(separator: "\n").filter { $0.hasPrefix("commitsctl: error:") }
        #expect(errors.count == 1, "\(result.stderr)", sourceLocation: sourceLocation)
        for fragment in fragments {
            #expect(errors.first?.contains(fragment) == true, "'\(fragment)' missing from: \(errors)", sourceLocation: sourceLocation)
        }
        try expectNoLeak(result, sourceLocation: sourceLocation)
        expectBoundedMemory(result, sourceLocation: sourceLocation)
        #expect(try facts().isSuperset(of: before), "a stored commit changed or vanished", sourceLocation: sourceLocation)
        #expect(try store.integrity() == "ok", sourceLocation: sourceLocation)
        let check = try await commitsctl(["check"])
        #expect(check.status != 1, "check called the store damaged: \(check.stdout)", sourceLocation: sourceLocation)
    }

    func expectBoundedMemory(_ result: ProcessResult, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(
            result.peakResident(below: ProcessResult.memoryBoundKiB), "peak resident \(result.peakResidentKiB ?? 0) KiB",
            sourceLocation: sourceLocation)
    }

    func expectNoLeak(_ result: ProcessResult, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(SecretScan.leaks(in: ["stdout": result.stdout, "stderr": result.stderr]).isEmpty, sourceLocation: sourceLocation)
        #expect(SecretScan.leaks(inStoreAt: db).isEmpty, sourceLocation: sourceLocation)
    }

    /// A sane server again: the next sync ends complete and exact, `check` exits 0.
    func expectConverges(sourceLocation: SourceLocation = #_sourceLocation) async throws {
        proxy.tamper(nil)
        let result = try await sync()
        #expect(result.status == 0, "\(result.stderr)", sourceLocation: sourceLocation)
        expectBoundedMemory(result, sourceLocation: sourceLocation)
        #expect(!result.stdout.contains("not yet complete"), "\(result.stdout)", sourceLocation: sourceLocation)
        #expect(try store.onBranchSHAs() == reachable, sourceLocation: sourceLocation)
        let check = try await commitsctl(["check"])
        #expect(check.status == 0, "\(check.stdout)", sourceLocation: sourceLocation)
    }
}

/// Request predicates for tamper functions.
extension HostileServer.Request {
    var isListing: Bool { path.hasSuffix("/commits") }
    var query: [String: String] {
        let items = URLComponents(string: "http://x" + target)?.queryItems ?? []
        return Dictionary(items.map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { first, _ in first })
    }
    /// The first page of a listing pinned to a sha.
    var isFirstListingPage: Bool { isListing && query["sha"] != nil && query["page"] == nil }
}
