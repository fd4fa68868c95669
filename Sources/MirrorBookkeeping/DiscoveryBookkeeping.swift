import Foundation
import MirrorCore

// Owner listings (`OWNER/*` patterns) and the repositories' identities they adopt.

extension SQLBookkeeping {
    /// The listing of `owner` stored by the last discovery, if any.
    public func ownerListing(owner: String) throws -> OwnerListing? {
        try RepositoryRows.ownerListing(owner: owner, in: session)
    }

    /// In one transaction: stores `listing` for its owner, adopts each selected
    /// identity (a renamed or transferred repository keeps its row, found by its
    /// GitHub id) and makes gone ones active again. Removed ones stay removed.
    public func recordListing(_ listing: OwnerListing, selected identities: [RepositoryIdentity], at date: Date) throws
        -> [SelectedRepository]
    {
        let pages = String(decoding: try JSONEncoder().encode(listing.pages), as: UTF8.self)
        let now = ISO8601Timestamp.format(date)
        return try write {
            try session.run(DiscoveryStatements.recordListing, [listing.owner, listing.kind.rawValue, pages, now])
            let stored = try storedIdentities()
            return try identities.map { identity in
                try SelectedRepository.select(
                    identity, stored: stored[identity.githubID],
                    adopt: {
                        let repository = try adoptInTransaction(identity, requestedAs: identity.fullName)
                        return (repository, try repositoryState(repositoryID: repository.id))
                    },
                    reactivate: { try updateState(.active, repositoryID: $0, reason: nil, at: date) })
            }
        }
    }

    /// What is stored about every repository with a GitHub id, by id.
    private func storedIdentities() throws -> [Int: StoredIdentity] {
        var identities: [Int: StoredIdentity] = [:]
        for (githubID, stored) in try session.rows(DiscoveryStatements.identities, [], Self.storedIdentity(from:)) {
            identities[githubID] = stored
        }
        return identities
    }

    private static func storedIdentity(from row: any SQLRow) -> (Int, StoredIdentity) {
        let githubID = row.int(1) ?? 0
        let identity = row.string(2).flatMap(RepositoryName.init(parsing:)).flatMap { name in
            row.string(3).map {
                RepositoryIdentity(githubID: githubID, fullName: name, defaultBranch: $0, htmlURL: row.string(4))
            }
        }
        return (
            githubID,
            StoredIdentity(
                id: row.int64(0) ?? 0, identity: identity,
                state: row.string(5).flatMap(RepositoryState.init(rawValue:)) ?? .active)
        )
    }

    /// The current name of every repository stored with a GitHub id, by id.
    public func namesByGitHubID() throws -> [Int: RepositoryName] {
        var names: [Int: RepositoryName] = [:]
        for (id, name) in try session.rows(DiscoveryStatements.names, [], { ($0.int(0) ?? 0, $0.string(1)) }) {
            names[id] = name.flatMap(RepositoryName.init(parsing:))
        }
        return names
    }

    /// Active repositories whose current name is under `owner` (any case).
    public func activeRepositories(ownedBy owner: String) throws -> [StoredRepository] {
        try RepositoryRows.activeRepositories(ownedBy: owner, in: session)
    }
}

enum DiscoveryStatements {
    static let recordListing = PortableSQL(names: {
        """
        INSERT INTO owner_listings (owner, kind, pages, listed_at) VALUES (?, ?, ?, ?)
        ON CONFLICT \($0.key("owner")) DO UPDATE SET kind = excluded.kind, pages = excluded.pages, listed_at = excluded.listed_at
        """
    })
    static let identities = PortableSQL(
        "SELECT id, github_id, full_name, default_branch, html_url, state FROM repositories WHERE github_id IS NOT NULL")
    static let names = PortableSQL("SELECT github_id, full_name FROM repositories WHERE github_id IS NOT NULL")
}

/// Reads the reader and the writer both make, written once, for any session.
public enum RepositoryRows {
    public static let columns = "r.id, r.full_name, r.github_id, r.default_branch"

    public static func repository(from row: any SQLRow) -> StoredRepository {
        let name = row.string(1) ?? ""
        return StoredRepository(
            id: row.int64(0) ?? 0,
            name: RepositoryName(parsingStored: name) ?? RepositoryName(owner: name, name: ""),
            githubID: row.int(2), defaultBranch: row.string(3))
    }

    /// The repository known by `name` (current or former, any case).
    public static func repository(named name: RepositoryName, in session: some SQLSession) throws -> StoredRepository? {
        try session.firstRow(byName, [name.description], repository(from:))
    }

    public static func ownerListing(owner: String, in session: some SQLSession) throws -> OwnerListing? {
        try session.firstRow(listing, [owner]) { (pages: $0.string(0), kind: $0.string(1)) }.flatMap {
            guard let pages = $0.pages, let kind = $0.kind else { return nil }
            return OwnerListing(owner: owner, storedKind: kind, storedPages: pages)
        }
    }

    /// Active repositories whose current name is under `owner` (any case), in the order `repos` lists them.
    public static func activeRepositories(ownedBy owner: String, in session: some SQLSession) throws -> [StoredRepository] {
        try session.rows(activeOwned, [owner], repository(from:))
    }

    /// Every repository, in the order `repos` lists them.
    public static func repositories(in session: some SQLSession) throws -> [StoredRepository] {
        try session.rows(all, [], repository(from:))
    }

    public static func commitCount(repositoryID: Int64?, in session: some SQLSession) throws -> Int {
        guard let repositoryID else { return try session.scalarInt(allCommits, []) ?? 0 }
        return try session.scalarInt(repositoryCommits, [repositoryID]) ?? 0
    }

    static let byName = PortableSQL(names: {
        """
        SELECT \(columns) FROM repositories r
        WHERE r.id = (SELECT repository_id FROM repository_names WHERE \($0.same("name", "?")))
        """
    })
    static let listing = PortableSQL(names: { "SELECT pages, kind FROM owner_listings WHERE \($0.same("owner", "?"))" })
    static let activeOwned = PortableSQL(names: {
        """
        SELECT \(columns) FROM repositories r
        WHERE r.state = 'active' AND lower(substr(r.full_name, 1, length(?1) + 1)) = lower(?1 || '/')
        ORDER BY \($0.order("r.full_name"))
        """
    })
    static let all = PortableSQL(names: { "SELECT \(columns) FROM repositories r ORDER BY \($0.order("r.full_name"))" })
    static let allCommits = PortableSQL("SELECT count(*) FROM commits")
    static let repositoryCommits = PortableSQL(
        "SELECT count(*) FROM repository_commits WHERE repository_id = CAST(? AS BIGINT)")
}
