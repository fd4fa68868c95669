import MirrorCore

/// `TagReading` written once for every store: each reader supplies its read
/// transaction, and the statements differ only in how text is ordered.
public enum TagRows {
    /// The tags of one repository or of all, by repository name, tag name and when first seen.
    public static func tags(repositoryID: Int64?, includingEnded: Bool, in session: some SQLSession) throws -> [StoredTag] {
        let conditions = [repositoryID == nil ? nil : "t.repository_id = ?", includingEnded ? nil : "t.ended_at IS NULL"]
            .compactMap { $0 }
        let filter = conditions.isEmpty ? "" : "\nWHERE " + conditions.joined(separator: " AND ")
        let statement = PortableSQL(ordered: { order in
            """
            SELECT r.full_name, t.name, t.object_sha, t.commit_sha, t.annotated, t.tagger_name, t.tagger_email,
                   t.tagged_at, t.message, t.first_seen_at, t.ended_at, c.id, c.committer_date
            FROM tags t JOIN repositories r ON r.id = t.repository_id
            LEFT JOIN commits c ON c.sha = t.commit_sha\(filter)
            ORDER BY \(order.names("r.full_name")), \(order.bytes("t.name")), \(order.bytes("t.first_seen_at")), t.id
            """
        })
        return try session.rows(statement, repositoryID.map { [$0] } ?? [], storedTag(from:))
    }

    /// What `name` can stand for in the repository: its current tag, its branch's head, the commits its digits start.
    public static func revisionTargets(_ name: String, repositoryID: Int64, in session: some SQLSession) throws -> RevisionTargets {
        var targets = RevisionTargets()
        if let tag = try session.firstRow(currentTag, [repositoryID, name], { $0.int64(0) }) {
            targets.tag = .some(tag)
        }
        targets.branch = try session.firstRow(branchHead, [repositoryID, name]) { $0.int64(0) } ?? nil
        if CommitResolution.isCommitPrefix(name) {
            let prefix = name.lowercased()
            // Every sha starting with the prefix sorts in [prefix, prefix + "g"): hex digits are below "g".
            targets.commits = try session.rows(
                commitsStarting, [repositoryID, prefix, prefix + "g", CommitResolution.ambiguityListLimit + 1]
            ) { (id: $0.int64(0) ?? 0, sha: $0.string(1) ?? "") }
        }
        return targets
    }

    /// The stored shas of `commitIDs` (an id the store does not hold is left out).
    public static func shas(ofCommits commitIDs: [Int64], in session: some SQLSession) throws -> [Int64: String] {
        var shas: [Int64: String] = [:]
        // A bounded list of parameters per statement, whatever the number of ids.
        for start in stride(from: 0, to: commitIDs.count, by: shaChunk) {
            let chunk = Array(commitIDs[start..<min(start + shaChunk, commitIDs.count)])
            let list = Array(repeating: "?", count: chunk.count).joined(separator: ", ")
            try session.forEachRow(PortableSQL("SELECT id, sha FROM commits WHERE id IN (\(list))"), chunk) { row in
                if let id = row.int64(0), let sha = row.string(1) { shas[id] = sha }
            }
        }
        return shas
    }

    /// Per repository, the tag `refreshTagContainment` recorded as the earliest to contain the commit.
    public static func earliestTags(containing sha: String, in session: some SQLSession) throws -> [RepositoryTag] {
        try session.rows(earliestContaining, [sha.lowercased()]) { RepositoryTag(repository: $0.string(0) ?? "", tag: $0.string(1) ?? "") }
    }

    /// The current tags of one repository, or of every one.
    public static func counts(in session: some SQLSession) throws -> [String: Int] {
        let rows = try session.rows(currentPerRepository, []) { row in (row.string(0) ?? "", row.int(1) ?? 0) }
        return Dictionary(rows, uniquingKeysWith: +)
    }

    private static let shaChunk = 500
    private static let earliestContaining = PortableSQL(ordered: { order in
        """
        SELECT r.full_name, t.name FROM commits c JOIN tag_containment tc ON tc.commit_id = c.id
        JOIN tags t ON t.id = tc.tag_id JOIN repositories r ON r.id = tc.repository_id
        WHERE c.sha = ? ORDER BY \(order.names("r.full_name"))
        """
    })
    private static let currentPerRepository = PortableSQL(
        """
        SELECT r.full_name, count(*) FROM repositories r JOIN tags t ON t.repository_id = r.id
        WHERE t.ended_at IS NULL GROUP BY r.id, r.full_name
        """)

    private static func storedTag(from row: any SQLRow) -> StoredTag {
        let repository = row.string(0) ?? ""
        let annotation = row.string(8).map { message in
            TagAnnotation(taggerName: row.string(5), taggerEmail: row.string(6), taggedAt: row.string(7), message: message)
        }
        let tag = AnnouncedTag(
            name: row.string(1) ?? "", objectSHA: row.string(2) ?? "", commitSHA: row.string(3),
            isAnnotated: row.bool(4) ?? false, annotation: annotation)
        return StoredTag(
            repository: RepositoryName(parsingStored: repository) ?? RepositoryName(owner: repository, name: ""), tag: tag,
            firstSeenAt: row.string(9) ?? "", endedAt: row.string(10), commitID: row.int64(11), commitDate: row.string(12))
    }

    private static let currentTag = PortableSQL(
        """
        SELECT c.id FROM tags t LEFT JOIN commits c ON c.sha = t.commit_sha
        WHERE t.repository_id = ? AND t.name = ? AND t.ended_at IS NULL
        """)
    private static let branchHead = PortableSQL(
        "SELECT c.id FROM sync_state s JOIN commits c ON c.sha = s.head_sha WHERE s.repository_id = ? AND s.branch = ?")
    private static let commitsStarting = PortableSQL(ordered: { order in
        """
        SELECT c.id, c.sha FROM repository_commits rc JOIN commits c ON c.id = rc.commit_id
        WHERE rc.repository_id = ? AND \(order.bytes("c.sha")) >= ? AND \(order.bytes("c.sha")) < ?
        ORDER BY \(order.bytes("c.sha")) LIMIT ?
        """
    })
}
