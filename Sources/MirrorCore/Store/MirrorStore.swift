import Foundation
import SQLite

/// The SQLite mirror: repositories, commits, authors and sync progress.
///
/// One `MirrorStore` owns one connection and is used by one task at a time
/// (not `Sendable`). Writers open it read-write, which creates and migrates the
/// file; readers open it read-only, and WAL lets them read while a writer works.
public final class MirrorStore {
    public let path: String
    let db: Connection
    private var authorCache: [AuthorKey: (id: Int64, login: String?)] = [:]
    /// The schema upgrade made when this store was opened, with the backup it wrote first.
    public private(set) var upgraded: StoreUpgrade?

    public enum Access: Sendable { case readWrite, readOnly }

    public convenience init(path: String, access: Access = .readWrite) throws {
        try self.init(path: path, access: access, migrator: Schema.migrator)
    }

    /// Opens the store with a given schema (tests build stores of older versions).
    init(path: String, access: Access, migrator: Migrator) throws {
        self.path = path
        // Before SQLite (or createDirectory) touches anything: opening a FIFO would
        // block forever, and `/dev/null` would get a `/dev/null-journal` beside it.
        guard !path.isEmpty else { throw StoreError.emptyPath }
        let kind = FileKind.of(path)
        if kind.isSpecial { throw StoreError.notAFile(path: path, kind: kind) }
        switch access {
        case .readWrite:
            try StorePath.createDirectory(for: path)
        case .readOnly:
            guard try StorePath.exists(path) else { throw StoreError.missing(path: path) }
        }
        do {
            // Before anything could change it (opening read-write switches a file to WAL).
            try Self.refuseForeignDatabase(at: path)
            db = try Connection(path: path, mode: access == .readWrite ? .readWrite : .readOnly)
        } catch let error as SQLiteError {
            if access == .readOnly, ResultCode.SQLITE_CANTOPEN ~= error.code || ResultCode.SQLITE_READONLY ~= error.code,
               !StorePath.isDirectoryWritable(for: path),
               !FileManager.default.fileExists(atPath: path + "-shm") || !FileManager.default.fileExists(atPath: path + "-wal") {
                throw StoreError.sideFilesMissing(path: path)
            }
            throw Self.classify(error, path: path)
        }
        do {
            switch access {
            case .readWrite:
                // Backs up a store of an older schema first (MirrorStore+Migration.swift).
                upgraded = try Self.upgrade(db, path: path, migrator: migrator)
            case .readOnly:
                if try !migrator.pendingMigrations(in: db).isEmpty { throw StoreError.readOnlyNeedsMigration(path: path) }
            }
        } catch let error as Migrator.MigrationError {
            if case .newerSchema(let found, let known) = error {
                throw StoreError.newerSchema(path: path, found: found, known: known)
            }
            throw error
        } catch let error as SQLiteError {
            throw Self.classify(error, path: path)
        }
    }

    static func classify(_ error: SQLiteError, path: String) -> StoreError {
        switch error.code {
        case .SQLITE_NOTADB: return .notAStore(path: path, underlying: error)
        case .SQLITE_BUSY: return .busy(path: path)
        case .SQLITE_FULL: return .full(path: path)
        case .SQLITE_READONLY:
            if error.code == .SQLITE_READONLY_DIRECTORY || !StorePath.isDirectoryWritable(for: path) {
                return .readOnlyDirectory(path: path, directory: StorePath.directory(of: path))
            }
            return .readOnly(path: path, underlying: error)
        case .SQLITE_CANTOPEN:
            if !StorePath.isDirectoryWritable(for: path) {
                return .readOnlyDirectory(path: path, directory: StorePath.directory(of: path))
            }
            return .cannotOpen(path: path, underlying: error)
        case .SQLITE_IOERR: return .ioError(path: path, underlying: error)
        default: return .sqlite(error)
        }
    }

    /// Runs `body` in one write transaction; a busy store becomes a clear error.
    func write<T>(_ body: () throws -> T) throws -> T {
        do {
            return try db.transaction(.immediate, body)
        } catch let error as SQLiteError {
            throw Self.classify(error, path: path)
        }
    }

