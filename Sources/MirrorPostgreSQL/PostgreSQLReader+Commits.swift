import Foundation
import MirrorBookkeeping
import MirrorCore
import PostgreSQL

// Commit queries on a PostgreSQL store: CommitFilter's meaning (Query/*.swift in
// MirrorCore, which MirrorReader plans for SQLite) as one statement. PostgreSQL's
// planner chooses the access path that MirrorReader chooses by its own probes.

extension PostgreSQLReader {
    public func forEachCommit(matching filter: CommitFilter, _ body: (CommitSummary) throws -> Void) throws {
        try read {
            guard let statement = try statement(for: filter) else { return }
            let (sql, parameters) = statement.sql(limit: filter.limit)
            try connection.forEachRow(sql, parameters) { try body(Self.commitSummary($0)) }
        }
    }

    /// Following a query on the change cursor, as `MirrorReader.follow` does; a
    /// check is one read of `change_counter`, the number every sync advances.
    public func follow(
        _ filter: CommitFilter, after start: Int64, interval: Duration, isStopped: () -> Bool,
        _ body: ([CommitSummary]) throws -> Void
    ) throws {
        var seen = start
        var filter = filter
        filter.limit = nil
        while !isStopped() {
            Thread.sleep(forTimeInterval: Double(interval.components.attoseconds) / 1e18 + Double(interval.components.seconds))
            let newest = try latestChange()
            guard newest > seen else { continue }
            filter.arrivedAfter = seen
            filter.arrivedThrough = newest
            let (arrived, order) = try read {
                let arrived = try matchingCommits(filter)
                return (arrived, arrived.isEmpty ? [:] : try arrivalOrder(filter, after: seen, through: newest))
            }
            seen = newest
            guard !arrived.isEmpty else { continue }
            // A commit whose membership changed again since the query (rare) goes last.
            try body(
                arrived.sorted { (order[$0.storeID] ?? .max, $0.storeID) < (order[$1.storeID] ?? .max, $1.storeID) })
        }
    }

    /// The conditions `filter` puts on commits; `nil` when nothing can match.
    func statement(for filter: CommitFilter) throws -> CommitStatement? {
        if let limit = filter.limit, limit <= 0 { return nil }
        var statement = CommitStatement()
        if !filter.greps.isEmpty {
            guard let grep = Self.grepCondition(filter, &statement) else { return nil }
            if let grep { statement.conditions.append(grep) }
        }
        for (column, patterns, mailmap) in [("author_id", filter.authors, filter.mailmap), ("committer_id", filter.committers, nil)]
        where !patterns.isEmpty {
            let ids = try identityIDs(matching: patterns, mailmap: mailmap)
            if ids.isEmpty { return nil }
            statement.conditions.append("c.\(column) = ANY(\(statement.bind(BigIntArray(ids), as: "bigint[]")))")
        }
        if !filter.coAuthors.isEmpty {
            let ids = try identityIDs(matching: filter.coAuthors, mailmap: filter.mailmap)
            if ids.isEmpty { return nil }
            let list = statement.bind(BigIntArray(ids), as: "bigint[]")
            statement.conditions.append(
                "EXISTS (SELECT 1 FROM commit_coauthors ca WHERE ca.commit_id = c.id AND ca.author_id = ANY(\(list)))")
        }
        let onBranch = filter.includeOffBranch ? "" : " AND rc.off_branch_since IS NULL"
        var repositoryID: Int64?
        if let name = filter.repository {
            guard let repository = try repository(named: name) else { return nil }
            repositoryID = repository.id
            let id = statement.bind(repository.id, as: "bigint")
            statement.conditions.append(
                "EXISTS (SELECT 1 FROM repository_commits rc WHERE rc.repository_id = \(id) AND rc.commit_id = c.id\(onBranch))")
        } else if !filter.includeOffBranch {
            statement.conditions.append("NOT c.off_branch")
        }
        if let selection = filter.branches {
            let ids = try branchIDs(selection, repositoryID: repositoryID)
            if ids.isEmpty { return nil }
            statement.conditions.append(
                "EXISTS (SELECT 1 FROM branch_commits bc WHERE bc.commit_id = c.id AND bc.branch_id = ANY(\(statement.bind(BigIntArray(ids), as: "bigint[]"))))"
            )
        }
        if filter.arrivedAfter != nil || filter.arrivedThrough != nil {
            var scope = filter.includeOffBranch ? "" : " AND rc.off_branch_since IS NULL"
            if let repositoryID { scope += " AND rc.repository_id = " + statement.bind(repositoryID, as: "bigint") }
            let first = "(SELECT min(rc.change_seq) FROM repository_commits rc WHERE rc.commit_id = c.id\(scope))"
            if let after = filter.arrivedAfter { statement.conditions.append("\(first) > \(statement.bind(after, as: "bigint"))") }
            if let through = filter.arrivedThrough {
                statement.conditions.append("\(first) <= \(statement.bind(through, as: "bigint"))")
            }
        }
        if let ids = filter.commitIDs {
            guard !ids.isEmpty else { return nil }
            statement.conditions.append("c.id = ANY(\(statement.bind(BigIntArray(ids.sorted()), as: "bigint[]")))")
        }
        switch filter.merges {
        case .include: break
        case .exclude: statement.conditions.append("c.parent_count <= 1")
        case .only: statement.conditions.append("c.parent_count > 1")
        }
        // Committer dates are ISO 8601 UTC text of one shape, which sorts as time in any
        // collation (CommitStatement.sql): the column's own keeps its index usable.
        if let since = filter.since {
            statement.conditions.append("c.committer_date >= \(statement.bind(ISO8601Timestamp.format(since), as: "text"))")
        }
        if let until = filter.until {
            statement.conditions.append("c.committer_date <= \(statement.bind(ISO8601Timestamp.format(until), as: "text"))")
        }
        return statement
    }

