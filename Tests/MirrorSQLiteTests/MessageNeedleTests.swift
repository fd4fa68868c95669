import Foundation
import MirrorTestSupport
import SQLite
import Testing
@testable import MirrorCore
@testable import MirrorSQLite

/// `MessageNeedle` is what `--grep` means on a store without SQLite's trigram
/// index: its folding must be the index's own, scalar for scalar.
@Suite struct MessageNeedleTests {
    /// Asks SQLite's trigram tokenizer how it folds every scalar (its vocabulary
    /// holds each row's folded trigram) and compares the classes of scalars it
    /// folds together with `MessageNeedle.indexFolds`. A SQLite with other
    /// tables, or a Swift with other Unicode data, fails here, not in use.
    @Test func indexFoldsAreTheTrigramIndexsFolding() throws {
        let table = try TrigramScalarTable(values: 0x20...0x2FFFF)
        try table.db.execute("CREATE VIRTUAL TABLE v USING fts5vocab (t, instance)")
        // Terms by their scalars: Swift's String equality would join canonically equivalent ones.
        var classes: [[UInt32]: Set<UInt32>] = [:]
        var folded: [UInt32: [UInt32]] = [:]
        for (term, row) in try table.db.prepare("SELECT term, doc FROM v").map({
            ($0.string(0).unicodeScalars.map(\.value), UInt32($0.int(1)))
        }) {
            classes[term, default: []].insert(row)
            folded[row] = term
        }
        var differences: [String] = []
        for scalar in table.scalars {
            let expected = folded[scalar.value].flatMap { classes[$0] } ?? [scalar.value]
            let found = Set(MessageNeedle.indexFolds(of: scalar).map(\.value))
            if found != expected {
                differences.append(
                    "U+\(String(scalar.value, radix: 16, uppercase: true)): index \(expected.sorted()), needle \(found.sorted())")
            }
        }
        #expect(differences.isEmpty, "\(differences.count): \(differences.prefix(40).joined(separator: "\n"))")
    }

    @Test func shortAndASCIINeedlesKeepTheRowTestsForms() {
        #expect(MessageNeedle.forms(of: "k") == [["k", "K", "\u{212A}"]])
        #expect(MessageNeedle.forms(of: "\u{212A}x") == [MessageNeedle.caseForms(of: "\u{212A}").flatMap(\.unicodeScalars), ["x", "X"]])
        // Three scalars, one not ASCII: the index's folding, KELVIN SIGN's whole class.
        #expect(MessageNeedle.forms(of: "\u{212A}xé")[0].sorted() == ["K", "k", "\u{212A}"])
    }
}
