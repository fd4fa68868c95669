import Foundation
import MirrorTestSupport
import Testing

@testable import MirrorCore
@testable import MirrorPostgreSQL

/// The people a PostgreSQL page stages for `authors` (MirrorPostgreSQL/PagePeople.swift):
/// each once, in the order the page first names them, with the login of the
/// page's last mention that has one. (That both stores list and number people
/// alike is `PostgreSQLWriteParityTests`'.)
@Suite struct PagePeopleTests {
    static func signature(_ name: String, login: String? = nil) -> Signature {
        StoreFixtures.person(name, login: login, at: 1_700_000_000)
    }

    static func commit(_ n: Int, author: Signature, committer: Signature, message: String = "subject") -> Commit {
        Commit(sha: PayloadFixtures.sha(n), message: message, author: author, committer: committer, parents: [])
    }

    static func staged(_ commits: [Commit]) -> [String] {
        PagePeople(commits, replacingStored: true).people.map { "\($0.name) \($0.login ?? "-")" }
    }

    @Test func eachPersonOnceInTheOrderThePageFirstNamesThem() {
        let page = [
            Self.commit(
                1, author: Self.signature("Ada"), committer: Self.signature("Grace"),
                message: "subject\n\nCo-authored-by: Linus <linus@example.com>\nCo-authored-by: Ada <ada@example.com>"),
            Self.commit(2, author: Self.signature("Linus"), committer: Self.signature("Ada")),
            Self.commit(3, author: Self.signature("Barbara"), committer: Self.signature("Grace")),
        ]
        #expect(Self.staged(page) == ["Ada -", "Grace -", "Linus -", "Barbara -"])
    }

    @Test func theLoginIsTheLastMentionsThatHasOne() {
        let page = [
            Self.commit(1, author: Self.signature("Ada", login: "ada-old"), committer: Self.signature("Ada", login: "ada-1")),
            Self.commit(2, author: Self.signature("Ada", login: "ada-2"), committer: Self.signature("Grace")),
            // A later mention without a login (git, a co-author trailer) erases none.
            Self.commit(
                3, author: Self.signature("Ada"), committer: Self.signature("Grace", login: "grace"),
                message: "subject\n\nCo-authored-by: Ada <ada@example.com>"),
        ]
        #expect(Self.staged(page) == ["Ada ada-2", "Grace grace"])
    }

    @Test func textPostgreSQLCannotHoldIsStagedAsItIsStored() {
        let page = [Self.commit(1, author: Self.signature("A\u{0}da"), committer: Self.signature("A\u{FFFD}da"))]
        #expect(Self.staged(page) == ["A\u{FFFD}da -"])
    }
}
