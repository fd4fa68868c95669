import MirrorTestSupport
import Foundation
import Testing
@testable import MirrorCore
@testable import MirrorSQLite

/// Saved responses for `commitsctl import`: finding the values, decoding them,
/// and attaching only commits whose whole history is present.
@Suite struct ImportTests {
    typealias F = PayloadFixtures

    @Test func concatenatedPagesAndNDJSONDecodeAlike() throws {
        let a = F.element(sha: F.sha(3), message: "has ] and } and \"[\" in it", parents: [F.sha(2)])
        let b = F.element(sha: F.sha(2), message: "back\\slash {", parents: [F.sha(1)])
        let c = F.element(sha: F.sha(1), message: "root")
        // gh api --paginate: arrays back to back, with or without newlines.
        let paginated = Array("[\(a),\(b)][\(c)]\n".utf8)
        let ndjson = Array("\(a)\n\(b)\n\r\n\(c)\n".utf8)
        let fromPages = try SavedResponses.decode(paginated, source: "pages.json")
        let fromLines = try SavedResponses.decode(ndjson, source: "commits.ndjson")
        #expect(fromPages.map(\.sha) == [F.sha(3), F.sha(2), F.sha(1)])
        #expect(fromPages == fromLines)
        #expect(fromPages[0].message == "has ] and } and \"[\" in it")
        #expect(try SavedResponses.decode(Array("\u{FEFF}[]\n[]".utf8), source: "x").isEmpty)
    }

    @Test func badInputIsReportedWithItsLine() {
        let good = F.element(sha: F.sha(1), message: "ok")
        func message(_ text: String) -> String {
            do {
                _ = try SavedResponses.decode(Array(text.utf8), source: "in.json")
                return "no error"
            } catch {
                return "\(error)"
            }
        }
        #expect(message("\(good)\n{\"sha\": \"abc\"") == "in.json:2: the JSON value starting here is truncated")
        #expect(message("\(good)\nnull\n") == "in.json:2: expected a JSON array of commits or a commit object, found 'n'")
        #expect(
            message("\(good)\n{\"message\":\"Not Found\",\"status\":\"404\"}\n")
                == "in.json:2: this is a GitHub error response, not commits: Not Found")
        #expect(message("[\(good)]\n[{\"sha\":\"zz\"}]").hasPrefix("in.json:2: not a list-commits element ("))
        // A git-log style line (like ../shared/datasets) is not an API response.
        #expect(
            message(#"{"sha": "\#(F.sha(1))", "parents": [], "tree": "t", "message": "m"}"#)
                == "in.json:1: not a list-commits element (missing field 'commit'); expected GET /repos/OWNER/REPO/commits elements, as paginated API output saves them"
        )
    }

    @Test func onlyClosedHistoriesAreAttachedParentsFirst() throws {
        let directory = try TemporaryDirectory()
        let store = try MirrorStore(path: directory.path("commits.sqlite"))
        let repository = try store.ensureRepository(named: RepositoryName(owner: "acme", name: "widgets"))
        // 1 ← 2 ← 4 (merge of 2 and 3), 3's parent 9 is not in the input; 5 ← 6 complete.
        let input = try SavedResponses.decode(
            F.page([
                F.element(sha: F.sha(6), parents: [F.sha(5)]),
                F.element(sha: F.sha(4), parents: [F.sha(2), F.sha(3)]),
                F.element(sha: F.sha(3), parents: [F.sha(9)]),
                F.element(sha: F.sha(2), parents: [F.sha(1)]),
                F.element(sha: F.sha(1)),
                F.element(sha: F.sha(5)),
                F.element(sha: F.sha(2), message: "listed twice", parents: [F.sha(1)]),
            ]), source: "x")
        let plan = try store.planImport(input, repositoryID: repository.id)
        #expect(plan.missingParents == [F.sha(9)])
        #expect(Set(plan.open.map(\.sha)) == [F.sha(3), F.sha(4)])
        let order = plan.closed.map(\.sha)
        #expect(Set(order) == [F.sha(1), F.sha(2), F.sha(5), F.sha(6)])
        #expect(order.firstIndex(of: F.sha(1))! < order.firstIndex(of: F.sha(2))!)
        #expect(order.firstIndex(of: F.sha(5))! < order.firstIndex(of: F.sha(6))!)
        #expect(plan.closed.first { $0.sha == F.sha(2) }?.message == "listed twice")

        let outcome = try store.importBatch(plan.closed, repositoryID: repository.id)
        #expect(outcome.added == 4)
        #expect(try MirrorReader(path: store.path).commitSHAs(repositoryID: repository.id) == Set([1, 2, 5, 6].map(F.sha)))
        #expect(try MirrorReader(path: store.path).syncStates().isEmpty, "an import never records sync state")

        // Once 9 arrives (say, from a sync), 3 and 4 become attachable.
        _ = try store.importBatch(
            [F.element(sha: F.sha(9))].map { Commit(try PayloadDecoder().decode(CommitPayload.self, from: Array($0.utf8))) },
            repositoryID: repository.id)
        let again = try store.planImport(input, repositoryID: repository.id)
        #expect(again.open.isEmpty && again.missingParents.isEmpty)
    }
}
