import MirrorTestSupport
import Foundation
import Testing
@testable import MirrorCore
@testable import MirrorSQLite
import Curl
import SQLite

/// Issue #6 "bad input from the network": a hostile server sends each kind of
/// garbage; every one ends in one clear error, in bounded time and memory,
/// with the mirrored data unchanged, and the next sync against a sane server
/// converges. The token (`SecretScan.token`) appears in no error, log line or
/// store byte.
@Suite struct BadInputTests {
    /// Short timeouts and few, fast retries: the behaviour is the production one, only quicker.
    static func client(_ github: MiniGitHub, logs: LogCapture, bodyLimit: Int = BadInputCase.bodyLimit) throws -> GitHubClient {
        var configuration = GitHubClient.Configuration(
            apiURL: github.baseURL, token: GitHubToken(value: SecretScan.token, source: "environment variable GITHUB_TOKEN"))
        configuration.retry.maximumAttempts = 3
        configuration.retry.baseDelay = .milliseconds(5)
        configuration.retry.maximumDelay = .milliseconds(20)
        configuration.http.connectTimeout = .seconds(2)
        configuration.http.timeout = .seconds(5)
        configuration.http.stallTimeout = .seconds(1)
        configuration.http.maximumBodySize = bodyLimit
        return try GitHubClient(configuration: configuration, logger: logs.logger())
    }

    static func sync(
        _ repository: String, github: MiniGitHub, store: String, logs: LogCapture,
        bodyLimit: Int = BadInputCase.bodyLimit
    ) async throws -> SyncReport {
        let engine = SyncEngine(
            client: try client(github, logs: logs, bodyLimit: bodyLimit),
            store: try MirrorStore(path: store), logger: logs.logger())
        return try await engine.sync(RepositoryName(parsing: repository)!)
    }

    @Test(arguments: BadInputCase.all)
    func refusedWithOneClearErrorAndTheStoreUnchanged(_ badInput: BadInputCase) async throws {
        let github = try MiniGitHub()
        defer { github.stop() }
        let directory = try TemporaryDirectory()
        let store = directory.path("commits.sqlite")
        let logs = LogCapture()

        // A mirror of three commits, then the branch moves to six and one route turns hostile.
        _ = try await Self.sync("acme/widgets", github: github, store: store, logs: logs)
        let before = try StoreInspection(store).mirroredFacts()
        #expect(before.count == 3)
        let repository = badInput.route == .repository ? "acme/fresh" : "acme/widgets"
        github.set(head: 6, hostile: (badInput.route, badInput.handler))

        let clock = ContinuousClock()
        let start = clock.now
        let error = await #expect(throws: (any Error).self) {
            try await Self.sync(repository, github: github, store: store, logs: logs)
        }
        let elapsed = clock.now - start
        let message = error.map { "\($0)" } ?? ""
        for fragment in badInput.expected {
            #expect(message.contains(fragment), "\(badInput.name): \(message)")
        }
        if !badInput.oneOf.isEmpty {
            #expect(badInput.oneOf.contains { message.contains($0) }, "\(badInput.name): \(message)")
        }
        #expect(!message.contains("\n"), "one line: \(message)")
        // Bounded: at worst 3 attempts of the 5 s transfer timeout, plus the backoff.
        // The bound is generous because a loaded CI machine runs many suites at once.
        #expect(elapsed < .seconds(120), "\(badInput.name) took \(elapsed)")
        if let bound = badInput.boundedTo {
            #expect(github.largestHostileResponse <= bound, "\(github.largestHostileResponse) bytes pushed")
        }
        #expect(try StoreInspection(store).mirroredFacts() == before, "the mirrored data must be unchanged")
        #expect(try StoreInspection(store).integrity() == "ok")

        // The same server, sane again: the next sync converges to the exact history.
        github.set(head: 6)
        let report = try await Self.sync(repository, github: github, store: store, logs: logs)
        #expect(report.complete)
        #expect(try StoreInspection(store).memberSHAs(of: repository) == Set((1...6).map(PayloadFixtures.sha)))

