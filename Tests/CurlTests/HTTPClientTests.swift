import MirrorTestSupport
import Curl
import Foundation
import GitHubSim
import Testing

/// The libcurl wrapper over real loopback HTTP against github-sim.
@Suite struct HTTPClientTests {
    static func simulator(delay: Duration = .zero) async throws -> GitHubSimulator {
        var configuration = SimConfiguration()
        configuration.faults.delay = delay
        let simulator = try GitHubSimulator(
            configuration: configuration,
            repositories: [
                SimRepository(owner: "o", name: "r", id: 1, source: .synthetic(SyntheticSpec(commits: 250, seed: 3)))
            ])
        try await simulator.start()
        return simulator
    }

    static let headers: HTTPHeaders = [("User-Agent", "commits-mirror-tests"), ("Accept", "application/vnd.github+json")]

    @Test func fetchesStatusHeadersAndBody() async throws {
        try await withRunning(Self.simulator()) { simulator in
            let client = try HTTPClient()
            let response = try await client.send(
                HTTPRequest(url: "\(simulator.baseURL)/repos/o/r/commits?per_page=5", headers: Self.headers))
            #expect(response.status == 200)
            #expect(response.headers["content-type"]?.hasPrefix("application/json") == true)
            #expect(response.headers["ETAG"] == response.headers["etag"])
            #expect(response.headers["Link"]?.contains("rel=\"next\"") == true)
            let elements = try JSONSerialization.jsonObject(with: Data(response.body)) as? [[String: Any]]
            #expect(elements?.count == 5)
        }
    }

    @Test func returnsErrorStatusesAndRedirectsWithoutFollowing() async throws {
        try await withRunning(Self.simulator()) { simulator in
            try simulator.rename(owner: "o", name: "r", to: "o", newName: "renamed")
            let client = try HTTPClient()
            let missing = try await client.send(HTTPRequest(url: "\(simulator.baseURL)/repos/o/none", headers: Self.headers))
            #expect(missing.status == 404)
            let moved = try await client.send(HTTPRequest(url: "\(simulator.baseURL)/repos/o/r/commits", headers: Self.headers))
            #expect(moved.status == 301)
            #expect(moved.headers["location"]?.contains("/repositories/1/commits") == true)
        }
    }

    @Test func reusesOneConnectionForConsecutiveRequests() async throws {
        try await withRunning(Self.simulator()) { simulator in
            let client = try HTTPClient()
            var newConnections: [Int] = []
            for _ in 0..<5 {
                let response = try await client.send(HTTPRequest(url: "\(simulator.baseURL)/rate_limit", headers: Self.headers))
                #expect(response.status == 200)
                newConnections.append(response.newConnections)
            }
            #expect(newConnections == [1, 0, 0, 0, 0])
        }
    }

    @Test func connectionRefusedIsACurlErrorWithCurlsText() async throws {
        let client = try HTTPClient()
        // Port 1 on loopback: nothing listens there.
        let error = await #expect(throws: CurlError.self) {
            try await client.send(HTTPRequest(url: "http://127.0.0.1:1/", headers: Self.headers))
        }
        #expect(error?.code == 7)  // CURLE_COULDNT_CONNECT
        #expect(error?.message.isEmpty == false)
    }

    @Test func totalTimeoutFailsASlowResponse() async throws {
        try await withRunning(Self.simulator(delay: .seconds(5))) { simulator in
            var configuration = HTTPClient.Configuration()
            configuration.timeout = .milliseconds(300)
            let client = try HTTPClient(configuration: configuration)
            let error = await #expect(throws: CurlError.self) {
                try await client.send(HTTPRequest(url: "\(simulator.baseURL)/repos/o/r/commits", headers: Self.headers))
            }
            #expect(error?.isTimeout == true)
        }
    }

    @Test func cancellingTheTaskAbortsTheTransfer() async throws {
        try await withRunning(Self.simulator(delay: .seconds(120))) { simulator in
            let client = try HTTPClient()
            let task = Task {
                try await client.send(HTTPRequest(url: "\(simulator.baseURL)/repos/o/r/commits", headers: Self.headers))
            }
            // Cancel mid-transfer: once the server has the request (it then holds the answer back).
            #expect(await waitUntil { simulator.stats().requests >= 1 })
            let cancelled = ContinuousClock.now
            task.cancel()
            let result = await task.result
            #expect(throws: CurlError.self) { try result.get() }
            #expect((try? result.get()) == nil)
            if case .failure(let error as CurlError) = result { #expect(error.isCancellation) }
            // Aborted by the progress callback, long before the 120 s response (counted from
            // the cancel, not from a start a busy test pool may have delayed; generous all the same).
            #expect(ContinuousClock.now - cancelled < .seconds(60))
        }
    }

    @Test func oversizedBodiesAreRefused() async throws {
        try await withRunning(Self.simulator()) { simulator in
            var configuration = HTTPClient.Configuration()
            configuration.maximumBodySize = 10_000
            let client = try HTTPClient(configuration: configuration)
            let error = await #expect(throws: CurlError.self) {
                try await client.send(HTTPRequest(url: "\(simulator.baseURL)/repos/o/r/commits?per_page=100", headers: Self.headers))
            }
            #expect(error?.isBodyTooLarge == true)
            #expect(error?.message.contains("larger than 10000 bytes") == true)
        }
    }
}
