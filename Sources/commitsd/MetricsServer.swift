import Foundation
import Logging
import MirrorCore
import MirrorSQLite
import NIOCore
import NIOHTTP1
import NIOPosix
import Prometheus
import ServiceLifecycle

/// `metrics_listen`: serves `/metrics` (Prometheus text from the registry),
/// `/healthz` (the process answers) and `/readyz` (the store opens read-only
/// and is migrated) over plain HTTP/1.1, as one service of commitsd's group.
struct MetricsServer: Service, CustomStringConvertible {
    let address: ListenAddress
    let registry: PrometheusCollectorRegistry
    let store: StoreLocation
    let logger: Logger

    var description: String { "MetricsServer" }

    func run() async throws {
        let registry = registry
        let store = store
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(MetricsHTTPHandler(registry: registry, store: store))
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
    private var head: HTTPRequestHead?

    init(registry: PrometheusCollectorRegistry, store: StoreLocation) {
        self.registry = registry
        self.store = store
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let request): head = request
        case .body: break
        case .end:
            guard let request = head else { return }
            head = nil
            let (status, contentType, body) = answer(request)
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
    }

    private func answer(_ request: HTTPRequestHead) -> (HTTPResponseStatus, String, [UInt8]) {
        let text = "text/plain; charset=utf-8"
        guard request.method == .GET || request.method == .HEAD else {
            return (.methodNotAllowed, text, Array("GET or HEAD only\n".utf8))
        }
        switch request.uri.split(separator: "?", maxSplits: 1).first.map(String.init) ?? request.uri {
        case "/metrics":
            var buffer: [UInt8] = []
            registry.emit(into: &buffer)
            return (.ok, "text/plain; version=0.0.4; charset=utf-8", buffer)
        case "/healthz":
            return (.ok, text, Array("ok\n".utf8))
        case "/readyz":
            // A read-only open checks the file, its schema version and the WAL side
            // files; it takes well under a millisecond, so it runs on the event loop.
            // The endpoint is unauthenticated: it names neither the store's path nor
            // the error (which names it); `commitsctl check` does.
            do {
                _ = try store.openReader()
                return (.ok, text, Array("ready: the store opens and is migrated\n".utf8))
            } catch {
                return (
                    .serviceUnavailable, text,
                    Array("not ready: the store does not open read-only; `commitsctl check` says why\n".utf8)
                )
            }
        default:
            return (.notFound, text, Array("not found; try /metrics, /healthz or /readyz\n".utf8))
        }
    }
}
