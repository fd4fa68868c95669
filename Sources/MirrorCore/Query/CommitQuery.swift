import Foundation
import SQLite

/// A person on a commit, as the store keeps them.
public struct CommitPerson: Sendable, Equatable {
    public var name: String
    public var email: String
    /// The GitHub account, when GitHub linked the email to one.
    public var login: String?
    /// ISO 8601 UTC, e.g. `2023-08-28T18:27:45Z`.
    public var date: String

    public init(name: String, email: String, login: String?, date: String) {
        self.name = name
        self.email = email
        self.login = login
        self.date = date
    }
}

/// One commit of a query result.
public struct CommitSummary: Sendable, Equatable {
    public var sha: String
    public var message: String
    /// The commit's page on GitHub, when known.
    public var url: String?
    public var author: CommitPerson
    public var committer: CommitPerson
    /// Parent shas, first parent first.
    public var parents: [String]
    /// Mirrored repositories that contain the commit (`OWNER/NAME`), sorted.
    public var repositories: [String]
    /// The commit's row id: a key, not an order (SQLite reuses the id of a
    /// deleted newest row; `query --follow` orders by the change cursor instead).
    public var storeID: Int64 = 0

    public init(
        sha: String, message: String, url: String?, author: CommitPerson, committer: CommitPerson, parents: [String],
        repositories: [String], storeID: Int64 = 0
    ) {
        self.sha = sha
        self.message = message
        self.url = url
        self.author = author
        self.committer = committer
        self.parents = parents
        self.repositories = repositories
        self.storeID = storeID
    }

    /// The message's first line.
    public var subject: String {
        message.firstIndex(where: \.isNewline).map { String(message[..<$0]) } ?? message
    }

    public var isMerge: Bool { parents.count > 1 }
}

// MARK: - Running a query

extension MirrorReader {
    /// Commits matching `filter`, newest committer date first; commits with the
    /// same date keep the order in which they were mirrored (GitHub's listing
    /// order, which is git's). Every user-supplied value is a bound parameter.
    public func commits(matching filter: CommitFilter) throws -> [CommitSummary] {
        var result: [CommitSummary] = []
        try forEachCommit(matching: filter) { result.append($0) }
        return result
    }

    /// Like `commits(matching:)`, one commit at a time (for long outputs).
    public func forEachCommit(matching filter: CommitFilter, _ body: (CommitSummary) throws -> Void) throws {
        try forEachCommit(matching: filter, strategy: .automatic, body)
    }

    func forEachCommit(
        matching filter: CommitFilter, strategy: QueryStrategy,
        _ body: (CommitSummary) throws -> Void
    ) throws {
        // One read transaction: the probes and every statement see one snapshot,
        // even while a sync commits pages (WAL readers never wait for it).
        try db.transaction(.deferred) {
            try runQuery(filter, strategy: strategy, body)
        }
    }

    private func runQuery(
        _ filter: CommitFilter, strategy: QueryStrategy,
        _ body: (CommitSummary) throws -> Void
    ) throws {
        guard let plan = try makePlan(filter, strategy: strategy) else { return }
        switch plan.driver {
        case .people(let column, let ids):
            // Newest `limit` of each person from their (person, date) index, merged.
            var candidates: [(id: Int64, date: String)] = []
            let statement = try db.prepare(plan.peopleSQL(column: column))
            for id in ids {
                let arguments: [any SQLiteBindable] = [id] + plan.arguments + [plan.limit ?? -1]
                candidates += try statement.bind(arguments).map { (id: $0.int64(0), date: $0.string(1)) }
            }
            candidates.sort { $0.date != $1.date ? $0.date > $1.date : $0.id < $1.id }
            let fetch = try db.prepare(Self.commitSelect() + "\nWHERE c.id = ?")
            for candidate in candidates.prefix(plan.limit ?? candidates.count) {
                if let commit = try fetch.bind([candidate.id]).first(Self.commitSummary(from:)) {
                    try body(commit)
                }
            }
        case .dateIndex, .set:
            let statement = try db.prepare(plan.sql())
            try statement.bind(plan.statementArguments).forEachRow {
                try body(Self.commitSummary(from: $0))
            }
        }
    }

    /// Which access path a query takes (for tests: every path must agree).
    func queryPlanDescription(_ filter: CommitFilter) throws -> String {
        guard let plan = try makePlan(filter, strategy: .automatic) else { return "empty" }
        switch plan.driver {
        case .dateIndex: return "date index"
        case .people(let column, let ids): return "\(column) index × \(ids.count)"
        case .set(let set): return "set: \(set.name)"
        }
    }

    /// SQLite's `EXPLAIN QUERY PLAN` steps for every statement a query runs
    /// (the candidate-set probes and the query itself), for tests: no shape may
    /// read `commits` whole.
    func queryPlanSteps(_ filter: CommitFilter, strategy: QueryStrategy) throws -> [String] {
        guard let plan = try makePlan(filter, strategy: strategy) else { return [] }
        var statements: [(sql: String, arguments: [any SQLiteBindable])] = []
        switch plan.driver {
        case .people(let column, let ids):
            statements.append((plan.peopleSQL(column: column), [ids[0]] + plan.arguments + [plan.limit ?? -1]))
            statements.append((Self.commitSelect() + "\nWHERE c.id = ?", [Int64(1)]))
        case .set(let set):
            statements.append(("SELECT count(*) FROM (\(set.sql) LIMIT ?)", set.arguments + [1]))
            statements.append((plan.sql(), plan.statementArguments))
        case .dateIndex:
            statements.append((plan.sql(), plan.statementArguments))
        }
        return try statements.flatMap { statement in
            try db.prepare("EXPLAIN QUERY PLAN " + statement.sql).bind(statement.arguments).map { $0.string(3) }
        }
    }

    // MARK: - Rows

    /// The columns `commitSummary(from:)` reads, for commits aliased `c`.
    static let commitColumns = """
        SELECT c.id, c.sha, c.message, c.html_url,
               a.name, a.email, a.login, c.author_date,
               m.name, m.email, m.login, c.committer_date,
               (SELECT group_concat(parent_sha, ' ') FROM
                   (SELECT p.parent_sha FROM commit_parents p WHERE p.commit_id = c.id ORDER BY p.position)),
               (SELECT group_concat(full_name, ' ') FROM
                   (SELECT r.full_name FROM repository_commits rc JOIN repositories r ON r.id = rc.repository_id
                    WHERE rc.commit_id = c.id ORDER BY r.full_name))
        """

    /// A statement reading whole commits: `source` names the commits `c`.
    static func commitSelect(from source: String = "commits c") -> String {
        """
        \(commitColumns)
        FROM \(source)
        JOIN authors a ON a.id = c.author_id
        JOIN authors m ON m.id = c.committer_id
        """
    }

    static func commitSummary(from row: Statement) -> CommitSummary {
        CommitSummary(
            sha: row.string(1), message: row.string(2), url: row.optionalString(3),
            author: CommitPerson(name: row.string(4), email: row.string(5), login: row.optionalString(6), date: row.string(7)),
            committer: CommitPerson(name: row.string(8), email: row.string(9), login: row.optionalString(10), date: row.string(11)),
            parents: row.string(12).split(separator: " ").map(String.init),
            repositories: row.string(13).split(separator: " ").map(String.init),
            storeID: row.int64(0))
    }
}
