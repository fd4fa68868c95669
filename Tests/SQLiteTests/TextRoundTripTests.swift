import MirrorTestSupport
import Foundation
import SQLite
import Testing

/// Text goes in and comes out byte for byte: a NUL does not end it, and no
/// valid Unicode is normalized, replaced or dropped.
@Suite struct TextRoundTripTests {
    static let samples = [
        "before\u{0}after",
        "\u{0}",
        "\u{0}\u{0}trailing\u{0}",
        "\u{301}",  // a lone combining acute accent
        "e\u{301} vs \u{E9}",  // decomposed and precomposed: must stay different
        "emoji 👩‍👩‍👧 🏳️‍🌈",
        "\u{FFFF}\u{FFFE}\u{10FFFF}",  // noncharacters are still valid scalars
        "\u{200F}RTL\u{202E}override\u{2066}isolate",
        "",
    ]

    @Test(arguments: samples)
    func bindsAndReadsBackExactly(text: String) throws {
        let directory = try TemporaryDirectory()
        let db = try Connection(path: directory.path("text.sqlite"))
        try db.execute("CREATE TABLE t (s TEXT)")
        try db.execute("INSERT INTO t VALUES (?)", [text])
        let row = try #require(
            try db.prepare("SELECT s, length(CAST(s AS BLOB)), typeof(s) FROM t").first { row in
                (row.string(0), row.int(1), row.string(2), row.value(0))
            })
        #expect(Array(row.0.utf8) == Array(text.utf8))
        #expect(row.1 == text.utf8.count, "SQLite holds every byte")
        #expect(row.2 == "text", "'' binds as text, not NULL")
        #expect(row.3 == .text(text))
    }

    @Test func textAfterANulIsComparedAndSearched() throws {
        let directory = try TemporaryDirectory()
        let db = try Connection(path: directory.path("text.sqlite"))
        try db.execute("CREATE TABLE t (s TEXT UNIQUE)")
        try db.execute("INSERT INTO t VALUES (?)", ["a\u{0}b"])
        try db.execute("INSERT INTO t VALUES (?)", ["a\u{0}c"])  // distinct: not both "a"
        #expect(try db.prepare("SELECT count(*) FROM t WHERE s = ?").bind(["a\u{0}c"]).first { $0.int(0) } == 1)
        #expect(try db.prepare("SELECT count(*) FROM t WHERE instr(s, ?) > 0").bind(["\u{0}c"]).first { $0.int(0) } == 1)
    }
}
