import MirrorCore

/// How a message search for TEXT finds the messages that contain it, ignoring case.
///
/// The meaning is the `commits_fts` trigram index's: the message contains the
/// needle once both are case-folded one character at a time (Unicode-aware:
/// `ÉCOLE` finds `école`). Every path below gives exactly that answer:
///
/// - The index answers a needle of three or more characters (Unicode scalars)
///   without reading messages: a quoted FTS5 phrase is exactly a substring test.
/// - Walks that stop at a limit test rows one by one. For an ASCII needle,
///   SQLite's ASCII-only `lower()` is exact once the only two non-ASCII
///   characters the index folds to ASCII are mapped first (KELVIN SIGN → k,
///   LONG S → s; a test checks this against the index itself).
/// - A shorter non-ASCII needle is tested with `instr` against each case
///   variant of it (at most nine).
/// - Otherwise (a long non-ASCII needle) the index's matches are read once.
///
/// The index covers the commits up to its watermark (`message_index_coverage`);
/// the commits stored since are tested row by row (`tailTest`), so an answer
/// is exact while the index catches up.
struct MessageSearch {
    /// The quoted FTS5 phrase for `commits_fts MATCH ?`, when the index can answer.
    var phrase: String?
    /// An exact test of `c.message` for one row, when there is a cheap one.
    var rowTest: QueryCondition?
    /// An exact test of `c.message` for one row, whatever the needle: the row
    /// test, or else a GLOB whose brackets hold each scalar's index folds.
    var tailTest: QueryCondition? { rowTest ?? phrase.map { _ in globTest } }
    private var globTest: QueryCondition
    /// The empty needle: every message contains it (as with `git log --grep ''`).
    var matchesEverything: Bool

    init(needle: String) {
        let scalars = Array(needle.unicodeScalars)
        matchesEverything = scalars.isEmpty
        // Inside an FTS5 string only `"` is special; it is escaped by doubling.
        phrase = scalars.count >= 3 ? "\"" + needle.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : nil
        globTest = QueryCondition(sql: "c.message GLOB ?", arguments: [Self.globPattern(for: needle)])
        if scalars.isEmpty {
            rowTest = nil
        } else if scalars.allSatisfy(\.isASCII) {
            var folded = "c.message"
            for (scalar, letter) in MessageNeedle.foldsToASCII {
                folded = "replace(\(folded), char(\(scalar.value)), '\(letter)')"
            }
            rowTest = QueryCondition(sql: "instr(lower(\(folded)), ?) > 0", arguments: [Self.asciiLowercased(needle)])
        } else if scalars.count < 3 {
            var variants = [""]
            for scalar in scalars {
                let forms = MessageNeedle.caseForms(of: scalar)
                variants = variants.flatMap { prefix in forms.map { prefix + $0 } }
            }
            rowTest = QueryCondition(
                sql: "(" + variants.map { _ in "instr(c.message, ?) > 0" }.joined(separator: " OR ") + ")",
                arguments: variants)
        } else {
            rowTest = nil
        }
    }

    /// `*NEEDLE*` with each scalar in brackets of the forms it matches, and `*`,
    /// `?` and `[` in brackets of their own so that none is read as syntax.
    /// GLOB compares scalars exactly, and reads the pattern's and the message's
    /// UTF-8 the way the index does.
    static func globPattern(for needle: String) -> String {
        let body = MessageNeedle.forms(of: needle).map { forms in
            if forms.count == 1 {
                let scalar = forms[0]
                return "*?[".unicodeScalars.contains(scalar) ? "[\(scalar)]" : String(scalar)
            }
            // Case forms are letters (and U+FFFD's noncharacters): never `]`, `^` or `-`.
            return "[" + String(String.UnicodeScalarView(forms)) + "]"
        }.joined()
        return "*" + body + "*"
    }

    static func asciiLowercased(_ text: String) -> String {
        String(decoding: text.utf8.map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 }, as: UTF8.self)
    }
}
