import Foundation
import MirrorTestSupport
import SQLite
import Testing
@testable import MirrorCore
@testable import MirrorSQLite

/// `message_contains`, the C function that tests messages the index does not
/// cover (MessageSearch): its answer must be the trigram index's, scalar for
/// scalar, and a pattern it cannot read is an error, never a guess.
@Suite struct MessageContainsTests {
    /// One row per scalar, between two control characters; every needle of the
    /// index's length (three scalars) finds the same rows both ways.
    @Test func answersAsTheIndexForEveryScalar() throws {
        let table = try TrigramScalarTable(values: 0x20...0x2FFFF)
        try MessageSearch.addFunction(to: table.db)
        let middles: [Unicode.Scalar] = [
            "k", "K", "\u{212A}", "s", "\u{17F}", "é", "É", "Σ", "ς", "ß", "ẞ", "ǅ", "İ", "ı", "µ", "\u{FFFD}", "\u{FFFE}",
            "🎉", "*", "[", "%", "_", "\u{10400}",
        ]
        for middle in middles {
            let needle = "\u{1}\(middle)\u{2}"
            let phrase = "\"" + needle + "\""
            let indexed = try table.db.prepare("SELECT rowid FROM t WHERE t MATCH ? ORDER BY rowid").bind([phrase]).map { $0.int(0) }
            let tested = try table.db.prepare("SELECT rowid FROM t WHERE message_contains(x, ?) ORDER BY rowid")
                .bind([MessageSearch.pattern(MessageNeedle.forms(of: needle))]).map { $0.int(0) }
            #expect(!indexed.isEmpty, "U+\(String(middle.value, radix: 16))")
            #expect(tested == indexed, "U+\(String(middle.value, radix: 16))")
        }
    }

    /// Where the needle starts, ends, repeats a prefix, or runs off the message.
    @Test(arguments: [
        ("abc", "abc", true), ("xxabc", "abc", true), ("abcxx", "ABC", true), ("aab", "ab", true),
        ("ababac", "abac", true), ("ab", "abc", false), ("", "a", false), ("École!", "éCOLE", true),
        ("ÉCOL", "école", false), ("\u{212A}elvin", "kel", true), ("sſs", "SSS", true), ("a\u{0}b", "\u{0}B", true),
    ])
    func findsANeedleWherever(message: String, needle: String, expected: Bool) throws {
        let db = try Connection(path: "", mode: .scratch(cacheBytes: 0))
        try MessageSearch.addFunction(to: db)
        let found = try db.scalarInt(
            "SELECT message_contains(?, ?)", [message, MessageSearch.pattern(MessageNeedle.forms(of: needle))])
        #expect(found == (expected ? 1 : 0))
    }

    @Test func theEmptyNeedleIsInEveryMessageAndNullIsUnknown() throws {
        let db = try Connection(path: "", mode: .scratch(cacheBytes: 0))
        try MessageSearch.addFunction(to: db)
        #expect(try db.scalarInt("SELECT message_contains('x', ?)", [MessageSearch.pattern([])]) == 1)
        #expect(try db.scalarInt("SELECT message_contains(NULL, ?)", [MessageSearch.pattern([["x"]])]) == nil)
        #expect(try db.scalarInt("SELECT message_contains('x', NULL)") == nil)
    }

    /// Counts that run past the blob, a form count of zero, trailing words, a
    /// blob that is not whole words: each an error naming the function.
    @Test(arguments: [[UInt32]([2, 1, 0x61]), [1, 0], [1, 1, 0x61, 7], [1, 3, 0x61], [0xFFFF_FFFF]])
    func aMalformedPatternIsAnError(words: [UInt32]) throws {
        let db = try Connection(path: "", mode: .scratch(cacheBytes: 0))
        try MessageSearch.addFunction(to: db)
        let blob = SQLiteValue.blob(words.withUnsafeBytes { Array($0) })
        #expect { try db.scalarInt("SELECT message_contains('abc', ?)", [blob]) } throws: { error in
            "\(error)".contains("message_contains: the pattern is not a list of forms")
        }
        #expect(throws: SQLiteError.self) {
            try db.scalarInt("SELECT message_contains('abc', ?)", [SQLiteValue.blob([1, 0, 0])])
        }
    }
}
