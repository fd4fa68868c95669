import Curl
import Foundation
import GitHubSim
import MirrorCore
import MirrorTestSupport
import Testing

/// A commitsd polling hourly with `webhook_listen` (and `metrics_listen`) on
/// ephemeral ports, mirroring `acme/widgets` from an in-process github-sim
/// that delivers its head moves to commitsd's `/webhook`.
struct WebhookRig {
    static let secret = "whsec-test-It's-a-Secret-0815"
    let directory: TemporaryDirectory
    let simulator: GitHubSimulator
    let daemon: DaemonProcess
    let store: String
    let webhookURL: String
    let metricsURL: String
    /// The shas a repository's branch holds in the store so far (empty while unreadable).
    let storedSHAs: @Sendable (String) -> Set<String>

    /// Starts everything and waits for the first sync; the simulator's head is
    /// 10 commits back, so moving it forward makes new commits to mirror.
    /// `others`: more repositories of `acme` (ids from 1002), with the
    /// configuration entry each is mirrored by, synced before this returns too.
    /// `postgreSQL`: the store is that database, so commitsd claims from its shared queue.
    /// `environment`: more variables for commitsd.
    static func start(
        in directory: TemporaryDirectory, others: [(name: String, commits: Int, entry: String)] = [],
        postgreSQL: (server: PostgreSQLServer, uri: String)? = nil, environment: [String: String] = [:]
    ) async throws -> WebhookRig {
        let simulator = try await startSimulator([("widgets", 300)] + others.map { ($0.name, $0.commits) })
        try simulator.moveHead(owner: "acme", name: "widgets", back: 10)
        let secretFile = try directory.write("webhook-secret", secret + "\n")
        chmod(secretFile, 0o600)
        let store = postgreSQL?.uri ?? directory.path("state/commits.sqlite")
        let storedSHAs: @Sendable (String) -> Set<String> = { repository in
            guard let (server, uri) = postgreSQL else { return StoreInspection(store).memberSHAsSoFar(of: repository) }
            let prefix = repository.lowercased() + " "
            return Set(
                CommitsdSharedQueueTests.stored(server, uri).filter { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) })
        }
        let daemon = try DaemonProcess.mirroring(
            ["acme/widgets"] + others.map(\.entry), from: simulator, in: directory, store: store, interval: "1h",
            settings: "metrics_listen: 127.0.0.1:0\nwebhook_listen: 127.0.0.1:0\nwebhook_secret_file: \(secretFile)",
            environment: environment, logLevel: "debug")
        let expected = try simulator.reachableSHAs(owner: "acme", name: "widgets").count
        let synced = await waitUntil { storedSHAs("acme/widgets").count == expected }
        try #require(synced, "\(daemon.log)")
        for other in others {
            let count = try simulator.reachableSHAs(owner: "acme", name: other.name).count
            try #require(await waitUntil { storedSHAs("acme/\(other.name)").count == count }, "\(daemon.log)")
        }
        let webhookURL = "http://127.0.0.1:\(try await daemon.listeningPort("webhook.listen="))/webhook"
        simulator.setWebhook(SimWebhook(url: webhookURL, secret: secret))
        return WebhookRig(
            directory: directory, simulator: simulator, daemon: daemon, store: store, webhookURL: webhookURL,
            metricsURL: "http://127.0.0.1:\(try await daemon.listeningPort("metrics.listen="))/metrics", storedSHAs: storedSHAs)
    }

    func stop() async {
        daemon.stop()
        try? await simulator.shutdown()
    }

    /// The port commitsd receives webhooks on, for raw connections.
    var port: Int { URLComponents(string: webhookURL)?.port ?? 0 }

    var head: String { (try? simulator.headSHA(owner: "acme", name: "widgets")) ?? "" }

    func stored(_ sha: String) -> Bool { storedSHAs("acme/widgets").contains(sha) }

    /// `name{labels}` → value from a scrape of `/metrics`.
    func samples() async -> [String: Double] {
        guard let response = try? await HTTPClient().send(HTTPRequest(url: metricsURL)) else { return [:] }
        return CommitsdMetricsTests.samples(String(decoding: response.body, as: UTF8.self))
    }

    /// Scrapes until `condition` holds of the samples (`timeout` at most); the last scrape.
    func samples(within timeout: Duration = .seconds(30), until condition: ([String: Double]) -> Bool) async -> [String: Double] {
        let deadline = ContinuousClock.now + timeout
        var samples = await self.samples()
        while !condition(samples) && ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(50))
            samples = await self.samples()
        }
        return samples
    }

    /// A push payload for acme/widgets as GitHub shapes it.
    func pushBody(after: String) -> [UInt8] {
        Array(
            #"{"ref":"refs/heads/main","before":"0000000000000000000000000000000000000000","after":"\#(after)","repository":{"id":1001,"full_name":"acme/widgets","default_branch":"main"}}"#
                .utf8)
    }

    /// POSTs a delivery signed with `secret` (the right one unless told).
    func deliver(
        event: String, body: [UInt8], id: String = UUID().uuidString, secret: String = WebhookRig.secret,
        signature: String? = nil
    ) async throws -> HTTPResponse {
        let signed = signature ?? WebhookSecret(secret, source: "test").signature(of: body)
        return try await HTTPClient().send(
            HTTPRequest(
                url: webhookURL, method: "POST",
                headers: [
                    ("Content-Type", "application/json"), ("X-GitHub-Event", event), ("X-GitHub-Delivery", id),
                    ("X-Hub-Signature-256", signed),
                ], body: body))
    }
}

/// A plain TCP client for what libcurl will not do: trickle a body, or announce one it never sends.
final class RawConnection {
    let descriptor: Int32

    init(port: Int) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw CocoaError(.fileReadUnknown) }
    }

    /// False once the peer is gone (no SIGPIPE: MSG_NOSIGNAL).
    @discardableResult
    func send(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == bytes.count
    }

    /// Sends `count` bytes of filler in pieces of a megabyte; false once the peer is gone.
    @discardableResult
    func sendFiller(_ count: Int) -> Bool {
        let piece = [UInt8](repeating: UInt8(ascii: "x"), count: 1 << 20)
        var left = count
        while left > 0 {
            let size = min(left, piece.count)
            let sent = piece.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, size, Int32(MSG_NOSIGNAL)) }
            guard sent == size else { return false }
            left -= size
        }
        return true
    }

    /// Set by `available()` once the peer closed or reset the connection.
    private(set) var closed = false

    /// What has arrived so far, without waiting.
    func available() -> String {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = recv(descriptor, &buffer, buffer.count, Int32(MSG_DONTWAIT))
        if count == 0 || (count < 0 && errno != EAGAIN && errno != EWOULDBLOCK) { closed = true }
        return count > 0 ? String(decoding: buffer[..<count], as: UTF8.self) : ""
    }

    deinit { close(descriptor) }
}
