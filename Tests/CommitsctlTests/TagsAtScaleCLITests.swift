import Foundation
import MirrorTestSupport
import PostgreSQL
import SQLite
import Testing

/// Over 300 tags (lightweight and annotated, some on side commits, one moved and one
/// deleted on the server after the first sync) on a generated history mirrored by real
/// commitsctl into a real SQLite file and a real PostgreSQL 15: every stored commit's
/// earliest containing tag is the first of real git's `git tag --contains SHA
/// --sort=creatordate`, and ranges between 30 and more pairs of tags (`A..B`, `B...A`,
/// `^A B~2`, `^A M^2` for merges M) list what `git rev-list` lists.
@Suite struct TagsAtScaleCLITests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }

    @Test(arguments: TagsCLITests.Store.allCases)
    func everyCommitsEarliestTagAndThirtyRangesAreGitsAfterATagMovesAndAnotherIsDeleted(store: TagsCLITests.Store) async throws {
        let sim = try await SimulatorProcess.start(["--synthetic", "acme/widgets=3700:9", "--synthetic-tags-every", "10"])
        defer { sim.stop() }
        let db = store == .sqlite ? directory.path("commits.sqlite") : try await PostgreSQLServer.shared().createDatabase()
        let mirror = TagsCLITests.Mirror(db: db, sim: sim)
        _ = try await mirror.run(["sync", "acme/widgets"])
        let first = try await TagsCLITests.clone(sim, into: directory.path("first.git"))
        let names = try first.lines(["tag"])
        #expect(names.count >= 300, "\(names.count) tags")
        let (head, moved, deleted) = (try first.lines(["rev-parse", "main"])[0], names[7], names[11])
        try await sim.control("/_sim/repos/acme/widgets/tag?name=\(moved)&at=\(head)", method: "POST")
        try await sim.control("/_sim/repos/acme/widgets/tag?name=\(deleted)", method: "DELETE")
        _ = try await mirror.run(["sync", "acme/widgets"])
        let git = try await TagsCLITests.clone(sim, into: directory.path("after.git"))
        #expect(try git.lines(["tag"]).count == names.count - 1)

        let stored = try Self.earliestTags(db, store: store)
        let expected = try Self.gitsEarliestTags(git)
        #expect(stored.count == expected.count && stored.count > 3_000, "\(stored.count) of \(expected.count) commits")
        #expect(stored.filter { expected[$0.key] != $0.value }.isEmpty, "commits whose earliest tag is not git's")
        try await expectCheckSeesContainmentGoStale(mirror, store: store)

        let byDate = try git.lines(["tag", "--sort=creatordate"])
        let merges = try git.lines(["rev-list", "--merges", "main"])
        var pairs = 0
        for (index, (a, b)) in zip(byDate, byDate.dropFirst()).enumerated() where index % 9 == 0 {
            pairs += 1
            let merge = merges[index % merges.count]
            for range in [["\(a)..\(b)"], ["\(b)...\(a)"], ["^\(a)", "\(b)~2"], ["^\(a)", "\(merge)^2"]] {
                let listed = try await mirror.run(["query"] + range + ["--format", "ndjson"]).lines.map(TagsCLITests.object)
                let shas = listed.compactMap { $0["sha"] as? String }
                #expect(Set(shas) == Set(try git.lines(["rev-list"] + range)) && shas.count == Set(shas).count, "\(range)")
            }
        }
        #expect(pairs >= 30)
    }

    /// `check` finds the containment exact, then counts the commit whose row is dropped behind its back.
    private func expectCheckSeesContainmentGoStale(_ mirror: TagsCLITests.Mirror, store: TagsCLITests.Store) async throws {
        #expect(try await mirror.run(["check"]).stdout.contains("\ntag containment: ok\n"))
        let drop = "DELETE FROM tag_containment WHERE commit_id = (SELECT max(commit_id) FROM tag_containment)"
        switch store {
        case .sqlite: try Connection(path: mirror.db).execute(drop)
        case .postgresql: _ = try PostgreSQLConnection(uri: mirror.db).execute(drop)
        }
        let check = try await mirror.run(["check"]).stdout
        #expect(check.contains("\ntag containment: 1 commit not up to date with the tags"), "\(check)")
    }

    /// The store's earliest containing tag of every commit, by sha.
    static func earliestTags(_ db: String, store: TagsCLITests.Store) throws -> [String: String] {
        let sql = "SELECT c.sha, t.name FROM tag_containment tc JOIN commits c ON c.id = tc.commit_id JOIN tags t ON t.id = tc.tag_id"
        let rows: [[String?]]
        switch store {
        case .sqlite:
            let connection = try Connection(path: db, mode: .readOnly)
            rows = try connection.prepare(sql).map { [$0.optionalString(0), $0.optionalString(1)] }
        case .postgresql:
            rows = try PostgreSQLConnection(uri: db).execute(sql).rows
        }
        return Dictionary(rows.compactMap { row in row[0].flatMap { sha in row[1].map { (sha, $0) } } }) { first, _ in first }
    }

    /// git's answer for every commit a tag reaches: the first tag of `--sort=creatordate` containing it.
    static func gitsEarliestTags(_ git: TagsCLITests.BareClone) throws -> [String: String] {
        var earliest: [String: String] = [:]
        for tag in try git.lines(["tag", "--sort=creatordate"]) {
            for sha in try git.lines(["rev-list", tag]) where earliest[sha] == nil { earliest[sha] = tag }
        }
        return earliest
    }
}
