import Foundation
import GitHubSim
import MirrorCore
import MirrorTestSupport
import Synchronization
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
            repository: SimRepository(
                owner: "acme", name: "widgets", id: 501, source: .synthetic(SyntheticSpec(commits: 2_500, seed: 25))))
    }

    /// What an indiscreet server says: the header it received, the credential
    /// unpadded and in base64url, decoded, percent-encoded, and the whole header
    /// encoded again (the token then sits at another base64 alignment). Over
    /// 300 characters, so the git client's cut falls inside it.
    static func echo(of authorization: String) -> String {
        let credential = String(authorization.split(separator: " ").last ?? "")
        let decoded = Data(base64Encoded: credential).map { String(decoding: $0, as: UTF8.self) } ?? credential
        let url = credential.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        return [
            "denied for \(authorization)", "whole=\(Data("Authorization: \(authorization)".utf8).base64EncodedString())",
            "unpadded=\(credential.prefix { $0 != "=" })", "url=\(url)", "decoded=\(decoded)",
            "escaped=\(decoded.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")", "again \(authorization)",
        ].joined(separator: " ")
    }

    static func packetLine(_ payload: [UInt8]) -> [UInt8] {
        Array(String(format: "%04x", payload.count + 4).utf8) + payload
    }

    /// The repository's `clone_url` points at the proxy (the API's own origin, so
    /// the token goes there as Basic credentials); git's `upload-pack` answers
    /// come from `gitAnswer` (the POST body is not seen: `index` counts them).
    static func echoingGit(_ harness: HostileHarness, gitAnswer: @escaping @Sendable (Int, String) -> [UInt8]) {
        let upstream = harness.simulator.baseURL
        let proxy = harness.proxy.baseURL
        let posts = Mutex(0)
        harness.proxy.tamper { request, answer in
            if request.path == "/repos/acme/widgets" {
                answer.text = answer.text.replacingOccurrences(of: upstream, with: proxy)
            } else if request.method == "POST", request.path.hasSuffix("/git-upload-pack") {
                let index = posts.withLock { count in
                    count += 1
                    return count
                }
                answer.status = 200
                answer.setHeader("Content-Type", "application/x-git-upload-pack-result")
                answer.body = gitAnswer(index, request.authorization ?? "-")
            }
        }
    }

    func expectNothingLeaked(_ harness: HostileHarness, _ result: ProcessResult, store: String) {
        #expect(SecretScan.leaks(in: ["stdout": result.stdout, "stderr": result.stderr]).isEmpty, "\(result.stderr)")
        #expect(SecretScan.leaks(inStoreAt: store).isEmpty)
        // The server really was sent the credential it echoed.
        #expect(harness.proxy.requests.contains { $0.authorization == SecretScan.basicCredential })
    }

    func syncOverGit(_ harness: HostileHarness, store: String) async throws -> ProcessResult {
        try await run(
            "commitsctl",
            ["sync", "acme/widgets", "--db", store, "--api-url", harness.proxy.baseURL, "--log-level", "trace"],
            environment: ["GITHUB_TOKEN": SecretScan.token])
    }

    @Test func anErrorPacketEchoingTheBasicCredentialIsRedacted() async throws {
        try await withRunning(Self.start()) { harness in
            Self.echoingGit(harness) { _, authorization in
                Self.packetLine(Array("ERR \(Self.echo(of: authorization))\n".utf8)) + Array("0000".utf8)
            }
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
            Self.echoingGit(harness) { index, authorization in
                if index == 1 {
                    return Self.packetLine(Array("\(tip) refs/heads/main\n".utf8)) + Array("0000".utf8)
                }
                return Self.packetLine(Array("packfile\n".utf8))
                    + Self.packetLine([3] + Array("fatal: \(Self.echo(of: authorization))\n".utf8)) + Array("0000".utf8)
            }
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
                let body = ["message": "Resource not accessible: \(Self.echo(of: request.authorization ?? "-"))"]
                answer.status = 403
                answer.body = Array(try! JSONSerialization.data(withJSONObject: body))
            }
            let refused = try await harness.sync()
            try await harness.expectRefused(refused, before: before, mentioning: ["[REDACTED]"])
            try await harness.expectConverges()
        }
    }
}
