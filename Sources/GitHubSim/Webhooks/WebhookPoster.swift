// A minimal HTTP/1.1 POST over NIO (the simulator depends on nothing else): one
// connection per delivery, as GitHub's deliveries are, answered with the status.

import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

enum WebhookPoster {
    struct PostError: Error, CustomStringConvertible { var description: String }

    /// POSTs `body` to `url` (http only) and returns the response's status;
    /// throws when there is no answer within `timeout` (GitHub waits 10 s).
    static func post(url: String, headers: [(String, String)], body: [UInt8], timeout: TimeAmount = .seconds(10)) async throws -> Int {
        guard let components = URLComponents(string: url), components.scheme == "http", let host = components.host, !host.isEmpty
        else {
            throw PostError(description: "webhook URL \(url) is not an http:// URL")
        }
        let port = components.port ?? 80
        var path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        if let query = components.percentEncodedQuery { path += "?" + query }
        let eventLoop = MultiThreadedEventLoopGroup.singleton.next()
        let status = eventLoop.makePromise(of: Int.self)
        // Every path completes the promise (an unanswered one is a leak NIO traps on).
        let channel: any Channel
        do {
            channel = try await ClientBootstrap(group: eventLoop)
                .connectTimeout(.seconds(5))
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHTTPClientHandlers()
                        try channel.pipeline.syncOperations.addHandler(StatusCollector(status: status))
                    }
                }
                .connect(host: host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host, port: port).get()
        } catch {
            status.fail(error)
            throw error
        }
        let deadline = eventLoop.scheduleTask(in: timeout) {
            status.fail(PostError(description: "no answer from \(url) within \(timeout.nanoseconds / 1_000_000_000) s"))
        }
        var head = HTTPRequestHead(version: .http1_1, method: .POST, uri: path)
        head.headers.add(name: "Host", value: port == 80 ? host : "\(host):\(port)")
        head.headers.add(name: "Content-Length", value: String(body.count))
        head.headers.add(name: "Connection", value: "close")
        for (name, value) in headers { head.headers.add(name: name, value: value) }
        channel.write(HTTPClientRequestPart.head(head), promise: nil)
        channel.write(HTTPClientRequestPart.body(.byteBuffer(ByteBuffer(bytes: body))), promise: nil)
        channel.writeAndFlush(HTTPClientRequestPart.end(nil), promise: nil)
        defer {
            deadline.cancel()
            channel.close(promise: nil)
        }
        return try await status.futureResult.get()
    }

    /// Completes `status` with the response's status once the response has ended.
    final class StatusCollector: ChannelInboundHandler {
        typealias InboundIn = HTTPClientResponsePart
        let status: EventLoopPromise<Int>
        private var code: Int?

        init(status: EventLoopPromise<Int>) { self.status = status }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head) where head.status.code >= 200: code = Int(head.status.code)
            case .head, .body: break
            case .end: if let code { status.succeed(code) }
            }
        }

        func channelInactive(context: ChannelHandlerContext) {
            status.fail(PostError(description: "the connection closed before a whole answer"))
            context.fireChannelInactive()
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            status.fail(error)
            context.close(promise: nil)
        }
    }
}
