import Foundation
import SQLite

/// `Co-authored-by: Name <email>` trailers (GitHub's convention for crediting
/// co-authors), read from a commit message and kept in `commit_coauthors`.
enum CoAuthorTrailers {
    /// The identities credited, in message order, each once. A trailer is a
    /// line of its own; the key is matched ignoring case, as git does.
    static func parse(_ message: String) -> [Identity] {
        var people: [Identity] = []
        for rawLine in message.split(whereSeparator: \.isNewline) {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            guard line.count > 15, line.prefix(15).lowercased() == "co-authored-by:" else { continue }
            let value = line.dropFirst(15)
            guard let open = value.lastIndex(of: "<"), let close = value[open...].firstIndex(of: ">") else { continue }
            let person = Identity(
                name: value[..<open].trimmingCharacters(in: .whitespaces),
                email: String(value[value.index(after: open)..<close]).trimmingCharacters(in: .whitespaces))
            guard !person.email.isEmpty || !person.name.isEmpty,
                !people.contains(where: { $0.name == person.name && $0.email == person.email })
            else { continue }
            people.append(person)
        }
        return people
    }

    /// Replaces the commit's co-authors with those its message credits
    /// (`isNew`: the commit was just inserted, so it has none to replace).
    static func record(in db: Connection, commitID: Int64, message: String, isNew: Bool = false) throws {
        if !isNew { try db.cachedStatement("DELETE FROM commit_coauthors WHERE commit_id = ?").bind([commitID]).run() }
        // Cheap test first: most messages credit no one.
        guard mayCredit(message) else { return }
        let identity = try db.cachedStatement(
            """
            INSERT INTO authors (name, email, login, search_text) VALUES (?, ?, NULL, ?)
            ON CONFLICT (name, email) DO UPDATE SET name = excluded.name
            RETURNING id
            """)
        let insert = try db.cachedStatement("INSERT INTO commit_coauthors (commit_id, position, author_id) VALUES (?, ?, ?)")
        for (position, person) in parse(message).enumerated() {
            let searchText = AuthorSearch.searchText(name: person.name, email: person.email)
            guard let id = try identity.bind([person.name, person.email, searchText]).first({ $0.int64(0) }) else { continue }
            try insert.bind([commitID, position, id]).run()
        }
    }

    /// Whether the message contains `co-authored-by:` in any ASCII case: a byte
    /// scan, since Foundation's case-insensitive search showed in sync profiles.
    static func mayCredit(_ message: String) -> Bool {
        var message = message
        return message.withUTF8 { bytes in
            guard bytes.count >= key.count else { return false }
            for start in 0...(bytes.count - key.count) {
                var offset = 0
                // Setting 0x20 folds an ASCII capital to lower case; the key's other bytes have it set.
                while offset < key.count, bytes[start + offset] | (key[offset] >= 0x61 ? 0x20 : 0) == key[offset] {
                    offset += 1
                }
                if offset == key.count { return true }
            }
            return false
        }
    }

    private static let key = Array("co-authored-by:".utf8)

    /// Migration 4: stores made before it get their co-authors.
    @Sendable static func backfill(_ db: Connection) throws {
        let commits = try db.prepare(
            """
            SELECT id, message FROM commits WHERE instr(lower(message), 'co-authored-by:') > 0 ORDER BY id
            """
        ).map { (id: $0.int64(0), message: $0.string(1)) }
        for commit in commits { try record(in: db, commitID: commit.id, message: commit.message) }
    }
}
