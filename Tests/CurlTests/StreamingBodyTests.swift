import Curl
import Foundation
import GitHubSim
import MirrorTestSupport
import Synchronization
import Testing

/// `HTTPClient.send(_:streamingBodyTo:)` over real loopback HTTP against github-sim.
@Suite struct StreamingBodyTests {
    final class Received: Sendable {
        let bytes = Mutex<[UInt8]>([])
        let pieces = Mutex(0)
    }

    @Test func aSuccessfulBodyIsStreamedNotKept() async throws {
        try await withRunning(HTTPClientTests.simulator()) { simulator in
            let client = try HTTPClient()
            let url = "\(simulator.baseURL)/repos/o/r/commits?per_page=100"
            let whole = try await client.send(HTTPRequest(url: url, headers: HTTPClientTests.headers))
            var configuration = HTTPClient.Configuration()
            configuration.maximumBodySize = 1000  // a streamed body is the consumer's to bound, not this
            let streaming = try HTTPClient(configuration: configuration)
            let received = Received()
            let response = try await streaming.send(HTTPRequest(url: url, headers: HTTPClientTests.headers)) { bytes in
                received.bytes.withLock { $0 += bytes }
                received.pieces.withLock { $0 += 1 }
            }
            #expect(response.status == 200)
            #expect(response.body.isEmpty)
            #expect(received.bytes.withLock { $0 } == whole.body)
            #expect(whole.body.count > 10_000)
            #expect(received.pieces.withLock { $0 } > 1)
        }
    }

    @Test func anErrorStatusBodyIsKeptNotStreamed() async throws {
        try await withRunning(HTTPClientTests.simulator()) { simulator in
            let client = try HTTPClient()
            let received = Received()
            let response = try await client.send(HTTPRequest(url: "\(simulator.baseURL)/repos/o/none", headers: HTTPClientTests.headers)) {
                bytes in received.bytes.withLock { $0 += bytes }
            }
            #expect(response.status == 404)
            #expect(!response.body.isEmpty)
            #expect(received.bytes.withLock { $0.isEmpty })
        }
    }

    @Test func theConsumersErrorAbortsTheTransferAndIsRethrown() async throws {
        struct Enough: Error, Equatable {}
        try await withRunning(HTTPClientTests.simulator()) { simulator in
            let client = try HTTPClient()
            let received = Received()
            await #expect(throws: Enough()) {
                _ = try await client.send(
                    HTTPRequest(url: "\(simulator.baseURL)/repos/o/r/commits?per_page=100", headers: HTTPClientTests.headers)
                ) { _ in
                    received.pieces.withLock { $0 += 1 }
                    throw Enough()
                }
            }
            #expect(received.pieces.withLock { $0 } == 1)
            // The handle is usable again, with nothing left of the aborted transfer.
            let next = try await client.send(HTTPRequest(url: "\(simulator.baseURL)/rate_limit", headers: HTTPClientTests.headers))
            #expect(next.status == 200 && !next.body.isEmpty)
        }
    }
}
