import Foundation
import MirrorTestSupport
import SQLite
import Testing

/// Tags end to end: real commitsctl and github-sim processes over loopback, a real
/// SQLite file and a real PostgreSQL 15, each answer held against real git's on a
/// clone of the same repository: `tags` is `git tag`, `tags --contains` is
/// `git tag --contains`, `query A..B` is `git rev-list A..B`, `show`'s
/// "Included in" is the first of `git tag --contains --sort=creatordate`, and
/// `status` counts the tags. Then tags are moved, added and deleted on the server,
/// and a second sync agrees with git again while `tags --all` keeps the old places.
/// (Every tag here reaches only mirrored commits: commits that only a tag reaches
/// are not mirrored yet, docs/SYNC.md "Tags".)
@Suite struct TagsCLITests {
    enum Store: String, CaseIterable, Sendable { case sqlite, postgresql }

    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }

    /// Runs commitsctl against `db` with the simulator's token and API URL.
    struct Mirror {
        let db: String
        let sim: SimulatorProcess

        func run(_ arguments: [String]) async throws -> ProcessResult {
            let result = try await MirrorTestSupport.run(
                "commitsctl", [arguments[0], "--db", db] + arguments.dropFirst(),
                environment: ["GITHUB_TOKEN": "test-token", "GITHUB_API_URL": sim.baseURL])
            #expect(result.status == 0, "commitsctl \(arguments.joined(separator: " ")): \(result.stderr)")
            return result
        }
    }

    @Test(arguments: Store.allCases)
    func tagsRangesAndContainmentAreGitsBeforeAndAfterTagsMove(store: Store) async throws {
        let sim = try await SimulatorProcess.start(["--synthetic", "acme/widgets=400:7", "--synthetic-tags-every", "12"])
        defer { sim.stop() }
        let db = store == .sqlite ? directory.path("commits.sqlite") : try await PostgreSQLServer.shared().createDatabase()
        let mirror = Mirror(db: db, sim: sim)
        let synced = try await mirror.run(["sync", "acme/widgets"])
        #expect(!synced.stdout.contains("tags not read"), "\(synced.stdout)")
        let git = try await Self.clone(sim, into: directory.path("widgets-\(store.rawValue).git"))
        try await expectGitsAnswers(mirror, git: git)
        if store == .sqlite { try Self.expectCannedQueries(db, git: git) }

        // The server moves one tag, re-tags another with an annotation, deletes a third and adds one.
        let (head, older) = (try git.lines(["rev-parse", "main"])[0], try git.lines(["rev-parse", "main~30"])[0])
        let names = try git.lines(["tag"])
        let (moved, reannotated, deleted) = (names[1], names[2], names[3])
        try await sim.control("/_sim/repos/acme/widgets/tag?name=\(moved)&at=\(head)", method: "POST")
        try await sim.control("/_sim/repos/acme/widgets/tag?name=\(reannotated)&at=\(older)&message=Again", method: "POST")
        try await sim.control("/_sim/repos/acme/widgets/tag?name=\(deleted)", method: "DELETE")
        try await sim.control("/_sim/repos/acme/widgets/tag?name=fresh&at=\(older)", method: "POST")
        let again = try await mirror.run(["sync", "acme/widgets"])
        #expect(again.stdout.contains("acme/widgets@main: 0 new"), "\(again.stdout)")
        let refetched = try await Self.clone(sim, into: directory.path("widgets-\(store.rawValue)-after.git"))
        #expect(try refetched.lines(["tag"]).contains("fresh") && !refetched.lines(["tag"]).contains(deleted))
        try await expectGitsAnswers(mirror, git: refetched)

        // What the moved and deleted tags named is still answerable.
        let every = try await mirror.run(["tags", "--all", "--format", "ndjson"]).lines.map(Self.object)
        let ended = every.filter { !($0["ended_at"] is NSNull) }.compactMap { $0["name"] as? String }
        #expect(Set(ended) == [moved, reannotated, deleted], "\(ended)")
        let oldPlace = try git.lines(["rev-parse", "\(moved)^{commit}"])[0]
        #expect(every.contains { $0["name"] as? String == moved && $0["commit"] as? String == oldPlace })
    }

    /// Tags whose commits no mirrored branch reaches (here: tags past the head the sync saw):
    /// listed as git lists them, marked as not mirrored, and `tags --contains` answers what git
    /// does among the others while warning, in one line, that those are not known.
    @Test func tagsOfCommitsNoBranchReachesAreListedAndContainmentSaysItCannotJudgeThem() async throws {
        let sim = try await SimulatorProcess.start(["--synthetic", "acme/widgets=300:7", "--synthetic-tags-every", "12"])
        defer { sim.stop() }
        try await sim.control("/_sim/repos/acme/widgets/head?back=40", method: "POST")
        let mirror = Mirror(db: directory.path("commits.sqlite"), sim: sim)
        _ = try await mirror.run(["sync", "acme/widgets"])
        let git = try await Self.clone(sim, into: directory.path("widgets.git"))
        let unreached = try git.lines(["tag", "--no-merged", "main"])
        #expect(unreached.count >= 2)
        #expect(try await mirror.run(["tags", "--format", "oneline"]).lines == git.lines(["tag"]))
        let listed = try await mirror.run(["tags", "--format", "ndjson"]).lines.map(Self.object)
        #expect(listed.filter { $0["commit_mirrored"] as? Bool == false }.compactMap { $0["name"] as? String } == unreached)

        let sha = try git.lines(["rev-parse", "main~30"])[0]
        let contained = try await mirror.run(["tags", "--contains", String(sha.prefix(8)), "--format", "oneline"])
        #expect(contained.lines == (try git.lines(["tag", "--contains", sha, "--merged", "main"])))
        let warning = contained.stderr.split(separator: "\n")
        #expect(warning.count == 1, "\(contained.stderr)")
        #expect(
            warning.first?.hasPrefix("commitsctl: warning: acme/widgets: \(unreached.count) tags (\(unreached[0]), ") == true,
            "\(contained.stderr)")
        #expect(warning.first?.hasSuffix("so whether they contain \(sha.prefix(8)) is not known") == true)
    }

    /// `tags:` on repository entries: `false` never asks for the repository's tags (an idle
    /// sync costs the commits' 304 alone), a glob records only the tags it matches, and
    /// widening it to `true` lists the tags in full on the next sync although GitHub's
    /// listing has not changed; the others' tags are recorded as by default.
    @Test func aRepositorysEntryTurnsItsTagsOffOrNarrowsThemToAGlob() async throws {
        let sim = try await SimulatorProcess.start([
            "--synthetic", "acme/widgets=120:3", "--synthetic", "acme/gadgets=120:4", "--synthetic", "acme/gizmos=150:5",
            "--synthetic-tags-every", "10",
        ])
        defer { sim.stop() }
        func configure(gizmos: String) throws -> String {
            try directory.write(
                "config.yaml",
                """
                store: commits.sqlite
                api_url: \(sim.baseURL)
                repositories:
                  - name: acme/widgets
                    tags: false
                  - acme/gadgets
                  - name: acme/gizmos
                    tags: \(gizmos)
                """)
        }
        func sync(_ config: String) async throws -> [String] {
            let result = try await run("commitsctl", ["sync", "--config", config], environment: ["GITHUB_TOKEN": "test-token"])
            #expect(result.status == 0, "\(result.stderr)")
            return result.lines
        }
        func tagCounts(_ config: String) async throws -> [String: Int] {
            let status = try await run("commitsctl", ["status", "--config", config, "--format", "ndjson"]).lines.map(Self.object)
            return Dictionary(status.map { ($0["repository"] as? String ?? "", $0["repository_tags"] as? Int ?? -1) }) { $1 }
        }
        func gitTags(_ repository: String) throws -> [String] {
            try Self.git(["ls-remote", "--tags", sim.baseURL + "/acme/\(repository).git"]).filter { !$0.hasSuffix("^{}") }
                .map { String($0.split(separator: "\t")[1].dropFirst("refs/tags/".count)) }
        }
        let (gadgets, gizmos) = (try gitTags("gadgets"), try gitTags("gizmos"))
        let narrowed = gizmos.filter { fnmatch("v1.1*", $0, 0) == 0 }
        #expect(gadgets.count >= 10 && narrowed.count >= 2 && narrowed.count < gizmos.count)
        let glob = try configure(gizmos: "'v1.1*'")
        let first = try await sync(glob)
        #expect(try await tagCounts(glob) == ["acme/widgets": 0, "acme/gadgets": gadgets.count, "acme/gizmos": narrowed.count])
        let listed = try await run("commitsctl", ["tags", "--config", glob, "--repo", "acme/gizmos", "--format", "oneline"])
        #expect(listed.lines == narrowed.sorted(), "\(first)")
        let again = try await sync(glob)
        #expect(again.contains { $0.hasPrefix("acme/widgets@main: 0 new, 0 updated, 1 request (1 not modified),") }, "\(again)")
        #expect(again.contains { $0.hasPrefix("acme/gadgets@main: 0 new, 0 updated, 2 requests (2 not modified),") }, "\(again)")
        #expect(again.contains { $0.hasPrefix("acme/gizmos@main: 0 new, 0 updated, 2 requests (2 not modified),") }, "\(again)")

        // Widened: the unchanged listing is asked for in full, once.
        let every = try configure(gizmos: "true")
        let widened = try await sync(every)
        #expect(widened.contains { $0.hasPrefix("acme/gizmos@main: 0 new, 0 updated, ") && !$0.contains("(2 not modified)") }, "\(widened)")
        #expect(try await tagCounts(every)["acme/gizmos"] == gizmos.count)
        let idle = try await sync(every)
        #expect(idle.contains { $0.hasPrefix("acme/gizmos@main: 0 new, 0 updated, 2 requests (2 not modified),") }, "\(idle)")
    }

    /// Every answer the store gives about tags, against git's on `git`, a clone of the same repository.
    func expectGitsAnswers(_ mirror: Mirror, git: BareClone) async throws {
        let gitTags = try git.lines(["tag"])
        #expect(gitTags.count > 20)
        #expect(try await mirror.run(["tags", "--format", "oneline"]).lines == gitTags)
        let status = try await mirror.run(["status", "--format", "ndjson"]).lines.map(Self.object)
        #expect(status.first?["repository_tags"] as? Int == gitTags.count, "\(status)")

        let commits = try git.lines(["rev-list", "--first-parent", "main"])
        for sha in stride(from: 5, to: commits.count, by: 37).map({ commits[$0] }) {
            let containing = try git.lines(["tag", "--contains", sha])
            let listed = try await mirror.run(["tags", "--contains", String(sha.prefix(10)), "--format", "oneline"]).lines
            #expect(listed == containing, "git tag --contains \(sha)")
            let earliest = try git.lines(["tag", "--contains", sha, "--sort=creatordate"]).first
            let shown = try await mirror.run(["show", sha]).stdout
            if let earliest {
                #expect(shown.contains("Included in: acme/widgets: \(earliest)\n"), "show \(sha): \(shown)")
            } else {
                #expect(!shown.contains("Included in"), "show \(sha): \(shown)")
            }
        }
        let byDate = try git.lines(["tag", "--sort=creatordate"])
        for (a, b) in zip(byDate, byDate.dropFirst()).enumerated().filter({ $0.offset % 5 == 0 }).map(\.element) {
            for range in [["\(a)..\(b)"], ["\(b)...\(a)"], ["^\(a)", "\(b)~2"]] {
                let expected = Set(try git.lines(["rev-list"] + range))
                let listed = try await mirror.run(["query"] + range + ["--format", "ndjson"]).lines.map(Self.object)
                #expect(Set(listed.compactMap { $0["sha"] as? String }) == expected, "git rev-list \(range)")
                #expect(listed.count == expected.count, "each commit once: \(range)")
            }
        }
    }

    /// Datasette's canned queries (docs/datasette-metadata.json) run on the store as Datasette runs
    /// them: every one prepares against the schema, and the tags ones answer what git does.
    static func expectCannedQueries(_ db: String, git: BareClone) throws {
        let url = PackagePaths.packageRoot.appendingPathComponent("docs/datasette-metadata.json")
        let metadata = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any]
        let database = (metadata?["databases"] as? [String: Any])?["commits"] as? [String: Any]
        let queries = try #require(database?["queries"] as? [String: [String: String]])
        let connection = try Connection(path: db, mode: .readOnly)
        func rows(_ name: String, _ value: String) throws -> [[String]] {
            let statement = try connection.prepare(try #require(queries[name]?["sql"], "\(name)"))
            let bound = try statement.bind(Array(repeating: value, count: statement.parameterCount))
            return try bound.map { row in (0..<row.columnCount).map { row.optionalString($0) ?? "" } }
        }
        for name in queries.keys.sorted() { _ = try rows(name, "a") }
        let listed = try rows("tags", "ACME/widg")
        let tags = try git.lines(["tag"])
        #expect(Set(listed.map { $0[1] }) == Set(tags) && listed.count == tags.count)
        #expect(listed.map { $0[2] } == listed.map { $0[2] }.sorted(by: >), "newest first")
        let commits = try git.lines(["rev-list", "--first-parent", "main"])
        for sha in stride(from: 3, to: commits.count, by: 53).map({ commits[$0] }) {
            let earliest = try git.lines(["tag", "--contains", sha, "--sort=creatordate"]).first
            let released = try rows("release_of_commit", String(sha.prefix(9)).uppercased()).map { $0[2] }
            #expect(released == (earliest.map { [$0] } ?? []), "\(sha)")
        }
        #expect(try rows("moved_and_deleted_tags", "").isEmpty)
    }

    static func object(_ line: String) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] ?? [:]
    }

    /// A bare, commits-only clone of the simulator's acme/widgets with real git.
    struct BareClone {
        let path: String

        func lines(_ arguments: [String]) throws -> [String] { try TagsCLITests.git(["-C", path] + arguments) }
    }

    static func clone(_ sim: SimulatorProcess, into path: String) async throws -> BareClone {
        _ = try git(["clone", "--quiet", "--bare", "--filter=tree:0", sim.baseURL + "/acme/widgets.git", path])
        return BareClone(path: path)
    }

    /// git's output lines, with no configuration of the machine's or the user's.
    static func git(_ arguments: [String]) throws -> [String] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/git")
        process.arguments = arguments
        process.environment = ["PATH": "/usr/bin:/bin", "HOME": "/nonexistent", "GIT_CONFIG_NOSYSTEM": "1", "GIT_TERMINAL_PROMPT": "0"]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "git \(arguments.joined(separator: " "))")
        return String(decoding: output, as: UTF8.self).split(separator: "\n").map(String.init)
    }
}
