import Foundation
import MirrorTestSupport
import PostgreSQL
import SQLite
import Testing

/// Issue #26: the reading commands on a PostgreSQL store print byte for byte
/// what they print from a SQLite store holding the same history. One github-sim
/// serves both syncs; the two stores are then asked the same questions.
@Suite(.serialized) struct PostgreSQLReadParityTests {
    /// Two stores synced from one simulator: a SQLite file and a PostgreSQL database.
    struct Stores {
        let sqlite: String
        let postgreSQL: String
        let server: PostgreSQLServer
        let directory: TemporaryDirectory

        /// `commitsctl ARGS --db STORE` on both; the same status and stdout from each.
        func expectSameOutput(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) async throws {
            let fromSQLite = try await commitsctl(arguments + ["--db", sqlite], columns: 200)
            let fromPostgreSQL = try await commitsctl(arguments + ["--db", postgreSQL], columns: 200)
            #expect(fromSQLite.status == 0, "\(arguments): \(fromSQLite.stderr)", sourceLocation: sourceLocation)
            #expect(fromPostgreSQL.status == fromSQLite.status, "\(arguments): \(fromPostgreSQL.stderr)", sourceLocation: sourceLocation)
            #expect(fromPostgreSQL.stdout == fromSQLite.stdout, "\(arguments)", sourceLocation: sourceLocation)
        }
    }

    /// Syncs `repositories` from a simulator started with `simulator` into both stores.
    /// With `icuCollation`, the database's default collation is ICU's en-US rather than
    /// the test server's C: ordering, lower() and ILIKE differ there, the output may not.
    static func syncBoth(_ simulator: [String], repositories: [String], icuCollation: Bool = false) async throws -> (
        Stores, SimulatorProcess
    ) {
        let directory = try TemporaryDirectory()
        let server = try await PostgreSQLServer.shared()
        var uri = try server.createDatabase()
        if icuCollation {
            let name = "t_icu_" + UUID().uuidString.prefix(8).lowercased()
            try server.execute("CREATE DATABASE \(name) LOCALE_PROVIDER icu ICU_LOCALE 'en-US' TEMPLATE template0")
            uri = server.uri(database: name)
        }
        let stores = Stores(sqlite: directory.path("commits.sqlite"), postgreSQL: uri, server: server, directory: directory)
        let sim = try await SimulatorProcess.start(simulator)
        for store in [stores.sqlite, stores.postgreSQL] {
            for repository in repositories {
                let sync = try await run(
                    "commitsctl", ["sync", repository, "--db", store, "--api-url", sim.baseURL],
                    environment: ["GITHUB_TOKEN": "test-token"])
                #expect(sync.status == 0, "\(store): \(sync.stderr)")
            }
        }
        try copyClockReadings(from: stores.sqlite, to: stores)
        return (stores, sim)
    }

    /// The two syncs ran seconds apart against one rate limit: the times and the
    /// remaining requests they recorded (and a removal's time) differ by nature. The SQLite store's
    /// readings are written into the PostgreSQL store, so the two hold the same
    /// state and every other field is the stores' own.
    static func copyClockReadings(from path: String, to stores: Stores) throws {
        let database = String(stores.postgreSQL.split(separator: "/").last!)
        let sqlite = try Connection(path: path, mode: .readOnly)
        let states = try sqlite.prepare(
            """
            SELECT r.full_name, s.branch, s.last_attempt_at, s.last_success_at, s.rate_limit_remaining, s.rate_limit_reset_at
            FROM sync_state s JOIN repositories r ON r.id = s.repository_id
            """
        ).map { row in (0..<6).map { row.optionalString($0) as any PostgreSQLBindable } }
        for state in states {
            try stores.server.execute(
                """
                UPDATE sync_state s SET last_attempt_at = $3, last_success_at = $4, rate_limit_remaining = $5::integer,
                    rate_limit_reset_at = $6
                FROM repositories r WHERE r.id = s.repository_id AND r.full_name = $1 AND s.branch = $2
                """, database: database, state)
        }
        // A removal's time, too (`repos remove` ran on each store in turn).
        let changes = try sqlite.prepare("SELECT full_name, state_changed_at FROM repositories")
            .map { row in (0..<2).map { row.optionalString($0) as any PostgreSQLBindable } }
        for change in changes {
            try stores.server.execute(
                "UPDATE repositories SET state_changed_at = $2 WHERE full_name = $1", database: database, change)
        }
        try stores.server.execute("DELETE FROM request_counts", database: database)
        let counts = try sqlite.prepare("SELECT token, minute, kind, requests, not_modified, points FROM request_counts")
            .map { row in (0..<6).map { row.optionalString($0) as any PostgreSQLBindable } }
        for count in counts {
            try stores.server.execute(
                "INSERT INTO request_counts VALUES ($1, $2, $3, $4::integer, $5::integer, $6::integer)", database: database, count)
        }
    }

