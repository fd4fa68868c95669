import Foundation
import Logging
import MirrorCore
import NIOCore
import NIOHTTP1

/// One delivery at a time per connection. In order: the request line and
/// `Content-Length` (over 25 MB: 413 before any of the body is read); the body,
/// fed to the HMAC as it arrives and kept only for a push, `create` or `delete`, within the shared
/// budget (`WebhookAdmission`; 503 past it), 413 as soon as it passes 25 MB,
/// 408 when the request is not all there within `requestTimeout`; the signature
/// (401, logged at most once a minute with a count: `WebhookRefusalLog`); only
/// then the headers and body are read: the delivery id (a replay changes
/// nothing), the event and, for those, its repository and ref, whose hint goes
/// to the plan through `WebhookHintGate` (spaced per branch, budgeted in all).
final class WebhookHTTPHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    let secret: WebhookSecret
    let deliveries: SeenDeliveries
    let admission: WebhookAdmission
    let metrics: MirrorMetrics
    let logger: Logger
    /// Where verified deliveries' hints go: at most one per branch a second, within a budget.
    let gate: WebhookHintGate
    let targets: WebhookTargets
    let refusals: WebhookRefusalLog
    /// How long each request (head and body) has to arrive (`WebhookServer.requestTimeout`).
    let requestTimeout: TimeAmount

    private var head: HTTPRequestHead?
    /// The HMAC of the body so far.
    private var signatureCheck: WebhookSignatureCheck?
    /// The body, kept only for the events whose payload is read after verifying.
    private var body: ByteBuffer?
    /// Those events: a push, and the `create` / `delete` GitHub sends besides it for a branch.
    private static let readEvents: Set<String> = ["push", "create", "delete", "pull_request"]
    private var received = 0
    /// Bytes of `admission`'s budget this connection holds.
    private var reserved = 0
    /// The current request was answered early (413, 404…): its remaining parts are dropped.
    private var answered = false
    /// The connection is being closed: no further request is awaited.
    private var closing = false
    /// Which request the pending deadline is for (a later one ignores it).
    private var requestNumber = 0
    private var deadline: Scheduled<Void>?

    /// Fired through the pipeline when a request is not complete in time.
    struct RequestDeadline: Sendable { var request: Int }
    /// Fired through the pipeline when `admission` closes this connection to make room.
    struct Evicted: Sendable {}

    init(
        secret: WebhookSecret, deliveries: SeenDeliveries, admission: WebhookAdmission, metrics: MirrorMetrics,
        logger: Logger, gate: WebhookHintGate, targets: WebhookTargets, refusals: WebhookRefusalLog,
        requestTimeout: TimeAmount
    ) {
        self.secret = secret
        self.deliveries = deliveries
        self.admission = admission
        self.metrics = metrics
        self.logger = logger
        self.gate = gate
        self.targets = targets
        self.refusals = refusals
        self.requestTimeout = requestTimeout
    }

    func channelActive(context: ChannelHandlerContext) {
        if let evicted = admission.admit(context.channel) {
            evicted.pipeline.fireUserInboundEventTriggered(Evicted())
        }
        awaitRequest(context: context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        closing = true
        deadline?.cancel()
        releaseBody()
        admission.left(context.channel)
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let request):
            started(request, context: context)
        case .body(var chunk):
            guard !answered, head != nil else { return }
            received += chunk.readableBytes
            guard received <= WebhookServer.maximumBody else {
                reject(.payloadTooLarge, "the body is over 25 MB", outcome: .tooLarge, context: context)
                return
            }
            chunk.withUnsafeReadableBytes { signatureCheck?.update($0) }
            guard body != nil else { return }
            guard admission.reserve(chunk.readableBytes) else {
                reject(
                    .serviceUnavailable,
                    "the webhook bodies held at once are at their cap (\(admission.maximumBufferedBytes >> 20) MB); send it again later",
                    outcome: .overloaded, context: context)
                return
            }
            reserved += chunk.readableBytes
            body?.writeBuffer(&chunk)
        case .end:
            if !answered, let request = head { deliver(request, context: context) }
            releaseBody()
            (head, answered, received) = (nil, false, 0)
            admission.answered(context.channel)
            awaitRequest(context: context)
        }
    }

    /// A request NIO cannot parse was answered `400` with `Connection: close`
    /// (`HTTPServerProtocolErrorHandler`): the connection is closed at once, not at the deadline.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        closing = true
        deadline?.cancel()
        context.close(promise: nil)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let deadline = event as? RequestDeadline {
            guard deadline.request == requestNumber, !closing else { return }
            if head != nil && !answered {
                reject(
                    .requestTimeout, "the request did not arrive within \(requestTimeout.nanoseconds / 1_000_000_000) s",
                    outcome: .timeout, context: context)
            } else {
                // No request line yet (a trickled head or an idle kept-alive connection): nothing to answer.
                closing = true
                context.close(promise: nil)
            }
        } else if event is Evicted {
            guard !closing else { return }
            if head != nil && !answered {
                reject(
                    .serviceUnavailable,
                    "\(admission.maximumConnections) webhook connections were open at once; this one, waiting longest, was closed",
                    outcome: .overloaded, context: context)
            } else {
                closing = true
                context.close(promise: nil)
            }
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }

    /// The next request (head and body) must be complete within `requestTimeout` from now.
    private func awaitRequest(context: ChannelHandlerContext) {
        deadline?.cancel()
        requestNumber += 1
        guard !closing else { return }
        let (number, channel) = (requestNumber, context.channel)
        deadline = context.eventLoop.scheduleTask(in: requestTimeout) {
            channel.pipeline.fireUserInboundEventTriggered(RequestDeadline(request: number))
        }
    }

    private func releaseBody() {
        admission.release(reserved)
        (reserved, body, signatureCheck) = (0, nil, nil)
    }

    private func started(_ request: HTTPRequestHead, context: ChannelHandlerContext) {
        (head, answered, received) = (request, false, 0)
        releaseBody()
        let path = request.uri.split(separator: "?", maxSplits: 1).first.map(String.init) ?? request.uri
        guard path == "/webhook" else {
            reject(.notFound, "not found; GitHub's deliveries go to POST /webhook", outcome: .invalid, context: context)
            return
        }
        guard request.method == .POST else {
            reject(.methodNotAllowed, "POST only", outcome: .invalid, context: context)
            return
        }
        if let length = request.headers.first(name: "Content-Length").flatMap(Int.init), length > WebhookServer.maximumBody {
            reject(.payloadTooLarge, "the body is over 25 MB", outcome: .tooLarge, context: context)
            return
        }
        signatureCheck = secret.signatureCheck()
        // The event name only decides whether the bytes are kept for reading after
        // the signature is checked; nothing is acted on before that.
        if let event = request.headers.first(name: "X-GitHub-Event"), Self.readEvents.contains(event) {
            body = context.channel.allocator.buffer(capacity: 0)
        }
        if request.headers.first(name: "Expect")?.lowercased() == "100-continue" {
            context.writeAndFlush(wrapOutboundOut(.head(HTTPResponseHead(version: request.version, status: .continue))), promise: nil)
        }
    }

    private func deliver(_ request: HTTPRequestHead, context: ChannelHandlerContext) {
        let event = request.headers.first(name: "X-GitHub-Event")
        let signature = request.headers.first(name: "X-Hub-Signature-256")
        guard signatureCheck?.verifies(signature: signature) == true else {
            // Neither the body nor the headers' values are logged: they are the sender's text.
            if refusals.refused() {
                logger.warning(
                    "refused a webhook delivery: its X-Hub-Signature-256 is missing or wrong; check the secret on GitHub's webhook page",
                    metadata: ["webhook.remote": "\(context.remoteAddress?.ipAddress ?? "unknown")"])
            }
            respond(.unauthorized, "the X-Hub-Signature-256 signature is missing or wrong\n", request: request, context: context)
            metrics.recordWebhook(event: nil, outcome: .unauthorized)
            return
        }
        guard let delivery = request.headers.first(name: "X-GitHub-Delivery"), !delivery.isEmpty, delivery.utf8.count <= 100 else {
            respond(.badRequest, "no X-GitHub-Delivery header\n", request: request, context: context)
            metrics.recordWebhook(event: event, outcome: .invalid)
            return
        }
        guard deliveries.firstSighting(delivery) else {
            respond(.ok, "delivery already received; nothing done again\n", request: request, context: context)
            metrics.recordWebhook(event: event, outcome: .duplicate)
            return
        }
        switch event {
        case "ping":
            respond(.ok, "pong\n", request: request, context: context)
            metrics.recordWebhook(event: event, outcome: .pong)
        case "push", "create", "delete", "pull_request":
            let push: WebhookPush
            do {
                let bytes = body.map { Data($0.readableBytesView) } ?? Data()
                switch event {
                case "push": push = try WebhookPush(json: bytes)
                case "pull_request": push = try WebhookPush(pullRequest: bytes)
                default: push = try WebhookPush(createdOrDeleted: bytes)
                }
            } catch {
                respond(.badRequest, "not a \(event ?? "push") payload: \(error)\n", request: request, context: context)
                metrics.recordWebhook(event: event, outcome: .invalid)
                return
            }
            deliver(push, event: event, request: request, context: context)
        case "repository":
            let admission = gate.admit(.repositoryChanged) { true }
            respond(
                .accepted, admission == .sent ? "accepted; discovery is due now\n" : "accepted; discovery is already due\n",
                request: request, context: context)
            metrics.recordWebhook(event: event, outcome: .accepted)
        default:
            respond(.noContent, nil, request: request, context: context)
            metrics.recordWebhook(event: event, outcome: .ignored)
        }
    }

    /// A verified push's hint, if its repository and branch are mirrored, through the gate.
    private func deliver(_ push: WebhookPush, event: String?, request: HTTPRequestHead, context: ChannelHandlerContext) {
        guard push.branch != nil else {
            respond(.accepted, "not a branch; nothing to sync\n", request: request, context: context)
            metrics.recordWebhook(event: event, outcome: .ignored)
            return
        }
        let (logger, targets) = (logger, targets)
        let admission = gate.admit(.push(push, receivedAt: .now)) { targets.mirror(push, logger: logger) }
        let answer: String
        switch admission {
        case .sent:
            answer = "accepted; the repository is due now"
        case .folded:
            answer = "accepted; a sync of this branch is already due, and this push is folded into it"
            metrics.recordPush(.folded)
        case .notMirrored:
            answer = "not mirrored; nothing to do"
            metrics.recordPush(.notMirrored)
            logger.debug(
                "push webhook for a repository or branch not mirrored; ignored",
                metadata: ["repo": "\(push.repositoryName)", "branch": "\(push.branch ?? "")"])
        case .dropped:
            answer = "accepted, but too many branches await their sync; its next poll finds this push"
            metrics.recordPush(.dropped)
        }
        // Counted before the answer, so a scrape after it sees the delivery.
        metrics.recordWebhook(event: event, outcome: admission == .notMirrored ? .ignored : .accepted)
        respond(.accepted, answer + "\n", request: request, context: context)
    }

    /// Answers before the body is (all) read, and closes: the rest is never read.
    private func reject(_ status: HTTPResponseStatus, _ text: String, outcome: MirrorMetrics.WebhookOutcome, context: ChannelHandlerContext)
    {
        guard let request = head else { return }
        answered = true
        if outcome != .invalid, refusals.refused() {
            logger.notice(
                "refused a webhook delivery: \(text)",
                metadata: ["webhook.remote": "\(context.remoteAddress?.ipAddress ?? "unknown")"])
        }
        metrics.recordWebhook(event: nil, outcome: outcome)
        respond(status, text + "\n", request: request, context: context, close: true)
    }

    private func respond(
        _ status: HTTPResponseStatus, _ text: String?, request: HTTPRequestHead, context: ChannelHandlerContext,
        close: Bool = false
    ) {
        let bytes = Array((text ?? "").utf8)
        var headers = HTTPHeaders()
        if status != .noContent {
            headers.add(name: "Content-Type", value: "text/plain; charset=utf-8")
            headers.add(name: "Content-Length", value: String(bytes.count))
        }
        let close = close || !request.isKeepAlive
        if close {
            headers.add(name: "Connection", value: "close")
            closing = true
        }
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: request.version, status: status, headers: headers))), promise: nil)
        if !bytes.isEmpty {
            context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: bytes)))), promise: nil)
        }
        // A close issued after the write is ordered after it on the channel.
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        if close { context.close(promise: nil) }
    }
}
