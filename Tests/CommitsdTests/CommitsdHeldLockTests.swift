import Foundation
import GitHubSim
import MirrorTestSupport
import PostgreSQL
import SQLite
import Testing
import Curl

/// commitsd on PostgreSQL while another session holds ACCESS EXCLUSIVE on
/// `commits`: the sync that must store fails after `lock_timeout` with one line
/// naming the holder, counted as a failure on /metrics and kept as the
/// repository's last error, while a repository with nothing new goes on being
/// polled; once the lock is gone the next sync stores everything. On SQLite,
/// another process holding the write lock fails every sync with one line
/// saying what to do until it lets go.
@Suite(.serialized) struct CommitsdHeldLockTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }

    /// The samples of the daemon's /metrics, empty while it does not answer.
    static func scrape(_ port: Int) async -> [String: Double] {
        guard let response = try? await CommitsdMetricsTests.get("http://127.0.0.1:\(port)/metrics") else { return [:] }
        return CommitsdMetricsTests.samples(String(decoding: response.body, as: UTF8.self))
    }

    static func syncs(_ repository: String, _ outcome: String) -> String {
        #"commits_mirror_syncs_total{repository="\#(repository)",outcome="\#(outcome)"}"#
    }

    /// Scrapes until `condition` holds of the samples (60 s at most); the last samples seen.
    static func scrape(_ port: Int, until condition: ([String: Double]) -> Bool) async throws -> [String: Double] {
        let deadline = ContinuousClock.now + .seconds(60)
        var samples = await scrape(port)
        while !condition(samples) && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(200))
            samples = await scrape(port)
        }
        return samples
    }

    @Test func aHeldLockFailsOnlyTheSyncThatStoresAndIsReportedEverywhere() async throws {
        let server = try await PostgreSQLServer.shared()
        try await withRunning(startSimulator([("idle", 120), ("growing", 250)])) { simulator in
            let uri = try server.createDatabase()
            try simulator.moveHead(owner: "acme", name: "growing", back: 100)
            let daemon = try CommitsdBlockedStoreTests.startDaemon(
                in: directory, store: uri, simulator: simulator, repositories: ["acme/idle", "acme/growing"],
                settings: "metrics_listen: 127.0.0.1:0", environment: ["PGOPTIONS": "-c lock_timeout=2s"])
            defer { daemon.stop() }
            let port = try await daemon.listeningPort("metrics.listen=")
            let synced = try await Self.scrape(port) { samples in
                ["acme/idle", "acme/growing"].allSatisfy { samples[Self.syncs($0, "success"), default: 0] >= 1 }
            }
            #expect(synced[Self.syncs("acme/growing", "success"), default: 0] >= 1, "\(daemon.log.suffix(3000))")
            let failuresBefore = synced[Self.syncs("acme/growing", "failure"), default: 0]

            let operatorSession = try PostgreSQLConnection(uri: uri, applicationName: "psql")
            try operatorSession.execute("BEGIN")
            try operatorSession.execute("LOCK TABLE commits IN ACCESS EXCLUSIVE MODE")
            defer { try? operatorSession.execute("ROLLBACK") }
            let pollsBefore = simulator.stats().requestsByRepository["acme/idle", default: 0]
            try simulator.moveHead(owner: "acme", name: "growing", forward: 100)

            let failed = try await Self.scrape(port) { $0[Self.syncs("acme/growing", "failure"), default: 0] > failuresBefore }
            #expect(failed[Self.syncs("acme/growing", "failure"), default: 0] > failuresBefore, "\(daemon.log.suffix(3000))")
            let failure = daemon.log.split(separator: "\n").first { $0.contains("sync failed") && $0.contains("acme/growing") }
            #expect(failure?.contains("holds AccessExclusiveLock on commits") == true, "\(daemon.log.suffix(3000))")
            #expect(failure?.contains("pid \(operatorSession.backendPID) (psql") == true, "\(String(describing: failure))")
            // status reads what the lock does not cover: the failure is the repository's last error already.
            let status = try await run(
                "commitsctl", ["status", "--json", "--db", uri], environment: ["PGOPTIONS": "-c lock_timeout=2s"])
            #expect(status.status == 0, "\(status.stdout)\(status.stderr)")
            let rows = try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [[String: Any]] ?? []
            let lastError = rows.first { $0["repository"] as? String == "acme/growing" }?["last_error"] as? String
            #expect(lastError?.contains("holds AccessExclusiveLock on commits") == true, "\(status.stdout)")
            // The idle repository is polled on its 1 s interval while the lock is held: a few polls at least.
            #expect(
                await waitUntil(timeout: .seconds(30)) {
                    simulator.stats().requestsByRepository["acme/idle", default: 0] >= pollsBefore + 3
                }, "\(simulator.stats().requestsByRepository)")

            try operatorSession.execute("ROLLBACK")
            #expect(
                await waitUntil(timeout: .seconds(60)) {
                    (try? server.execute(
                        """
                        SELECT count(*) FROM repository_commits rc JOIN repositories r ON r.id = rc.repository_id
                        WHERE r.full_name = 'acme/growing'
                        """, database: CommitsdSharedQueueTests.database(of: uri)))?.first?.first == "250"
                }, "\(daemon.log.suffix(3000))")
            daemon.signal(SIGTERM)
            #expect(await daemon.waitForExit(timeout: .seconds(30)) == 0)
            let check = try await run("commitsctl", ["check", "--db", uri])
            #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        }
    }

    @Test func aHeldSQLiteWriteLockFailsEachSyncSayingWhatToDoUntilItIsReleased() async throws {
        try await withRunning(startSimulator([("idle", 120), ("growing", 250)])) { simulator in
            let store = directory.path("commits.sqlite")
            try simulator.moveHead(owner: "acme", name: "growing", back: 100)
            let firstPart = try simulator.reachableSHAs(owner: "acme", name: "growing").count
            let daemon = try CommitsdBlockedStoreTests.startDaemon(
                in: directory, store: store, simulator: simulator, repositories: ["acme/idle", "acme/growing"])
            defer { daemon.stop() }
            #expect(
                await waitUntil(timeout: .seconds(60)) { StoreInspection(store).memberSHAsSoFar(of: "acme/growing").count == firstPart },
                "\(daemon.log.suffix(3000))")
            // What a sqlite3 session inside BEGIN IMMEDIATE with a write holds.
            let foreign = try Connection(path: store)
            try foreign.execute("BEGIN IMMEDIATE")
            try foreign.execute("CREATE TABLE foreign_scratch (x INTEGER)")
            defer { try? foreign.execute("ROLLBACK") }
            try simulator.moveHead(owner: "acme", name: "growing", forward: 100)
            // One file, one writer: every repository's sync begins with a write, so each fails after the
            // busy timeout, before it asks GitHub, and the daemon goes on trying them on their interval.
            let failures = { (repository: String) in
                daemon.log.split(separator: "\n").filter { $0.contains("sync failed") && $0.contains("repo=\(repository)") }
            }
            #expect(
                await waitUntil(timeout: .seconds(60)) { failures("acme/growing").count >= 2 && failures("acme/idle").count >= 2 },
                "\(daemon.log.suffix(3000))")
            for line in failures("acme/growing") + failures("acme/idle") {
                #expect(line.contains("is locked by another writer beyond the busy timeout; nothing was half-stored"), "\(line)")
            }
            try foreign.execute("ROLLBACK")
            let everything = try simulator.reachableSHAs(owner: "acme", name: "growing")
            #expect(
                await waitUntil(timeout: .seconds(60)) { StoreInspection(store).memberSHAsSoFar(of: "acme/growing") == everything },
                "\(daemon.log.suffix(3000))")
            daemon.signal(SIGTERM)
            #expect(await daemon.waitForExit(timeout: .seconds(30)) == 0)
            let check = try await run("commitsctl", ["check", "--db", store])
            #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        }
    }
}
