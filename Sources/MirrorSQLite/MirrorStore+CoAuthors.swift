import Foundation
import MirrorBookkeeping
import MirrorCore
import SQLite

/// The co-authors a `Commit` credits (`Commit.coAuthors`), kept in `commit_coauthors`.
extension MirrorStore {
    /// Replaces the commit's co-authors with `people`
    /// (`isNew`: the commit was just inserted, so it has none to replace).
    func recordCoAuthors(_ people: [Identity], commitID: Int64, isNew: Bool = false) throws {
        try Self.recordCoAuthors(people, commitID: commitID, isNew: isNew, in: db)
    }

    static func recordCoAuthors(_ people: [Identity], commitID: Int64, isNew: Bool = false, in db: Connection) throws {
        if !isNew { try db.cachedStatement("DELETE FROM commit_coauthors WHERE commit_id = ?").bind([commitID]).run() }
        guard !people.isEmpty else { return }
        let identity = try db.cachedStatement(
            """
            INSERT INTO authors (name, email, login, search_text) VALUES (?, ?, NULL, ?)
            ON CONFLICT (name, email) DO UPDATE SET name = excluded.name
            RETURNING id
            """)
        let insert = try db.cachedStatement("INSERT INTO commit_coauthors (commit_id, position, author_id) VALUES (?, ?, ?)")
        for (position, person) in people.enumerated() {
            let searchText = AuthorSearch.searchText(name: person.name, email: person.email)
            guard let id = try identity.bind([person.name, person.email, searchText]).first({ $0.int64(0) }) else { continue }
            try insert.bind([commitID, position, id]).run()
        }
    }

    /// Migration 4: stores made before it get their co-authors.
    @Sendable static func backfillCoAuthors(_ db: Connection) throws {
        let commits = try db.prepare(
            """
            SELECT id, message FROM commits WHERE instr(lower(message), 'co-authored-by:') > 0 ORDER BY id
            """
        ).map { (id: $0.int64(0), message: $0.string(1)) }
        for commit in commits {
            try recordCoAuthors(CoAuthorTrailers.parse(commit.message), commitID: commit.id, in: db)
        }
    }
}