    // MARK: - Repositories

    public struct Repository: Sendable, Equatable {
        public var id: Int64
        public var name: RepositoryName
        public var githubID: Int?
        public var defaultBranch: String?
    }

    public func repository(named name: RepositoryName) throws -> Repository? {
        try db.cachedStatement("""
            SELECT id, full_name, github_id, default_branch FROM repositories WHERE full_name = ?
            """).bind([name.description]).first(Self.repository(from:))
    }

    public func repositories() throws -> [Repository] {
        try db.prepare("SELECT id, full_name, github_id, default_branch FROM repositories ORDER BY full_name")
            .map(Self.repository(from:))
    }

    private static func repository(from row: Statement) -> Repository {
        Repository(
            id: row.int64(0),
            name: RepositoryName(parsing: row.string(1)) ?? RepositoryName(owner: row.string(1), name: ""),
            githubID: row.optionalInt(2),
            defaultBranch: row.optionalString(3))
    }

    /// The repository's row, created if this is the first time it is mirrored.
    public func ensureRepository(named name: RepositoryName) throws -> Repository {
        if let existing = try repository(named: name) { return existing }
        return try write {
            try db.execute("INSERT INTO repositories (full_name) VALUES (?) ON CONFLICT DO NOTHING", [name.description])
            return try repository(named: name)!
        }
    }

    /// Records what GitHub says about the repository. A new full name (rename or
    /// transfer) replaces the old one; the commits stay where they are.
    public func updateRepository(id: Int64, githubID: Int, fullName: String, defaultBranch: String, htmlURL: String?) throws {
        try write {
            try db.execute("""
                UPDATE repositories SET github_id = ?, full_name = ?, default_branch = ?, html_url = ? WHERE id = ?
                """, [githubID, fullName, defaultBranch, htmlURL, id])
        }
    }

    // MARK: - Commits

    /// What storing one page changed.
    public struct PageOutcome: Sendable, Equatable {
        /// Commits that joined this repository (new rows, or shared with another repository).
        public var added = 0
        /// Existing commits whose stored data changed (newest data wins).
        public var updated = 0
        /// Parents still missing for the walk after this page (0 = the walk may stop).
        public var frontier = 0
    }

    /// Stores one decoded page in one transaction, together with the walk's
    /// progress, so a page and its checkpoint are stored whole or not at all.
    public func store(page: [CommitPayload], repositoryID: Int64, walk: inout Walk, nextURL: String?, pagesTotal: Int?) throws -> PageOutcome {
        var outcome = PageOutcome()
        let walkID = walk.id
        try write {
            outcome = try upsert(page, repositoryID: repositoryID)
            try updateFrontier(walkID: walkID, repositoryID: repositoryID, page: page)
            try db.cachedStatement("""
                UPDATE sync_walks SET next_url = ?, pages_done = pages_done + 1, pages_total = coalesce(?, pages_total),
                    listing_sha = ? WHERE id = ?
                """).bind([nextURL, pagesTotal, walk.listingSHA, walkID]).run()
            outcome.frontier = try frontierCount(walkID: walkID)
        }
        walk.nextURL = nextURL
        walk.pagesDone += 1
        if let pagesTotal { walk.pagesTotal = pagesTotal }
        return outcome
    }

