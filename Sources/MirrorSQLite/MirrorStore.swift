import Foundation
import MirrorBookkeeping
import MirrorCore
import SQLite

/// The store's writer: the one type that changes the mirror (sync, import,
/// the explicit prune). Opening it creates the file and brings its schema up
/// to date. Queries, lookups and statistics take a `MirrorReader` instead,
/// which cannot write.
///
/// One `MirrorStore` owns one connection and is used by one task at a time
/// (not `Sendable`); WAL lets readers read while it writes.
public final class MirrorStore: SyncStore, RepositoryCatalogue, RequestRecords {
    public let path: String
    let db: Connection
    /// Where this writer writes, as every other part names a store.
    public var location: StoreLocation { .sqliteFile(path) }
    private var authorCache: [AuthorKey: (id: Int64, login: String?)] = [:]
    /// Path ids already read or written (MirrorStore+Changes.swift), until it holds `pathCacheLimit`.
    var pathCache: [[UInt8]: Int64] = [:]
    /// The schema upgrade made when this store was opened, with the backup it wrote first.
    public private(set) var upgraded: StoreUpgrade?
    /// The open batch, if any (MirrorStore+Batches.swift); what a scope of
    /// batches decides is its own value (`SQLiteBatchScope`).
    package var batch: OpenBatch?
    /// What a bulk load leaves of the message index's lag (tests lower it).
    var bulkLoadMessageIndexLag = BatchLimits.messageIndexLagAfterBulkLoad
    /// Checkpoints of the WAL beside the writer while a scope of batches lasts (BackgroundCheckpoints).
    lazy var checkpoints = BackgroundCheckpoints(path: path, restartFrames: walRestartFrames)
    /// How long the WAL grows before the writer lets it start over (tests lower it).
    var walRestartFrames = BackgroundCheckpoints.defaultRestartFrames
    /// SQLite's default, which the writer keeps outside those scopes.
    static let walAutocheckpointPages = 1000
    /// What the WAL file is cut back to when it starts over (and to nothing when
    /// the last connection closes), so a load's WAL does not stay on disk.
    static let walSizeLimit = 16 << 20
    /// Whether a bulk load builds the secondary indexes at its end
    /// (BulkLoadIndexes): on today's schema, not on the older ones tests build.
    let defersIndexesOnBulkLoads: Bool

    public convenience init(path: String) throws {
        try self.init(path: path, migrator: Schema.migrator)
    }

    /// Opens the store with a given schema (tests build stores of older versions).
    init(path: String, migrator: Migrator) throws {
        self.path = path
        defersIndexesOnBulkLoads = migrator.latestVersion == Schema.migrator.latestVersion
        try StoreFile.refuseUnusablePath(path)
        try StorePath.createDirectory(for: path)
        db = try StoreFile.open(path, mode: .readWrite)
        // Temporary tables, sorters and statement journals in files, each
        // behind a bounded cache (statement journals up to SQLite's 64 KiB).
        // In memory they would grow the writer with the history: a branch's
        // membership walk collects every sha its head reaches, and a
        // message-index catch-up's statement journal holds what FTS5 rewrites
        // (docs/MEASURED-REASONS.md, "Measured reasons: memory and checkpoints").
        try db.execute("PRAGMA temp_store = FILE")
        try db.execute("PRAGMA journal_size_limit = \(Self.walSizeLimit)")
        do {
            // Backs up a store of an older schema first (MirrorStore+Migration.swift).
            upgraded = try Self.upgrade(db, path: path, migrator: migrator)
        } catch {
            throw StoreFile.classify(error, path: path)
        }
        // A load cut short before it rebuilt its indexes (BulkLoadIndexes). Best
        // effort: without them every answer is the same, only slower.
        if defersIndexesOnBulkLoads, try BulkLoadIndexes.anyMissing(db) { try? BulkLoadIndexes.restore(db) }
        // A writer killed before its message index caught up left it behind:
        // the next writer resumes from the watermark.
        if try migrator.appliedVersion(in: db) >= Schema.messageIndexWatermarkVersion { try catchUpMessageIndex() }
    }

