import Foundation
import GitHubSim
import MirrorCore
import MirrorTestSupport
import Testing

/// Issue #25 item 4: a server that echoes the credential it received (the Basic
/// `x-access-token:<token>` a git host gets, the Bearer token the API gets) in
/// its error text, in every encoding. The real `commitsctl`, over real libcurl,
/// must show none of it: not in stdout, stderr (its log) or the store.
@Suite struct SecretEchoTests {
    /// 2,500 commits: a first walk long enough to be read over git.
    static func start() async throws -> HostileHarness {
        try await HostileHarness.start(
            behind: 0,
            repository: SimRepository.widgets(id: 501, SyntheticSpec(commits: 2_500, seed: 25)))
    }

    func expectNothingLeaked(_ harness: HostileHarness, _ result: ProcessResult, store: String) {
        #expect(SecretScan.leaks(in: ["stdout": result.stdout, "stderr": result.stderr]).isEmpty, "\(result.stderr)")
        #expect(SecretScan.leaks(inStoreAt: store).isEmpty)
        harness.expectBoundedMemory(result)
        // The server really was sent the credential it echoed.
        #expect(harness.proxy.requests.contains { $0.authorization == SecretScan.basicCredential })
    }

    /// Bounded: an echoing git host must cost a warning and the REST walk, never a hang.
    func syncOverGit(_ harness: HostileHarness, store: String) async throws -> ProcessResult {
        try #require(
            try await runBounded(
                "commitsctl",
                ["sync", "acme/widgets", "--db", store, "--api-url", harness.proxy.baseURL, "--log-level", "trace"],
                limit: .seconds(300), environment: ["GITHUB_TOKEN": SecretScan.token]),
            "commitsctl sync did not finish in 5 minutes")
    }

    @Test func anErrorPacketEchoingTheBasicCredentialIsRedacted() async throws {
        try await withRunning(Self.start()) { harness in
            harness.proxy.echoCredentials(of: "acme/widgets", as: .errorPacket)
            let result = try await syncOverGit(harness, store: harness.db)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("history not read over git"), "\(result.stderr)")
            #expect(result.stderr.contains("[REDACTED]"), "\(result.stderr)")
            expectNothingLeaked(harness, result, store: harness.db)
            #expect(try harness.store.onBranchSHAs() == harness.reachable)
            try await harness.expectConverges()
        }
    }

    @Test func aSideBandErrorEchoingTheBasicCredentialIsRedacted() async throws {
        try await withRunning(Self.start()) { harness in
            let tip = try harness.simulator.headSHA(owner: "acme", name: "widgets")
            harness.proxy.echoCredentials(of: "acme/widgets", as: .sideBand3(tip: tip))
            let result = try await syncOverGit(harness, store: harness.db)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(
                result.stderr.contains("the git server reported an error: fatal: denied for Basic [REDACTED] whole=[REDACTED]"),
                "\(result.stderr)")
            expectNothingLeaked(harness, result, store: harness.db)
            #expect(try harness.store.onBranchSHAs() == harness.reachable)
            try await harness.expectConverges()
        }
    }

    @Test func anAPIErrorBodyEchoingTheTokenIsRedacted() async throws {
        try await withRunning(HostileHarness.start()) { harness in
            #expect(try await harness.sync().status == 0)
            let before = try harness.facts()
            try harness.push(5)
            harness.proxy.tamper { request, answer in
                guard request.path.hasSuffix("/commits/main") else { return }
                let body = ["message": "Resource not accessible: \(HostileGitHub.echo(of: request.authorization ?? "-"))"]
                answer.status = 403
                answer.body = Array(try! JSONSerialization.data(withJSONObject: body))
            }
            let refused = try await harness.sync()
            try await harness.expectRefused(refused, before: before, mentioning: ["[REDACTED]"])
            try await harness.expectConverges()
        }
    }
}