    /// The test for `filter.greps` (OR, or AND with `allMatch`, negated by
    /// `invertGrep`): `.some(nil)` when every message passes, `nil` when none can.
    static func grepCondition(_ filter: CommitFilter, _ statement: inout CommitStatement) -> String?? {
        // The empty needle matches every message: it decides an OR, and drops out of an AND.
        let everything = filter.allMatch ? filter.greps.allSatisfy(\.isEmpty) : filter.greps.contains(where: \.isEmpty)
        if everything { return filter.invertGrep ? nil : .some(nil) }
        let tests = filter.greps.filter { !$0.isEmpty }.map { needle in
            "c.message ~ " + statement.bind(MessagePattern.regex(for: needle), as: "text")
        }
        let test = "(" + tests.joined(separator: filter.allMatch ? " AND " : " OR ") + ")"
        return .some(filter.invertGrep ? "NOT " + test : test)
    }

    /// Rows of `authors` whose "Name <email>" contains any pattern, ignoring case
    /// (`search_text` is stored lowercased by the program, the needles too); with a
    /// mailmap, every identity of a person any of whose identities matches.
    func identityIDs(matching patterns: [String], mailmap: Mailmap?) throws -> [Int64] {
        let needles = patterns.map(AuthorSearch.needle)
        guard let mailmap else {
            let rows = try connection.execute(
                """
                SELECT id FROM authors
                WHERE EXISTS (SELECT 1 FROM unnest($1::text[]) AS n(needle) WHERE strpos(search_text, n.needle) > 0)
                ORDER BY id
                """, [TextArray(needles)])
            return (0..<rows.count).compactMap { rows.int64($0, 0) }
        }
        return Person.identityIDs(of: try people(mailmap: mailmap), matching: needles)
    }

    /// Every person (`Person.group`), identities in the order they were first
    /// seen, which is their ids' order in both stores (`PageStaging.upsertAuthors`).
    public func people(mailmap: Mailmap?) throws -> [Person] {
        try read {
            let rows = try connection.execute(
                """
                SELECT a.id, a.name, a.email, a.login, coalesce(n.commits, 0)
                FROM authors a LEFT JOIN author_commit_counts n ON n.author_id = a.id ORDER BY a.id
                """)
            return Person.group(
                (0..<rows.count).map { row in
                    (
                        identity: Person.Identity(
                            id: rows.int64(row, 0) ?? 0, name: rows.string(row, 1) ?? "", email: rows.string(row, 2) ?? "",
                            login: rows.string(row, 3)), commits: rows.int(row, 4) ?? 0
                    )
                }, mailmap: mailmap)
        }
    }

    /// Each commit's first counted change number in (after, through], by commit row id.
    private func arrivalOrder(_ filter: CommitFilter, after: Int64, through: Int64) throws -> [Int64: Int64] {
        var parameters: [any PostgreSQLBindable] = [after, through]
        var scope = filter.includeOffBranch ? "" : " AND rc.off_branch_since IS NULL"
        if let name = filter.repository, let repository = try repository(named: name) {
            parameters.append(repository.id)
            scope += " AND rc.repository_id = $3::bigint"
        }
        let rows = try connection.execute(
            """
            SELECT rc.commit_id, min(rc.change_seq) FROM repository_commits rc
            WHERE rc.change_seq > $1::bigint AND rc.change_seq <= $2::bigint\(scope)
            GROUP BY rc.commit_id
            """, parameters)
        return Dictionary(
            (0..<rows.count).map { (rows.int64($0, 0) ?? 0, rows.int64($0, 1) ?? 0) }, uniquingKeysWith: min)
    }

    static func commitSummary(_ row: QueryResult) -> CommitSummary {
        let text = { (column: Int) in row.string(0, column) ?? "" }
        return CommitSummary(
            sha: text(1), message: text(2), url: row.string(0, 3),
            author: CommitPerson(name: text(4), email: text(5), login: row.string(0, 6), date: text(7)),
            committer: CommitPerson(name: text(8), email: text(9), login: row.string(0, 10), date: text(11)),
            parents: CommitSummary.spaceSeparated(text(12)),
            repositories: CommitSummary.spaceSeparated(text(13)),
            storeID: row.int64(0, 0) ?? 0)
    }
}
