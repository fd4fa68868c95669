import Foundation
import SQLite

/// Read-only looks at a store from a test, over its own connection (safe
/// while a writer works; WAL readers never wait). The one place tests read
/// the schema directly, so a schema change is fixed here once.
///
/// A repository is found by any name it has been known by, in any case, as
/// the store itself finds it (`repository_names`).
public struct StoreInspection: Sendable {
    public let path: String

    public init(_ path: String) { self.path = path }

    private var exists: Bool { FileManager.default.fileExists(atPath: path) }
    private func connection() throws -> Connection { try Connection(path: path, mode: .readOnly) }

    private static let ofRepository = """
        rc.repository_id = (SELECT repository_id FROM repository_names WHERE name = ?)
        """

    /// Every commit the repository holds, off-branch ones (left by a rewrite) included;
    /// empty when the store does not exist yet.
    public func memberSHAs(of repository: String) throws -> Set<String> {
        guard exists else { return [] }
        return Set(
            try connection().prepare(
                """
                SELECT c.sha FROM repository_commits rc JOIN commits c ON c.id = rc.commit_id WHERE \(Self.ofRepository)
                """
            ).bind([repository]).map { $0.string(0) })
    }

    /// `memberSHAs` for a store another process is writing: empty while it cannot be
    /// read yet (not created, or its schema not yet written).
    public func memberSHAsSoFar(of repository: String) -> Set<String> {
        (try? memberSHAs(of: repository)) ?? []
    }

    /// The commits on the branches of `repository` (of every repository when nil):
    /// memberships a rewrite marked off-branch (`off_branch_since`) left out.
    public func onBranchSHAs(of repository: String? = nil) throws -> Set<String> {
        guard exists else { return [] }
        let sql = "SELECT c.sha FROM repository_commits rc JOIN commits c ON c.id = rc.commit_id WHERE rc.off_branch_since IS NULL"
        guard let repository else { return Set(try connection().prepare(sql).map { $0.string(0) }) }
        return Set(try connection().prepare(sql + " AND " + Self.ofRepository).bind([repository]).map { $0.string(0) })
    }

    /// Repository memberships stored (all repositories); 0 while the store cannot be read yet.
    public func membershipCount() -> Int { count("SELECT count(*) FROM repository_commits") }

    /// Commits stored; 0 while the store cannot be read yet.
    public func commitCount() -> Int { count("SELECT count(*) FROM commits") }

    /// How many stored commits the message index does not cover yet (its watermark, schema version 11).
    public func messageIndexLag() -> Int {
        count("SELECT count(*) FROM commits WHERE id > (SELECT through_id FROM message_index_coverage)")
    }

    private func count(_ sql: String) -> Int {
        guard exists, let connection = try? connection() else { return 0 }
        return (try? connection.scalarInt(sql)) ?? 0
    }

    /// Every mirrored fact of every commit, independent of row ids and insertion order:
    /// authors, dates, message, parents and the repositories holding it, one JSON line
    /// per commit by sha. Sync bookkeeping (`sync_state`, `sync_walks`, `sync_frontier`) is left out.
    public func mirroredFacts() throws -> [String] {
        try connection().prepare(
            """
            SELECT json_array(c.sha, c.message, c.html_url, a.name, a.email, a.login, c.author_date,
                              m.name, m.email, m.login, c.committer_date, c.parent_count, c.tree_sha,
                              (SELECT group_concat(parent_sha, ',') FROM
                                  (SELECT parent_sha FROM commit_parents p WHERE p.commit_id = c.id ORDER BY position)),
                              (SELECT group_concat(full_name, ',') FROM
                                  (SELECT r.full_name FROM repository_commits rc JOIN repositories r ON r.id = rc.repository_id
                                   WHERE rc.commit_id = c.id ORDER BY r.full_name)))
            FROM commits c JOIN authors a ON a.id = c.author_id JOIN authors m ON m.id = c.committer_id
            ORDER BY c.sha
            """
        ).map { $0.string(0) }
    }

