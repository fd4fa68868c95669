// The NIO HTTP/1.1 server: decodes requests, hands them to SimulatorCore, and writes the answer,
// honouring the transport-level faults (delay, truncation, reset). Keep-alive and pipelining
// come from NIO's HTTP server pipeline.

import NIOCore
import NIOHTTP1
import NIOPosix

final class HTTPServer: Sendable {
    private let group: MultiThreadedEventLoopGroup
    private let channel: any Channel
    let port: Int

    private init(group: MultiThreadedEventLoopGroup, channel: any Channel, port: Int) {
        self.group = group
        self.channel = channel
        self.port = port
    }

    static func start(host: String, port: Int, core: SimulatorCore) async throws -> HTTPServer {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: System.coreCount)
        do {
            let channel = try await ServerBootstrap(group: group)
                .serverChannelOption(.backlog, value: 256)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                        try channel.pipeline.syncOperations.addHandler(SimHTTPHandler(core: core))
                    }
                }
                .bind(host: host, port: port).get()
            return HTTPServer(group: group, channel: channel, port: channel.localAddress?.port ?? port)
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
    }

    func shutdown() async throws {
        try? await channel.close()
        try await group.shutdownGracefully()
    }
}

final class SimHTTPHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let core: SimulatorCore
    private var head: HTTPRequestHead?
    private var body: ByteBuffer?

    init(core: SimulatorCore) {
        self.core = core
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            body = nil
        case .body(var chunk):
            if body == nil { body = chunk } else { body!.writeBuffer(&chunk) }
        case .end:
            guard let head else { return }
            self.head = nil
            let request = SimRequest(
                method: head.method, uri: head.uri, headers: head.headers, body: body,
                remoteIP: context.channel.remoteAddress?.ipAddress ?? "unknown")
            body = nil
            let response = core.handle(request)
            if let generation = response.heldUntilPlanOf {
                let released = context.eventLoop.makePromise(of: Void.self)
                released.futureResult.assumeIsolated().whenSuccess { self.answer(response, for: head, context: context) }
                core.held.hold(released, generation: generation)
            } else {
                answer(response, for: head, context: context)
            }
        }
    }

    private func answer(_ response: SimResponse, for head: HTTPRequestHead, context: ChannelHandlerContext) {
        if response.delay > .zero {
            context.eventLoop.assumeIsolated().scheduleTask(in: Self.timeAmount(response.delay)) {
                self.send(response, for: head, context: context)
            }
        } else {
            send(response, for: head, context: context)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    private func send(_ response: SimResponse, for request: HTTPRequestHead, context: ChannelHandlerContext) {
        guard context.channel.isActive else { return }
        if response.disposition == .reset {
            context.close(promise: nil)
            return
        }
        var headers = response.headers
        var body = response.body ?? ByteBuffer()
        if response.streamedBody != nil {
            headers.remove(name: "Content-Length")  // HTTP/1.1 chunked; HTTP/1.0 ends at the close
        } else if response.status != .notModified {
            headers.replaceOrAdd(name: "Content-Length", value: String(body.readableBytes))
        }
        let keepAlive = request.isKeepAlive && response.disposition == .complete
        if !request.isKeepAlive {
            headers.replaceOrAdd(name: "Connection", value: "close")
        } else if request.version.minor == 0 {
            headers.replaceOrAdd(name: "Connection", value: "keep-alive")  // HTTP/1.0 closes unless told
        }
        context.write(
            wrapOutboundOut(.head(HTTPResponseHead(version: request.version, status: response.status, headers: headers))), promise: nil)

        if let stream = response.streamedBody {
            let keepAlive = keepAlive && request.version.minor >= 1
            context.flush()
            pump(stream, context: context, keepAlive: keepAlive)
            return
        }
        if response.disposition == .truncate {
            // Promise the whole body, deliver half, hang up: what a dying proxy does.
            let half = body.readSlice(length: body.readableBytes / 2) ?? ByteBuffer()
            context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(half)))).assumeIsolated().whenComplete { _ in
                context.close(promise: nil)
            }
            return
        }
        if response.status != .notModified && body.readableBytes > 0 {
            context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        }
        let done = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if !keepAlive {
            done.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
        }
    }

    /// Writes the next piece once the previous one is on its way, so at most one piece waits in
    /// memory however slowly the client reads.
    private func pump(_ stream: any StreamedBody, context: ChannelHandlerContext, keepAlive: Bool) {
        guard context.channel.isActive else { return }
        guard let chunk = stream.nextChunk() else {
            let done = context.writeAndFlush(wrapOutboundOut(.end(nil)))
            if !keepAlive {
                done.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
            }
            return
        }
        context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(chunk)))).assumeIsolated().whenComplete { result in
            guard case .success = result else {
                context.close(promise: nil)
                return
            }
            // Through the loop, not recursion: a write that completes at once must not grow the stack.
            let pause = stream.pauseBetweenChunks
            if pause > .zero {
                context.eventLoop.assumeIsolated().scheduleTask(in: Self.timeAmount(pause)) {
                    self.pump(stream, context: context, keepAlive: keepAlive)
                }
            } else {
                context.eventLoop.assumeIsolated().execute { self.pump(stream, context: context, keepAlive: keepAlive) }
            }
        }
    }

    private static func timeAmount(_ duration: Duration) -> TimeAmount {
        let (seconds, attoseconds) = duration.components
        return .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
