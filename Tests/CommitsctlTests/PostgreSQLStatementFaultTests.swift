import Foundation
import GitHubSim
import MirrorTestSupport
import PostgreSQL
import Testing

/// A statement PostgreSQL cancels (`statement_timeout`), or a server disk that
/// fills, in the middle of a sync: one line that names it and what to do, the
/// batch rolled back whole, what was stored before untouched, the next sync exact.
@Suite struct PostgreSQLStatementFaultTests {
    static func shas(_ connection: PostgreSQLConnection, repository: String) throws -> Set<String> {
        let rows = try connection.execute(
            """
            SELECT c.sha FROM commits c JOIN repository_commits rc ON rc.commit_id = c.id
            JOIN repositories r ON r.id = rc.repository_id WHERE r.full_name = $1
            """, [repository])
        return Set((0..<rows.count).compactMap { rows.string($0, 0) })
    }

    @Test func aCancelledStatementIsOneLineAndChangesNothingStored() async throws {
        let uri = try await PostgreSQLServer.shared().createDatabase()
        try await withRunning(startSimulator([("kept", 300), ("blocked", 700)])) { simulator in
            let environment = ["GITHUB_TOKEN": "t"]
            let first = try await run(
                "commitsctl", ["sync", "acme/kept", "--db", uri, "--api-url", simulator.baseURL], environment: environment)
            #expect(first.status == 0, "\(first.stderr)")
            let kept = try Self.shas(PostgreSQLConnection(uri: uri), repository: "acme/kept")
            #expect(kept == (try simulator.reachableSHAs(owner: "acme", name: "kept")))

            // Another session holds the change counter, so the sync's first page
            // waits on it until its statement_timeout (set as any operator would, PGOPTIONS) cancels it.
            let holder = try PostgreSQLConnection(uri: uri)
            try holder.execute("BEGIN")
            try holder.execute("LOCK TABLE change_counter IN ACCESS EXCLUSIVE MODE")
            let cancelled = try await run(
                "commitsctl", ["sync", "acme/blocked", "--db", uri, "--api-url", simulator.baseURL, "--no-git-bootstrap"],
                environment: environment.merging(["PGOPTIONS": "-c statement_timeout=1500"]) { _, new in new })
            try holder.execute("ROLLBACK")
            #expect(cancelled.status != 0)
            let lines = cancelled.stderr.split(separator: "\n")
            #expect(lines.count == 1, "\(cancelled.stderr)")
            #expect(cancelled.stderr.contains("statement_timeout"), "\(cancelled.stderr)")
            #expect(!cancelled.stderr.contains("SELECT") && !cancelled.stderr.contains("INSERT"), "\(cancelled.stderr)")

            let observer = try PostgreSQLConnection(uri: uri)
            #expect(try Self.shas(observer, repository: "acme/kept") == kept)
            #expect(try Self.shas(observer, repository: "acme/blocked").isEmpty)
            let again = try await run(
                "commitsctl", ["sync", "acme/blocked", "--db", uri, "--api-url", simulator.baseURL], environment: environment)
            #expect(again.status == 0, "\(again.stderr)")
            #expect(try Self.shas(observer, repository: "acme/blocked") == (try simulator.reachableSHAs(owner: "acme", name: "blocked")))
            let check = try await run("commitsctl", ["check", "--db", uri])
            #expect(check.status == 0, "\(check.stdout) \(check.stderr)")
        }
    }

    /// A real ENOSPC on the server: the mirror's tables in a tablespace on a small
    /// tmpfs (mounting needs root, as in CI; the SQLite twin is in StorageFaultCLITests).
    @Test(.enabled(if: StorageFaultCLITests.canMountTmpfs, "needs root to mount a tmpfs"))
    func aFullServerDiskIsOneLineAndChangesNothingStored() async throws {
        let server = try await PostgreSQLServer.start()
        let uri = try server.createDatabase()
        let database = String(uri.split(separator: "/").last!)
        // Under /tmp itself: the server's user (nobody, under root) must reach it.
        let mount = "/tmp/cm-pg-full-\(getpid())-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: mount, withIntermediateDirectories: true)
        #expect(try await runProgram("/bin/mount", ["-t", "tmpfs", "-o", "size=2m", "tmpfs", mount]).status == 0)
        defer {
            _ = try? runProgramBlocking("/bin/umount", ["-l", mount])
            try? FileManager.default.removeItem(atPath: mount)
        }
        #expect(try await runProgram("/bin/chown", ["nobody:nogroup", mount]).status == 0)
        // Identifiers cannot be bound; both are ours.
        try server.execute("CREATE TABLESPACE small LOCATION '\(mount)'")
        try server.execute("ALTER DATABASE \(database) SET default_tablespace = small")

        try await withRunning(startSimulator([("kept", 200), ("large", 6_000)])) { simulator in
            let environment = ["GITHUB_TOKEN": "t"]
            let first = try await run(
                "commitsctl", ["sync", "acme/kept", "--db", uri, "--api-url", simulator.baseURL], environment: environment)
            #expect(first.status == 0, "\(first.stderr)")
            let kept = try Self.shas(PostgreSQLConnection(uri: uri), repository: "acme/kept")
            #expect(kept.count == 200)

            let full = try await run(
                "commitsctl", ["sync", "acme/large", "--db", uri, "--api-url", simulator.baseURL], environment: environment)
            #expect(full.status != 0)
            #expect(full.stderr.split(separator: "\n").count == 1, "\(full.stderr)")
            #expect(full.stderr.contains("53100") && full.stderr.contains("free disk space"), "\(full.stderr)")
            #expect(try Self.shas(PostgreSQLConnection(uri: uri), repository: "acme/kept") == kept)

            #expect(try await runProgram("/bin/mount", ["-o", "remount,size=128m", mount]).status == 0)
            let again = try await run(
                "commitsctl", ["sync", "acme/large", "--db", uri, "--api-url", simulator.baseURL], environment: environment)
            #expect(again.status == 0, "\(again.stderr)")
            #expect(
                try Self.shas(PostgreSQLConnection(uri: uri), repository: "acme/large")
                    == (try simulator.reachableSHAs(owner: "acme", name: "large")))
            let check = try await run("commitsctl", ["check", "--db", uri])
            #expect(check.status == 0, "\(check.stdout) \(check.stderr)")
        }
        try server.execute("DROP DATABASE \(database) WITH (FORCE)")
        try server.execute("DROP TABLESPACE small")
    }
}
