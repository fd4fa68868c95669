import Curl
import Foundation
import GitHubSim
import MirrorTestSupport
import Synchronization
import Testing

@testable import MirrorCore

/// The git layer against github-sim over loopback: the history it reads is the one REST lists,
/// git requests spend no rate limit, and every fault the simulator can play is named, with
/// nothing delivered.
@Suite struct GitFromSimulatorTests {
    // The pack index is the SQLite backend's, registered as each executable does.
    init() { TestStoreDrivers.register() }

    static let token = GitHubToken(value: "ghp_gitfromsimulator", source: "test")

    static func simulator(
        commits: Int, shape: SyntheticSpec.Shape = .realistic, isPrivate: Bool = false, faults: FaultPlan = FaultPlan()
    ) async throws -> GitHubSimulator {
        var configuration = SimConfiguration()
        configuration.validTokens = [token.value]
        configuration.faults = faults
        let repository = SimRepository(
            owner: "acme", name: "widgets", id: 77, source: .synthetic(SyntheticSpec(commits: commits, shape: shape, seed: 9)),
            isPrivate: isPrivate)
        let simulator = try GitHubSimulator(configuration: configuration, repositories: [repository])
        try await simulator.start()
        return simulator
    }

    /// The simulator answering every git request of a fetch with `fault`.
    static func simulator(commits: Int, gitFault fault: GitFault) async throws -> GitHubSimulator {
        var faults = FaultPlan()
        faults.git = fault
        return try await simulator(commits: commits, faults: faults)
    }

    /// Fetches main with the credentials the client's own rule gives the simulator's clone URL.
    static func fetch(
        _ simulator: GitHubSimulator, token: GitHubToken? = token, collected: DeliveredCommits = DeliveredCommits()
    ) async throws -> GitHistoryFetcher.Result {
        let cloneURL = simulator.baseURL + "/acme/widgets.git"
        let scratch = try TemporaryDirectory()
        var configuration = GitHistoryFetcher.Configuration(
            cloneURL: cloneURL, credentials: GitCredentials.forClone(url: cloneURL, apiURL: simulator.baseURL, token: token))
        configuration.temporaryDirectory = scratch.url.path
        configuration.htmlURLPrefix = "https://github.com/acme/widgets"
        configuration.batchSize = 500
        configuration.pace = .forTests
        let fetcher = try GitHistoryFetcher(configuration: configuration, logger: TestSupport.quietLogger)
        return try await fetcher.fetchHistory(branch: "main") { batch in collected.commits.withLock { $0 += batch } }
    }

    @Test func theHistoryReadOverGitIsTheOneRESTLists() async throws {
        let simulator = try await Self.simulator(commits: 3_000)
        try await withRunning(simulator) { simulator async throws in
            let delivered = DeliveredCommits()
            let result = try await Self.fetch(simulator, collected: delivered)
            let gitStats = simulator.stats()

            var rest: [Commit] = []
            for page in try await savedPages(simulator, repository: "acme/widgets", token: Self.token.value) {
                rest += try PayloadDecoder().decodeCommits(page)
            }
            let commits = delivered.commits.withLock { $0 }
            #expect(result.commits == 3_000 && commits.count == 3_000 && rest.count == 3_000)
            #expect(result.tip == rest.first?.sha)
            #expect(result.requests == 3)
            #expect(result.deltaObjects > 2_000, "most objects are OFS_DELTAs")
            let fromGit = Dictionary(uniqueKeysWithValues: commits.map { ($0.sha, $0) })
            for var commit in rest {
                // Logins exist only in REST.
                commit.author.identity.login = nil
                commit.committer.identity.login = nil
                #expect(fromGit[commit.sha] == commit)
            }
            #expect(rest.contains { $0.isMerge })

            // Three git requests and the pack, apart from the API's requests and rate limit.
            #expect(gitStats.gitRequests == 3 && gitStats.requests == 0 && gitStats.rateLimitUsed.isEmpty)
            #expect(gitStats.gitPackBytes == result.packBytes)
            let after = simulator.stats()
            #expect(after.gitRequests == 3 && after.requests == 31)  // 30 full pages and the empty one
            #expect(after.rateLimitUsed.values.reduce(0, +) == 31)
        }
    }

    @Test func aPrivateRepositoryIsReadWithTheTokenAndRefusedWithout() async throws {
        let simulator = try await Self.simulator(commits: 40, isPrivate: true)
        try await withRunning(simulator) { simulator async throws in
            #expect(try await Self.fetch(simulator).commits == 40)
            let delivered = DeliveredCommits()
            await #expect(
                throws: GitError.accessDenied(
                    url: simulator.baseURL + "/acme/widgets.git/info/refs?service=git-upload-pack", status: 401, sentCredentials: false)
            ) {
                _ = try await Self.fetch(simulator, token: nil, collected: delivered)
            }
            #expect(delivered.commits.withLock { $0.isEmpty })
        }
    }

    /// Without a token the API allows 60 requests an hour; git is not part of that budget.
    @Test func gitReadsTheHistoryWhenTheAnonymousBudgetIsSpent() async throws {
        var configuration = SimConfiguration()
        configuration.unauthenticatedLimit = 1
        let simulator = try GitHubSimulator(
            configuration: configuration,
            repositories: [SimRepository.widgets(id: 5, SyntheticSpec(commits: 500))])
        try await simulator.start()
        try await withRunning(simulator) { simulator async throws in
            let client = try HTTPClient()
            let headers: HTTPHeaders = [("User-Agent", "tests")]
            #expect(try await client.send(HTTPRequest(url: simulator.baseURL + "/repos/acme/widgets", headers: headers)).status == 200)
            #expect(try await client.send(HTTPRequest(url: simulator.baseURL + "/repos/acme/widgets", headers: headers)).status == 403)
            #expect(try await Self.fetch(simulator, token: nil).commits == 500)
            #expect(simulator.stats().gitRequests == 3 && simulator.stats().rateLimitUsed == ["ip:127.0.0.1": 1])
        }
    }

    /// Each fault: the error that names it, and not one commit handed on.
    @Test(arguments: GitFault.allCases)
    func everyGitFaultIsNamedAndDeliversNothing(_ fault: GitFault) async throws {
        let simulator = try await Self.simulator(commits: 400, gitFault: fault)
        try await withRunning(simulator) { simulator async throws in
            let delivered = DeliveredCommits()
            do {
                _ = try await Self.fetch(simulator, collected: delivered)
                Issue.record("the fetch with \(fault) succeeded")
            } catch let error as GitError {
                switch (fault, error) {
                case (.truncatedPack, .malformedResponse), (.badPackChecksum, .packChecksumMismatch), (.sideBandError, .remoteError),
                    (.protocolV0Only, .protocolV2Unsupported), (.unauthorized, .accessDenied(_, 401, true)), (.alteredCommit, .tipMissing),
                    (.endlessProgress, .fetchTooSlow), (.trickledPack, .fetchTooSlow), (.echoedErrorBand, .remoteError):
                    break
                default:
                    Issue.record("\(fault): unexpected \(error)")
                }
            }
            #expect(delivered.commits.withLock { $0.isEmpty })
            #expect(simulator.stats().requests == 0 && simulator.stats().rateLimitUsed.isEmpty)
        }
    }
}
