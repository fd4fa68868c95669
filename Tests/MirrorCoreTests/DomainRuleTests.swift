import Foundation
import Testing

@testable import MirrorCore

/// The rules that used to live inside the SQLite writer and are now pure
/// functions of the domain, applied the same way whatever stores the result.
struct DomainRuleTests {
    static func commit(_ sha: String, parents: [String] = [], message: String = "subject") -> Commit {
        let person = Signature(identity: Identity(name: "A", email: "a@example.com"), date: Date(timeIntervalSince1970: 0))
        return Commit(sha: sha, message: message, author: person, committer: person, parents: parents)
    }

    @Test func coAuthorsAreReadWhenACommitIsMappedAndFollowItsMessage() {
        var commit = Self.commit(
            "a",
            message: """
                Fix the parser

                Co-authored-by: Ada Lovelace <ada@example.com>
                co-AUTHORED-by:   Grace Hopper   <grace@example.com>
                Co-authored-by: Ada Lovelace <ada@example.com>
                Not a trailer: Co-authored-by: Someone <x@example.com>
                Co-authored-by: no brackets here
                """)
        #expect(
            commit.coAuthors == [
                Identity(name: "Ada Lovelace", email: "ada@example.com"),
                Identity(name: "Grace Hopper", email: "grace@example.com"),
            ])
        commit.message = "Reworded\n\nCo-authored-by: Joe <joe@example.com>\n"
        #expect(commit.coAuthors == [Identity(name: "Joe", email: "joe@example.com")])
        commit.message = "No one else"
        #expect(commit.coAuthors.isEmpty)
    }

    @Test func aFrontierStepNamesOnlyParentsOffThePageEachOnce() {
        // c3 merges c2 and x1; c2's parent c1 is on the page; c1's parent c0 and x1 are not.
        let page = [
            Self.commit("c3", parents: ["c2", "x1"]),
            Self.commit("c2", parents: ["c1"]),
            Self.commit("c1", parents: ["c0"]),
            Self.commit("x2", parents: ["x1"]),
        ]
        let step = FrontierStep(page: page)
        #expect(step.listed == ["c3", "c2", "c1", "x2"])
        #expect(step.parentsOffPage == ["x1", "c0"])
        #expect(FrontierStep(page: []) == FrontierStep(page: []))
        #expect(FrontierStep(page: []).parentsOffPage.isEmpty)
        // A root commit adds nothing; a commit listed twice is listed once.
        let roots = FrontierStep(page: [Self.commit("r"), Self.commit("r")])
        #expect(roots.listed == ["r"] && roots.parentsOffPage.isEmpty)
    }
}
