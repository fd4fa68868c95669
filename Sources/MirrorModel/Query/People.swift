import Foundation

/// A person: the identities (authors rows) a mailmap maps to one name, or
/// that GitHub linked to one login.
public struct Person: Sendable, Equatable {
    public struct Identity: Sendable, Equatable {
        public var id: Int64
        public var name: String
        public var email: String
        public var login: String?
        var searchText: String { AuthorSearch.searchText(name: name, email: email) }

        public init(id: Int64, name: String, email: String, login: String?) {
            self.id = id
            self.name = name
            self.email = email
            self.login = login
        }
    }

    /// The canonical name and email (the mailmap's, else the identity with most commits).
    public var name: String
    public var email: String
    public var identities: [Identity]
    var searchText: String { AuthorSearch.searchText(name: name, email: email) }
}

extension Person {
    /// `identities` (every authors row with its authored-commit count, by id)
    /// grouped into people. Identities join when they have the same name (by
    /// bytes, after the mailmap) or, once a mailmap is in use, the same GitHub
    /// login (without one, `authors` keeps git shortlog's grouping by name).
    /// Every store reads its rows and groups them here, so all agree.
    public static func group(_ rows: [(identity: Identity, commits: Int)], mailmap: Mailmap?) -> [Person] {
        var parent = Array(rows.indices)
        func root(_ index: Int) -> Int {
            var index = index
            while parent[index] != index { parent[index] = parent[parent[index]]; index = parent[index] }
            return index
        }
        func join(_ a: Int, _ b: Int) { let (x, y) = (root(a), root(b)); if x != y { parent[max(x, y)] = min(x, y) } }
        var byName: [[UInt8]: Int] = [:], byLogin: [String: Int] = [:]
        var canonical: [(name: String, email: String)] = []
        for (index, row) in rows.enumerated() {
            let mapped =
                mailmap?.canonical(name: row.identity.name, email: row.identity.email)
                ?? (name: row.identity.name, email: row.identity.email)
            canonical.append(mapped)
            if let other = byName.updateValue(index, forKey: Array(mapped.name.utf8)) { join(other, index) }
            if mailmap != nil, let login = row.identity.login?.lowercased(), let other = byLogin.updateValue(index, forKey: login) {
                join(other, index)
            }
        }
        var groups: [Int: [Int]] = [:]
        for index in rows.indices { groups[root(index), default: []].append(index) }
        return groups.keys.sorted().map { key in
            let members = groups[key]!
            let main = members.max { rows[$0].commits != rows[$1].commits ? rows[$0].commits < rows[$1].commits : $0 > $1 }!
            return Person(
                name: canonical[main].name, email: canonical[main].email,
                identities: members.map { rows[$0].identity })
        }
    }

    /// The authors rows of every person one of whose identities (or whose
    /// mapped name and email) contains a needle (`AuthorSearch.needle`), sorted.
    public static func identityIDs(of people: [Person], matching needles: [String]) -> [Int64] {
        var ids: [Int64] = []
        for person in people
        where person.identities.contains(where: { identity in
            needles.contains { identity.searchText.contains($0) || person.searchText.contains($0) }
        }) {
            ids += person.identities.map(\.id)
        }
        return ids.sorted()
    }
}
