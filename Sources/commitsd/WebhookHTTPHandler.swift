import Foundation
import Logging
import MirrorCore
import NIOCore
import NIOHTTP1

/// One delivery at a time per connection. In order: the request line and
/// `Content-Length` (over 25 MB: 413 before any of the body is read); the body,
/// counted as it arrives (413 as soon as it passes 25 MB; 408 when it is not
/// all there within `bodyTimeout`); the signature over the raw body (401,
/// logged); only then the headers and body are read: the delivery id (a replay
/// changes nothing), the event and, for a push, its repository and ref.
final class WebhookHTTPHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    let secret: WebhookSecret
    let deliveries: SeenDeliveries
    let metrics: MirrorMetrics
    let logger: Logger
    let hints: @Sendable (WebhookHint) -> Void

    private var head: HTTPRequestHead?
    private var body = ByteBuffer()
    /// The current request was answered early (413, 404…): its remaining parts are dropped.
    private var answered = false
    /// Which request a body deadline was set for (a later one ignores it).
    private var requestNumber = 0

    /// Fired through the pipeline when a request's body is not complete in time.
    struct BodyDeadline: Sendable { var request: Int }

    init(
        secret: WebhookSecret, deliveries: SeenDeliveries, metrics: MirrorMetrics, logger: Logger,
        hints: @escaping @Sendable (WebhookHint) -> Void
    ) {
        self.secret = secret
        self.deliveries = deliveries
        self.metrics = metrics
        self.logger = logger
        self.hints = hints
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let request):
            started(request, context: context)
        case .body(var chunk):
            guard !answered, head != nil else { return }
            guard body.readableBytes + chunk.readableBytes <= WebhookServer.maximumBody else {
                reject(.payloadTooLarge, "the body is over 25 MB", outcome: .tooLarge, context: context)
                return
            }
            body.writeBuffer(&chunk)
        case .end:
            defer { (head, answered, body) = (nil, false, ByteBuffer()) }
            guard !answered, let request = head else { return }
            requestNumber += 1
            deliver(request, context: context)
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let deadline = event as? BodyDeadline {
            guard deadline.request == requestNumber, head != nil, !answered else { return }
            reject(.requestTimeout, "the body did not arrive within 10 s", outcome: .timeout, context: context)
        } else if event is IdleStateHandler.IdleStateEvent {
            if head != nil && !answered {
                reject(.requestTimeout, "the body did not arrive within 10 s", outcome: .timeout, context: context)
            } else {
                context.close(promise: nil)
            }
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }

    private func started(_ request: HTTPRequestHead, context: ChannelHandlerContext) {
        (head, answered, body) = (request, false, ByteBuffer())
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
        let number = requestNumber
        let channel = context.channel
        context.eventLoop.scheduleTask(in: WebhookServer.bodyTimeout) {
            channel.pipeline.fireUserInboundEventTriggered(BodyDeadline(request: number))
        }
        if request.headers.first(name: "Expect")?.lowercased() == "100-continue" {
            context.writeAndFlush(wrapOutboundOut(.head(HTTPResponseHead(version: request.version, status: .continue))), promise: nil)
        }
    }

    private func deliver(_ request: HTTPRequestHead, context: ChannelHandlerContext) {
        let event = request.headers.first(name: "X-GitHub-Event")
        let signature = request.headers.first(name: "X-Hub-Signature-256")
        guard body.withUnsafeReadableBytes({ secret.verifies($0, signature: signature) }) else {
            // Neither the body nor the headers' values are logged: they are the sender's text.
            logger.warning(
                "refused a webhook delivery: its X-Hub-Signature-256 is missing or wrong; check the secret on GitHub's webhook page",
                metadata: ["webhook.remote": "\(context.remoteAddress?.ipAddress ?? "unknown")"])
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
        case "push":
            let push: WebhookPush
            do {
                push = try WebhookPush(json: Data(body.readableBytesView))
            } catch {
                respond(.badRequest, "not a push payload: \(error)\n", request: request, context: context)
                metrics.recordWebhook(event: event, outcome: .invalid)
                return
            }
            guard push.branch != nil else {
                respond(.accepted, "not a branch; nothing to sync\n", request: request, context: context)
                metrics.recordWebhook(event: event, outcome: .ignored)
                return
            }
            hints(.push(push, receivedAt: .now))
            respond(.accepted, "accepted; the repository is due now\n", request: request, context: context)
            metrics.recordWebhook(event: event, outcome: .accepted)
        case "repository":
            hints(.repositoryChanged)
            respond(.accepted, "accepted; discovery is due now\n", request: request, context: context)
            metrics.recordWebhook(event: event, outcome: .accepted)
        default:
            respond(.noContent, nil, request: request, context: context)
            metrics.recordWebhook(event: event, outcome: .ignored)
        }
    }

    /// Answers before the body is (all) read, and closes: the rest is never read.
    private func reject(_ status: HTTPResponseStatus, _ text: String, outcome: MirrorMetrics.WebhookOutcome, context: ChannelHandlerContext)
    {
        guard let request = head else { return }
        answered = true
        if outcome != .invalid {
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
        if close { headers.add(name: "Connection", value: "close") }
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: request.version, status: status, headers: headers))), promise: nil)
        if !bytes.isEmpty {
            context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: bytes)))), promise: nil)
        }
        // A close issued after the write is ordered after it on the channel.
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        if close { context.close(promise: nil) }
    }
}