    /// Upserts commits (and their authors, parents and membership) without
    /// touching sync progress. Call inside a transaction.
    func upsert(_ commits: [CommitPayload], repositoryID: Int64) throws -> PageOutcome {
        var outcome = PageOutcome()
        let insert = try db.cachedStatement("""
            INSERT INTO commits (sha, message, html_url, author_id, author_date, committer_id, committer_date, parent_count, tree_sha)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (sha) DO NOTHING
            """)
        let update = try db.cachedStatement("""
            UPDATE commits SET message = ?2, html_url = ?3, author_id = ?4, author_date = ?5,
                committer_id = ?6, committer_date = ?7, tree_sha = ?8
            WHERE sha = ?1 AND (message IS NOT ?2 OR html_url IS NOT ?3 OR author_id IS NOT ?4 OR author_date IS NOT ?5
                OR committer_id IS NOT ?6 OR committer_date IS NOT ?7 OR tree_sha IS NOT ?8)
            """)
        let lookup = try db.cachedStatement("SELECT id FROM commits WHERE sha = ?")
        let insertParent = try db.cachedStatement("INSERT OR IGNORE INTO commit_parents (commit_id, position, parent_sha) VALUES (?, ?, ?)")
        let addMember = try db.cachedStatement("INSERT OR IGNORE INTO repository_commits (repository_id, commit_id) VALUES (?, ?)")

        for payload in commits {
            let record = CommitRecord(payload)
            let authorID = try self.authorID(for: record.author, login: payload.author?.login)
            let committerID = try self.authorID(for: record.committer, login: payload.committer?.login)
            try insert.bind([record.sha, record.message, record.htmlURL, authorID, record.authorDate,
                             committerID, record.committerDate, record.parents.count, record.treeSHA]).run()
            let commitID: Int64
            if db.changes == 1 {
                commitID = db.lastInsertRowID
                for (position, parent) in record.parents.enumerated() {
                    try insertParent.bind([commitID, position, parent]).run()
                }
            } else {
                try update.bind([record.sha, record.message, record.htmlURL, authorID, record.authorDate,
                                 committerID, record.committerDate, record.treeSHA]).run()
                if db.changes == 1 { outcome.updated += 1 }
                guard let id = try lookup.bind([record.sha]).first({ $0.int64(0) }) else {
                    throw StoreError.sqlite(SQLiteError(code: .SQLITE_ERROR, message: "commit \(record.sha) vanished during upsert"))
                }
                commitID = id
            }
            try addMember.bind([repositoryID, commitID]).run()
            if db.changes == 1 { outcome.added += 1 }
        }
        return outcome
    }

    private struct AuthorKey: Hashable {
        var name: String
        var email: String
    }

    /// Upserts an author by (name, email). A login seen later replaces an older
    /// one; a missing login (`null` user) never erases a known one.
    private func authorID(for person: CommitRecord.Person, login: String?) throws -> Int64 {
        let key = AuthorKey(name: person.name, email: person.email)
        if let cached = authorCache[key], login == nil || cached.login == login { return cached.id }
        let statement = try db.cachedStatement("""
            INSERT INTO authors (name, email, login, search_text) VALUES (?, ?, ?, ?)
            ON CONFLICT (name, email) DO UPDATE SET login = coalesce(excluded.login, authors.login)
            RETURNING id, login
            """)
        let searchText = AuthorSearch.searchText(name: person.name, email: person.email)
        guard let row = try statement.bind([person.name, person.email, login, searchText])
            .first({ (id: $0.int64(0), login: $0.optionalString(1)) })
        else {
            throw StoreError.sqlite(SQLiteError(code: .SQLITE_ERROR, message: "author upsert returned no row"))
        }
        authorCache[key] = row
        return row.id
    }

    // MARK: - Counts

    public func commitCount(repositoryID: Int64? = nil) throws -> Int {
        if let repositoryID {
            return try db.scalarInt("SELECT count(*) FROM repository_commits WHERE repository_id = ?", [repositoryID]) ?? 0
        }
        return try db.scalarInt("SELECT count(*) FROM commits") ?? 0
    }

    /// SHAs of every commit mirrored for the repository.
    public func commitSHAs(repositoryID: Int64) throws -> Set<String> {
        Set(try db.prepare("""
            SELECT c.sha FROM repository_commits rc JOIN commits c ON c.id = rc.commit_id WHERE rc.repository_id = ?
            """).bind([repositoryID]).map { $0.string(0) })
    }

    /// `PRAGMA integrity_check`: "ok" for a sound file.
    public func integrityCheck() throws -> String {
        try db.prepare("PRAGMA integrity_check").map { $0.string(0) }.joined(separator: "; ")
    }
}

@available(*, unavailable)
extension MirrorStore: Sendable {}
