import Foundation
import MirrorTestSupport
import Testing

/// Issue #26: the commands that delete or copy (`prune`, `repos remove` with
/// and without `--purge`, `backup`) and `sync --metrics-textfile` do on a
/// PostgreSQL store what they do on a SQLite store holding the same history,
/// print the same, and leave the two stores answering every read alike.
@Suite(.serialized) struct PostgreSQLWriteParityTests {
    typealias Stores = PostgreSQLReadParityTests.Stores

    /// `commitsctl ARGS` run from `directory` (where a database's safety copy goes).
    static func commitsctlRun(from directory: String, _ arguments: [String]) async throws -> ProcessResult {
        try await runProgram(
            "/bin/sh", ["-c", "cd \"$0\" && exec \"$@\"", directory, Executables.path("commitsctl")] + arguments,
            environment: ["TZ": "UTC", "COLUMNS": "200"])
    }

    /// Syncs `repositories` into both stores again, then gives them the same clock readings.
    static func syncAgain(_ stores: Stores, _ repositories: [String], _ sim: SimulatorProcess, extra: (String) -> [String] = { _ in [] })
        async throws
    {
        for store in [stores.sqlite, stores.postgreSQL] {
            for repository in repositories {
                let sync = try await run(
                    "commitsctl", ["sync", repository, "--db", store, "--api-url", sim.baseURL] + extra(store),
                    environment: ["GITHUB_TOKEN": "test-token"])
                #expect(sync.status == 0, "\(store): \(sync.stderr)")
            }
        }
        try PostgreSQLReadParityTests.copyClockReadings(from: stores.sqlite, to: stores)
    }

