import MirrorBookkeeping
import MirrorCore
import SQLite

/// What a filter asks of the store: conditions every row must meet, and the
/// candidate sets and people's indexes that could drive the query instead of a
/// walk by date.
struct PlanParts {
    var conditions: [QueryCondition] = []
    var sets: [CandidateSet] = []
    var people: [(column: String, ids: [Int64])] = []
    /// The message test, added to every driver but the message index's own set.
    var grepCondition: QueryCondition?
    var messageIndexSet: CandidateSet?
}

extension MirrorReader {
    /// `nil` when nothing can match (no such person, repository or branch).
    func planParts(_ filter: CommitFilter, indexed: Bool) throws -> PlanParts? {
        var parts = PlanParts()
        // The message index can drive a query (a set of matching ids); walks
        // test each row they reach instead, exactly and cheaply when possible.
        if !filter.greps.isEmpty {
            guard let grep = messageConditions(filter) else { return nil }
            parts.grepCondition = grep.condition
            if let set = grep.set {
                parts.messageIndexSet = set
                parts.sets.append(set)
            }
        }
        guard try addPeople(filter, indexed: indexed, to: &parts), try addPlaces(filter, to: &parts) else { return nil }
        if let ids = filter.commitIDs {
            // A path query's answer: the smallest set there is, more often than not.
            guard !ids.isEmpty else { return nil }
            let list = Self.idList(ids.sorted())
            parts.conditions.append(QueryCondition(sql: "+c.id IN (\(list.sql))", arguments: list.arguments))
            parts.sets.append(
                CandidateSet(name: "paths", sql: "SELECT id FROM commits WHERE id IN (\(list.sql))", arguments: list.arguments))
        }
        switch filter.merges {
        case .include: break
        case .exclude: parts.conditions.append(QueryCondition(sql: "+c.parent_count <= 1", arguments: []))
        case .only: parts.conditions.append(QueryCondition(sql: "+c.parent_count > 1", arguments: []))
        }
        // Committer dates are ISO 8601 UTC text, which sorts as time.
        if let since = filter.since {
            parts.conditions.append(QueryCondition(sql: "c.committer_date >= ?", arguments: [ISO8601Timestamp.format(since)]))
        }
        if let until = filter.until {
            parts.conditions.append(QueryCondition(sql: "c.committer_date <= ?", arguments: [ISO8601Timestamp.format(until)]))
        }
        return parts
    }

    /// Authors, committers and co-authors; `false` when one of them matches nobody.
    private func addPeople(_ filter: CommitFilter, indexed: Bool, to parts: inout PlanParts) throws -> Bool {
        let fields = [("author_id", filter.authors, filter.mailmap), ("committer_id", filter.committers, nil)]
        for (column, patterns, mailmap) in fields where !patterns.isEmpty {
            let ids = try identityIDs(matching: patterns, mailmap: mailmap)
            if ids.isEmpty { return false }
            parts.people.append((column, ids))
            let list = Self.idList(ids)
            parts.conditions.append(QueryCondition(sql: "+c.\(column) IN (\(list.sql))", arguments: list.arguments))
            parts.sets.append(
                CandidateSet(
                    name: column == "author_id" ? "author" : "committer",
                    sql: "SELECT id FROM commits WHERE \(column) IN (\(list.sql))", arguments: list.arguments,
                    datedSQL: indexed ? "SELECT id, committer_date FROM commits WHERE \(column) IN (\(list.sql))" : nil))
        }
        if !filter.coAuthors.isEmpty {
            let ids = try identityIDs(matching: filter.coAuthors, mailmap: filter.mailmap)
            if ids.isEmpty { return false }
            Self.addLinks(
                ids, named: "co-author", table: "commit_coauthors", alias: "ca", column: "author_id", to: &parts)
        }
        return true
    }

    /// The repository, branches and arrival window; `false` when no such repository or branch is stored.
    private func addPlaces(_ filter: CommitFilter, to parts: inout PlanParts) throws -> Bool {
        let onBranch = filter.includeOffBranch ? "" : " AND off_branch_since IS NULL"
        var repositoryID: Int64?
        if let name = filter.repository {
            guard let repository = try repository(named: name) else { return false }
            repositoryID = repository.id
            parts.conditions.append(
                QueryCondition(
                    sql: "EXISTS (SELECT 1 FROM repository_commits rc WHERE rc.repository_id = ? AND rc.commit_id = c.id\(onBranch))",
                    arguments: [repository.id]))
            parts.sets.append(
                CandidateSet(
                    name: "repository",
                    sql: "SELECT commit_id AS id FROM repository_commits WHERE repository_id = ?\(onBranch)",
                    arguments: [repository.id]))
        } else if !filter.includeOffBranch {
            // The flag on the row: hiding rewritten-away commits costs no lookup.
            parts.conditions.append(QueryCondition(sql: "+c.off_branch = 0", arguments: []))
        }
        if let selection = filter.branches {
            let ids = try branchIDs(selection, repositoryID: repositoryID)
            if ids.isEmpty { return false }
            Self.addLinks(ids, named: "branch", table: "branch_commits", alias: "bc", column: "branch_id", to: &parts)
        }
        if filter.arrivedAfter != nil || filter.arrivedThrough != nil {
            let arrival = arrivalConditions(filter, repositoryID: repositoryID)
            parts.conditions += arrival.conditions
            if let set = arrival.set { parts.sets.append(set) }
        }
        return true
    }

    /// Commits linked in `table` (`commit_id`, `column`) to one of `ids`: a condition
    /// on the row, and the set of those commits.
    private static func addLinks(
        _ ids: [Int64], named name: String, table: String, alias: String, column: String, to parts: inout PlanParts
    ) {
        let list = idList(ids)
        parts.conditions.append(
            QueryCondition(
                sql: "EXISTS (SELECT 1 FROM \(table) \(alias) WHERE \(alias).commit_id = c.id AND \(alias).\(column) IN (\(list.sql)))",
                arguments: list.arguments))
        parts.sets.append(
            CandidateSet(
                name: name, sql: "SELECT DISTINCT commit_id AS id FROM \(table) WHERE \(column) IN (\(list.sql))",
                arguments: list.arguments))
    }
}
