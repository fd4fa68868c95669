import Foundation
import MirrorBookkeeping
import MirrorCore
import PostgreSQL

// `show` on a PostgreSQL store: MirrorReader's CommitLookup.swift in PostgreSQL's SQL.

extension PostgreSQLReader {
    public func resolveCommit(_ prefix: String, mailmap: Mailmap?) throws -> CommitResolution {
        let prefix = prefix.lowercased()
        // Every sha starting with the prefix sorts in [prefix, prefix + "g"): hex digits are below "g".
        let range = "sha COLLATE \"C\" >= $1::text AND sha COLLATE \"C\" < $2::text"
        return try read {
            let matches = try connection.execute(
                "SELECT id FROM commits WHERE \(range) ORDER BY sha COLLATE \"C\" LIMIT $3::bigint",
                [prefix, prefix + "g", CommitResolution.ambiguityListLimit + 1])
            let ids = (0..<matches.count).compactMap { matches.int64($0, 0) }
            return try CommitResolution.matching(
                ids, detail: { try detail(commitID: $0, mailmap: mailmap) },
                total: { try connection.execute("SELECT count(*) FROM commits WHERE \(range)", [prefix, prefix + "g"]).int(0, 0) ?? 0 },
                summaries: { try $0.compactMap(summary(commitID:)) })
        }
    }

    private func summary(commitID: Int64) throws -> CommitSummary? {
        var found: CommitSummary?
        try connection.forEachRow(CommitStatement.select + "\nWHERE c.id = $1::bigint", [commitID]) {
            found = Self.commitSummary($0)
        }
        return found
    }

    private func detail(commitID: Int64, mailmap: Mailmap?) throws -> CommitDetail {
        guard let commit = try summary(commitID: commitID) else {
            throw PostgreSQLError(kind: .statement, message: "commit \(commitID) vanished while reading it")
        }
        let authors = try connection.execute("SELECT id FROM authors WHERE name = $1::text", [commit.author.name])
        var ids = (0..<authors.count).compactMap { authors.int64($0, 0) }
        if let mailmap,
            let authorID = try connection.execute("SELECT author_id FROM commits WHERE id = $1::bigint", [commitID]).int64(0, 0),
            let person = try people(mailmap: mailmap).first(where: { $0.identities.contains { $0.id == authorID } })
        {
            ids = person.identities.map(\.id)
        }
        let (position, count) = try authorPosition(ids: ids, date: commit.committer.date, commitID: commitID)
        let coAuthors = try connection.execute(
            """
            SELECT a.id, a.name, a.email, a.login FROM commit_coauthors ca JOIN authors a ON a.id = ca.author_id
            WHERE ca.commit_id = $1::bigint ORDER BY ca.position
            """, [commitID])
        // Repositories in SQLite's NOCASE order, branches in byte order, as MirrorReader lists them.
        let branches = try connection.execute(
            """
            SELECT r.full_name, b.name FROM branch_commits bc
            JOIN repository_branches b ON b.id = bc.branch_id JOIN repositories r ON r.id = b.repository_id
            WHERE bc.commit_id = $1::bigint AND b.state = 'active' ORDER BY lower(r.full_name COLLATE "C"), b.name COLLATE "C"
            """, [commitID])
        return CommitDetail(
            commit: commit, authorPosition: position, authorCommitCount: count,
            coAuthors: (0..<coAuthors.count).map { row in
                Person.Identity(
                    id: coAuthors.int64(row, 0) ?? 0, name: coAuthors.string(row, 1) ?? "", email: coAuthors.string(row, 2) ?? "",
                    login: coAuthors.string(row, 3))
            },
            branches: RepositoryBranches.grouping(
                (0..<branches.count).map { (repository: branches.string($0, 0) ?? "", branch: branches.string($0, 1) ?? "") }),
            changes: try changes(commitID: commitID))
    }

    /// The commit's place among the commits by the author rows `ids`, oldest first
    /// (committer date ascending; equal dates in reverse mirroring order, as
    /// listings show them), and how many there are (`author_commit_counts`).
    private func authorPosition(ids: [Int64], date: String, commitID: Int64) throws -> (position: Int, count: Int) {
        guard !ids.isEmpty else { return (0, 0) }
        let rows = try connection.execute(
            """
            SELECT (SELECT coalesce(sum(commits), 0) FROM author_commit_counts WHERE author_id = ANY($1::bigint[])),
                   (SELECT count(*) FROM commits WHERE author_id = ANY($1::bigint[])
                    AND (committer_date < $2::text OR (committer_date = $2::text AND id > $3::bigint)))
            """, [BigIntArray(ids), date, commitID])
        return ((rows.int(0, 1) ?? 0) + 1, rows.int(0, 0) ?? 0)
    }
}
