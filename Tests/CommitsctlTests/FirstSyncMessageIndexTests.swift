import Foundation
import GitHubSim
import MirrorCore
import MirrorTestSupport
import Testing

/// Issue #30, goals 1 and 2, through the commitsctl a user runs: a long first
/// sync over git returns with the message index behind its rows, `--grep`
/// answers exactly meanwhile, and the next sync indexes them.
@Suite struct FirstSyncMessageIndexTests {
    static let commits = 24_000
    static let needles = ["fix", "MERGE", "é", "Co-Authored-By", "pagination"]

    @Test func aLongFirstSyncLeavesTheIndexToTheNextSyncAndGrepStaysExact() async throws {
        let directory = try TemporaryDirectory()
        let simulator = try await startKillTarget(name: "long", id: 4646, commits: Self.commits, seed: 9)
        try await withRunning(simulator) { simulator in
            let db = directory.path("store.sqlite")
            func sync(_ name: String) async throws {
                let process = try CapturedProcess.sync("long", db: db, simulator: simulator, logDirectory: directory.url, as: name)
                #expect(await onThread { process.wait() } == 0, "\(process.stderr)")
            }
            try await sync("first")
            // The first REST page (100 commits, a load too small to leave) was indexed before git's.
            let lag = StoreInspection(db).messageIndexLag()
            #expect(lag == StoreInspection(db).commitCount() - 100 && lag >= 20_000, "lag \(lag)")
            let check = try await run("commitsctl", ["check", "--db", db])
            #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
            #expect(check.stdout.contains("message index: ok; \(lag) newer commits not indexed yet"), "\(check.stdout)")
            let lagging = try await Self.answers(db)

            try await sync("second")
            #expect(StoreInspection(db).messageIndexLag() == 0)
            #expect(try await Self.answers(db) == lagging)
            #expect(try StoreInspection(db).integrity() == "ok")
        }
    }

    /// The same on a PostgreSQL store, whose trigram index is away whole until the
    /// next sync builds it: `check` counts every commit as waiting, and every search
    /// prints what the SQLite store prints for the same history, before and after.
    @Test func onPostgreSQLTheNextSyncBuildsTheIndexAndGrepPrintsWhatSQLitePrints() async throws {
        let directory = try TemporaryDirectory()
        let uri = try await PostgreSQLServer.shared().createDatabase()
        let simulator = try await startKillTarget(name: "long", id: 4647, commits: Self.commits, seed: 9)
        try await withRunning(simulator) { simulator in
            let db = directory.path("store.sqlite")
            func sync(_ store: String, _ name: String) async throws {
                let process = try CapturedProcess.sync("long", db: store, simulator: simulator, logDirectory: directory.url, as: name)
                #expect(await onThread { process.wait() } == 0, "\(process.stderr)")
            }
            try await sync(db, "sqlite")
            try await sync(uri, "first")
            let commits = StoreInspection(db).commitCount()
            let check = try await run("commitsctl", ["check", "--db", uri])
            #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
            #expect(check.stdout.contains("message index: ok; \(commits) newer commits not indexed yet"), "\(check.stdout)")
            let answers = try await Self.answers(db)
            #expect(try await Self.answers(uri) == answers)

            try await sync(uri, "second")
            let indexed = try await run("commitsctl", ["check", "--db", uri])
            #expect(indexed.status == 0 && indexed.stdout.contains("message index: ok\n"), "\(indexed.stdout)")
            #expect(try await Self.answers(uri) == answers)
        }
    }

    /// `query --grep` for each needle, whole and limited: the outputs, each non-empty.
    static func answers(_ db: String) async throws -> [String] {
        var outputs: [String] = []
        for needle in needles {
            for limit in [[], ["-n", "5"]] {
                let query = try await run("commitsctl", ["query", "--grep", needle, "--format", "ndjson", "--db", db] + limit)
                #expect(query.status == 0 && !query.stdout.isEmpty, "\(needle) \(limit): \(query.stderr)")
                outputs.append(query.stdout)
            }
        }
        return outputs
    }
}
