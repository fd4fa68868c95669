import MirrorBookkeeping
import MirrorCore
import SQLite
import Foundation

// `show` on a SQLite store: the values (`CommitResolution`) are MirrorCore's.

extension MirrorReader {
    /// Resolves a full sha or a prefix of at least 4 hex digits (callers validate
    /// the form with `CommitResolution.isCommitPrefix`). An ambiguous prefix is reported, never guessed.
    /// With a mailmap, "commit k of N" counts every identity of the author's person.
    public func resolveCommit(_ prefix: String, mailmap: Mailmap? = nil) throws -> CommitResolution {
        try db.transaction(.deferred) { try resolve(prefix.lowercased(), mailmap: mailmap) }
    }

    private func resolve(_ prefix: String, mailmap: Mailmap?) throws -> CommitResolution {
        // Every sha starting with the prefix sorts in [prefix, prefix + "g"): hex digits are below "g".
        let matches = try db.prepare(
            """
            SELECT id FROM commits WHERE sha >= ? AND sha < ? ORDER BY sha LIMIT ?
            """
        ).bind([prefix, prefix + "g", CommitResolution.ambiguityListLimit + 1]).map { $0.int64(0) }
        return try CommitResolution.matching(
            matches, detail: { try detail(commitID: $0, mailmap: mailmap) },
            total: { try db.scalarInt("SELECT count(*) FROM commits WHERE sha >= ? AND sha < ?", [prefix, prefix + "g"]) ?? 0 },
            summaries: { ids in
                let fetch = try db.prepare(Self.commitSelect() + "\nWHERE c.id = ?")
                return try ids.compactMap { try fetch.bind([$0]).first(Self.commitSummary(from:)) }
            })
    }

    private func detail(commitID: Int64, mailmap: Mailmap?) throws -> CommitDetail {
        guard
            let commit = try db.prepare(Self.commitSelect() + "\nWHERE c.id = ?").bind([commitID])
                .first(Self.commitSummary(from:))
        else {
            throw StoreError.sqliteError("commit \(commitID) vanished while reading it")
        }
        var ids = try db.prepare("SELECT id FROM authors WHERE name = ?1 COLLATE NOCASE AND name = ?1")
            .bind([commit.author.name]).map { $0.int64(0) }
        if let mailmap, let authorID = try db.scalarInt("SELECT author_id FROM commits WHERE id = ?", [commitID]),
            let person = try people(mailmap: mailmap).first(where: { $0.identities.contains { $0.id == Int64(authorID) } })
        {
            ids = person.identities.map(\.id)
        }
        let (position, count) = try authorPosition(ids: ids, date: commit.committer.date, commitID: commitID)
        let coAuthors = try db.prepare(
            """
            SELECT a.id, a.name, a.email, a.login FROM commit_coauthors ca JOIN authors a ON a.id = ca.author_id
            WHERE ca.commit_id = ? ORDER BY ca.position
            """
        ).bind([commitID]).map {
            Person.Identity(id: $0.int64(0), name: $0.string(1), email: $0.string(2), login: $0.optionalString(3))
        }
        let branches = try db.prepare(
            """
            SELECT r.full_name, b.name FROM branch_commits bc
            JOIN repository_branches b ON b.id = bc.branch_id JOIN repositories r ON r.id = b.repository_id
            WHERE bc.commit_id = ? AND b.state = 'active' ORDER BY r.full_name, b.name
            """
        ).bind([commitID]).map { (repository: $0.string(0), branch: $0.string(1)) }
        return CommitDetail(
            commit: commit, authorPosition: position, authorCommitCount: count, coAuthors: coAuthors,
            branches: RepositoryBranches.grouping(branches), changes: try changes(commitID: commitID))
    }

    /// The commit's place among the commits by the author rows `ids`, oldest
    /// first (committer date ascending; equal dates in reverse mirroring order,
    /// as listings show them), and how many there are.
    ///
    /// The total comes from `author_commit_counts`; the place is counted on the
    /// (author_id, committer_date) index from whichever end the dates say is
    /// nearer, so even an author of 100,000 commits costs at most half of them.
    func authorPosition(ids: [Int64], date: String, commitID: Int64) throws -> (position: Int, count: Int) {
        guard !ids.isEmpty else { return (0, 0) }
        // Numbered parameters: the list appears twice in one statement below.
        let list = ids.indices.map { "?\($0 + 1)" }.joined(separator: ", ")
        let total =
            try db.scalarInt(
                "SELECT coalesce(sum(commits), 0) FROM author_commit_counts WHERE author_id IN (\(list))", ids) ?? 0
        // Oldest and newest dates, from each author row's end of the index.
        var first: String?, last: String?
        let ends = try db.prepare(
            """
            SELECT (SELECT min(committer_date) FROM commits WHERE author_id = ?1),
                   (SELECT max(committer_date) FROM commits WHERE author_id = ?1)
            """)
        for id in ids {
            guard let row = try ends.bind([id]).first({ ($0.optionalString(0), $0.optionalString(1)) }),
                let low = row.0, let high = row.1
            else { continue }
            first = min(first ?? low, low)
            last = max(last ?? high, high)
        }
        let seconds = { (text: String?) in text.flatMap(ISO8601Timestamp.parse)?.timeIntervalSince1970 ?? 0 }
        let span = seconds(last) - seconds(first)
        let nearerTheEnd = span > 0 && (seconds(date) - seconds(first)) / span >= 0.5
        let arguments: [any SQLiteBindable] = ids + [date, commitID]
        let idParameter = "?\(ids.count + 2)", dateParameter = "?\(ids.count + 1)"
        if nearerTheEnd {
            let newer =
                try db.scalarInt(
                    """
                    SELECT (SELECT count(*) FROM commits WHERE author_id IN (\(list)) AND committer_date > \(dateParameter))
                         + (SELECT count(*) FROM commits WHERE author_id IN (\(list)) AND committer_date = \(dateParameter)
                            AND id < \(idParameter))
                    """, arguments) ?? 0
            return (total - newer, total)
        } else {
            let older =
                try db.scalarInt(
                    """
                    SELECT (SELECT count(*) FROM commits WHERE author_id IN (\(list)) AND committer_date < \(dateParameter))
                         + (SELECT count(*) FROM commits WHERE author_id IN (\(list)) AND committer_date = \(dateParameter)
                            AND id > \(idParameter))
                    """, arguments) ?? 0
            return (older + 1, total)
        }
    }
}
