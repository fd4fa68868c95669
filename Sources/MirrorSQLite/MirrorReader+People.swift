import Foundation
import MirrorBookkeeping
import MirrorCore
import SQLite

// People on a SQLite store: the grouping rules (`Person`) are MirrorCore's.

extension MirrorReader {
    /// Every person, their identities ordered by id (`Person.group`).
    public func people(mailmap: Mailmap?) throws -> [Person] {
        let rows = try db.prepare(
            """
            SELECT a.id, a.name, a.email, a.login, coalesce(n.commits, 0)
            FROM authors a LEFT JOIN author_commit_counts n ON n.author_id = a.id ORDER BY a.id
            """
        ).map { row in
            (
                identity: Person.Identity(
                    id: row.int64(0), name: row.string(1), email: row.string(2),
                    login: row.optionalString(3)), commits: row.int(4)
            )
        }
        return Person.group(rows, mailmap: mailmap)
    }
}
