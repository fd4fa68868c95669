import Foundation
import MirrorCore

// `TagRecords` written once for both stores: a listing is compared with the
// repository's current rows, and only what changed is written.

extension SQLBookkeeping {
    public func recordTags(
        _ tags: [AnnouncedTag], repositoryID: Int64, etag: String?, selection: String?, at date: Date
    ) throws -> TagChanges {
        let seenAt = ISO8601Timestamp.format(date)
        return try write {
            try session.run(
                TagStatements.recordListing, [repositoryID, etag, selection, ISO8601Timestamp.formatMilliseconds(date)])
            var current: [String: CurrentTag] = [:]
            try session.forEachRow(TagStatements.current, [repositoryID]) { row in
                let tag = CurrentTag(row)
                current[tag.name] = tag
            }
            var changes = TagChanges()
            var listed = Set<String>()
            for tag in tags where listed.insert(tag.name).inserted {
                guard let row = current[tag.name] else {
                    try insertTag(tag, repositoryID: repositoryID, at: seenAt)
                    changes.added += 1
                    continue
                }
                if row.objectSHA == tag.objectSHA && row.commitSHA == tag.commitSHA {
                    // The same place: only an annotation read since is worth writing.
                    if let annotation = tag.annotation, tag.isAnnotated, !row.hasAnnotation {
                        try session.run(
                            TagStatements.fillAnnotation,
                            [annotation.taggerName, annotation.taggerEmail, annotation.taggedAt, annotation.message, row.id])
                    }
                    continue
                }
                try session.run(TagStatements.end, [seenAt, row.id])
                try insertTag(tag, repositoryID: repositoryID, at: seenAt)
                changes.moved += 1
            }
            for row in current.values where !listed.contains(row.name) {
                try session.run(TagStatements.end, [seenAt, row.id])
                changes.deleted += 1
            }
            return changes
        }
    }

    public func tagListing(repositoryID: Int64) throws -> StoredTagListing {
        let listed = try session.firstRow(TagStatements.listing, [repositoryID]) { ($0.string(0), $0.string(1), $0.string(2)) }
        let tags = try TagRows.tags(repositoryID: repositoryID, includingEnded: false, in: session).map(\.tag)
        return StoredTagListing(etag: listed?.0, selection: listed?.1, tags: tags, listedAt: listed?.2)
    }

    public func recordTagListingUnchanged(repositoryID: Int64, at date: Date) throws {
        try write { _ = try session.run(TagStatements.touchListing, [ISO8601Timestamp.formatMilliseconds(date), repositoryID]) }
    }

    @discardableResult
    public func refreshTagContainment(repositoryID: Int64) throws -> Int {
        try write {
            let (wanted, stored) = try TagRows.containment(repositoryID: repositoryID, in: session)
            // No tag reaches a stored commit: nothing to walk.
            if wanted.isEmpty { return try session.run(TagStatements.dropAllContainment, [repositoryID]) }
            // Only what differs is written, a chunk of rows a statement: a poll's few new commits change few rows, if any.
            let dropped = stored.keys.filter { wanted[$0] == nil }.sorted()
            let set = wanted.filter { stored[$0.key] != $0.value }.sorted { $0.key < $1.key }
            for start in stride(from: 0, to: dropped.count, by: TagStatements.chunk) {
                let chunk = dropped[start..<min(start + TagStatements.chunk, dropped.count)]
                _ = try session.run(TagStatements.dropContainment(chunk.count), [repositoryID] + Array(chunk))
            }
            for start in stride(from: 0, to: set.count, by: TagStatements.chunk) {
                let chunk = set[start..<min(start + TagStatements.chunk, set.count)]
                _ = try session.run(TagStatements.setContainment(chunk.count), chunk.flatMap { [repositoryID, $0.key, $0.value] })
            }
            return dropped.count + set.count
        }
    }

    public func tagObjectsWithoutAnnotation(repositoryID: Int64) throws -> [String] {
        try session.rows(TagStatements.withoutAnnotation, [repositoryID]) { $0.string(0) }.compactMap { $0 }
    }

    private func insertTag(_ tag: AnnouncedTag, repositoryID: Int64, at seenAt: String) throws {
        // Only an annotated tag's object has an annotation to keep.
        let annotation = tag.isAnnotated ? tag.annotation : nil
        try session.run(
            TagStatements.insert,
            [
                repositoryID, tag.name, tag.objectSHA, tag.commitSHA, tag.isAnnotated, annotation?.taggerName,
                annotation?.taggerEmail, annotation?.taggedAt, annotation?.message, seenAt,
            ])
    }
}