    /// Needles for `--grep`: ASCII, non-ASCII (one, two and more scalars), LIKE's
    /// and regular expressions' special characters, and ones that match nothing.
    static let needles = [
        "fix", "FIX", "Typo", "se-0", "proposal", "the", "ÉCOLE", "é", "É", "ß", "Ω", "ω", "😀", "🎉", "%", "_", "\\",
        "\\d", "ab", "zoë", "ZOË", "naïve", "NAÏVE", "日本語", "—", "“smart", "MERCI", "søren", "(ä, ø, ß)", "'", "\"",
        "[", "a.b", "*", "C:\\Users", "^", "$", "s", "k", "ë", "YILDIZ", "yıldız", "ÖMER", "Ł", "co-authored-by: ",
    ]

    static func queries(author: String, committer: String, coAuthor: String, repository: String) -> [[String]] {
        var queries: [[String]] = [
            [], ["--author", author], ["--author", author.uppercased()], ["--committer", committer],
            ["--co-author", coAuthor], ["--since", "2019-01-01", "--until", "2022-06-30"], ["--merges"], ["--no-merges"],
            ["-n", "50"], ["--limit", "7", "--no-merges", "--author", "a"], ["--format", "json", "-n", "40"],
            ["--format", "ndjson", "--merges"], ["--format", "csv", "--author", author], ["--repo", repository],
            ["--repo", repository, "-n", "30", "--format", "json"], ["--reverse", "-n", "25"],
            ["--grep", "fix", "--grep", "typo"], ["--grep", "fix", "--grep", "the", "--all-match"],
            ["--grep", "fix", "--invert-grep", "-n", "60"], ["--grep", "", "--grep", "fix", "--all-match"],
            ["--grep", "", "--invert-grep"], ["--author", "no such person at all"], ["--include-rewritten", "-n", "20"],
            ["--format", "table", "-n", "15"], ["-n", "0"], ["--author", "ÖMER"], ["--author", "ł", "--co-author", "É"],
            ["--branch", "*", "-n", "40"], ["--branch", "*", "--repo", repository, "--format", "json", "-n", "20"],
        ]
        queries += needles.map { ["--grep", $0, "--format", "ndjson"] }
        return queries
    }

    static func expectSameReads(_ stores: Stores, author: String, committer: String, coAuthor: String, repository: String)
        async throws
    {
        for query in queries(author: author, committer: committer, coAuthor: coAuthor, repository: repository) {
            try await stores.expectSameOutput(["query"] + query)
        }
        for command in [["status"], ["status", "--json"], ["status", "--requests"], ["repos"], ["repos", "--format", "json"]] {
            try await stores.expectSameOutput(command)
        }
        for command in [
            ["check"], ["stats"], ["stats", "--format", "json"], ["stats", "--repo", repository], ["authors"],
            ["authors", "--format", "csv"],
            ["authors", "--repo", repository, "--top", "10", "--format", "json"],
        ] {
            try await stores.expectSameOutput(command)
        }
        // show: the newest commits, merges and co-authored ones, by short sha and by a 4-digit prefix.
        var shas: [String] = []
        for query in [["-n", "3"], ["--merges", "-n", "2"], ["--co-author", coAuthor, "-n", "2"]] {
            shas += try await commitsctl(["query"] + query + ["--db", stores.sqlite]).lines.map { String($0.prefix(7)) }
        }
        #expect(shas.count >= 5)
        for sha in shas {
            try await stores.expectSameOutput(["show", sha])
            try await stores.expectSameOutput(["show", sha, "--format", "json"])
        }
        for prefix in shas.map({ String($0.prefix(4)) }) {
            let fromSQLite = try await commitsctl(["show", prefix, "--db", stores.sqlite])
            let fromPostgreSQL = try await commitsctl(["show", prefix, "--db", stores.postgreSQL])
            #expect(fromPostgreSQL.status == fromSQLite.status && fromPostgreSQL.stdout == fromSQLite.stdout, "show \(prefix)")
            #expect(fromPostgreSQL.stderr == fromSQLite.stderr, "show \(prefix)")
        }
    }

