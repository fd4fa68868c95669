import Foundation
import GitHubSim
import MirrorTestSupport
import PostgreSQL
import Testing
import Curl

/// The store's health at a real commitsd's `/metrics`: syncs failing because the
/// store refuses writes, counted by reason (`store_write_failures_total`), and
/// how many stored commits the message index does not cover yet
/// (`message_index_lag_commits`), on both stores (docs/MONITORING.md).
@Suite(.serialized) struct CommitsdStoreMetricsTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }

    static let reasons = ["disk_full", "read_only", "permission_denied", "locked", "io_error", "unavailable", "other"]
    static let lag = "commits_mirror_message_index_lag_commits"
    static let successes = #"commits_mirror_syncs_total{repository="acme/widgets",outcome="success"}"#
    static let failures = #"commits_mirror_syncs_total{repository="acme/widgets",outcome="failure"}"#

    static func writeFailures(_ reason: String) -> String {
        #"commits_mirror_store_write_failures_total{reason="\#(reason)"}"#
    }

    /// commitsd syncing acme/widgets into `store` every second, its metrics on a free port.
    func startDaemon(store: String, simulator: GitHubSimulator, environment: [String: String] = [:]) throws -> DaemonProcess {
        try DaemonProcess.mirroring(
            ["acme/widgets"], from: simulator, in: directory, store: store,
            settings: "git_bootstrap: false\nmetrics_listen: 127.0.0.1:0", environment: environment, logLevel: "info")
    }

    /// Scrapes `/metrics` until `condition` holds of its samples (60 s at most: the machine may be loaded); the last scrape.
    static func scrape(_ port: Int, until condition: ([String: Double]) -> Bool) async throws -> [String: Double] {
        var samples: [String: Double] = [:]
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            if let response = try? await CommitsdMetricsTests.get("http://127.0.0.1:\(port)/metrics") {
                samples = CommitsdMetricsTests.samples(String(decoding: response.body, as: UTF8.self))
                if condition(samples) { break }
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        return samples
    }

    /// The lag `commitsctl check` reports ("message index: ok; N newer commits not indexed yet"), 0 when it names none.
    func checkedLag(_ store: String) async throws -> Int {
        let check = try await run("commitsctl", ["check", "--db", store])
        let line = check.stdout.split(separator: "\n").first { $0.hasPrefix("message index:") } ?? ""
        guard let range = line.range(of: #"\d+ newer commits?"#, options: .regularExpression) else { return 0 }
        return Int(line[range].prefix { $0.isNumber }) ?? 0
    }

    func syncOnce(_ store: String, _ simulator: GitHubSimulator) async throws {
        let result = try await run(
            "commitsctl", ["sync", "acme/widgets", "--db", store, "--api-url", simulator.baseURL],
            environment: ["GITHUB_TOKEN": SecretScan.token])
        #expect(result.status == 0, "\(result.stderr)")
    }

    @Test(.enabled(if: Tmpfs.canMount, "needs root to mount a tmpfs"))
    func aFullDiskCountsDiskFullFailuresUntilThereIsRoomAgain() async throws {
        try await withRunning(startSimulator([("widgets", 5_000)])) { simulator in
            // A real ENOSPC: the store on a 1 MiB tmpfs, 200 commits stored, 4,800 more upstream.
            let mount = directory.path("small")
            #expect(try await Tmpfs.mount(at: mount, size: "1m"))
            defer { Tmpfs.unmount(mount) }
            let db = mount + "/commits.sqlite"
            try simulator.moveHead(owner: "acme", name: "widgets", back: 4_800)
            try await syncOnce(db, simulator)
            try simulator.moveHead(owner: "acme", name: "widgets", forward: 4_800)

            let daemon = try startDaemon(store: db, simulator: simulator)
            defer { daemon.stop() }
            let port = try await daemon.listeningPort("metrics.listen=")
            // Two failures: the second met a disk already full.
            // A sync's failure is counted once its claim ends, a moment after its write failure.
            let full = try await Self.scrape(port) {
                let diskFull = $0[Self.writeFailures("disk_full")] ?? 0
                return diskFull >= 2 && ($0[Self.failures] ?? 0) >= diskFull
            }
            let diskFull = full[Self.writeFailures("disk_full")] ?? 0
            #expect(diskFull >= 2, "\(full.filter { $0.key.contains("store_write") })\n\(daemon.log)")
            // Every other reason a series at zero from the start, for an alert's increase().
            for reason in Self.reasons where reason != "disk_full" {
                #expect(full[Self.writeFailures(reason)] == 0, "\(reason): \(full.keys.filter { $0.contains("store_write") })")
            }
            #expect((full[Self.failures] ?? 0) >= diskFull, "each is a failed sync too")
            // The lag the scrape shows is what `commitsctl check` reads in the store.
            let lagWhileFull = try await checkedLag(db)
            let scrapedWhileFull = try await Self.scrape(port) { $0[Self.lag] == Double(lagWhileFull) }
            #expect(scrapedWhileFull[Self.lag] == Double(lagWhileFull), "check says \(lagWhileFull)")

            // Room again: a sync succeeds, the index has caught up, and no failure is counted any more.
            #expect(try await Tmpfs.resize(mount, to: "64m"))
            let recovered = try await Self.scrape(port) { ($0[Self.successes] ?? 0) >= 1 }
            #expect((recovered[Self.successes] ?? 0) >= 1, "\(daemon.log)")
            let settled = recovered[Self.writeFailures("disk_full")] ?? 0
            #expect(try await checkedLag(db) == 0)
            #expect(recovered[Self.lag] == 0)
            let later = try await Self.scrape(port) { ($0[Self.successes] ?? 0) >= (recovered[Self.successes] ?? 0) + 2 }
            #expect(later[Self.writeFailures("disk_full")] == settled, "\(daemon.log)")
            #expect(try StoreInspection(db).memberSHAs(of: "acme/widgets") == simulator.reachableSHAs(owner: "acme", name: "widgets"))
        }
    }

    @Test func aLockedPostgreSQLStoreCountsLockedFailuresAndTheLagWhileItsIndexIsAway() async throws {
        let server = try await PostgreSQLServer.shared()
        try await withRunning(startSimulator([("widgets", 300)])) { simulator in
            let uri = try server.createDatabase()
            try simulator.moveHead(owner: "acme", name: "widgets", back: 180)
            try await syncOnce(uri, simulator)
            let database = CommitsdSharedQueueTests.database(of: uri)
            let counted = try server.execute("SELECT count(*) FROM commits", database: database).first?.first ?? nil
            let stored = try #require(counted.flatMap { Int($0) })
            #expect(stored > 0)
            try simulator.moveHead(owner: "acme", name: "widgets", forward: 180)
            // What a large bulk load leaves to the next writer: no message index.
            _ = try server.execute("DROP INDEX commits_message_trgm", database: database)
            #expect(try await checkedLag(uri) == stored)
            // An operator's session holding a lock that refuses writes to commits, not reads.
            let operatorSession = try PostgreSQLConnection(uri: uri, applicationName: "psql")
            try operatorSession.execute("BEGIN")
            try operatorSession.execute("LOCK TABLE commits IN EXCLUSIVE MODE")

            let daemon = try startDaemon(store: uri, simulator: simulator, environment: ["PGOPTIONS": "-c lock_timeout=1s"])
            defer { daemon.stop() }
            let port = try await daemon.listeningPort("metrics.listen=")
            let locked = try await Self.scrape(port) { ($0[Self.writeFailures("locked")] ?? 0) >= 1 }
            #expect((locked[Self.writeFailures("locked")] ?? 0) >= 1, "\(daemon.log)")
            for reason in Self.reasons where reason != "locked" {
                #expect(locked[Self.writeFailures(reason)] == 0, "\(reason): \(locked.keys.filter { $0.contains("store_write") })")
            }
            // Every stored commit, while the index is away.
            #expect(locked[Self.lag] == Double(stored), "\(locked.filter { $0.key.contains("lag") })")

            // The lock released: the next writer builds the index, the sync stores the rest.
            try operatorSession.execute("ROLLBACK")
            let recovered = try await Self.scrape(port) { ($0[Self.successes] ?? 0) >= 1 && $0[Self.lag] == 0 }
            #expect((recovered[Self.successes] ?? 0) >= 1, "\(daemon.log)")
            #expect(recovered[Self.lag] == 0, "\(daemon.log)")
            #expect(try await checkedLag(uri) == 0)
        }
    }
}
