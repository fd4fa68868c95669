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
    /// The commit's row id: rows are numbered in the order they were stored.
    public var storeID: Int64 = 0

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

// MARK: - Planning

/// Forces an access path; `.automatic` chooses by bounded probes.
enum QueryStrategy: Sendable, CaseIterable {
    case automatic
    /// Walk `commits_committer_date` newest first, testing every filter per row.
    case dateIndex
    /// Read the smallest candidate set (message index, repository, people), then sort.
    case smallestSet
    /// Walk each matching person's (person, date) index and merge.
    case people
}

/// An SQL condition on `commits c` and its bound values.
struct QueryCondition {
    var sql: String
    var arguments: [any SQLiteBindable]
}

/// A bounded set of commit ids that can drive a query.
struct CandidateSet {
    var name: String
    /// `SELECT … AS id` of the candidates.
    var sql: String
    var arguments: [any SQLiteBindable]
}

struct QueryPlan {
    enum Driver {
        case dateIndex
        case set(CandidateSet)
        case people(column: String, ids: [Int64])
    }

    var driver: Driver
    /// Conditions not already implied by the driver.
    var conditions: [QueryCondition]
    var limit: Int?

    var arguments: [any SQLiteBindable] { conditions.flatMap(\.arguments) }

    private var whereClause: String {
        conditions.isEmpty ? "" : "\nWHERE " + conditions.map(\.sql).joined(separator: "\n  AND ")
    }

    /// The one statement for `.dateIndex` and `.set`: the set's parameters, the
    /// conditions', then the limit.
    var statementArguments: [any SQLiteBindable] {
        var arguments: [any SQLiteBindable] = []
        if case .set(let set) = driver { arguments += set.arguments }
        arguments += self.arguments
        if let limit { arguments.append(limit) }
        return arguments
    }

    /// The one statement for `.dateIndex` and `.set`.
    func sql() -> String {
        let order = "\nORDER BY c.committer_date DESC, c.id ASC"
        switch driver {
        case .set(let set):
            // CROSS JOIN keeps the candidate set outermost: each candidate is one rowid lookup.
            let candidates = "(\(set.sql)) s\nCROSS JOIN commits c ON c.id = s.id"
            guard limit != nil else {
                return MirrorReader.commitSelect(from: candidates) + whereClause + order
            }
            // Sort the candidates by date alone, then read the few kept in full.
            let picked = "SELECT c.id AS id FROM \(candidates)\(whereClause)\(order)\nLIMIT ?"
            return MirrorReader.commitSelect(from: "(\(picked)) picked\nCROSS JOIN commits c ON c.id = picked.id") + order
        case .dateIndex, .people:
            var sql = MirrorReader.commitSelect(from: "commits c INDEXED BY commits_committer_date")
            sql += whereClause + order
            if limit != nil { sql += "\nLIMIT ?" }
            return sql
        }
    }

    /// One person's newest commits: parameter 1 is the person, then the
    /// conditions, then the limit (-1 = none).
    func peopleSQL(column: String) -> String {
        var sql = "SELECT c.id, c.committer_date FROM commits c INDEXED BY commits_\(column)\nWHERE c.\(column) = ?"
        for condition in conditions { sql += "\n  AND " + condition.sql }
        sql += "\nORDER BY c.committer_date DESC, c.id ASC\nLIMIT ?"
        return sql
    }
}

extension MirrorReader {
    /// Without a limit, a candidate set this small is always read whole.
    static let candidateBound = 10_000
    /// At most this many people are walked one by one and merged.
    static let peopleWalkBound = 64

