import Foundation
import GitHubSim
import MirrorTestSupport
import PostgreSQL
import SQLite
import Testing

/// `commitsctl copy-store` (issue #26): a whole mirror from SQLite to PostgreSQL
/// and back, while the source may be in use; the copies answer as the source
/// does, `check` passes on them, and a sync of a copy is one 304.
@Suite struct CopyStoreTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }

    /// Every table a copy carries, as sorted lines, read from a SQLite file.
    static func tables(_ path: String) throws -> [String: [String]] {
        let db = try Connection(path: path, mode: .readOnly)
        var dump: [String: [String]] = [:]
        for table in [
            "repositories", "repository_names", "authors", "commits", "commit_parents", "commit_coauthors", "change_counter",
            "repository_commits", "sync_state", "repository_branches", "branch_commits", "sync_walks", "sync_frontier", "owner_listings",
            "request_counts", "paths", "commit_changes", "commit_changes_read", "tags",
            "author_commit_counts",
        ] {
            let statement = try db.prepare("SELECT * FROM \(table)")
            dump[table] = try statement.map { row in
                (0..<statement.columnCount).map { row.optionalString($0) ?? "NULL" }.joined(separator: "|")
            }.sorted()
        }
        return dump
    }

    /// 20,000 commits here (a debug build); Benchmarks/copy-store-round-trip.sh
    /// round-trips 100,000 with release binaries and the same comparisons (acceptance 2).
    @Test func aMirrorRoundTripsThroughPostgreSQLAndAnswersTheSame() async throws {
        let simulator = try await startKillTarget(name: "copy", id: 4401, commits: 20_000, seed: 23)
        try await withRunning(simulator) { simulator in
            let original = directory.path("original.sqlite")
            let synced = try await run(
                "commitsctl", ["sync", "acme/copy", "--db", original, "--api-url", simulator.baseURL],
                environment: ["GITHUB_TOKEN": SecretScan.token])
            #expect(synced.status == 0, "\(synced.stderr)")
            let database = try await PostgreSQLServer.shared().createDatabase()
            let returned = directory.path("returned.sqlite")
            let there = try await run("commitsctl", ["copy-store", original, database])
            #expect(there.status == 0, "\(there.stderr)")
            #expect(
                there.stdout.contains("1 repository, 20,000 commits") || there.stdout.contains("1 repository, 20000 commits"),
                "\(there.stdout)")
            let back = try await run("commitsctl", ["copy-store", database, returned])
            #expect(back.status == 0, "\(back.stderr)")
            #expect(try Self.tables(returned) == (try Self.tables(original)))
            #expect(try await run("commitsctl", ["check", "--db", returned]).status == 0)
            for arguments in [
                ["query", "-n", "300", "--format", "json"], ["query", "--author", "a", "-n", "50"], ["stats"],
                ["authors"], ["query", "--grep", "fix", "-n", "40"], ["query", "--branch", "main", "-n", "60"],
            ] {
                let a = try await run("commitsctl", arguments + ["--db", original])
                let b = try await run("commitsctl", arguments + ["--db", returned])
                #expect(a.status == 0 && a.stdout == b.stdout, "\(arguments): \(b.stderr)")
            }
            // A sync of either copy is two conditional requests (the branch, the tags), both answered 304.
            for store in [database, returned] {
                let again = try await run(
                    "commitsctl", ["sync", "acme/copy", "--db", store, "--api-url", simulator.baseURL],
                    environment: ["GITHUB_TOKEN": SecretScan.token])
                #expect(again.stdout.contains("0 new, 0 updated, 2 requests (2 not modified)"), "\(store): \(again.stdout) \(again.stderr)")
            }
        }
    }

    @Test func aCopyTakesOneSnapshotWhileTheSourceIsBeingSynced() async throws {
        let simulator = try await startKillTarget(name: "busy", id: 4402, commits: 4_000, seed: 29)
        try await withRunning(simulator) { simulator in
            let source = try await PostgreSQLServer.shared().createDatabase()
            // The seventh page is held back: the copy is taken while the walk is certainly under way.
            var faults = FaultPlan()
            faults.holdFrom = 7
            simulator.setFaults(faults)
            let sync = try CapturedProcess.sync(
                "busy", db: source, simulator: simulator, extra: ["--no-git-bootstrap"], logDirectory: directory.url, as: "busy")
            #expect(
                await waitUntil(timeout: .seconds(120)) {
                    ((try? PostgreSQLConnection(uri: source).execute("SELECT count(*) FROM commits").int(0, 0)) ?? 0) >= 600
                })
            let copy = directory.path("mid-sync.sqlite")
            let copied = try await run("commitsctl", ["copy-store", source, copy])
            #expect(copied.status == 0, "\(copied.stderr)")
            simulator.setFaults(FaultPlan())
            #expect(await onThread { sync.wait() } == 0, "\(sync.stderr)")
            // The copy is one consistent moment of a walk in progress: it checks clean and resumes to exact.
            let check = try await run("commitsctl", ["check", "--db", copy])
            #expect(!check.stdout.contains("damaged") && [0, 3].contains(check.status), "\(check.stdout) \(check.stderr)")
            let resumed = try await run(
                "commitsctl", ["sync", "acme/busy", "--db", copy, "--api-url", simulator.baseURL, "--no-git-bootstrap"],
                environment: ["GITHUB_TOKEN": SecretScan.token])
            #expect(resumed.status == 0, "\(resumed.stderr)")
            #expect(try StoreInspection(copy).memberSHAs(of: "acme/busy") == (try simulator.reachableSHAs(owner: "acme", name: "busy")))
            #expect(try await run("commitsctl", ["check", "--db", copy]).status == 0)
        }
    }

    @Test func aDestinationThatHoldsAMirrorIsRefusedAndLeftAlone() async throws {
        let simulator = try await startKillTarget(name: "full", id: 4403, commits: 80, seed: 31)
        try await withRunning(simulator) { simulator in
            let first = directory.path("first.sqlite")
            let second = try await PostgreSQLServer.shared().createDatabase()
            for store in [first, second] {
                let synced = try await run(
                    "commitsctl", ["sync", "acme/full", "--db", store, "--api-url", simulator.baseURL],
                    environment: ["GITHUB_TOKEN": SecretScan.token])
                #expect(synced.status == 0, "\(synced.stderr)")
            }
            let refused = try await run("commitsctl", ["copy-store", first, second])
            #expect(refused.status == 1)
            #expect(
                refused.stderr
                    == "commitsctl: error: the destination \(second) already holds a mirror (80 commits); copy into a new, empty store: nothing was changed\n"
            )
            let missing = try await run("commitsctl", ["copy-store", directory.path("none.sqlite"), directory.path("new.sqlite")])
            #expect(missing.status == 1 && missing.stderr.hasPrefix("commitsctl: error: no store at \(directory.path("none.sqlite"));"))
            #expect(!FileManager.default.fileExists(atPath: directory.path("new.sqlite")))
        }
    }
}