    /// Every stored fact about one repository's commits (author search text included),
    /// one JSON line per commit by sha; independent of row ids and insertion order.
    /// Without `includingLogins`, what a git object holds too: no logins (nor the
    /// search text that holds them).
    public func commitFacts(of repository: String, includingLogins: Bool = true) throws -> [String] {
        let people =
            includingLogins
            ? "a.name, a.email, a.login, a.search_text, c.author_date, m.name, m.email, m.login"
            : "a.name, a.email, c.author_date, m.name, m.email"
        return try connection().prepare(
            """
            SELECT json_array(c.sha, c.message, c.html_url, \(people), c.committer_date, c.parent_count, c.tree_sha,
                              (SELECT group_concat(parent_sha, ',') FROM
                                  (SELECT parent_sha FROM commit_parents p WHERE p.commit_id = c.id ORDER BY position)))
            FROM repository_commits rc JOIN commits c ON c.id = rc.commit_id
            JOIN authors a ON a.id = c.author_id JOIN authors m ON m.id = c.committer_id
            WHERE \(Self.ofRepository) ORDER BY c.sha
            """
        ).bind([repository]).map { $0.string(0) }
    }

    /// Each complete branch's head, by branch name (empty while the store cannot be read).
    public func completeHeads() -> [String: String] {
        guard exists,
            let rows = try? connection().prepare("SELECT branch, head_sha FROM sync_state WHERE complete = 1").map({
                ($0.string(0), $0.string(1))
            })
        else { return [:] }
        return Dictionary(rows, uniquingKeysWith: { first, _ in first })
    }

    /// Every repository's current name and state (`active`, `gone`, `removed`), by name;
    /// empty while the store cannot be read yet.
    public func repositoryStates() -> [String: String] {
        guard exists, let connection = try? connection(),
            let rows = try? connection.prepare("SELECT full_name, state FROM repositories").map({ ($0.string(0), $0.string(1)) })
        else { return [:] }
        return Dictionary(rows, uniquingKeysWith: { first, _ in first })
    }

    /// The walks' saved resume points.
    public func resumePoints() throws -> [String] {
        try connection().prepare("SELECT next_url FROM sync_walks WHERE next_url IS NOT NULL").map { $0.string(0) }
    }

    /// Pages the unfinished walks have committed (0 when none is stored yet, or it cannot be read now).
    /// Commits with a parent the store does not hold (0 for a closed history).
    public func commitsWithMissingParents() -> Int {
        count(
            """
            SELECT count(DISTINCT p.commit_id) FROM commit_parents p
            WHERE NOT EXISTS (SELECT 1 FROM commits c WHERE c.sha = p.parent_sha)
            """)
    }

    public func committedWalkPages() -> Int { count("SELECT coalesce(sum(pages_done), 0) FROM sync_walks") }

    /// Commits whose changed paths are stored.
    public func commitsWithChanges() -> Int { count("SELECT count(*) FROM commit_changes_read") }

    /// Every stored change, one line each (sha, parent, path, sides), in one order.
    public func changeFacts() throws -> [String] {
        try connection().prepare(
            """
            SELECT c.sha, cc.parent, hex(p.path), cc.old_mode, hex(cc.old_object), cc.new_mode, hex(cc.new_object)
            FROM commit_changes cc JOIN commits c ON c.id = cc.commit_id JOIN paths p ON p.id = cc.path_id
            ORDER BY c.sha, cc.parent, p.path
            """
        ).map { row in (0..<7).map { "\(row.value($0))" }.joined(separator: " ") }
    }

    /// `PRAGMA integrity_check`: "ok" for a sound file.
    public func integrity() throws -> String { try connection().pragma("integrity_check") }

    /// Rows `PRAGMA foreign_key_check` reports.
    public func foreignKeyViolations() throws -> Int {
        try connection().prepare("PRAGMA foreign_key_check").map { _ in 1 }.count
    }
}
