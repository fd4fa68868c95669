import Foundation
import MirrorModel
import Testing

/// Revisions read as gitrevisions(7) spells them, and ranges walked as `git rev-list` walks them.
@Suite struct RevisionTests {
    @Test func namesAndStepsAreRead() throws {
        #expect(try Revision.parse("v5.9") == Revision(name: "v5.9"))
        #expect(try Revision.parse("main~3").steps == [.ancestor(3)])
        #expect(try Revision.parse("main^2~").steps == [.parent(2), .ancestor(1)])
        #expect(try Revision.parse("v1^{}^").steps == [.parent(1)])
        #expect(try Revision.parse("@").name == "HEAD")
        #expect(try Revision.parse("").name == "HEAD")
        #expect(try Revision.parse("release/5.0^0").steps == [.parent(0)])
    }

    @Test func whatIsNoRevisionIsRefusedNotGuessed() {
        for text in ["^", "~2", "main@{1}", ":/fix", "a:b", "main^9999999", "-n"] {
            #expect(throws: RevisionError.self, "\(text)") { try Revision.parse(text[...]) }
        }
    }

    @Test func rangesBecomeTerms() throws {
        let range = try RevisionRange.parse(["v1..v2", "^old", "main", "a...b"])
        #expect(range.terms.count == 5)
        #expect(range.terms[0] == .exclude(Revision(name: "v1")))
        #expect(range.terms[1] == .include(Revision(name: "v2")))
        #expect(range.terms[2] == .exclude(Revision(name: "old")))
        #expect(range.terms[4] == .symmetric(Revision(name: "a"), Revision(name: "b")))
        #expect(try RevisionRange.parse(["v1.."]).terms[1] == .include(Revision(name: "HEAD")))
    }

    @Test func argumentsWrittenAsRevisionsAreToldFromPaths() {
        #expect(RevisionRange.isWrittenAsRevision("v1..v2"))
        #expect(RevisionRange.isWrittenAsRevision("^v1"))
        #expect(RevisionRange.isWrittenAsRevision("main~2"))
        #expect(RevisionRange.isWrittenAsRevision("main^"))
        #expect(!RevisionRange.isWrittenAsRevision("Sources/Parse/"))
        #expect(!RevisionRange.isWrittenAsRevision("README.md"))
    }

    /// 1 ← 2 ← 3 ← 5 (merge of 3 and 4), 2 ← 4 ← 6; 7 is a root merged nowhere.
    static let graph = HistoryGraph(
        tips: [5, 6], parents: [1: [], 2: [1], 3: [2], 4: [2], 5: [3, 4], 6: [4], 7: []], withoutChanges: [])

    static func walk(_ arguments: [String]) throws -> Set<Int64> {
        let names: [String: Int64] = ["main": 5, "side": 6, "root": 7, "old": 2]
        return try RevisionWalk.evaluate(try RevisionRange.parse(arguments), in: graph) { revision in
            guard let id = names[revision.name] else { throw RevisionError.unknown(revision.name) }
            return id
        }.commits
    }

    @Test func rangesSelectWhatGitsWalkSelects() throws {
        #expect(try Self.walk(["main"]) == [1, 2, 3, 4, 5])
        #expect(try Self.walk(["old..main"]) == [3, 4, 5])
        #expect(try Self.walk(["side..main"]) == [3, 5])
        #expect(try Self.walk(["main..side"]) == [6])
        #expect(try Self.walk(["side...main"]) == [3, 5, 6])
        #expect(try Self.walk(["main", "^side"]) == [3, 5])
        #expect(try Self.walk(["main^2"]) == [1, 2, 4])
        #expect(try Self.walk(["main~2"]) == [1, 2])
        #expect(try Self.walk(["main^0"]) == [1, 2, 3, 4, 5])
        #expect(try Self.walk(["main", "side", "^old"]) == [3, 4, 5, 6])
        #expect(try Self.walk(["root"]) == [7])
    }

    @Test func stepsPastTheHistoryAreErrors() {
        #expect(throws: RevisionError.noSuchAncestor("main^3")) { try Self.walk(["main^3"]) }
        #expect(throws: RevisionError.noSuchAncestor("main~9")) { try Self.walk(["main~9"]) }
        #expect(throws: RevisionError.unknown("nope")) { try Self.walk(["nope..main"]) }
    }

    @Test func aPathWalkWithinARangeStopsAtItsBottom() throws {
        let range = try RevisionWalk.evaluate(try RevisionRange.parse(["old..main"]), in: Self.graph) { revision in
            revision.name == "main" ? 5 : 2
        }
        // 2, 4 and the merge 5 (against both parents) touch the path; 2 is below the range.
        let touched: [Int64: Set<Int>] = [2: [0], 4: [0], 5: [0, 1]]
        let history = PathHistory.walk(Self.graph, touched: touched, simplification: .simplified, within: range)
        #expect(history.commits == [4, 5])
    }
}
