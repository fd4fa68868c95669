import Foundation
import Logging
import MirrorCore
import NIOCore
import NIOHTTP1
import NIOPosix
import ServiceLifecycle
import Synchronization

/// What a verified delivery asks of the plan: a hint, never data.
enum WebhookHint: Sendable {
    /// A push to a branch: that repository and branch are due now.
    case push(WebhookPush, receivedAt: ContinuousClock.Instant)
    /// A `repository` event (created, deleted, renamed, transferred, archived…):
    /// the owners' discovery is due now.
    case repositoryChanged
}

/// `webhook_listen`: receives GitHub's webhook deliveries at `POST /webhook`
/// over plain HTTP/1.1 (put TLS in front of it), as one service of commitsd's
/// group. Each connection is its own channel, so a client that trickles its
/// request holds only its own connection, and not past `requestTimeout`; what
/// all connections hold together is capped (`WebhookAdmission`).
struct WebhookServer: Service, CustomStringConvertible {
    let address: ListenAddress
    let secret: WebhookSecret
    let metrics: MirrorMetrics
    let logger: Logger
    /// What the plan mirrors, to match pushes against.
    let targets: WebhookTargets
    let hints: @Sendable (WebhookHint) -> Void
    /// `defaultRequestTimeout`, unless a test sets its own (`TestTimings.webhookTimeoutSeconds`).
    var requestTimeout = Self.defaultRequestTimeout

    var description: String { "WebhookServer" }

    /// GitHub caps payloads at 25 MB.
    static let maximumBody = 25 * 1024 * 1024
    /// A request's head and body must arrive within this from the connection's
    /// opening (or its previous answer): GitHub itself gives up after 10 s.
    static let defaultRequestTimeout: TimeAmount = .seconds(10)
    /// Connections open at once; a new one past this closes the one waiting longest.
    static let maximumConnections = 32
    /// Push bodies held across all connections until their signatures are checked.
    static let maximumBufferedBytes = 64 * 1024 * 1024
    /// How often hints folded into a waiting one are looked at: a small part of their spacing.
    static let hintTick: Duration = .milliseconds(100)

    func run() async throws {
        let (secret, metrics, logger, targets, requestTimeout) = (secret, metrics, logger, targets, requestTimeout)
        let gate = WebhookHintGate(send: hints)
        let refusals = WebhookRefusalLog()
        let deliveries = SeenDeliveries(capacity: 4096)
        let admission = WebhookAdmission(
            maximumConnections: Self.maximumConnections, maximumBufferedBytes: Self.maximumBufferedBytes, metrics: metrics)
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(
                        WebhookHTTPHandler(
                            secret: secret, deliveries: deliveries, admission: admission, metrics: metrics, logger: logger,
                            gate: gate, targets: targets, refusals: refusals, requestTimeout: requestTimeout))
                }
            }
            .bind(host: address.host, port: address.port).get()
        // The bound address (a test asks for port 0 and reads the port from this line).
        logger.info(
            "receiving webhooks",
            metadata: [
                "webhook.listen":
                    "\(channel.localAddress.map { "\($0.ipAddress ?? address.host):\($0.port ?? address.port)" } ?? address.description)",
                "webhook.secret.source": "\(secret.source)",
            ])
        // Hints folded while their branch waited go once their spacing has passed; refusals are summed up.
        let ticker = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: Self.hintTick)
                gate.sendDue()
                refusals.logSummary(to: logger)
            }
        }
        defer { ticker.cancel() }
        try await withGracefulShutdownHandler {
            try await channel.closeFuture.get()
        } onGracefulShutdown: {
            channel.close(promise: nil)
        }
    }
}

/// The delivery ids (`X-GitHub-Delivery`) seen lately: the newest `capacity`
/// of them, so memory stays bounded however many arrive.
final class SeenDeliveries: Sendable {
    private struct State {
        var ids: Set<String> = []
        var order: [String] = []
        var next = 0
    }
    private let state = Mutex(State())
    let capacity: Int

    init(capacity: Int) { self.capacity = capacity }

    /// True the first time `id` is seen (it is then remembered); false for a replay.
    func firstSighting(_ id: String) -> Bool {
        state.withLock { state in
            guard state.ids.insert(id).inserted else { return false }
            if state.order.count < capacity {
                state.order.append(id)
            } else {
                state.ids.remove(state.order[state.next])
                state.order[state.next] = id
                state.next = (state.next + 1) % capacity
            }
            return true
        }
    }
}
