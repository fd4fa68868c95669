import Foundation
import MirrorBookkeeping
import MirrorCore
import SQLite

// Running a query on a SQLite store: the values (`CommitSummary`) are MirrorCore's.

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
            try forEachCommit(ids: candidates.prefix(plan.limit ?? candidates.count).map(\.id), links: plan.readsLinks, body)
        case .set(let set) where set.datedSQL != nil && plan.limit != nil:
            try forEachCommit(ids: try newestPassing(set, plan), links: plan.readsLinks, body)
        case .dateIndex, .set:
            let statement = try db.prepare(plan.sql())
            try statement.bind(plan.statementArguments).forEachRow {
                try body(Self.commitSummary(from: $0))
            }
        }
    }

    /// The newest `plan.limit` of `set` that pass the plan's conditions. The set's
    /// ids are sorted from its index alone; the conditions (`off_branch`, a grep)
    /// are then tested on rows in that order, a chunk at a time, until the limit
    /// is reached. Sorting the rows themselves read every candidate's row: 318 of
    /// them for a name with ten addresses, most of the 100,000-commit store's
    /// page reads for `query --author NAME -n 50`, where 50 are shown.
    private func newestPassing(_ set: CandidateSet, _ plan: QueryPlan) throws -> [Int64] {
        guard let newestFirst = set.newestFirstSQL, let limit = plan.limit else { return [] }
        let ordered = try db.prepare(newestFirst).bind(set.arguments).map { $0.int64(0) }
        guard !plan.conditions.isEmpty else { return Array(ordered.prefix(limit)) }
        var kept: [Int64] = []
        var next = 0
        while kept.count < limit && next < ordered.count {
            let chunk = ordered[next..<min(next + max(limit - kept.count, Self.minimumConditionChunk), ordered.count)]
            next = chunk.endIndex
            let passing = Set(
                try db.prepare(plan.passingSQL(candidates: chunk.count)).bind(Array(chunk) + plan.arguments).map { $0.int64(0) })
            kept += chunk.filter(passing.contains).prefix(limit - kept.count)
        }
        return kept
    }

    /// The fewest candidates tested per statement once most of the first chunk failed.
    static let minimumConditionChunk = 32

    /// Commits read by id with one statement: a page of `-n 50` is one statement, not 50.
    static let commitsPerStatement = 500

    /// The commits `ids` in that order, a page of them per statement (a page's
    /// worth is held at a time, so a long result still streams).
    private func forEachCommit(ids: [Int64], links: Bool, _ body: (CommitSummary) throws -> Void) throws {
        for start in stride(from: 0, to: ids.count, by: Self.commitsPerStatement) {
            let page = ids[start..<min(start + Self.commitsPerStatement, ids.count)]
            let parameters = page.map { _ in "?" }.joined(separator: ", ")
            var commits: [Int64: CommitSummary] = [:]
            commits.reserveCapacity(page.count)
            try db.prepare(Self.commitSelect(links: links) + "\nWHERE c.id IN (\(parameters))").bind(Array(page)).forEachRow {
                let commit = Self.commitSummary(from: $0)
                commits[commit.storeID] = commit
            }
            for id in page {
                if let commit = commits[id] { try body(commit) }
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
            statements.append((Self.commitSelect() + "\nWHERE c.id IN (?, ?)", [Int64(1), Int64(2)]))
        case .set(let set):
            statements.append(("SELECT count(*) FROM (\(set.sql) LIMIT ?)", set.arguments + [1]))
            if let newestFirst = set.newestFirstSQL, plan.limit != nil {
                statements.append((newestFirst, set.arguments))
                statements.append((plan.passingSQL(candidates: 2), [Int64(1), Int64(2)] + plan.arguments))
                statements.append((Self.commitSelect() + "\nWHERE c.id IN (?, ?)", [Int64(1), Int64(2)]))
            } else {
                statements.append((plan.sql(), plan.statementArguments))
            }
        case .dateIndex:
            statements.append((plan.sql(), plan.statementArguments))
        }
        return try statements.flatMap { statement in
            try db.prepare("EXPLAIN QUERY PLAN " + statement.sql).bind(statement.arguments).map { $0.string(3) }
        }
    }

    // MARK: - Rows

    /// The columns `commitSummary(from:)` reads, for commits aliased `c`.
    /// The columns `commitSummary(from:)` reads; without `links`, parents and
    /// repositories are read as empty (`CommitFilter.needsParentsAndRepositories`).
    static func commitColumns(links: Bool = true) -> String {
        let parentsAndRepositories =
            links
            ? """
            (SELECT group_concat(parent_sha, ' ') FROM
                (SELECT p.parent_sha FROM commit_parents p WHERE p.commit_id = c.id ORDER BY p.position)),
            (SELECT group_concat(full_name, ' ') FROM
                (SELECT r.full_name FROM repository_commits rc JOIN repositories r ON r.id = rc.repository_id
                 WHERE rc.commit_id = c.id ORDER BY r.full_name))
            """ : "'', ''"
        return """
            SELECT c.id, c.sha, c.message, c.html_url,
                   a.name, a.email, a.login, c.author_date,
                   m.name, m.email, m.login, c.committer_date,
                   \(parentsAndRepositories)
            """
    }

    /// A statement reading whole commits: `source` names the commits `c`.
    static func commitSelect(from source: String = "commits c", links: Bool = true) -> String {
        """
        \(commitColumns(links: links))
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
            parents: CommitSummary.spaceSeparated(row.string(12)),
            repositories: CommitSummary.spaceSeparated(row.string(13)),
            storeID: row.int64(0))
    }
}
