import Foundation
import GitHubSim
import MirrorTestSupport
import Testing

/// `commitsctl status --requests` over the real path: commitsd and
/// `commitsctl sync` record what their token spent, by kind, and status shows
/// it; the counts agree with what github-sim served, and the store holds where
/// the token came from, never the token.
@Suite struct CommitsdRequestCountsTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }
    var store: String { directory.path("state/commits.sqlite") }

    func spent() async throws -> [[String: Any]] {
        let result = try await run("commitsctl", ["status", "--requests", "--format", "json", "--db", store])
        #expect(result.status == 0, "\(result.stderr)")
        return try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]] ?? []
    }

    func total(_ rows: [[String: Any]], _ key: String, kind: String? = nil) -> Int {
        rows.filter { kind == nil || $0["kind"] as? String == kind }.map { $0[key] as? Int ?? 0 }.reduce(0, +)
    }

    @Test func theDaemonRecordsWhatItsTokenSpentByKind() async throws {
        try await withRunning(startSimulator([("alpha", 250), ("beta", 30)])) { simulator in
            let daemon = try DaemonProcess.mirroring(["acme/alpha", "acme/beta"], from: simulator, in: directory, logLevel: "info")
            defer { daemon.stop() }
            // Both mirrored, then at least two polls each (free 304s).
            #expect(
                await waitUntil {
                    daemon.log.split(separator: "\n").filter { $0.contains("info sync finished ") && $0.contains(" sync.new_commits=0 ") }
                        .count >= 4
                }, "\(daemon.log)")
            daemon.signal(SIGTERM)  // commitsd writes what it spent when it stops
            #expect(await daemon.waitForExit(timeout: .seconds(5)) == 0)
            let stats = simulator.stats()
            let rows = try await spent()
            #expect(Set(rows.map { $0["token"] as? String }) == ["environment variable GITHUB_TOKEN"], "\(rows)")
            // A poll in flight when SIGTERM lands is answered by github-sim, but commitsd cancels it and
            // never reads the answer: at most one such poll per lane (a fresh-clone CI run saw one).
            let unread = stats.requests - total(rows, "requests")
            #expect((0...2).contains(unread), "\(rows) \(stats)")
            #expect(stats.notModified - total(rows, "not_modified") == unread, "the unread ones are polls answered 304")
            #expect(total(rows, "points") == stats.requests - stats.notModified, "an authenticated 304 is free")
            #expect(total(rows, "requests", kind: "repository_lookup") == 2)
            #expect(total(rows, "requests", kind: "page") == 3 + 1, "alpha's 3 pages and beta's 1")
            #expect(total(rows, "requests", kind: "poll") >= 2 + 4)
            #expect(total(rows, "not_modified", kind: "poll") >= 4)
            #expect(SecretScan.leaks(inStoreAt: store).isEmpty)

            let table = try await run("commitsctl", ["status", "--requests", "--db", store])
            #expect(table.stdout.contains("environment variable GITHUB_TOKEN"), "\(table.stdout)")
            #expect(table.stdout.split(separator: "\n").first?.hasPrefix("TOKEN") == true, "\(table.stdout)")
        }
    }

    @Test func aOneShotSyncRecordsItsRequestsToo() async throws {
        try await withRunning(startSimulator([("alpha", 250)])) { simulator in
            let environment = ["GITHUB_API_URL": simulator.baseURL, "GITHUB_TOKEN": SecretScan.token]
            for _ in 0..<2 {
                let result = try await run("commitsctl", ["sync", "acme/alpha", "--db", store], environment: environment)
                #expect(result.status == 0, "\(result.stderr)")
            }
            let rows = try await spent()
            // First run: lookup, probe, 3 pages, the tag listing; second: the probe and the tag listing answered 304.
            #expect(total(rows, "requests", kind: "repository_lookup") == 1)
            #expect(total(rows, "requests", kind: "poll") == 2 && total(rows, "not_modified", kind: "poll") == 1)
            #expect(total(rows, "requests", kind: "page") == 3)
            #expect(total(rows, "requests", kind: "tag_refs") == 2 && total(rows, "not_modified", kind: "tag_refs") == 1)
            #expect(total(rows, "points") == 6)
            let oneline = try await run("commitsctl", ["status", "--requests", "--format", "oneline", "--db", store])
            #expect(
                oneline.stdout
                    == "environment variable GITHUB_TOKEN: 8 requests in the last hour (poll 2, page 3, repository_lookup 1, tag_refs 2; 2 not modified), 6 points\n"
            )
            #expect(SecretScan.leaks(inStoreAt: store).isEmpty)
        }
    }
}
