import Foundation
import MirrorBookkeeping
import MirrorCore
import SQLite

// Planning a commit query: which candidate set to start from, chosen by bounded probes.

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
    /// The same candidates as `id, committer_date`, read from an index alone
    /// (the people's (person, date) indexes), with the same arguments: then a
    /// query with a limit reads only the rows it may show (`MirrorReader.runQuery`).
    var datedSQL: String?

    /// `datedSQL`'s ids, newest first (equal dates in mirroring order, as every query lists them).
    var newestFirstSQL: String? { datedSQL.map { $0 + "\nORDER BY committer_date DESC, id ASC" } }
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
    /// Whether the walks name their index (`INDEXED BY`, which fails without
    /// it): not while a bulk load has it away (BulkLoadIndexes).
    var namesIndexes = true
    /// Whether parents and repositories are read (`CommitFilter.needsParentsAndRepositories`).
    var readsLinks = true

    private func indexedBy(_ index: String) -> String { namesIndexes ? " INDEXED BY \(index)" : "" }

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
                return MirrorReader.commitSelect(from: candidates, links: readsLinks) + whereClause + order
            }
            // Sort the candidates by date alone, then read the few kept in full.
            let picked = "SELECT c.id AS id FROM \(candidates)\(whereClause)\(order)\nLIMIT ?"
            return MirrorReader.commitSelect(from: "(\(picked)) picked\nCROSS JOIN commits c ON c.id = picked.id", links: readsLinks)
                + order
        case .dateIndex, .people:
            var sql = MirrorReader.commitSelect(from: "commits c" + indexedBy("commits_committer_date"), links: readsLinks)
            sql += whereClause + order
            if limit != nil { sql += "\nLIMIT ?" }
            return sql
        }
    }

    /// Which of `candidates` ids pass the conditions: the ids' parameters first,
    /// then the conditions' (`arguments`).
    func passingSQL(candidates: Int) -> String {
        let placeholders = Array(repeating: "?", count: candidates).joined(separator: ", ")
        return (["SELECT c.id FROM commits c WHERE c.id IN (\(placeholders))"] + conditions.map(\.sql)).joined(separator: " AND ")
    }

    /// One person's newest commits: parameter 1 is the person, then the
    /// conditions, then the limit (-1 = none).
    func peopleSQL(column: String) -> String {
        var sql = "SELECT c.id, c.committer_date FROM commits c\(indexedBy("commits_" + column))\nWHERE c.\(column) = ?"
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
        // In the query's read transaction: the plan and its statements see one schema.
        let indexed = try !BulkLoadIndexes.anyMissing(db)
        guard let parts = try planParts(filter, indexed: indexed) else { return nil }

        func plan(_ driver: QueryPlan.Driver) -> QueryPlan {
            var conditions = parts.conditions
            switch driver {
            case .set(let set) where set.name == parts.messageIndexSet?.name:
                break  // the set is exactly the grep's matches
            case .people(let column, _):
                conditions.removeAll { $0.sql.hasPrefix("+c.\(column) IN") }
                if let grepCondition = parts.grepCondition { conditions.append(grepCondition) }
            default:
                if let grepCondition = parts.grepCondition { conditions.append(grepCondition) }
            }
            return QueryPlan(
                driver: driver, conditions: conditions, limit: filter.limit, namesIndexes: indexed,
                readsLinks: filter.needsParentsAndRepositories)
        }

        switch strategy {
        case .dateIndex:
            return plan(.dateIndex)
        case .people:
            guard let first = parts.people.first else { return plan(.dateIndex) }
            return plan(.people(column: first.column, ids: first.ids))
        case .smallestSet:
            guard !parts.sets.isEmpty else { return plan(.dateIndex) }
            let sizes = try parts.sets.map { try candidateCount($0, bound: .max) }
            return plan(.set(parts.sets[sizes.indices.min { sizes[$0] < sizes[$1] }!]))
        case .automatic:
            return plan(try cheapestDriver(parts, limit: filter.limit, indexed: indexed))
        }
    }

    /// The driver expected to read the fewest rows. Walking a few people's
    /// (person, date) indexes reads at most people × limit entries; a candidate
    /// set is only worth it if smaller.
    private func cheapestDriver(_ parts: PlanParts, limit: Int?, indexed: Bool) throws -> QueryPlan.Driver {
        var peopleWalk: (column: String, ids: [Int64], cost: Int)?
        if indexed, let limit, let walk = parts.people.min(by: { $0.ids.count < $1.ids.count }),
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
        if let limit {
            bound = max(limit, Int((Double(limit) * Double(total)).squareRoot()))
        } else {
            bound = max(Self.candidateBound, total / 2)
        }
        if let peopleWalk { bound = min(bound, peopleWalk.cost - 1) }
        var smallest: (set: CandidateSet, count: Int)?
        for set in parts.sets {
            let count = try candidateCount(set, bound: bound + 1)
            if count <= bound, count < smallest?.count ?? .max { smallest = (set, count) }
        }
        if let smallest { return .set(smallest.set) }
        if let peopleWalk { return .people(column: peopleWalk.column, ids: peopleWalk.ids) }
        return .dateIndex
    }

    /// The largest commit id: the count if nothing was ever deleted, and O(1).
    private func estimatedCommitCount() throws -> Int {
        try db.scalarInt("SELECT max(id) FROM commits") ?? 0
    }

    private func candidateCount(_ set: CandidateSet, bound: Int) throws -> Int {
        try db.scalarInt("SELECT count(*) FROM (\(set.sql) LIMIT ?)", set.arguments + [bound]) ?? 0
    }
}
