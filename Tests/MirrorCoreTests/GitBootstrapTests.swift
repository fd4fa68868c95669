import Foundation
import GitHubSim
import MirrorTestSupport
import Testing

@testable import MirrorCore
@testable import MirrorSQLite

/// Issue #12 over the real path: github-sim serving REST and git on loopback,
/// real libcurl, real SQLite. A long first sync reads its history over git and
/// stores the rows a REST-only sync stores; every way git can fail leaves the
/// sync to REST with the same result.
@Suite struct GitBootstrapTests {
    // The pack index is the SQLite backend's, registered as each executable does.
    init() { TestStoreDrivers.register() }

    static let token = "ghp_gitbootstraptests"
    static let repository = "acme/widgets"
    /// 30 pages: past the threshold below, small enough for a debug build.
    static let commits = 3_000
    static let bootstrap = GitBootstrap(minimumPages: 5, pace: .forTests)

    static func simulator(
        commits: Int = commits, isPrivate: Bool = false, faults: FaultPlan = FaultPlan(), unauthenticatedLimit: Int = 60,
        cloneHost: String? = nil
    ) async throws -> GitHubSimulator {
        var configuration = SimConfiguration()
        configuration.validTokens = [token]
        configuration.cloneHost = cloneHost
        configuration.faults = faults
        configuration.unauthenticatedLimit = unauthenticatedLimit
        let repository = SimRepository(
            owner: "acme", name: "widgets", id: 77,
            source: .synthetic(SyntheticSpec(commits: commits, shape: .realistic, seed: 12)), isPrivate: isPrivate)
        let simulator = try GitHubSimulator(configuration: configuration, repositories: [repository])
        try await simulator.start()
        return simulator
    }

    static func sync(
        _ simulator: GitHubSimulator, into path: String, bootstrap: GitBootstrap?, token: String? = token
    ) async throws -> SyncReport {
        var configuration = GitHubClient.Configuration(
            apiURL: simulator.baseURL, token: token.map { GitHubToken(value: $0, source: "test") })
        configuration.retry = SimulatorHarness.fastRetries()
        let client = try GitHubClient(configuration: configuration, logger: TestSupport.quietLogger)
        let engine = SyncEngine(
            client: client, store: try MirrorStore(path: path), logger: TestSupport.quietLogger, gitBootstrap: bootstrap)
        return try await engine.sync(RepositoryName(parsing: repository)!)
    }

    /// What a REST-only first sync stores, from its own simulator.
    static func restOnlyFacts(isPrivate: Bool = false) async throws -> [String] {
        let directory = try TemporaryDirectory()
        let simulator = try await simulator(isPrivate: isPrivate)
        return try await withRunning(simulator) { simulator in
            _ = try await sync(simulator, into: directory.path("rest.sqlite"), bootstrap: nil)
            return try StoreInspection(directory.path("rest.sqlite")).commitFacts(of: repository, includingLogins: false)
        }
    }

