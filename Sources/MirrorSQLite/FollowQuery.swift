import Foundation
import MirrorBookkeeping
import MirrorCore
import SQLite

// Following a query on the store's change cursor (Schema version 8).
//
// Every membership (a commit in a repository) carries the change number that
// made it visible: given when the commit joined the repository, and again when
// a branch reached it after a rewrite had left it off. A commit is in a query's
// result as of number N when a membership the query counts (of the repository
// it names, if any; on a branch unless it includes rewritten-away commits) has
// a number ≤ N. The commits that entered the result between two numbers are
// those whose first such number lies between them: a fork joining commits that
// are already listed brings nothing new to a query of every repository, and
// everything new to a query of the fork. Numbers are never reused, so deleted
// rows (prune) cannot hide a later arrival, as row ids did.

extension MirrorReader {
    /// The store's latest change number (0 for an empty store): where `follow` starts.
    public func latestChange() throws -> Int64 {
        Int64(try db.scalarInt("SELECT last FROM change_counter") ?? 0)
    }

    /// Following a query: waits for commits that enter the result of `filter`
    /// after change number `start`, and hands each to `body` once, in the order
    /// they arrived, until `isStopped()` says so. Between checks it sleeps; a
    /// check is one `PRAGMA data_version` (it changes when another connection
    /// commits), so an idle follower costs next to nothing.
    public func follow(
        _ filter: CommitFilter, after start: Int64, interval: Duration = .milliseconds(100),
        isStopped: () -> Bool, _ body: ([CommitSummary]) throws -> Void
    ) throws {
        var seen = start
        // nil: the first check reads the counter whatever data_version says, so a
        // commit stored between the caller's listing and this call is not left
        // waiting for some later write.
        var version: Int?
        var filter = filter
        filter.limit = nil
        while !isStopped() {
            Thread.sleep(forTimeInterval: Double(interval.components.attoseconds) / 1e18 + Double(interval.components.seconds))
            let current = try dataVersion()
            guard current != version else { continue }
            version = current
            let newest = try latestChange()
            guard newest > seen else { continue }
            filter.arrivedAfter = seen
            filter.arrivedThrough = newest
            let arrived = try commits(matching: filter)
            let order = arrived.isEmpty ? [:] : try arrivalOrder(filter, after: seen, through: newest)
            seen = newest
            guard !arrived.isEmpty else { continue }
            // A commit whose membership changed again since the query (rare) goes last.
            try body(
                arrived.sorted {
                    (order[$0.storeID] ?? .max, $0.storeID) < (order[$1.storeID] ?? .max, $1.storeID)
                })
        }
    }

    /// `filter.arrivedAfter` / `arrivedThrough` as conditions on commits `c`, and
    /// with `arrivedAfter` the candidate set of memberships numbered since: a range
    /// of the change-number index, small when following.
    func arrivalConditions(_ filter: CommitFilter, repositoryID: Int64?) -> (conditions: [QueryCondition], set: CandidateSet?) {
        let scope = Self.arrivalScope(filter, repositoryID: repositoryID)
        let first = "(SELECT min(rc.change_seq) FROM repository_commits rc WHERE rc.commit_id = c.id\(scope.sql))"
        let condition: QueryCondition
        switch (filter.arrivedAfter, filter.arrivedThrough) {
        case (let after?, let through?):
            // BETWEEN evaluates the subquery once.
            condition = QueryCondition(sql: "\(first) BETWEEN ? AND ?", arguments: scope.arguments + [after + 1, through])
        case (let after?, nil):
            condition = QueryCondition(sql: "\(first) > ?", arguments: scope.arguments + [after])
        case (nil, let through?):
            condition = QueryCondition(sql: "\(first) <= ?", arguments: scope.arguments + [through])
        case (nil, nil):
            return ([], nil)
        }
        guard let after = filter.arrivedAfter else { return ([condition], nil) }
        var sql = "SELECT DISTINCT commit_id AS id FROM repository_commits WHERE change_seq > ?"
        var arguments: [any SQLiteBindable] = [after]
        if let through = filter.arrivedThrough {
            sql += " AND change_seq <= ?"
            arguments.append(through)
        }
        if let repositoryID {
            sql += " AND repository_id = ?"
            arguments.append(repositoryID)
        }
        return ([condition], CandidateSet(name: "arrivals", sql: sql, arguments: arguments))
    }

    /// The memberships (aliased `rc`) whose numbers count for `filter`.
    private static func arrivalScope(_ filter: CommitFilter, repositoryID: Int64?) -> QueryCondition {
        var scope = QueryCondition(sql: "", arguments: [])
        if let repositoryID {
            scope.sql += " AND rc.repository_id = ?"
            scope.arguments.append(repositoryID)
        }
        if !filter.includeOffBranch { scope.sql += " AND rc.off_branch_since IS NULL" }
        return scope
    }

    /// Each commit's first counted number in (after, through], by commit row id.
    private func arrivalOrder(_ filter: CommitFilter, after: Int64, through: Int64) throws -> [Int64: Int64] {
        let repositoryID = try filter.repository.flatMap { try repository(named: $0)?.id }
        let scope = Self.arrivalScope(filter, repositoryID: repositoryID)
        let rows = try db.prepare(
            """
            SELECT rc.commit_id, min(rc.change_seq) FROM repository_commits rc
            WHERE rc.change_seq > ? AND rc.change_seq <= ?\(scope.sql)
            GROUP BY rc.commit_id
            """
        ).bind([after, through] + scope.arguments).map { ($0.int64(0), $0.int64(1)) }
        return Dictionary(rows, uniquingKeysWith: min)
    }

    private func dataVersion() throws -> Int {
        try db.scalarInt("PRAGMA data_version") ?? 0
    }
}
