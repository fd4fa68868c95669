import MirrorTestSupport
import Foundation
import GitHubSim
import SQLite
import Testing

/// `commitsctl backup PATH` and `commitsctl check`.
@Suite struct BackupCheckCommandTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }
    var db: String { directory.path("commits.sqlite") }

    func mirror(commits: Int = 800, configuration: SimConfiguration = .init()) async throws -> (GitHubSimulator, ProcessResult) {
        let simulator = try GitHubSimulator(
            configuration: configuration,
            repositories: [
                SimRepository.widgets(id: 602, SyntheticSpec(commits: commits, authors: 20, mergeEvery: 5, seed: 8))
            ])
        try await simulator.start()
        let result = try await run(
            "commitsctl", ["sync", "acme/widgets", "--db", db, "--api-url", simulator.baseURL],
            environment: ["GITHUB_TOKEN": SecretScan.token])
        return (simulator, result)
    }

    @Test func backupWritesACheckedCopyAndNeverOverwrites() async throws {
        let (simulator, synced) = try await mirror()
        try await withRunning(simulator) { simulator in
            #expect(synced.status == 0)
            let copy = directory.path("backups/commits-copy.sqlite")
            try FileManager.default.createDirectory(atPath: directory.path("backups"), withIntermediateDirectories: true)

            let backup = try await run("commitsctl", ["backup", copy, "--db", db])
            #expect(backup.status == 0, "\(backup.stderr)")
            let size = try #require(FileManager.default.attributesOfItem(atPath: copy)[.size] as? Int)
            #expect(backup.stdout == "backed up \(db) to \(copy): 1 repository, 800 commits, \(size) bytes; quick_check ok\n")
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: directory.path("backups")) == ["commits-copy.sqlite"],
                "no partial file, -wal or -shm left beside the copy")
            #expect(try StoreInspection(copy).mirroredFacts() == StoreInspection(db).mirroredFacts())
            let checked = try await run("commitsctl", ["check", "--db", copy])
            #expect(checked.status == 0, "\(checked.stdout)")

            let original = try #require(FileManager.default.contents(atPath: copy))
            let again = try await run("commitsctl", ["backup", copy, "--db", db])
            #expect(again.status == 1)
            #expect(
                again.stderr
                    == "commitsctl: error: \(copy) already exists; a backup never overwrites a file: choose a new path or remove it first\n"
            )
            #expect(FileManager.default.contents(atPath: copy) == original)

            let nowhere = directory.path("no/such/dir/copy.sqlite")
            let missing = try await run("commitsctl", ["backup", nowhere, "--db", db])
            #expect(missing.status == 1)
            #expect(
                missing.stderr
                    == "commitsctl: error: cannot write the backup \(nowhere): the directory \(directory.path("no/such/dir")) does not exist; nothing was written there, and the store itself is never changed by a backup\n"
            )
            #expect(SecretScan.leaks(in: ["sync": synced.stdout + synced.stderr]).isEmpty)
            #expect(SecretScan.leaks(inStoreAt: copy).isEmpty)
        }
    }

    @Test func checkPassesACompleteMirror() async throws {
        let (simulator, synced) = try await mirror()
        try await withRunning(simulator) { simulator in
            #expect(synced.status == 0)
            let head = try simulator.headSHA(owner: "acme", name: "widgets")
            let check = try await run("commitsctl", ["check", "--db", db])
            #expect(check.status == 0)
            #expect(
                check.stdout == """
                    integrity: ok
                    foreign keys: ok
                    message index: ok
                    author counts: ok
                    tag containment: ok
                    paths: 800 commits without their changed paths yet (query -- PATH counts them as not covered; commitsctl sync --paths reads them)
                    acme/widgets@main: complete: 800 commits, head \(head.prefix(7)), every parent stored

                    """)
        }
    }

    @Test func checkSaysIncompleteAfterAnInterruptedSync() async throws {
        var configuration = SimConfiguration()
        configuration.authenticatedLimit = 5
        let (simulator, synced) = try await mirror(configuration: configuration)
        try await withRunning(simulator) { simulator in
            #expect(synced.status == 75)
            let check = try await run("commitsctl", ["check", "--db", db])
            #expect(check.status == 3, "\(check.stdout)")
            #expect(
                check.stdout.contains("acme/widgets@main: incomplete: 1 walk pending (an interrupted sync; the next sync resumes it)"),
                "\(check.stdout)")
            #expect(check.stderr.isEmpty)
        }
    }

    @Test func checkFindsDamage() async throws {
        let (simulator, synced) = try await mirror()
        try await withRunning(simulator) { simulator in
            #expect(synced.status == 0)
            do {
                let writer = try Connection(path: db)
                try writer.execute(
                    "DELETE FROM repository_commits WHERE commit_id = (SELECT id FROM commits ORDER BY committer_date LIMIT 1 OFFSET 400)")
                try writer.close()
            }
            let check = try await run("commitsctl", ["check", "--db", db])
            #expect(check.status == 1)
            #expect(check.stdout.contains("acme/widgets@main: DAMAGED: marked complete, but "), "\(check.stdout)")
            #expect(
                check.stderr
                    == "commitsctl: error: the store \(db) is damaged (see above); restore a backup (commitsctl backup) or sync into a new store\n"
            )
        }
    }
}
