import MirrorTestSupport
import Curl
import Foundation
import GitHubSim
import Synchronization
import Testing

/// The simulator over real loopback HTTP, through the project's libcurl client.
@Suite struct HTTPTests {
    static let headers: HTTPHeaders = [("User-Agent", "github-sim-tests"), ("Accept", "application/vnd.github+json")]

    static func started(_ repositories: [SimRepository], configuration: SimConfiguration = .init()) async throws -> GitHubSimulator {
        let simulator = try GitHubSimulator(configuration: configuration, repositories: repositories)
        try await simulator.start()
        return simulator
    }

    static func get(_ client: HTTPClient, _ url: String, _ extra: [(String, String)] = []) async throws -> HTTPResponse {
        var headers = Self.headers
        for (name, value) in extra {
            headers.remove(name: name)
            headers.add(name: name, value: value)
        }
        return try await client.send(HTTPRequest(url: url, headers: headers))
    }

    @Test func servesPagesOverKeepAliveWithGzipAndConditionalRequests() async throws {
        let simulator = try await Self.started([synthetic(450)])
        let client = try HTTPClient()
        let base = simulator.baseURL
        #expect(base.hasPrefix("http://127.0.0.1:"))

        var shas = [String]()
        var url: String? = "\(base)/repos/acme/widgets/commits?per_page=100"
        var connections = [Int]()
        while let next = url {
            let response = try await Self.get(client, next, [("Authorization", "Bearer tok-http")])
            #expect(response.status == 200)
            connections.append(response.newConnections)
            let page = try JSONSerialization.jsonObject(with: Data(response.body)) as? [[String: Any]] ?? []
            shas += page.compactMap { $0["sha"] as? String }
            url = response.headers["link"].flatMap(Self.nextLink)
        }
        #expect(shas.count == 450 && Set(shas).count == 450)
        #expect(connections == [1, 0, 0, 0, 0])  // 4 full pages, then the last one

        let first = try await Self.get(client, "\(base)/repos/acme/widgets/commits", [("Authorization", "Bearer tok-http")])
        #expect(first.headers["content-encoding"] == "gzip")  // curl asked for it and inflated it
        let etag = try #require(first.headers["etag"])
        let again = try await Self.get(
            client, "\(base)/repos/acme/widgets/commits", [("Authorization", "Bearer tok-http"), ("If-None-Match", etag)])
        #expect(again.status == 304 && again.body.isEmpty)
        #expect(again.headers["x-ratelimit-used"] == first.headers["x-ratelimit-used"])

        let stats = simulator.stats()
        #expect(stats.requests == 7 && stats.ok == 6 && stats.notModified == 1 && stats.listRequests == 7)
        #expect(stats.rateLimitUsed == ["token:tok-…": 6])
        #expect(stats.authorizationHeadersSeen == 7)
        try await simulator.shutdown()
    }

    @Test func transportFaultsBreakTheResponseTheWayAFlakyServerWould() async throws {
        let simulator = try await Self.started([synthetic(300)])
        let client = try HTTPClient()
        let url = "\(simulator.baseURL)/repos/acme/widgets/commits?per_page=100"

        var truncate = FaultPlan()
        truncate.truncateEvery = 1
        simulator.setFaults(truncate)
        await #expect(throws: CurlError.self) { try await Self.get(client, url) }

        var reset = FaultPlan()
        reset.resetEvery = 1
        simulator.setFaults(reset)
        await #expect(throws: CurlError.self) { try await Self.get(client, url) }

        var slow = FaultPlan()
        slow.delay = .milliseconds(300)
        slow.serverErrorEvery = 2
        simulator.setFaults(slow)
        let started = ContinuousClock.now
        #expect(try await Self.get(client, url).status == 200)
        #expect(ContinuousClock.now - started >= .milliseconds(300))
        let bad = try await Self.get(client, url)
        #expect(bad.status == 502)
        #expect(bad.headers["content-type"]?.hasPrefix("text/html") == true)

        simulator.setFaults(FaultPlan())
        #expect(try await Self.get(client, url).status == 200)  // the client recovers on a new connection
        #expect(simulator.stats().errors == 3)
        try await simulator.shutdown()
    }

    /// `holdFrom`: from that list request on no answer comes until the plan is replaced, and
    /// then the held request gets its whole page. Shutting down lets a held request go too.
    @Test func aHeldListRequestIsAnsweredWhenThePlanIsReplaced() async throws {
        let simulator = try await Self.started([synthetic(300)])
        let url = "\(simulator.baseURL)/repos/acme/widgets/commits?per_page=100"
        var hold = FaultPlan()
        hold.holdFrom = 2
        simulator.setFaults(hold)
        #expect(try await Self.get(try HTTPClient(), url).status == 200)

        let answered = Mutex<HTTPResponse?>(nil)
        let held = Task {
            let response = try await Self.get(try HTTPClient(), url + "&page=2")
            answered.withLock { $0 = response }
        }
        #expect(await staysTrue(for: .milliseconds(500)) { answered.withLock { $0 == nil } })
        simulator.setFaults(FaultPlan())
        try await held.value
        let response = try #require(answered.withLock { $0 })
        #expect(response.status == 200)
        let page = try JSONSerialization.jsonObject(with: Data(response.body)) as? [[String: Any]] ?? []
        #expect(page.count == 100)

        simulator.setFaults(hold)
        #expect(try await Self.get(try HTTPClient(), url).status == 200)
        let heldAtShutdown = Task { try await Self.get(try HTTPClient(), url).status }
        #expect(await waitUntil { simulator.stats().listRequests == 4 })
        try await simulator.shutdown()
        // Answered, or cut off by the shutdown: either way the request ends instead of hanging.
        _ = try? await heldAtShutdown.value
    }

