import Foundation
import MirrorBookkeeping
import MirrorCore
import SQLite

extension MirrorReader {
    /// The test for `filter.greps` (OR, or AND with `allMatch`, negated by
    /// `invertGrep`) and, when the index answers it exactly, the candidate set
    /// of its matches. `nil` when nothing can match.
    func messageConditions(_ filter: CommitFilter) -> (condition: QueryCondition?, set: CandidateSet?)? {
        let searches = filter.greps.map(MessageSearch.init(needle:))
        // The empty needle matches every message: it decides an OR, and drops out of an AND.
        let everything = filter.allMatch ? searches.allSatisfy(\.matchesEverything) : searches.contains(where: \.matchesEverything)
        if everything { return filter.invertGrep ? nil : (nil, nil) }
        let needed = searches.filter { !$0.matchesEverything }
        let tests = needed.map { search in
            search.rowTest
                ?? QueryCondition(
                    sql: """
                        (+c.id IN (SELECT rowid FROM commits_fts WHERE commits_fts MATCH ?)
                         OR (c.id > \(MessageIndexCoverage.watermark) AND \(search.tailTest!.sql)))
                        """,
                    arguments: [search.phrase!] + search.tailTest!.arguments)
        }
        let joiner = filter.allMatch ? " AND " : " OR "
        var test = Self.combined(tests, joiner: joiner)
        if filter.invertGrep { test = QueryCondition(sql: "NOT \(test.sql)", arguments: test.arguments) }
        // FTS5 combines quoted phrases with OR / AND exactly as the row tests do;
        // the commits the index does not cover yet are tested row by row.
        let phrases = needed.compactMap(\.phrase)
        guard !filter.invertGrep, phrases.count == needed.count else { return (test, nil) }
        let tail = Self.combined(needed.map { $0.tailTest! }, joiner: joiner)
        let set = CandidateSet(
            name: "message index",
            sql: """
                SELECT rowid AS id FROM commits_fts WHERE commits_fts MATCH ?
                UNION ALL SELECT c.id FROM commits c WHERE c.id > \(MessageIndexCoverage.watermark) AND \(tail.sql)
                """,
            arguments: [phrases.joined(separator: joiner)] + tail.arguments)
        return (test, set)
    }

    private static func combined(_ tests: [QueryCondition], joiner: String) -> QueryCondition {
        tests.count == 1
            ? tests[0]
            : QueryCondition(sql: "(" + tests.map(\.sql).joined(separator: joiner) + ")", arguments: tests.flatMap(\.arguments))
    }

    /// Rows of `authors` whose "Name <email>" contains any pattern, ignoring case.
    /// With a mailmap, a pattern matching any identity of a person (or the
    /// person's mapped name and email) selects every identity of that person.
    func identityIDs(matching patterns: [String], mailmap: Mailmap?) throws -> [Int64] {
        let needles = patterns.map(AuthorSearch.needle)
        guard let mailmap else {
            let test = needles.map { _ in "instr(search_text, ?) > 0" }.joined(separator: " OR ")
            return try db.prepare("SELECT id FROM authors WHERE \(test) ORDER BY id").bind(needles).map { $0.int64(0) }
        }
        return Person.identityIDs(of: try people(mailmap: mailmap), matching: needles)
    }

    /// An `IN (…)` list: a short one bound id by id, a long one as one JSON
    /// array (bound parameters are limited).
    static func idList(_ ids: [Int64]) -> QueryCondition {
        guard ids.count > 500 else {
            return QueryCondition(sql: ids.map { _ in "?" }.joined(separator: ", "), arguments: ids)
        }
        let json = "[" + ids.map(String.init).joined(separator: ",") + "]"
        return QueryCondition(sql: "SELECT value FROM json_each(?)", arguments: [json])
    }
}
