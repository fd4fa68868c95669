import MirrorTestSupport
import Foundation
import SQLite
import Testing
@testable import MirrorCore
@testable import MirrorSQLite

/// The row-by-row message tests must agree exactly with the trigram index.
@Suite struct QueryMessageSearchTests {
    /// Asks SQLite's own trigram tokenizer which characters beyond ASCII fold
    /// to an ASCII character: exactly the ones `MessageNeedle.caseForms` adds to
    /// an ASCII letter's forms. A newer SQLite with different folding fails here, not in use.
    @Test func onlyKelvinSignAndLongSFoldToASCII() throws {
        let table = try TrigramScalarTable(values: 0x80...0x2FFFF)
        var folds: [String] = []
        let query = try table.db.prepare("SELECT rowid FROM t WHERE t MATCH ? ORDER BY rowid")
        for value in UInt32(0x20)..<0x7F {
            let character = String(Unicode.Scalar(value)!)
            let phrase = "\"\u{1}\(character.replacingOccurrences(of: "\"", with: "\"\""))\u{2}\""
            for row in try query.bind([phrase]).map({ $0.int(0) }) {
                folds.append("U+\(String(row, radix: 16, uppercase: true)) -> \(character.lowercased())")
            }
        }
        let expected = MessageNeedle.foldsToASCII.flatMap { scalar, letter in
            let line = "U+\(String(scalar.value, radix: 16, uppercase: true)) -> \(letter)"
            return [line, line]  // found by the upper and the lower case needle
        }
        #expect(folds.sorted() == expected.sorted())
    }

    @Test func needlesChooseTheirTests() {
        let fix = MessageSearch(needle: "FiX")
        #expect(fix.phrase == "\"FiX\"")
        #expect(fix.rowTest?.sql == "message_contains(c.message, ?)")
        #expect(fix.rowTest?.arguments.map(\.sqliteValue) == [MessageSearch.pattern([["F", "f"], ["i", "I"], ["X", "x"]])])
        let quoted = MessageSearch(needle: #"say "hi""#)
        #expect(quoted.phrase == #""say ""hi""""#)
        let short = MessageSearch(needle: "é")
        #expect(short.phrase == nil)
        #expect(short.rowTest?.arguments.map(\.sqliteValue) == [MessageSearch.pattern([["é", "É"]])])
        #expect(MessageSearch(needle: "k").rowTest?.arguments.map(\.sqliteValue) == [MessageSearch.pattern([["k", "K", "\u{212A}"]])])
        // A long needle beyond ASCII: its index matches are read once; rows beyond the watermark are tested.
        let long = MessageSearch(needle: "école")
        #expect(long.rowTest == nil)
        #expect(long.tailTest?.arguments.map(\.sqliteValue) == [MessageSearch.pattern(MessageNeedle.forms(of: "école"))])
        #expect(MessageSearch(needle: "").matchesEverything)
        #expect(MessageSearch(needle: "").tailTest == nil)
    }

    /// The pattern's words: the scalar count, then each scalar's form count and forms.
    @Test func thePatternListsEachScalarsForms() {
        let words: [UInt32] = [2, 2, 0x61, 0x41, 1, 0x1F389]
        #expect(MessageSearch.pattern([["a", "A"], ["🎉"]]) == .blob(words.withUnsafeBytes { Array($0) }))
    }

    /// Every way of testing a message agrees on tricky text.
    @Test(arguments: ["k", "K", "sk", "ski", "KELVIN", "é", "ÉC", "école", "ß", "SS", "straße", "ǅ", "ǆa", "fix", "İ", "x"])
    func indexAndRowTestsAgree(needle: String) throws {
        let directory = try TemporaryDirectory()
        let store = try MirrorStore(path: directory.path("commits.sqlite"))
        let messages = [
            "\u{212A}elvin sign", "ſki with long s", "plain ski", "École", "école", "ÉCOLE", "STRASSE", "Straße",
            "ǅemal", "ǄEMAL", "ǆa", "İstanbul FİX", "fix", "FIX", "nothing", "\u{1}x\u{2}",
        ]
        let payloads = messages.enumerated().map { index, message in
            QueryFixtures.payload(
                sha: QueryFixtures.sha(index + 1), message: message,
                date: ISO8601Timestamp.format(Date(timeIntervalSince1970: Double(index) * 3600)))
        }
        try QueryFixtures.fill(store, payloads, repository: "o/r")
        var answers: [String: Set<String>] = [:]
        for strategy in QueryStrategy.allCases {
            for limit in [nil, 100] as [Int?] {
                var found: Set<String> = []
                try MirrorReader(path: store.path).forEachCommit(matching: CommitFilter(grep: needle, limit: limit), strategy: strategy) {
                    found.insert($0.message)
                }
                answers["\(strategy) \(limit ?? 0)"] = found
            }
        }
        let reference = try #require(answers["smallestSet 0"])
        for (path, found) in answers {
            #expect(found == reference, "--grep \(needle) via \(path)")
        }
        // And it is what people mean by "contains, ignoring case", where Swift agrees.
        if needle.unicodeScalars.count >= 3 || needle.allSatisfy(\.isASCII) {
            let plain = Set(messages.filter { $0.lowercased().containsScalars(needle.lowercased()) })
            #expect(plain.isSubset(of: reference), "--grep \(needle)")
        }
    }
}
