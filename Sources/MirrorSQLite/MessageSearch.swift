import CMessageSearch
import MirrorCore
import SQLite
import Foundation

/// How a message search for TEXT finds the messages that contain it, ignoring case.
///
/// The meaning is the `commits_fts` trigram index's: the message contains the
/// needle once both are case-folded one character at a time (Unicode-aware:
/// `ÉCOLE` finds `école`). Every path below gives exactly that answer:
///
/// - The index answers a needle of three or more characters (Unicode scalars)
///   without reading messages: a quoted FTS5 phrase is exactly a substring test.
/// - Messages read one by one are tested by `message_contains` (C, registered
///   on every connection the store opens, StoreFile) against the needle's forms
///   (`MessageNeedle.forms`): its case forms for an ASCII needle and for a
///   short one, the index's own folds for a longer non-ASCII one. Walks that
///   stop at a limit test rows so when the test is cheap for the planner to
///   choose: every needle but a long non-ASCII one, whose index matches are
///   read once instead.
///
/// The index covers the commits up to its watermark (`message_index_coverage`);
/// the commits stored since are tested row by row (`tailTest`), so an answer
/// is exact while the index catches up.
struct MessageSearch {
    /// The quoted FTS5 phrase for `commits_fts MATCH ?`, when the index can answer.
    var phrase: String?
    /// An exact test of `c.message` for one row, when the planner should prefer it to the index.
    var rowTest: QueryCondition?
    /// An exact test of `c.message` for one row, whatever the needle.
    var tailTest: QueryCondition? { matchesEverything ? nil : containsTest }
    private var containsTest: QueryCondition
    /// The empty needle: every message contains it (as with `git log --grep ''`).
    var matchesEverything: Bool

    static let functionName = "message_contains"

    /// Adds `message_contains` to the connection's SQL (every connection `StoreFile` opens).
    static func addFunction(to connection: Connection) throws {
        try connection.addFunction(functionName, argumentCount: 2, cm_message_contains)
    }

    init(needle: String) {
        let scalars = Array(needle.unicodeScalars)
        matchesEverything = scalars.isEmpty
        // Inside an FTS5 string only `"` is special; it is escaped by doubling.
        phrase = scalars.count >= 3 ? "\"" + needle.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : nil
        containsTest = QueryCondition(
            sql: "\(Self.functionName)(c.message, ?)", arguments: [Self.pattern(MessageNeedle.forms(of: needle))])
        let readByIndex = scalars.count >= 3 && !scalars.allSatisfy(\.isASCII)
        rowTest = scalars.isEmpty || readByIndex ? nil : containsTest
    }

    /// `message_contains`'s pattern: native 32-bit words, the number of scalars,
    /// then for each scalar the number of its forms and the forms.
    static func pattern(_ forms: [[Unicode.Scalar]]) -> SQLiteValue {
        var words = [UInt32(forms.count)]
        for scalarForms in forms {
            words.append(UInt32(scalarForms.count))
            words.append(contentsOf: scalarForms.map(\.value))
        }
        return .blob(words.withUnsafeBytes { Array($0) })
    }
}