extension TagRows {
    /// Each stored commit's earliest containing tag as the repository's current tags and graph
    /// give it (`wanted`), and as `tag_containment` holds it (`stored`), by commit id.
    static func containment(
        repositoryID: Int64, in session: some SQLSession
    ) throws -> (wanted: [Int64: Int64], stored: [Int64: Int64]) {
        var stored: [Int64: Int64] = [:]
        try session.forEachRow(TagStatements.containment, [repositoryID]) { row in
            if let commit = row.int64(0), let tag = row.int64(1) { stored[commit] = tag }
        }
        let tips = try session.rows(TagStatements.tips, [repositoryID]) { row -> TagContainment.Tip? in
            guard let tagID = row.int64(0), let commitID = row.int64(2) else { return nil }
            let date = (row.string(3) ?? row.string(4)).flatMap(ISO8601Timestamp.parse)
            return TagContainment.Tip(tagID: tagID, name: row.string(1) ?? "", commitID: commitID, creatorDate: date)
        }.compactMap { $0 }
        guard !tips.isEmpty else { return ([:], stored) }
        let graph = try HistoryGraphRows.graph(repositoryID: repositoryID, branches: nil, in: session)
        return (TagContainment.earliestTags(of: tips, in: graph), stored)
    }

    /// For `check`: how many stored commits, of every repository, have a `tag_containment` row
    /// missing, left over or naming another tag than their tags and graph give now.
    public static func staleContainment(in session: some SQLSession) throws -> Int {
        var stale = 0
        for repositoryID in try session.rows(TagStatements.repositoriesWithTags, [], { $0.int64(0) }).compactMap({ $0 }) {
            let (wanted, stored) = try containment(repositoryID: repositoryID, in: session)
            stale += stored.keys.filter { wanted[$0] == nil }.count + wanted.filter { stored[$0.key] != $0.value }.count
        }
        return stale
    }
}

/// A current row of the repository's tags, as a listing is compared with it.
private struct CurrentTag {
    let id: Int64
    let name: String
    let objectSHA: String
    let commitSHA: String?
    let hasAnnotation: Bool

    init(_ row: any SQLRow) {
        id = row.int64(0) ?? 0
        name = row.string(1) ?? ""
        objectSHA = row.string(2) ?? ""
        commitSHA = row.string(3)
        hasAnnotation = row.bool(4) ?? false
    }
}

private enum TagStatements {
    static let current = PortableSQL(
        """
        SELECT id, name, object_sha, commit_sha, message IS NOT NULL FROM tags
        WHERE repository_id = ? AND ended_at IS NULL
        """)
    static let insert = PortableSQL(
        """
        INSERT INTO tags (repository_id, name, object_sha, commit_sha, annotated, tagger_name, tagger_email, tagged_at,
                          message, first_seen_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """)
    static let fillAnnotation = PortableSQL(
        "UPDATE tags SET tagger_name = ?, tagger_email = ?, tagged_at = ?, message = ? WHERE id = ? AND message IS NULL")
    static let end = PortableSQL("UPDATE tags SET ended_at = ? WHERE id = ?")
    static let recordListing = PortableSQL(
        """
        INSERT INTO tag_listings (repository_id, etag, selection, listed_at) VALUES (?, ?, ?, ?)
        ON CONFLICT (repository_id) DO UPDATE SET etag = excluded.etag, selection = excluded.selection,
            listed_at = excluded.listed_at
        """)
    static let listing = PortableSQL("SELECT etag, selection, listed_at FROM tag_listings WHERE repository_id = ?")
    static let touchListing = PortableSQL("UPDATE tag_listings SET listed_at = ? WHERE repository_id = ?")
    /// The current tags whose commit is stored, with what git's creatordate is made of.
    static let tips = PortableSQL(
        """
        SELECT t.id, t.name, c.id, t.tagged_at, c.committer_date FROM tags t JOIN commits c ON c.sha = t.commit_sha
        WHERE t.repository_id = ? AND t.ended_at IS NULL
        """)
    static let dropAllContainment = PortableSQL("DELETE FROM tag_containment WHERE repository_id = ?")
    static let repositoriesWithTags = PortableSQL(
        "SELECT repository_id FROM tags UNION SELECT repository_id FROM tag_containment ORDER BY repository_id")
    static let containment = PortableSQL("SELECT commit_id, tag_id FROM tag_containment WHERE repository_id = ?")
    /// Rows of the containment table written or dropped by one statement.
    static let chunk = 300
    static func dropContainment(_ count: Int) -> PortableSQL {
        let list = Array(repeating: "?", count: count).joined(separator: ", ")
        return PortableSQL("DELETE FROM tag_containment WHERE repository_id = ? AND commit_id IN (\(list))")
    }
    static func setContainment(_ count: Int) -> PortableSQL {
        let rows = Array(repeating: "(?, ?, ?)", count: count).joined(separator: ", ")
        return PortableSQL(
            """
            INSERT INTO tag_containment (repository_id, commit_id, tag_id) VALUES \(rows)
            ON CONFLICT (repository_id, commit_id) DO UPDATE SET tag_id = excluded.tag_id
            """)
    }
    static let withoutAnnotation = PortableSQL(
        """
        SELECT object_sha FROM tags WHERE repository_id = ? AND ended_at IS NULL AND annotated AND message IS NULL
        ORDER BY object_sha
        """)
}