        #expect(SecretScan.leaks(in: ["error": message, "logs": logs.text]).isEmpty)
        #expect(SecretScan.leaks(inStoreAt: store).isEmpty)
        print(
            "bad input refused: \(badInput.name): \(String(format: "%.2f", Double(elapsed.components.attoseconds) / 1e18 + Double(elapsed.components.seconds))) s: \(message)"
        )
    }

    /// The same 10 MB message under the production body cap is valid GitHub
    /// data: it is mirrored whole, in bounded time, and reads back intact.
    @Test func aTenMegabyteMessageUnderTheDefaultCapIsMirroredWhole() async throws {
        let github = try MiniGitHub()
        defer { github.stop() }
        let directory = try TemporaryDirectory()
        let store = directory.path("commits.sqlite")
        let logs = LogCapture()
        let message = String(repeating: "spam ", count: 2_000_000)
        _ = try await Self.sync("acme/widgets", github: github, store: store, logs: logs)
        github.set(
            head: 6,
            hostile: (
                .listPage,
                BadInputCase.body(
                    MiniGitHub.mutatedPage { element in
                        var commit = element["commit"] as! [String: Any]
                        commit["message"] = message
                        element["commit"] = commit
                    })
            ))
        let start = ContinuousClock.now
        let report = try await Self.sync(
            "acme/widgets", github: github, store: store, logs: logs,
            bodyLimit: HTTPClientDefaults.maximumBodySize)
        #expect(ContinuousClock.now - start < .seconds(180))
        #expect(report.added == 3 && report.complete)
        let mirror = try MirrorReader(path: store)
        let stored = try mirror.db.prepare("SELECT message FROM commits WHERE sha = ?")
            .bind([PayloadFixtures.sha(6)]).first { $0.string(0) }
        #expect(stored == message)
    }

    /// A redirect to another host (here another port) is refused and never
    /// requested; one within the API origin is followed, with the token.
    @Test func redirectsStayWithinTheAPIOrigin() async throws {
        let github = try MiniGitHub()
        defer { github.stop() }
        let elsewhere = try HostileServer { request, connection in
            MiniGitHub.answer(request, route: MiniGitHub.route(of: request), head: 6, connection: connection)
        }
        defer { elsewhere.stop() }
        let directory = try TemporaryDirectory()
        let store = directory.path("commits.sqlite")
        let logs = LogCapture()
        _ = try await Self.sync("acme/widgets", github: github, store: store, logs: logs)
        github.set(
            head: 6,
            hostile: (
                .listPage,
                { request, connection in
                    connection.respond(
                        status: 307, reason: "Temporary Redirect",
                        headers: [("Location", elsewhere.baseURL + request.target)], body: [])
                }
            ))
        let error = await #expect(throws: GitHubError.self) {
            try await Self.sync("acme/widgets", github: github, store: store, logs: logs)
        }
        let message = error.map { "\($0)" } ?? ""
        #expect(message.contains("refused a redirect from \(github.baseURL)/repos/acme/widgets/commits"), "\(message)")
        #expect(message.contains("to \(elsewhere.baseURL)/repos/acme/widgets/commits"), "\(message)")
        #expect(elsewhere.requests.isEmpty, "the redirect elsewhere was requested")
        #expect(try StoreInspection(store).memberSHAs(of: "acme/widgets").count == 3)

        // The same origin, another path: followed, and the token goes along.
        github.set(
            head: 6,
            hostile: (
                .listPage,
                { request, connection in
                    if request.target.hasSuffix("&moved=1") {
                        MiniGitHub.answer(request, route: .listPage, head: 6, connection: connection)
                    } else {
                        connection.respond(
                            status: 301, reason: "Moved Permanently", headers: [("Location", request.target + "&moved=1")], body: [])
                    }
                }
            ))
        let report = try await Self.sync("acme/widgets", github: github, store: store, logs: logs)
        #expect(report.complete)
        #expect(try StoreInspection(store).memberSHAs(of: "acme/widgets").count == 6)
        #expect(github.server.requests.contains { $0.target.hasSuffix("&moved=1") })
        #expect(github.server.requests.allSatisfy { $0.authorization == "Bearer \(SecretScan.token)" })
        #expect(logs.text.contains("following redirect"))
        #expect(SecretScan.leaks(in: ["logs": logs.text, "error": message]).isEmpty)
        #expect(SecretScan.leaks(inStoreAt: store).isEmpty)
    }
}

enum HTTPClientDefaults {
    static var maximumBodySize: Int { GitHubClient.Configuration(apiURL: "http://x").http.maximumBodySize }
}