    /// `nil` when nothing can match (no such person or repository).
    func makePlan(_ filter: CommitFilter, strategy: QueryStrategy) throws -> QueryPlan? {
        if let limit = filter.limit, limit <= 0 { return nil }
        var conditions: [QueryCondition] = []
        var sets: [CandidateSet] = []
        var people: [(column: String, ids: [Int64])] = []

        // The message index can drive a query (a set of matching ids); walks
        // test each row they reach instead, exactly and cheaply when possible.
        var grepCondition: QueryCondition?
        var messageIndexSet: CandidateSet?
        if !filter.greps.isEmpty {
            guard let grep = messageConditions(filter) else { return nil }
            grepCondition = grep.condition
            if let set = grep.set {
                messageIndexSet = set
                sets.append(set)
            }
        }

        let fields = [("author_id", filter.authors, filter.mailmap), ("committer_id", filter.committers, nil)]
        for (column, patterns, mailmap) in fields where !patterns.isEmpty {
            let ids = try identityIDs(matching: patterns, mailmap: mailmap)
            if ids.isEmpty { return nil }
            people.append((column, ids))
            let list = Self.idList(ids)
            conditions.append(QueryCondition(sql: "+c.\(column) IN (\(list.sql))", arguments: list.arguments))
            sets.append(
                CandidateSet(
                    name: column == "author_id" ? "author" : "committer",
                    sql: "SELECT id FROM commits WHERE \(column) IN (\(list.sql))", arguments: list.arguments))
        }
        if !filter.coAuthors.isEmpty {
            let ids = try identityIDs(matching: filter.coAuthors, mailmap: filter.mailmap)
            if ids.isEmpty { return nil }
            let list = Self.idList(ids)
            conditions.append(
                QueryCondition(
                    sql: "EXISTS (SELECT 1 FROM commit_coauthors ca WHERE ca.commit_id = c.id AND ca.author_id IN (\(list.sql)))",
                    arguments: list.arguments))
            sets.append(
                CandidateSet(
                    name: "co-author",
                    sql: "SELECT DISTINCT commit_id AS id FROM commit_coauthors WHERE author_id IN (\(list.sql))",
                    arguments: list.arguments))
        }
        if let storedAfter = filter.storedAfter {
            conditions.append(QueryCondition(sql: "c.id > ?", arguments: [storedAfter]))
        }
        if let storedThrough = filter.storedThrough {
            conditions.append(QueryCondition(sql: "c.id <= ?", arguments: [storedThrough]))
        }

        let onBranch = filter.includeOffBranch ? "" : " AND off_branch_since IS NULL"
        if let name = filter.repository {
            guard let repository = try repository(named: name) else { return nil }
            conditions.append(
                QueryCondition(
                    sql: "EXISTS (SELECT 1 FROM repository_commits rc WHERE rc.repository_id = ? AND rc.commit_id = c.id\(onBranch))",
                    arguments: [repository.id]))
            sets.append(
                CandidateSet(
                    name: "repository",
                    sql: "SELECT commit_id AS id FROM repository_commits WHERE repository_id = ?\(onBranch)",
                    arguments: [repository.id]))
        } else if !filter.includeOffBranch {
            // The flag on the row: hiding rewritten-away commits costs no lookup.
            conditions.append(QueryCondition(sql: "+c.off_branch = 0", arguments: []))
        }

        switch filter.merges {
        case .include: break
        case .exclude: conditions.append(QueryCondition(sql: "+c.parent_count <= 1", arguments: []))
        case .only: conditions.append(QueryCondition(sql: "+c.parent_count > 1", arguments: []))
        }
        // Committer dates are ISO 8601 UTC text, which sorts as time.
        if let since = filter.since {
            conditions.append(QueryCondition(sql: "c.committer_date >= ?", arguments: [ISO8601Timestamp.format(since)]))
        }
        if let until = filter.until {
            conditions.append(QueryCondition(sql: "c.committer_date <= ?", arguments: [ISO8601Timestamp.format(until)]))
        }

        func plan(_ driver: QueryPlan.Driver) -> QueryPlan {
            var conditions = conditions
            switch driver {
            case .set(let set) where set.name == messageIndexSet?.name:
                break  // the set is exactly the grep's matches
            case .people(let column, _):
                conditions.removeAll { $0.sql.hasPrefix("+c.\(column) IN") }
                if let grepCondition { conditions.append(grepCondition) }
            default:
                if let grepCondition { conditions.append(grepCondition) }
            }
            return QueryPlan(driver: driver, conditions: conditions, limit: filter.limit)
        }

        switch strategy {
        case .dateIndex:
            return plan(.dateIndex)
        case .people:
            guard let first = people.first else { return plan(.dateIndex) }
            return plan(.people(column: first.column, ids: first.ids))
        case .smallestSet:
            guard !sets.isEmpty else { return plan(.dateIndex) }
            let sizes = try sets.map { try candidateCount($0, bound: .max) }
            return plan(.set(sets[sizes.indices.min { sizes[$0] < sizes[$1] }!]))
        case .automatic:
            break
        }

        // Walking a few people's (person, date) indexes reads at most
        // people × limit entries; a candidate set is only worth it if smaller.
        var peopleWalk: (column: String, ids: [Int64], cost: Int)?
        if let limit = filter.limit, let walk = people.min(by: { $0.ids.count < $1.ids.count }),
            walk.ids.count <= Self.peopleWalkBound
        {
            peopleWalk = (walk.column, walk.ids, walk.ids.count * limit)
        }
        // Probe each candidate set, counting no further than a set is useful.
        // Reading and sorting a set costs about its size, s; a date walk that
        // stops at the limit reads about limit × total / s rows (matches spread
        // evenly), so the set wins while s² ≤ limit × total, and always while
        // s ≤ limit. Without a limit everything is read: a set wins while it is
        // under half the store.
        let total = try estimatedCommitCount()
        var bound: Int
        if let limit = filter.limit {
            bound = max(limit, Int((Double(limit) * Double(total)).squareRoot()))
        } else {
            bound = max(Self.candidateBound, total / 2)
        }
        if let peopleWalk { bound = min(bound, peopleWalk.cost - 1) }
        var smallest: (set: CandidateSet, count: Int)?
        for set in sets {
            let count = try candidateCount(set, bound: bound + 1)
            if count <= bound, count < smallest?.count ?? .max { smallest = (set, count) }
        }
        if let smallest { return plan(.set(smallest.set)) }
        if let peopleWalk { return plan(.people(column: peopleWalk.column, ids: peopleWalk.ids)) }
        return plan(.dateIndex)
    }

    /// The largest commit id: the count if nothing was ever deleted, and O(1).
    private func estimatedCommitCount() throws -> Int {
        try db.scalarInt("SELECT max(id) FROM commits") ?? 0
    }

    private func candidateCount(_ set: CandidateSet, bound: Int) throws -> Int {
        try db.scalarInt("SELECT count(*) FROM (\(set.sql) LIMIT ?)", set.arguments + [bound]) ?? 0
    }
}