    /// A synthetic history with merges, co-authors and non-ASCII text, in a database
    /// whose collation is not C: always runs.
    @Test func syntheticHistoryReadsTheSameFromBothStores() async throws {
        let (stores, sim) = try await Self.syncBoth(
            ["--synthetic", "acme/widgets=700:11", "--synthetic", "acme/gadgets=300:5"],
            repositories: ["acme/widgets", "acme/gadgets"], icuCollation: true)
        defer { sim.stop() }
        // The grep needles must find something in this history, or the comparison proves little.
        let found = try await commitsctl(["query", "--grep", "ë", "--db", stores.sqlite]).lines.count
        let coAuthored = try await commitsctl(["query", "--co-author", "e", "--db", stores.sqlite]).lines.count
        #expect(found > 0 && coAuthored > 0)
        let first = try #require(
            try await commitsctl(["query", "-n", "1", "--format", "json", "--db", stores.sqlite]).stdout.data(using: .utf8))
        let commit = try #require((try JSONSerialization.jsonObject(with: first) as? [[String: Any]])?.first)
        let author = try #require(commit["author_name"] as? String)
        let committer = try #require(commit["committer_name"] as? String)
        let email = try #require(commit["author_email"] as? String)
        try await Self.expectSameReads(stores, author: author, committer: committer, coAuthor: "e", repository: "acme/gadgets")
        // A mailmap merges the author's identity into a person of another name.
        let mailmap = try stores.directory.write("mailmap", "Mapped Person <mapped@example.com> <\(email.uppercased())>\n")
        for query in [["--author", "mapped person"], ["--co-author", "MAPPED", "--format", "csv"], ["--author", "ö", "--author", "Ç"]] {
            try await stores.expectSameOutput(["query", "--mailmap", mailmap] + query)
        }
        try await stores.expectSameOutput(["authors", "--mailmap", mailmap, "--format", "json"])
        let mapped = try await commitsctl(["query", "--author", "mapped person", "-n", "1", "--mailmap", mailmap, "--db", stores.sqlite])
        try await stores.expectSameOutput(["show", String(mapped.stdout.prefix(7)), "--mailmap", mailmap])
    }

    /// `query --follow` on each store prints the same commits, in the same order,
    /// when the same new commits arrive in both.
    @Test func followPrintsTheSameArrivalsFromBothStores() async throws {
        let directory = try TemporaryDirectory()
        let server = try await PostgreSQLServer.shared()
        let stores = [directory.path("commits.sqlite"), try server.createDatabase()]
        let sim = try await SimulatorProcess.start(["--synthetic", "acme/widgets=500:4"])
        defer { sim.stop() }
        _ = try await sim.control("/_sim/repos/acme/widgets/head?back=40", method: "POST")
        func syncBoth() async throws {
            for store in stores {
                let sync = try await run(
                    "commitsctl", ["sync", "acme/widgets", "--db", store, "--api-url", sim.baseURL],
                    environment: ["GITHUB_TOKEN": "test-token"])
                #expect(sync.status == 0, "\(store): \(sync.stderr)")
            }
        }
        try await syncBoth()
        let filter = ["query", "--no-merges", "--format", "ndjson"]
        let before = try await commitsctl(filter + ["--db", stores[0]]).lines
        var followers: [(ChildProcess, FollowTests.LineCollector)] = []
        defer { for (follower, _) in followers { follower.kill() } }
        for store in stores {
            let follower = try ChildProcess(
                product: "commitsctl", filter + ["--follow", "--db", store], environment: ["TZ": "UTC"], stdout: .pipe)
            let collector = FollowTests.LineCollector()
            follower.output!.readabilityHandler = { collector.append($0.availableData) }
            followers.append((follower, collector))
        }
        for (_, collector) in followers {
            #expect(await collector.lines(count: before.count, until: Date().addingTimeInterval(30)) == before)
        }
        _ = try await sim.control("/_sim/repos/acme/widgets/head?forward=40", method: "POST")
        try await syncBoth()
        let after = try await commitsctl(filter + ["--db", stores[0]]).lines
        let new = after.filter { !before.contains($0) }
        #expect(!new.isEmpty)
        for (_, collector) in followers {
            let printed = await collector.lines(count: before.count + new.count, until: Date().addingTimeInterval(10))
            #expect(Array(printed.dropFirst(before.count)) == new)
        }
    }

    /// A database that holds no store: each reading command says so in one line,
    /// and creates nothing (readers never migrate).
    @Test func aDatabaseWithoutAStoreIsOneLineAndStaysEmpty() async throws {
        let server = try await PostgreSQLServer.shared()
        let uri = try server.createDatabase()
        for command in [["query"], ["status"], ["repos"]] {
            let result = try await commitsctl(command + ["--db", uri])
            #expect(result.status == 1, "\(command): \(result.stderr)")
            #expect(
                result.stderr
                    == "commitsctl: error: no store at \(uri); run `commitsctl sync OWNER/REPO` first, or point --db / $COMMITS_DB at an existing store\n",
                "\(command)")
        }
        let tables = try server.execute(
            "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'", database: String(uri.split(separator: "/").last!))
        #expect(tables == [["0"]])
    }

    /// A branch marked complete whose history lost its head: `check` reports the
    /// same damage from both stores, and fails.
    @Test func checkFindsTheSameDamageInBothStores() async throws {
        let (stores, sim) = try await Self.syncBoth(["--synthetic", "acme/widgets=120:3"], repositories: ["acme/widgets"])
        defer { sim.stop() }
        let oldest = try #require(
            try await commitsctl(["query", "--reverse", "-n", "1", "--format", "json", "--db", stores.sqlite]).stdout
                .data(using: .utf8))
        let sha = try #require((try JSONSerialization.jsonObject(with: oldest) as? [[String: Any]])?.first?["sha"] as? String)
        let forget = "DELETE FROM repository_commits WHERE commit_id = (SELECT id FROM commits WHERE sha = $1)"
        try Connection(path: stores.sqlite).execute(forget.replacingOccurrences(of: "$1", with: "?"), [sha])
        try stores.server.execute(forget, database: String(stores.postgreSQL.split(separator: "/").last!), [sha])
        let fromSQLite = try await commitsctl(["check", "--db", stores.sqlite])
        let fromPostgreSQL = try await commitsctl(["check", "--db", stores.postgreSQL])
        #expect(fromSQLite.status == 1 && fromSQLite.stdout.contains("DAMAGED"), "\(fromSQLite.stdout)")
        #expect(fromPostgreSQL.status == fromSQLite.status)
        #expect(fromPostgreSQL.stdout == fromSQLite.stdout)
        #expect(
            fromPostgreSQL.stderr.replacingOccurrences(of: stores.postgreSQL, with: "STORE")
                == fromSQLite.stderr.replacingOccurrences(of: stores.sqlite, with: "STORE"))
    }

    /// The real swift-evolution history, when ../shared has it.
    @Test(
        .enabled(
            if: PackagePaths.hasDataset,
            "../shared/datasets/swift-evolution.commits.jsonl.gz not present: skipping the real-data parity test"))
    func swiftEvolutionReadsTheSameFromBothStores() async throws {
        let (stores, sim) = try await Self.syncBoth(
            ["--dataset", "swiftlang/swift-evolution=\(PackagePaths.swiftEvolutionDataset)"],
            repositories: ["swiftlang/swift-evolution"])
        defer { sim.stop() }
        let joe = try await commitsctl(["query", "--author", "Joe Groff", "--db", stores.sqlite]).lines.count
        #expect(joe > 0)
        try await Self.expectSameReads(
            stores, author: "Joe Groff", committer: "GitHub", coAuthor: "a", repository: "swiftlang/swift-evolution")
        #expect(try await commitsctl(["query", "--db", stores.postgreSQL]).lines.count == 7_807)
        // The second sync into PostgreSQL: the commits' and the tags' conditional requests, both answered 304.
        let again = try await run(
            "commitsctl", ["sync", "swiftlang/swift-evolution", "--db", stores.postgreSQL, "--api-url", sim.baseURL],
            environment: ["GITHUB_TOKEN": "test-token"])
        #expect(again.stdout.contains("0 new, 0 updated, 2 requests (2 not modified)"), "\(again.stdout) \(again.stderr)")
    }
}
