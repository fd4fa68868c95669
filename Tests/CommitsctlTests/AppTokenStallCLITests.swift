import Foundation
import MirrorTestSupport
import Testing

/// A GitHub App's token endpoint that never answers used to cost every repository of a
/// run five whole timeouts. Now the run spends one: a real `commitsctl sync` of two
/// repositories against github-sim, its `access_tokens` endpoint held, ends after one
/// request to it with one line naming the endpoint, exit status 1, nothing stored; once
/// the endpoint answers again the next run mirrors both.
@Suite struct AppTokenStallCLITests {
    @Test func aHungTokenEndpointCostsOneTimeoutForTheWholeRun() async throws {
        let directory = try TemporaryDirectory()
        let hung = try await HungTokenEndpoint.start(in: directory)
        defer { hung.simulator.stop() }
        let started = ContinuousClock.now
        let stalled = try await run("commitsctl", ["sync", "--config", hung.config])
        let elapsed = ContinuousClock.now - started
        #expect(stalled.status == 1, "\(stalled.stderr)")
        let lines = stalled.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(stalled.stderr)")
        #expect(lines.first?.hasPrefix("commitsctl: error: acme/one: \(hung.failurePrefix)") == true, "\(stalled.stderr)")
        #expect(
            lines.first?.hasSuffix("; nothing more was synced in this run; check the network and --api-url (or api_url), then sync again")
                == true)
        #expect(stalled.stdout.isEmpty, "\(stalled.stdout)")
        #expect(try await hung.tokenRequests() == 1, "one mint, neither retried nor asked again for the second repository")
        // One 2 s timeout and start-up; each repository waiting out five would take over 35 s.
        #expect(elapsed < .seconds(30), "\(elapsed)")

        try await hung.release()
        let synced = try await run("commitsctl", ["sync", "--config", hung.config])
        #expect(synced.status == 0, "\(synced.stderr)")
        #expect(synced.lines.map { String($0.prefix { $0 != ":" }) } == ["acme/one@main", "acme/two@main"], "\(synced.stdout)")
    }
}