    /// `holdRepository`: only that repository's list requests are counted and held,
    /// whether they name it or its id; another repository's are answered.
    @Test func aHoldForOneRepositoryLeavesTheOthersAlone() async throws {
        let simulator = try await Self.started([synthetic(300), synthetic(50, name: "other", id: 43)])
        var hold = FaultPlan()
        hold.holdFrom = 2
        hold.holdRepository = 42
        simulator.setFaults(hold)
        let client = try HTTPClient()
        #expect(try await Self.get(client, "\(simulator.baseURL)/repos/acme/widgets/commits").status == 200)
        for _ in 0..<3 {
            #expect(try await Self.get(client, "\(simulator.baseURL)/repos/acme/other/commits").status == 200)
        }
        let answered = Mutex<Int?>(nil)
        let held = Task {
            let status = try await Self.get(try HTTPClient(), "\(simulator.baseURL)/repositories/42/commits?page=2").status
            answered.withLock { $0 = status }
        }
        #expect(await staysTrue(for: .milliseconds(400)) { answered.withLock { $0 == nil } })
        simulator.setFaults(FaultPlan())
        try await held.value
        #expect(answered.withLock { $0 } == 200)
        try await simulator.shutdown()
    }

    @Test func redirectsPointAtTheIdPathAndAtAnotherSimulator() async throws {
        let simulator = try await Self.started([synthetic(40)])
        var elsewhere = SimConfiguration()
        elsewhere.host = "127.0.0.2"
        let other = try await Self.started([synthetic(40)], configuration: elsewhere)
        #expect(other.baseURL.hasPrefix("http://127.0.0.2:"))
        let client = try HTTPClient()

        try simulator.rename(owner: "acme", name: "widgets", to: "acme", newName: "gizmos")
        let moved = try await Self.get(client, "\(simulator.baseURL)/repos/acme/widgets/commits?per_page=5")
        #expect(moved.status == 301)
        #expect(moved.headers["location"] == "\(simulator.baseURL)/repositories/42/commits?per_page=5")
        let followed = try await Self.get(client, moved.headers["location"]!)
        #expect(followed.status == 200)

        try simulator.redirect(owner: "acme", name: "gizmos", toBaseURL: other.baseURL)
        let away = try await Self.get(client, "\(simulator.baseURL)/repos/acme/gizmos/commits")
        #expect(away.status == 301)
        #expect(away.headers["location"] == "\(other.baseURL)/repos/acme/gizmos/commits")
        try other.rename(owner: "acme", name: "widgets", to: "acme", newName: "gizmos")
        #expect(try await Self.get(client, away.headers["location"]!).status == 200)
        try await simulator.shutdown()
        try await other.shutdown()
    }

    @Test func parallelClientsAreAllServed() async throws {
        let simulator = try await Self.started([synthetic(2_000)])
        let base = simulator.baseURL
        let statuses = try await withThrowingTaskGroup(of: [Int].self) { group in
            for worker in 0..<6 {
                group.addTask {
                    let client = try HTTPClient()
                    var statuses = [Int]()
                    for page in 1...5 {
                        let response = try await Self.get(
                            client, "\(base)/repositories/42/commits?per_page=100&page=\(page + worker)",
                            [("Authorization", "token worker\(worker)")])
                        statuses.append(response.status)
                    }
                    return statuses
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        #expect(statuses.count == 30 && statuses.allSatisfy { $0 == 200 })
        #expect(simulator.stats().listRequests == 30)
        try await simulator.shutdown()
    }

    @Test func executablePrintsItsURLServesAndStopsOnSIGTERM() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Executables.path("github-sim")), "github-sim not built beside the tests")
        let tokens = FileManager.default.temporaryDirectory.appendingPathComponent("tokens-\(UUID())")
        try "good-one\n\n".write(to: tokens, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: tokens) }

        let simulator = try await SimulatorProcess.start([
            "--synthetic", "acme/widgets=500:3", "--empty", "acme/void", "--tokens-file", tokens.path, "--head-back",
            "acme/widgets=10",
        ])
        let base = simulator.baseURL
        #expect(base.hasPrefix("http://127.0.0.1:"))

        let client = try HTTPClient()
        let repo = SyntheticRepository(spec: SyntheticSpec(commits: 500, seed: 3))
        let sha = try await Self.get(
            client, "\(base)/repositories/1001/commits/main",
            [("Accept", "application/vnd.github.sha"), ("Authorization", "token good-one")])
        #expect(String(decoding: sha.body, as: UTF8.self) == repo.sha(at: 488))  // 10 first-parent steps from 499
        #expect(try await Self.get(client, "\(base)/repos/acme/void/commits", [("Authorization", "token good-one")]).status == 409)
        #expect(try await Self.get(client, "\(base)/repos/acme/widgets", [("Authorization", "token nope")]).status == 401)

        let stats = try await client.send(HTTPRequest(url: "\(base)/_sim/stats"))
        let decoded = try JSONDecoder().decode(SimStats.self, from: Data(stats.body))
        #expect(decoded.requests == 3 && decoded.errors == 2)
        let moved = try await client.send(HTTPRequest(url: "\(base)/_sim/repos/acme/widgets/head?forward=10", method: "POST"))
        #expect(String(decoding: moved.body, as: UTF8.self) == "{\"head\":\"\(repo.sha(at: 499))\"}")

        simulator.process.signal(SIGTERM)
        #expect(await simulator.process.wait() == .exited(0))
    }

    static func nextLink(_ header: String) -> String? {
        for part in header.components(separatedBy: ", ") where part.hasSuffix("rel=\"next\"") {
            return String(part.drop(while: { $0 != "<" }).dropFirst().prefix(while: { $0 != ">" }))
        }
        return nil
    }
}
