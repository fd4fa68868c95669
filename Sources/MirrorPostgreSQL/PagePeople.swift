import MirrorCore
import PostgreSQL

/// The people a page names, each once, as `authors` is to get them: in the order
/// the page first names them (each commit's author, committer, then co-authors),
/// so new people are numbered as the SQLite store numbers them (`authors` breaks
/// ties between identities by that number), each with the login of the page's
/// last mention that has one (a committer's over the author's of the same
/// commit; co-author trailers carry none). Worked out here, once per person,
/// rather than by sorting every mention in SQL: a page of 1,000 commits names
/// some 2,000 people and a few hundred distinct ones.
struct PagePeople {
    struct Person {
        let name: String
        let email: String
        var login: String?
    }

    private struct Key: Hashable {
        let name: String
        let email: String
    }

    private(set) var people: [Person] = []
    private var positions: [Key: Int] = [:]

    /// The people of `page`, in the text PostgreSQL stores (`PageStaging.storable`),
    /// met as the SQLite store meets them storing the page row by row: every row's
    /// author and committer; the co-authors of each sha's first row, and over REST
    /// (`replacingStored`) of each later row of it too, whose message replaces the stored one.
    init(_ page: [Commit], replacingStored: Bool) {
        var seen = Set<String>(minimumCapacity: page.count)
        for commit in page {
            note(commit.author.identity)
            note(commit.committer.identity)
            guard seen.insert(PageStaging.storable(commit.sha)).inserted || replacingStored else { continue }
            for coAuthor in commit.coAuthors { note(Identity(name: coAuthor.name, email: coAuthor.email)) }
        }
    }

    private mutating func note(_ identity: Identity) {
        let key = Key(name: PageStaging.storable(identity.name), email: PageStaging.storable(identity.email))
        let login = identity.login.map(PageStaging.storable)
        if let position = positions[key] {
            if login != nil { people[position].login = login }
        } else {
            positions[key] = people.count
            people.append(Person(name: key.name, email: key.email, login: login))
        }
    }

    /// The people as the staging statement takes them (`PageStaging.stage`), a
    /// column each: `ord`, name, email, login, search text.
    var columns: [BinaryArray] {
        [
            .integer(people.indices.map { Int32($0) }), .text(people.map(\.name)), .text(people.map(\.email)),
            .text(people.map(\.login)),
            .text(people.map { AuthorSearch.searchText(name: $0.name, email: $0.email) }),
        ]
    }
}
