import MirrorTestSupport
import Foundation
import GitHubSim
import Logging
import SQLite
import Testing
@testable import MirrorCore
@testable import MirrorSQLite

/// Issue #6 "storage faults", through the real `commitsctl`: each gives one
/// clear line on stderr, a non-zero exit, and leaves the store as it was.
/// Every run authenticates with `SecretScan.token`, which must appear in no
/// output and no store byte.
@Suite struct StorageFaultCLITests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }

    static func startSimulator(commits: Int = 1_500) async throws -> GitHubSimulator {
        let simulator = try GitHubSimulator(repositories: [
            SimRepository.widgets(id: 601, SyntheticSpec(commits: commits, authors: 25, mergeEvery: 7, seed: 4))
        ])
        try await simulator.start()
        return simulator
    }

    func sync(_ db: String, _ simulator: GitHubSimulator, as user: [String] = [], binary: String? = nil) async throws -> ProcessResult {
        try await commitsctl(
            ["sync", "acme/widgets", "--db", db, "--api-url", simulator.baseURL, "--log-level", "trace"],
            as: user, binary: binary)
    }

    /// Runs commitsctl with the token in its environment, optionally as another user (`setpriv …`).
    /// (On its own thread: waiting for a process must not hold one of the cooperative pool's threads.)
    func commitsctl(_ arguments: [String], as user: [String] = [], binary: String? = nil) async throws -> ProcessResult {
        let executable = binary ?? Executables.url("commitsctl").path
        if user.isEmpty {
            return try await run("commitsctl", arguments, environment: ["GITHUB_TOKEN": SecretScan.token])
        }
        return try await runProgram(
            "/usr/bin/setpriv", user + ["--", executable] + arguments,
            environment: ["GITHUB_TOKEN": SecretScan.token])
    }

    func expectNoLeaks(_ results: [ProcessResult], store: String, sourceLocation: SourceLocation = #_sourceLocation) {
        var texts: [String: String] = [:]
        for (index, result) in results.enumerated() {
            texts["stdout \(index)"] = result.stdout
            texts["stderr \(index)"] = result.stderr
        }
        #expect(SecretScan.leaks(in: texts).isEmpty, sourceLocation: sourceLocation)
        #expect(SecretScan.leaks(inStoreAt: store).isEmpty, sourceLocation: sourceLocation)
    }

    static func bytes(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

    /// The error lines of a run (`--log-level trace` adds log lines to stderr).
    static func errors(_ result: ProcessResult) -> [String] {
        result.stderr.split(separator: "\n").filter { $0.hasPrefix("commitsctl: error:") }.map(String.init)
    }

    static let quiet = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }

    // MARK: - Disk full

    /// A real ENOSPC: the store on a 1 MiB tmpfs. Needs CAP_SYS_ADMIN (root in CI);
    /// the in-process `StorageFaultTests` covers SQLITE_FULL everywhere.
    static let canMountTmpfs = Tmpfs.canMount

    @Test(.enabled(if: canMountTmpfs, "needs root to mount a tmpfs"))
    func aFullDiskStopsTheSyncWithOneLineAndKeepsWholePages() async throws {
        try await withRunning(Self.startSimulator(commits: 5_000)) { simulator in
            let mount = directory.path("small")
            #expect(try await Tmpfs.mount(at: mount, size: "1m"))
            defer { Tmpfs.unmount(mount) }
            let db = mount + "/commits.sqlite"

            try simulator.moveHead(owner: "acme", name: "widgets", back: 4_800)
            let first = try await sync(db, simulator)
            #expect(first.status == 0, "\(first.stderr)")
            let before = try StoreInspection(db).mirroredFacts()
            try simulator.moveHead(owner: "acme", name: "widgets", forward: 4_800)

            let full = try await sync(db, simulator)
            #expect(full.status == 1)
            #expect(
                Self.errors(full) == [
                    "commitsctl: error: the store \(db) cannot grow: its disk (or a size limit) is full. The write in progress was rolled back whole, nothing stored before is lost; free some space and run again"
                ])
            #expect(try StoreInspection(db).integrity() == "ok")
            let after = try StoreInspection(db).mirroredFacts()
            #expect(Set(before).isSubset(of: Set(after)), "everything stored before is still there, unchanged")
            #expect((after.count - before.count) % 100 == 0, "only whole pages: \(after.count - before.count) new rows")
            let check = try await commitsctl(["check", "--db", db])
            #expect(check.status == 3, "\(check.stdout)")

            // Room again: the next run resumes and converges.
            #expect(try await Tmpfs.resize(mount, to: "64m"))
            let resumed = try await sync(db, simulator)
            #expect(resumed.status == 0, "\(resumed.stderr)")
            #expect(try StoreInspection(db).memberSHAs(of: "acme/widgets") == simulator.reachableSHAs(owner: "acme", name: "widgets"))
            #expect(try await commitsctl(["check", "--db", db]).status == 0)
            expectNoLeaks([first, full, check, resumed], store: db)
        }
    }

    // MARK: - Read-only directory

    /// As root, permissions do not bind, so the runs drop to `nobody` (setpriv);
    /// as any other user a mode-555 directory is enough.
    @Test func aReadOnlyStoreDirectoryIsOneLineAndTheStoreIsUntouched() async throws {
        try await withRunning(Self.startSimulator()) { simulator in
            let storeDirectory = directory.path("readonly")
            try FileManager.default.createDirectory(atPath: storeDirectory, withIntermediateDirectories: true)
            let db = storeDirectory + "/commits.sqlite"
            try simulator.moveHead(owner: "acme", name: "widgets", back: 500)
            let first = try await sync(db, simulator)
            #expect(first.status == 0, "\(first.stderr)")
            try simulator.moveHead(owner: "acme", name: "widgets", forward: 500)

            var user: [String] = []
            var binary: String?
            if getuid() == 0 {
                user = ["--reuid=65534", "--regid=65534", "--clear-groups"]
                // A copy nobody can surely execute, whatever the permissions above the build directory.
                binary = directory.path("commitsctl")
                try FileManager.default.copyItem(atPath: Executables.url("commitsctl").path, toPath: binary!)
                chown(db, 65534, 65534)
            }
            chmod(storeDirectory, 0o555)
            defer { chmod(storeDirectory, 0o755) }
            let before = try #require(Self.bytes(db))

            let expected =
                "commitsctl: error: cannot use the store \(db): its directory \(storeDirectory) is not writable by this user, and SQLite must be able to create files there (\(db)-wal and \(db)-shm, even to read a store); make the directory writable or move the store\n"
            let syncing = try await sync(db, simulator, as: user, binary: binary)
            #expect(syncing.status == 1)
            #expect(Self.errors(syncing) == [String(expected.dropLast())])
            // Reading needs no new file: the writer left -wal and -shm (SQLITE_FCNTL_PERSIST_WAL).
            let querying = try await commitsctl(["query", "-n", "3", "--db", db], as: user, binary: binary)
            #expect(querying.status == 0, "\(querying.stderr)")
            #expect(querying.stdout.split(whereSeparator: \.isNewline).count >= 3, "\(querying.stdout)")
            // Without them (a store last closed by an older version), the reader is told what to do.
            let sideFiles = [db + "-wal", db + "-shm"].map { ($0, Self.bytes($0)) }
            for (path, _) in sideFiles { unlink(path) }
            let withoutSideFiles = try await commitsctl(["query", "-n", "3", "--db", db], as: user, binary: binary)
            #expect(withoutSideFiles.status == 1)
            #expect(
                withoutSideFiles.stderr
                    == "commitsctl: error: cannot read the store \(db) without \(db)-wal and \(db)-shm, and this user may not create them in \(storeDirectory); start the service (or run one sync as its user) once: the files then stay\n"
            )
            for (path, bytes) in sideFiles { if let bytes { _ = FileManager.default.createFile(atPath: path, contents: bytes) } }
            let fresh = storeDirectory + "/new.sqlite"
            let creating = try await commitsctl(
                ["sync", "acme/widgets", "--db", fresh, "--api-url", simulator.baseURL], as: user, binary: binary)
            #expect(creating.status == 1)
            #expect(
                creating.stderr.hasPrefix(
                    "commitsctl: error: cannot use the store \(fresh): its directory \(storeDirectory) is not writable by this user"))
            #expect(!FileManager.default.fileExists(atPath: fresh))

            #expect(Self.bytes(db) == before)
            chmod(storeDirectory, 0o755)
            #expect(try StoreInspection(db).integrity() == "ok")
            expectNoLeaks([first, syncing, querying, withoutSideFiles, creating], store: db)
        }
    }

    // MARK: - Not a store, another program's database, a newer schema

    @Test func aStoreFileThatIsNotSQLiteIsRefusedByEveryCommand() async throws {
        let db = directory.path("commits.sqlite")
        var generator = SplitMix(seed: 6)
        let garbage = Data((0..<32_768).map { _ in UInt8(truncatingIfNeeded: generator.next()) })
        try garbage.write(to: URL(fileURLWithPath: db))
        var results: [ProcessResult] = []
        for arguments in [
            ["sync", "acme/widgets", "--api-url", "http://127.0.0.1:1"], ["query"], ["status"], ["check"],
            ["backup", directory.path("copy.sqlite")],
        ] {
            let result = try await commitsctl(arguments + ["--db", db])
            #expect(result.status == 1, "\(arguments)")
            #expect(
                result.stderr
                    == "commitsctl: error: \(db) is not a commits-mirror store (not an SQLite database); point --db at the right file\n",
                "\(arguments)")
            results.append(result)
        }
        #expect(Self.bytes(db) == garbage)
        #expect(!FileManager.default.fileExists(atPath: directory.path("copy.sqlite")))
        expectNoLeaks(results, store: db)
    }

    @Test func anotherProgramsDatabaseIsRefusedAndNotEvenSwitchedToWAL() async throws {
        let db = directory.path("app.sqlite")
        try ForeignDatabase.create(
            at: db, "CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT); INSERT INTO settings VALUES ('theme', 'dark');")
        let before = try #require(Self.bytes(db))
        let result = try await commitsctl(["sync", "acme/widgets", "--db", db, "--api-url", "http://127.0.0.1:1"])
        #expect(result.status == 1)
        #expect(
            result.stderr
                == "commitsctl: error: \(db) is an SQLite database of some other program (it has tables but no commits-mirror schema); it was left untouched; point --db at a commits-mirror store or a new file\n"
        )
        #expect(Self.bytes(db) == before)
    }

    @Test func aStoreWrittenByANewerSchemaIsRefusedUntouched() async throws {
        try await withRunning(Self.startSimulator()) { simulator in
            let db = directory.path("commits.sqlite")
            let first = try await sync(db, simulator)
            #expect(first.status == 0, "\(first.stderr)")
            do {
                let newer = try Connection(path: db)
                try newer.execute("INSERT INTO schema_migrations (version, name) VALUES (42, 'from a future release')")
                try newer.close()
            }
            let before = try #require(Self.bytes(db))
            let expected =
                "commitsctl: error: the store \(db) has schema version 42, newer than this program knows (\(Schema.migrator.latestVersion)); upgrade commits-mirror. The store was left untouched\n"
            let syncing = try await sync(db, simulator)
            #expect(syncing.status == 1)
            #expect(Self.errors(syncing) == [String(expected.dropLast())])
            let querying = try await commitsctl(["query", "--db", db])
            #expect(querying.status == 1)
            #expect(querying.stderr == expected)
            #expect(Self.bytes(db) == before)
            expectNoLeaks([first, syncing, querying], store: db)
        }
    }

    // MARK: - A foreign writer

    /// Another program holds the write lock past the 5 s busy timeout: the
    /// sync gives up with exit 75 (try later), readers are not disturbed.
    @Test func aForeignWriterBeyondTheBusyTimeoutIsTryLater() async throws {
        try await withRunning(Self.startSimulator()) { simulator in
            let db = directory.path("commits.sqlite")
            try simulator.moveHead(owner: "acme", name: "widgets", back: 300)
            let first = try await sync(db, simulator)
            #expect(first.status == 0, "\(first.stderr)")
            try simulator.moveHead(owner: "acme", name: "widgets", forward: 300)
            let before = try StoreInspection(db).mirroredFacts()

            let foreign = try Connection(path: db)
            try foreign.execute("BEGIN IMMEDIATE")
            try foreign.execute("CREATE TABLE foreign_scratch (x INTEGER)")
            let start = ContinuousClock.now
            let blocked = try await sync(db, simulator)
            let waited = ContinuousClock.now - start
            let reading = try await commitsctl(["query", "-n", "5", "--db", db])
            try foreign.execute("ROLLBACK")

            #expect(blocked.status == 75)
            #expect(
                Self.errors(blocked) == [
                    "commitsctl: error: the store \(db) is locked by another writer beyond the busy timeout; nothing was half-stored; "
                        + "let the other writer (another commitsctl sync, a commitsd on this store, a sqlite3 session inside a transaction) "
                        + "finish or stop it, then run the command again"
                ])
            #expect(waited >= .seconds(4) && waited < .seconds(30), "\(waited)")
            #expect(reading.status == 0 && reading.lines.count == 5, "readers never wait: \(reading.stderr)")
            #expect(try StoreInspection(db).mirroredFacts() == before)
            #expect(try StoreInspection(db).integrity() == "ok")

            let after = try await sync(db, simulator)
            #expect(after.status == 0)
            #expect(try StoreInspection(db).memberSHAs(of: "acme/widgets") == simulator.reachableSHAs(owner: "acme", name: "widgets"))
            expectNoLeaks([first, blocked, reading, after], store: db)
        }
    }

    // MARK: - Upgrades through the CLI

    @Test func syncUpgradesAnOlderStoreAndSaysWhereTheBackupIs() async throws {
        try await withRunning(Self.startSimulator()) { simulator in
            let db = directory.path("commits.sqlite")
            do {
                // The store as the first release left it, holding what today's sync mirrors.
                let current = directory.path("current.sqlite")
                let client = try GitHubClient(
                    configuration: .init(
                        apiURL: simulator.baseURL,
                        token: GitHubToken(value: SecretScan.token, source: "test")),
                    logger: Self.quiet)
                _ = try await SyncEngine(client: client, store: try MirrorStore(path: current), logger: Self.quiet)
                    .sync(RepositoryName(parsing: "acme/widgets")!)
                let old = try MirrorStore(path: db, migrator: Migrator(Array(Schema.migrator.migrations.prefix(1))))
                try OlderStore.copyVersion1Data(from: current, into: old.db)
            }
            let before = try StoreInspection(db).mirroredFacts()
            let upgrade = try await sync(db, simulator)
            #expect(upgrade.status == 0, "\(upgrade.stderr)")
            let backups = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
                .filter { $0.hasPrefix("commits.sqlite.backup-v1-") }
            #expect(backups.count == 1)
            let backup = directory.path(backups.first ?? "")
            #expect(
                upgrade.stderr.contains(
                    "commitsctl: upgraded the store \(db) from schema version 1 to \(Schema.migrator.latestVersion); the copy made before the upgrade is \(backup)\n"
                ), "\(upgrade.stderr)")
            #expect(try StoreInspection(backup).mirroredFacts() == before)
            #expect(try StoreInspection(db).mirroredFacts() == before)
            let search = try await commitsctl(["query", "--grep", "e", "-n", "1", "--db", db])
            #expect(search.status == 0 && search.lines.count == 1, "the upgraded store answers message searches: \(search.stderr)")
            let again = try await sync(db, simulator)
            #expect(!again.stderr.contains("upgraded"))
            expectNoLeaks([upgrade, search, again], store: db)
        }
    }
}