    /// A command that makes a safety copy, run on both stores: the same status and
    /// words; each names its copy, which exists (a database's in `directory`).
    /// Returns the two copies' paths.
    static func expectSameDeletion(
        _ stores: Stores, _ arguments: [String], in directory: String, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> (sqlite: String, postgreSQL: String) {
        let marker = "; the copy made first is "
        let fromSQLite = try await Self.commitsctlRun(from: directory, arguments + ["--db", stores.sqlite])
        let fromPostgreSQL = try await Self.commitsctlRun(from: directory, arguments + ["--db", stores.postgreSQL])
        #expect(fromSQLite.status == 0, "\(arguments): \(fromSQLite.stderr)", sourceLocation: sourceLocation)
        #expect(fromPostgreSQL.status == 0, "\(arguments): \(fromPostgreSQL.stderr)", sourceLocation: sourceLocation)
        let sqliteParts = fromSQLite.stdout.components(separatedBy: marker)
        let postgreSQLParts = fromPostgreSQL.stdout.components(separatedBy: marker)
        #expect(sqliteParts.count == 2 && postgreSQLParts.count == 2, "\(fromSQLite.stdout)\(fromPostgreSQL.stdout)")
        #expect(postgreSQLParts[0] == sqliteParts[0], sourceLocation: sourceLocation)
        #expect(fromPostgreSQL.stderr == fromSQLite.stderr, sourceLocation: sourceLocation)
        let sqliteCopy = String(sqliteParts.last!.dropLast())
        let postgreSQLCopy = String(postgreSQLParts.last!.dropLast())
        let operation = arguments[0] == "prune" ? "prune" : "purge"
        #expect(sqliteCopy.hasPrefix("\(stores.sqlite).backup-\(operation)-"), "\(sqliteCopy)", sourceLocation: sourceLocation)
        let database = String(stores.postgreSQL.split(separator: "/").last!)
        let name = URL(fileURLWithPath: postgreSQLCopy).lastPathComponent
        #expect(
            name.hasPrefix("\(database).backup-\(operation)-") && name.hasSuffix(".sqlite"), "\(postgreSQLCopy)",
            sourceLocation: sourceLocation)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).contains(name), sourceLocation: sourceLocation)
        return (sqliteCopy, postgreSQLCopy)
    }

    /// `query` of everything, hidden commits too, what each repository holds, and who wrote it.
    static func everything(_ store: String) async throws -> [String] {
        var outputs = [try await Self.commitsctlOutput(["query", "--include-rewritten", "--format", "ndjson", "--db", store])]
        for command in [["repos", "--format", "json"], ["stats", "--format", "json"]] {
            outputs.append(try await Self.commitsctlOutput(command + ["--db", store]))
        }
        return outputs + (try await Self.people(store))
    }

    /// `authors --format json`, each person's emails and identities sorted: everything
    /// but the order of a person's identities with equal commit counts (see `expectSameReads`).
    static func people(_ store: String) async throws -> [String] {
        let json = try await Self.commitsctlOutput(["authors", "--format", "json", "--db", store])
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
        return try rows.map { row in
            var row = row
            for key in ["emails", "identities"] { if let list = row[key] as? [String] { row[key] = list.sorted() } }
            return String(decoding: try JSONSerialization.data(withJSONObject: row, options: [.sortedKeys]), as: UTF8.self)
        }
    }

    /// The reads of `PostgreSQLReadParityTests.expectSameReads` once history was deleted
    /// (or copied from a database into a file). A person's identities with equal commit
    /// counts are listed in the order they were first seen: by authors row id in a SQLite
    /// store, by first surviving commit in a PostgreSQL store. After a deletion (or in a
    /// SQLite copy of a database, whose ids the copy keeps) the two can differ, so the
    /// people are compared with those lists sorted, and `authors`' own order is a known issue.
    static func expectSameReads(_ stores: Stores, repository: String) async throws {
        for query in PostgreSQLReadParityTests.queries(author: "a", committer: "e", coAuthor: "e", repository: repository) {
            try await stores.expectSameOutput(["query"] + query)
        }
        for command in [
            ["status"], ["status", "--json"], ["status", "--requests"], ["repos"], ["repos", "--format", "json"], ["check"],
            ["stats"], ["stats", "--format", "json"], ["stats", "--repo", repository],
        ] {
            try await stores.expectSameOutput(command)
        }
        #expect(try await Self.people(stores.postgreSQL) == (try await Self.people(stores.sqlite)))
        try await stores.expectSameOutput(["authors", "--format", "json"])
    }

    static func commitsctlOutput(_ arguments: [String]) async throws -> String {
        let result = try await commitsctl(arguments)
        #expect(result.status == 0, "\(arguments): \(result.stderr)")
        return result.stdout
    }

    @Test func pruneAndRepositoryRemovalChangeBothStoresAlike() async throws {
        let (stores, sim) = try await PostgreSQLReadParityTests.syncBoth(
            ["--synthetic", "acme/widgets=300:4", "--synthetic", "acme/gadgets=120:3", "--synthetic", "acme/tools=60:2"],
            repositories: ["acme/widgets", "acme/gadgets", "acme/tools"])
        defer { sim.stop() }
        let here = stores.directory.path("cwd")
        try FileManager.default.createDirectory(atPath: here, withIntermediateDirectories: false)
        #expect(
            try await Self.commitsctlRun(from: here, ["prune", "--db", stores.postgreSQL]).stdout
                == "nothing to prune: no commit is off every mirrored branch\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: here).isEmpty, "no copy when nothing is deleted")

        // A force-push leaves 40 commits of widgets off its branch: kept, hidden.
        _ = try await sim.control("/_sim/repos/acme/widgets/head?back=40", method: "POST")
        let textfiles = [stores.sqlite: stores.directory.path("sqlite.prom"), stores.postgreSQL: stores.directory.path("pg.prom")]
        try await Self.syncAgain(stores, ["acme/widgets"], sim) { ["--metrics-textfile", textfiles[$0]!] }
        // What a sync's textfile says the store holds, read through MirrorReading on either backend.
        let stored = try textfiles.values.sorted().map { path in
            try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").filter { $0.hasPrefix("commits_mirror_commits{") }
                .sorted()
        }
        #expect(stored[0].count == 3 && stored[0][2].hasPrefix(#"commits_mirror_commits{repository="acme/widgets"} "#), "\(stored)")
        #expect(stored[1] == stored[0])
        let hidden = try await Self.commitsctlOutput(["query", "--include-rewritten", "--format", "ndjson", "--db", stores.sqlite])
        let shown = try await Self.commitsctlOutput(["query", "--format", "ndjson", "--db", stores.sqlite])
        #expect(hidden.split(separator: "\n").count > shown.split(separator: "\n").count)
        try await stores.expectSameOutput(["query", "--include-rewritten", "--format", "ndjson"])
        let before = try await Self.everything(stores.postgreSQL)
        #expect(try await Self.everything(stores.sqlite) == before)
        let others = try await Self.commitsctlOutput(["query", "--repo", "acme/gadgets", "--format", "ndjson", "--db", stores.sqlite])

        // prune: the same 40 deleted from both, after a copy holding them.
        let pruned = try await Self.expectSameDeletion(stores, ["prune", "--repo", "acme/widgets"], in: here)
        #expect(try await Self.everything(pruned.sqlite) == before)
        #expect(try await Self.everything(pruned.postgreSQL) == before)
        let afterPrune = try await Self.commitsctlOutput(["query", "--include-rewritten", "--format", "ndjson", "--db", stores.sqlite])
        #expect(afterPrune == shown)
        try await stores.expectSameOutput(["query", "--include-rewritten", "--format", "ndjson"])
        try await stores.expectSameOutput(["query", "--repo", "acme/gadgets", "--format", "ndjson"])
        #expect(
            try await Self.commitsctlOutput(["query", "--repo", "acme/gadgets", "--format", "ndjson", "--db", stores.postgreSQL]) == others)

        // repos remove: history kept; --purge: deleted after a copy.
        try await stores.expectSameOutput(["repos", "remove", "acme/tools"])
        try PostgreSQLReadParityTests.copyClockReadings(from: stores.sqlite, to: stores)
        let beforePurge = try await Self.everything(stores.postgreSQL)
        let purged = try await Self.expectSameDeletion(stores, ["repos", "remove", "acme/gadgets", "--purge"], in: here)
        #expect(try await Self.everything(purged.postgreSQL) == beforePurge)
        #expect(try await Self.everything(purged.sqlite) == beforePurge)
        try PostgreSQLReadParityTests.copyClockReadings(from: stores.sqlite, to: stores)
        try await stores.expectSameOutput(["query", "--repo", "acme/gadgets"])
        #expect(try await Self.commitsctlOutput(["query", "--repo", "acme/gadgets", "--db", stores.postgreSQL]).isEmpty)
        for command in [["repos"], ["status", "--json"], ["stats"], ["check"]] {
            try await stores.expectSameOutput(command)
        }
        try await Self.expectSameReads(stores, repository: "acme/widgets")
        // A mistyped name: the same one line from both, and nothing changed.
        let typo = [stores.sqlite, stores.postgreSQL].map { store in ["repos", "remove", "acme/nope", "--purge", "--db", store] }
        let typos = [try await commitsctl(typo[0]), try await commitsctl(typo[1])]
        #expect(typos[0].status == 1 && typos[1].status == 1)
        #expect(
            typos[1].stderr.replacingOccurrences(of: stores.postgreSQL, with: "STORE")
                == typos[0].stderr.replacingOccurrences(of: stores.sqlite, with: "STORE"))
        let left = try FileManager.default.contentsOfDirectory(atPath: here).filter { !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") }
        #expect(left.count == 2 && left.allSatisfy { $0.hasSuffix(".sqlite") }, "one copy per deletion, no partial file: \(left)")
        // Mirrored again by name, it is fetched whole again on both.
        try await Self.syncAgain(stores, ["acme/gadgets"], sim)
        try await stores.expectSameOutput(["query", "--repo", "acme/gadgets", "--format", "ndjson"])
        #expect(
            try await Self.commitsctlOutput(["query", "--repo", "acme/gadgets", "--format", "ndjson", "--db", stores.postgreSQL]) == others)
        try await stores.expectSameOutput(["check"])
    }

    @Test func backupWritesTheSameMirrorFromBothStores() async throws {
        let (stores, sim) = try await PostgreSQLReadParityTests.syncBoth(
            ["--synthetic", "acme/widgets=400:6"], repositories: ["acme/widgets"])
        defer { sim.stop() }
        let copies = Stores(
            sqlite: stores.directory.path("from-sqlite.sqlite"), postgreSQL: stores.directory.path("from-postgresql.sqlite"),
            server: stores.server, directory: stores.directory)
        let fromSQLite = try await commitsctl(["backup", copies.sqlite, "--db", stores.sqlite])
        let fromPostgreSQL = try await commitsctl(["backup", copies.postgreSQL, "--db", stores.postgreSQL])
        for (result, store, copy) in [(fromSQLite, stores.sqlite, copies.sqlite), (fromPostgreSQL, stores.postgreSQL, copies.postgreSQL)] {
            #expect(result.status == 0, "\(result.stderr)")
            let size = try #require(FileManager.default.attributesOfItem(atPath: copy)[.size] as? Int)
            #expect(result.stdout == "backed up \(store) to \(copy): 1 repository, 400 commits, \(size) bytes; quick_check ok\n")
            #expect(result.stderr.isEmpty)
        }
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: stores.directory.url.path).filter { $0.contains("partial") }.isEmpty)
        // Each copy answers every read as the store it came from does.
        try await Self.expectSameReads(copies, repository: "acme/widgets")
        #expect(try await Self.everything(copies.postgreSQL) == (try await Self.everything(stores.postgreSQL)))
        for command in [["status", "--json"], ["check"]] {
            #expect(
                try await Self.commitsctlOutput(command + ["--db", copies.postgreSQL])
                    == (try await Self.commitsctlOutput(command + ["--db", stores.sqlite])))
        }

        // An existing file is never overwritten, whichever store is copied.
        let original = FileManager.default.contents(atPath: copies.sqlite)
        let again = [
            try await commitsctl(["backup", copies.sqlite, "--db", stores.sqlite]),
            try await commitsctl(["backup", copies.sqlite, "--db", stores.postgreSQL]),
        ]
        #expect(again[0].status == 1 && again[1].status == 1)
        #expect(
            again[0].stderr
                == "commitsctl: error: \(copies.sqlite) already exists; a backup never overwrites a file: choose a new path or remove it first\n"
        )
        #expect(again[1].stderr == again[0].stderr)
        #expect(FileManager.default.contents(atPath: copies.sqlite) == original)

        // A database without a store: one line, and no file.
        let empty = try stores.server.createDatabase()
        let nothing = stores.directory.path("nothing.sqlite")
        let missing = try await commitsctl(["backup", nothing, "--db", empty])
        #expect(missing.status == 1)
        #expect(
            missing.stderr
                == "commitsctl: error: no store at \(empty); run `commitsctl sync OWNER/REPO` first, or point --db / $COMMITS_DB at an existing store\n"
        )
        #expect(try FileManager.default.contentsOfDirectory(atPath: stores.directory.url.path).filter { $0.hasPrefix("nothing") }.isEmpty)
    }
}