    /// Runs `body` in one write transaction; a busy store becomes a clear error.
    /// Inside an open batch, `body` joins the batch's transaction, and a failure
    /// rolls the whole batch back.
    public func write<T>(_ body: () throws -> T) throws -> T {
        try classifyingErrors {
            guard batch != nil else {
                do {
                    return try db.transaction(.immediate, body)
                } catch {
                    forgetUncommittedIDs()
                    throw error
                }
            }
            do {
                return try body()
            } catch {
                rollBackBatch()
                throw error
            }
        }
    }

    /// A rolled-back transaction may have held the rows the caches name.
    func forgetUncommittedIDs() {
        authorCache.removeAll()
        pathCache.removeAll()
    }

    /// `body`'s SQLite errors as the store's (a busy store, a full disk, …).
    func classifyingErrors<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as SQLiteError {
            throw StoreFile.classify(error, path: path)
        }
    }

    // MARK: - Commits

    /// Stores one decoded page in one transaction (or the open batch's),
    /// together with the walk's checkpoint after it, so a page and its
    /// checkpoint are stored whole or not at all. A page in, a checkpoint out:
    /// `walk` is where the walk stood before the page.
    public func store(page: [Commit], repositoryID: Int64, walk: Walk, nextURL: String?, pagesTotal: Int?) throws -> StoredPage {
        var scope = SQLiteBatchScope.loneWrites
        let stored = try writePage(
            page, repositoryID: repositoryID, walk: walk, nextURL: nextURL, pagesTotal: pagesTotal, scope: &scope)
        batch?.pages += 1
        batch?.commits += page.count
        try catchUpMessageIndexAfterLoneWrite()
        return stored
    }

    /// The page write path: the page, its frontier step and the walk's checkpoint,
    /// in the open batch or a transaction of its own (`BatchingStore`).
    package func writePage(
        _ page: [Commit], repositoryID: Int64, walk: Walk, nextURL: String?, pagesTotal: Int?, scope: inout SQLiteBatchScope
    ) throws -> StoredPage {
        var outcome = PageOutcome()
        try write {
            outcome = try upsert(page, repositoryID: repositoryID)
            try updateFrontier(walkID: walk.id, repositoryID: repositoryID, step: FrontierStep(page: page))
            try db.cachedStatement(
                """
                UPDATE sync_walks SET next_url = ?, pages_done = pages_done + 1, pages_total = coalesce(?, pages_total),
                    listing_sha = ? WHERE id = ?
                """
            ).bind([nextURL, pagesTotal, walk.listingSHA, walk.id]).run()
            outcome.frontier = try pageFrontierCount(walkID: walk.id)
        }
        if batch != nil { noteListingSize(pages: pagesTotal, commitsPerPage: page.count, in: &scope) }
        return StoredPage(outcome: outcome, checkpoint: walk.advanced(nextURL: nextURL, pagesTotal: pagesTotal))
    }

    /// Stores commits read from git objects in one transaction (or the open
    /// batch's): new ones join
    /// the repository, and a commit already stored keeps its row, since a REST
    /// listing knows more of it (the accounts) than its git object does.
    /// Returns how many joined the repository.
    public func storeFromGit(_ commits: [Commit], repositoryID: Int64) throws -> Int {
        var scope = SQLiteBatchScope.loneWrites
        let added = try writeFromGit(commits, repositoryID: repositoryID, scope: &scope)
        batch?.commits += commits.count
        try catchUpMessageIndexAfterLoneWrite()
        return added
    }

    package func writeFromGit(_ commits: [Commit], repositoryID: Int64, scope: inout SQLiteBatchScope) throws -> Int {
        try write {
            let added = try upsert(commits, repositoryID: repositoryID, replacingStored: false).added
            try storeChanges(of: commits)
            return added
        }
    }

    /// Upserts commits (and their authors, parents and membership) without
    /// touching sync progress; a stored commit takes the new data unless
    /// `replacingStored` is false. Call inside a transaction.
    package func upsert(_ commits: [Commit], repositoryID: Int64, replacingStored: Bool = true) throws -> PageOutcome {
        var outcome = PageOutcome()
        let insert = try db.cachedStatement(
            """
            INSERT INTO commits (sha, message, html_url, author_id, author_date, committer_id, committer_date, parent_count, tree_sha)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (sha) DO NOTHING
            """)
        let update = try db.cachedStatement(
            """
            UPDATE commits SET message = ?2, html_url = ?3, author_id = ?4, author_date = ?5,
                committer_id = ?6, committer_date = ?7, tree_sha = ?8
            WHERE sha = ?1 AND (message IS NOT ?2 OR html_url IS NOT ?3 OR author_id IS NOT ?4 OR author_date IS NOT ?5
                OR committer_id IS NOT ?6 OR committer_date IS NOT ?7 OR tree_sha IS NOT ?8)
            """)
        let lookup = try db.cachedStatement("SELECT id FROM commits WHERE sha = ?")
        let insertParent = try db.cachedStatement("INSERT OR IGNORE INTO commit_parents (commit_id, position, parent_sha) VALUES (?, ?, ?)")
        // Joining a repository takes the store's next change number, the cursor `query --follow`
        // waits on (Schema version 8). The caller's transaction holds the write lock, so the
        // counter is read and written once per call, not once per membership.
        let addMember = try db.cachedStatement(
            "INSERT OR IGNORE INTO repository_commits (repository_id, commit_id, change_seq) VALUES (?, ?, ?)")
        let firstChange = try db.cachedStatement("SELECT last FROM change_counter").bind([]).first { $0.int64(0) } ?? 0
        var lastChange = firstChange

        func storedID(of sha: String) throws -> Int64 {
            guard let id = try lookup.bind([sha]).first({ $0.int64(0) }) else {
                throw StoreError.sqliteError("commit \(sha) vanished during upsert")
            }
            return id
        }

        for commit in commits {
            let authorDate = ISO8601Timestamp.format(commit.author.date)
            let committerDate = ISO8601Timestamp.format(commit.committer.date)
            let authorID = try self.authorID(for: commit.author.identity)
            let committerID = try self.authorID(for: commit.committer.identity)
            try insert.bind([
                commit.sha, commit.message, commit.htmlURL, authorID, authorDate,
                committerID, committerDate, commit.parents.count, commit.treeSHA,
            ]).run()
            let commitID: Int64
            if db.changes == 1 {
                commitID = db.lastInsertRowID
                for (position, parent) in commit.parents.enumerated() {
                    try insertParent.bind([commitID, position, parent]).run()
                }
                try recordCoAuthors(commit.coAuthors, commitID: commitID, isNew: true)
            } else if !replacingStored {
                commitID = try storedID(of: commit.sha)
            } else {
                try update.bind([
                    commit.sha, commit.message, commit.htmlURL, authorID, authorDate,
                    committerID, committerDate, commit.treeSHA,
                ]).run()
                let changed = db.changes == 1
                if changed { outcome.updated += 1 }
                commitID = try storedID(of: commit.sha)
                // A changed message may credit other people.
                if changed { try recordCoAuthors(commit.coAuthors, commitID: commitID) }
            }
            try addMember.bind([repositoryID, commitID, lastChange + 1]).run()
            if db.changes == 1 {
                outcome.added += 1
                lastChange += 1
            }
        }
        if lastChange != firstChange {
            try db.cachedStatement("UPDATE change_counter SET last = ?").bind([lastChange]).run()
        }
        return outcome
    }

    private struct AuthorKey: Hashable {
        var name: String
        var email: String
    }

    /// Upserts an author by (name, email). A login seen later replaces an older
    /// one; a missing login (`null` user) never erases a known one.
    private func authorID(for person: Identity) throws -> Int64 {
        let key = AuthorKey(name: person.name, email: person.email)
        if let cached = authorCache[key], person.login == nil || cached.login == person.login { return cached.id }
        let statement = try db.cachedStatement(
            """
            INSERT INTO authors (name, email, login, search_text) VALUES (?, ?, ?, ?)
            ON CONFLICT (name, email) DO UPDATE SET login = coalesce(excluded.login, authors.login)
            RETURNING id, login
            """)
        let searchText = AuthorSearch.searchText(name: person.name, email: person.email)
        guard
            let row = try statement.bind([person.name, person.email, person.login, searchText])
                .first({ (id: $0.int64(0), login: $0.optionalString(1)) })
        else {
            throw StoreError.sqliteError("author upsert returned no row")
        }
        authorCache[key] = row
        return row.id
    }
}

@available(*, unavailable)
extension MirrorStore: Sendable {}
