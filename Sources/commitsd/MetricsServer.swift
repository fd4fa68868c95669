import Foundation
import Logging
import MirrorCore
import NIOCore
import NIOHTTP1
import NIOPosix
import Prometheus
import ServiceLifecycle

/// `metrics_listen`: serves `/metrics` (Prometheus text from the registry),
/// `/healthz` (the process answers) and `/readyz` (commitsd got its store open
/// at start, and the store opens for reading and is migrated now) over plain
/// HTTP/1.1, as one service of commitsd's group.
struct MetricsServer: Service, CustomStringConvertible {
    let address: ListenAddress
    let registry: PrometheusCollectorRegistry
    let store: StoreLocation
    let started: StartupState
    let logger: Logger

    var description: String { "MetricsServer" }

    func run() async throws {
        let (registry, store, started) = (registry, store, started)
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(MetricsHTTPHandler(registry: registry, store: store, started: started))
                }
            }
            .bind(host: address.host, port: address.port).get()
        // The bound address (a test asks for port 0 and reads the port from this line).
        logger.info(
            "serving metrics",
            metadata: [
                "metrics.listen":
                    "\(channel.localAddress.map { "\($0.ipAddress ?? address.host):\($0.port ?? address.port)" } ?? address.description)"
            ])
        try await withGracefulShutdownHandler {
            try await channel.closeFuture.get()
        } onGracefulShutdown: {
            channel.close(promise: nil)
        }
    }
}

/// One request at a time per connection; every response carries its length.
final class MetricsHTTPHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    let registry: PrometheusCollectorRegistry
    let store: StoreLocation
    let started: StartupState
    private var head: HTTPRequestHead?

    init(registry: PrometheusCollectorRegistry, store: StoreLocation, started: StartupState) {
        self.registry = registry
        self.store = store
        self.started = started
    }

    typealias Answer = (HTTPResponseStatus, String, [UInt8])
    static let text = "text/plain; charset=utf-8"

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let request): head = request
        case .body: break
        case .end:
            guard let request = head else { return }
            head = nil
            if path(of: request) == "/readyz", request.method == .GET || request.method == .HEAD {
                // Opening a database's reader means a connection (and, with the server
                // down, libpq's connect timeout): off the event loop, which answers
                // every other request meanwhile. The pipeline handler holds back the
                // connection's next request until this response has ended.
                let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
                let (store, started) = (store, started)
                NIOThreadPool.singleton.runIfActive(eventLoop: context.eventLoop) {
                    Self.readiness(of: store, started: started)
                }.whenComplete { result in
                    let (handler, context) = bound.value
                    let failed: Answer = (.serviceUnavailable, Self.text, Array("not ready: the check could not run\n".utf8))
                    handler.respond(to: request, with: (try? result.get()) ?? failed, context: context)
                }
                return
            }
            respond(to: request, with: answer(request), context: context)
        }
    }

    private func respond(to request: HTTPRequestHead, with answer: Answer, context: ChannelHandlerContext) {
        let (status, contentType, body) = answer
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: contentType)
        headers.add(name: "Content-Length", value: String(body.count))
        if !request.isKeepAlive { headers.add(name: "Connection", value: "close") }
        context.write(
            wrapOutboundOut(.head(HTTPResponseHead(version: request.version, status: status, headers: headers))),
            promise: nil)
        if request.method != .HEAD {
            context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: body)))), promise: nil)
        }
        // Closing in the write's completion would capture the (non-Sendable) context;
        // a close issued after the write is ordered after it on the channel anyway.
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        if !request.isKeepAlive { context.close(promise: nil) }
    }

    private func path(of request: HTTPRequestHead) -> String {
        request.uri.split(separator: "?", maxSplits: 1).first.map(String.init) ?? request.uri
    }

    /// Ready once commitsd opened its store at start and the store opens for
    /// reading now (for a file: its schema version and WAL side files; for a
    /// database: a connection and its schema version). The endpoint is
    /// unauthenticated: it names neither the store nor the error (which names
    /// it); commitsd's log and `commitsctl check` do.
    static func readiness(of store: StoreLocation, started: StartupState) -> Answer {
        guard started.isDone else {
            return (
                .serviceUnavailable, text,
                Array("not ready: commitsd is waiting for its store to open; its log says why\n".utf8)
            )
        }
        do {
            _ = try store.openCommitReader()
            return (.ok, text, Array("ready: the store opens and is migrated\n".utf8))
        } catch {
            return (
                .serviceUnavailable, text,
                Array("not ready: the store does not open read-only; `commitsctl check` says why\n".utf8)
            )
        }
    }

    private func answer(_ request: HTTPRequestHead) -> Answer {
        let text = Self.text
        guard request.method == .GET || request.method == .HEAD else {
            return (.methodNotAllowed, text, Array("GET or HEAD only\n".utf8))
        }
        switch path(of: request) {
        case "/metrics":
            var buffer: [UInt8] = []
            registry.emit(into: &buffer)
            return (.ok, "text/plain; version=0.0.4; charset=utf-8", buffer)
        case "/healthz":
            return (.ok, text, Array("ok\n".utf8))
        default:
            return (.notFound, text, Array("not found; try /metrics, /healthz or /readyz\n".utf8))
        }
    }
}
