import Dispatch

/// An HTTP/1.1 client over one reusable libcurl easy handle.
///
/// Requests run one at a time, in order, on the client's own serial dispatch
/// queue: the blocking `curl_easy_perform` never occupies a thread of Swift's
/// cooperative pool. Cancelling the calling task aborts the transfer through
/// libcurl's progress callback.
public final class HTTPClient: @unchecked Sendable {
    // @unchecked: `handle` is touched only on `queue`, which serialises every transfer.

    public struct Configuration: Sendable {
        /// Longest time to establish a TCP (and TLS) connection.
        public var connectTimeout: Duration = .seconds(10)
        /// Longest time for a whole request, connection included.
        public var timeout: Duration = .seconds(60)
        /// A transfer receiving less than 1 byte/s for this long fails.
        public var stallTimeout: Duration = .seconds(30)
        /// Larger response bodies fail the request instead of exhausting memory.
        public var maximumBodySize: Int = 64 << 20
        /// Ask for gzip/deflate (libcurl decompresses transparently).
        public var acceptCompressedResponses = true

        public init() {}
    }

    private let queue: DispatchQueue
    private let handle: EasyHandle

    public init(configuration: Configuration = Configuration()) throws {
        queue = DispatchQueue(label: "commits-mirror.http-client")
        handle = try EasyHandle(configuration: configuration)
    }

    /// Sends a request and returns the complete response. 3xx responses are
    /// returned as they are, never followed. A URL or header with CR, LF or NUL
    /// is refused (`CurlError.isInvalidRequest`) without any transfer.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try await transfer(request, bodyConsumer: nil)
    }

    /// Like `send(_:)`, but the body of a 2xx response goes to `consumeBody`
    /// piece by piece as it arrives, on the client's transfer thread, instead
    /// of into the returned response (whose `body` is then empty); the body of
    /// any other status is collected as usual. `maximumBodySize` does not apply
    /// to a streamed body: the consumer bounds it. An error `consumeBody` throws
    /// aborts the transfer and is rethrown as it is.
    public func send(
        _ request: HTTPRequest, streamingBodyTo consumeBody: @escaping @Sendable (UnsafeRawBufferPointer) throws -> Void
    ) async throws -> HTTPResponse {
        try await transfer(request, bodyConsumer: consumeBody)
    }

    private func transfer(
        _ request: HTTPRequest, bodyConsumer: (@Sendable (UnsafeRawBufferPointer) throws -> Void)?
    ) async throws -> HTTPResponse {
        try request.checkFields()
        let cancellation = CancellationFlag()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                queue.async {
                    continuation.resume(
                        with: Result {
                            try self.handle.perform(request, cancellation: cancellation, bodyConsumer: bodyConsumer)
                        })
                }
            }
        } onCancel: {
            cancellation.cancel()
        }
    }
}