    @Test func aLongFirstSyncReadsItsHistoryOverGitAndStoresTheRowsRESTWould() async throws {
        let directory = try TemporaryDirectory()
        let simulator = try await Self.simulator()
        try await withRunning(simulator) { simulator in
            let rest = directory.path("rest.sqlite")
            let overGit = directory.path("git.sqlite")
            simulator.resetStats()
            let restReport = try await Self.sync(simulator, into: rest, bootstrap: nil)
            let restStats = simulator.stats()
            simulator.resetStats()
            let report = try await Self.sync(simulator, into: overGit, bootstrap: Self.bootstrap)
            let stats = simulator.stats()

            #expect(restReport.added == Self.commits && restReport.addedOverGit == 0 && restStats.gitRequests == 0)
            #expect(report.added == Self.commits && report.complete)
            #expect(report.addedOverGit == Self.commits - 100, "all but the first page came over git")
            // The repository lookup, the head probe and the first page; git's three spend no rate limit.
            #expect(report.requests == 3 && stats.requests == 3 && stats.listRequests == 1)
            #expect(report.gitRequests == 3 && stats.gitRequests == 3)
            #expect(stats.rateLimitUsed.values.reduce(0, +) == 3)
            #expect(report.summary.contains("\(Self.commits) new (\(Self.commits - 100) over git)"))

            let gitStore = StoreInspection(overGit)
            let restStore = StoreInspection(rest)
            #expect(
                try gitStore.commitFacts(of: Self.repository, includingLogins: false)
                    == (try restStore.commitFacts(of: Self.repository, includingLogins: false)))
            #expect(try gitStore.memberSHAs(of: Self.repository) == (try simulator.reachableSHAs(owner: "acme", name: "widgets")))
            #expect(try gitStore.integrity() == "ok")
            let check = try MirrorReader(path: overGit).check()
            #expect(!check.isDamaged && check.isComplete && check.unindexedMessages == 0)

            // A second sync is one 304; REST pages fill the logins later syncs list.
            simulator.resetStats()
            let again = try await Self.sync(simulator, into: overGit, bootstrap: Self.bootstrap)
            #expect(again.added == 0 && again.requests == 1 && simulator.stats().gitRequests == 0)
        }
    }

    @Test(arguments: GitFault.allCases)
    func everyGitFailureLeavesTheSyncToRESTWithTheSameStore(_ fault: GitFault) async throws {
        let expected = try await Self.restOnlyFacts()
        let directory = try TemporaryDirectory()
        var faults = FaultPlan()
        faults.git = fault
        let simulator = try await Self.simulator(faults: faults)
        try await withRunning(simulator) { simulator in
            let path = directory.path("git.sqlite")
            let report = try await Self.sync(simulator, into: path, bootstrap: Self.bootstrap)
            #expect(report.added == Self.commits && report.addedOverGit == 0 && report.complete, "\(fault)")
            #expect(simulator.stats().listRequests == Self.commits / 100, "\(fault): every page over REST, none twice")
            #expect(try StoreInspection(path).commitFacts(of: Self.repository, includingLogins: false) == expected, "\(fault)")
            #expect(try StoreInspection(path).integrity() == "ok")
        }
    }

    @Test func aCloneHostOtherThanTheAPIsNeverGetsTheToken() async throws {
        // clone_url names the same server as `localhost`, the API is 127.0.0.1: another
        // host, so the token stays home, the private repository's git endpoint refuses,
        // and the sync goes on over REST.
        let expected = try await Self.restOnlyFacts(isPrivate: true)
        let directory = try TemporaryDirectory()
        let simulator = try await Self.simulator(isPrivate: true, cloneHost: "localhost")
        try await withRunning(simulator) { simulator in
            let path = directory.path("git.sqlite")
            let report = try await Self.sync(simulator, into: path, bootstrap: Self.bootstrap)
            #expect(report.addedOverGit == 0 && report.added == Self.commits)
            #expect(simulator.stats().gitRequests >= 1, "git was asked, without the token, and refused")
            #expect(try StoreInspection(path).commitFacts(of: Self.repository, includingLogins: false) == expected)
        }
        // The same private repository with clone_url on the API's own host: the token goes along.
        let sameHost = try await Self.simulator(isPrivate: true)
        try await withRunning(sameHost) { simulator in
            let served = try await Self.sync(simulator, into: directory.path("same-host.sqlite"), bootstrap: Self.bootstrap)
            #expect(served.addedOverGit == Self.commits - 100)
        }
    }

    @Test func withoutATokenAFirstSyncTooLongForTheAnonymousLimitCompletesOverGit() async throws {
        // 10 requests an hour: a REST-only sync of 30 pages cannot finish; over git it costs 3.
        let directory = try TemporaryDirectory()
        let simulator = try await Self.simulator(unauthenticatedLimit: 10)
        try await withRunning(simulator) { simulator in
            let path = directory.path("anonymous.sqlite")
            let report = try await Self.sync(simulator, into: path, bootstrap: Self.bootstrap, token: nil)
            #expect(report.complete && report.added == Self.commits && report.requests == 3)
            #expect(
                try StoreInspection(path).memberSHAs(of: Self.repository) == (try simulator.reachableSHAs(owner: "acme", name: "widgets")))

            await #expect(throws: GitHubError.self) {
                _ = try await Self.sync(simulator, into: directory.path("rest.sqlite"), bootstrap: nil, token: nil)
            }
        }
    }

    @Test func aWalkThatWentOnOverRESTAfterGitFailedDoesNotAskGitAgain() async throws {
        var faults = FaultPlan()
        faults.git = .unauthorized
        let directory = try TemporaryDirectory()
        let simulator = try await Self.simulator(faults: faults)
        try await withRunning(simulator) { simulator in
            let path = directory.path("steps.sqlite")
            var configuration = GitHubClient.Configuration(
                apiURL: simulator.baseURL, token: GitHubToken(value: Self.token, source: "test"))
            configuration.retry = SimulatorHarness.fastRetries()
            let client = try GitHubClient(configuration: configuration, logger: TestSupport.quietLogger)
            // A daemon's first step: git refused after the first page, then REST until the step ends.
            let step = SyncEngine(
                client: client, store: try MirrorStore(path: path), logger: TestSupport.quietLogger,
                gitBootstrap: Self.bootstrap, pageLimit: 5)
            await #expect(throws: SyncStepEnded.self) { _ = try await step.sync(RepositoryName(parsing: Self.repository)!) }
            #expect(simulator.stats().gitRequests >= 1)
            simulator.resetStats()
            let report = try await Self.sync(simulator, into: path, bootstrap: Self.bootstrap)
            #expect(report.complete && report.addedOverGit == 0)
            #expect(simulator.stats().gitRequests == 0, "the resumed walk stays on REST")
            #expect(
                try StoreInspection(path).memberSHAs(of: Self.repository) == (try simulator.reachableSHAs(owner: "acme", name: "widgets")))
        }
    }

    @Test func aShortFirstSyncStaysOnREST() async throws {
        let directory = try TemporaryDirectory()
        let simulator = try await Self.simulator(commits: 450)
        try await withRunning(simulator) { simulator in
            let report = try await Self.sync(simulator, into: directory.path("short.sqlite"), bootstrap: Self.bootstrap)
            #expect(report.added == 450 && report.addedOverGit == 0 && simulator.stats().gitRequests == 0)
        }
    }
}
