import Foundation
import MirrorCore
import PostgreSQL

// Repositories: a repository is its GitHub id, found by any name it was mirrored
// or known by (the rules of MirrorStore+Repositories.swift, in PostgreSQL's SQL).

extension PostgreSQLStore {
    static let repositoryColumns = "r.id, r.full_name, r.github_id, r.default_branch"

    static func repository(_ rows: QueryResult, _ row: Int) -> StoredRepository {
        let name = rows.string(row, 1) ?? ""
        return StoredRepository(
            id: rows.int64(row, 0) ?? 0,
            name: RepositoryName(parsingStored: name) ?? RepositoryName(owner: name, name: ""),
            githubID: rows.int(row, 2), defaultBranch: rows.string(row, 3))
    }

    private func repository(where condition: String, _ parameters: [any PostgreSQLBindable]) throws -> StoredRepository? {
        let rows = try connection.execute("SELECT \(Self.repositoryColumns) FROM repositories r WHERE \(condition)", parameters)
        return rows.count > 0 ? Self.repository(rows, 0) : nil
    }

    public func repository(named name: RepositoryName) throws -> StoredRepository? {
        try repository(
            where: "r.id = (SELECT repository_id FROM repository_names WHERE lower(name) = lower($1))", [name.description])
    }

    public func repositoryState(repositoryID: Int64) throws -> RepositoryState {
        let rows = try connection.execute("SELECT state FROM repositories WHERE id = $1", [repositoryID])
        return rows.string(0, 0).flatMap(RepositoryState.init(rawValue:)) ?? .active
    }

    public func setState(_ state: RepositoryState, repositoryID: Int64, reason: String?, at date: Date) throws {
        try write { try updateState(state, repositoryID: repositoryID, reason: reason, at: date) }
    }

    func updateState(_ state: RepositoryState, repositoryID: Int64, reason: String?, at date: Date) throws {
        try connection.execute(
            """
            UPDATE repositories SET state = $1, state_reason = $2,
                state_changed_at = CASE WHEN state = $1 THEN state_changed_at ELSE $3 END
            WHERE id = $4
            """, [state.rawValue, reason.map(PageStaging.storable), ISO8601Timestamp.format(date), repositoryID])
    }

    public func adopt(_ identity: RepositoryIdentity, requestedAs requested: RepositoryName) throws -> StoredRepository {
        try write { try adoptInTransaction(identity, requestedAs: requested) }
    }

    func adoptInTransaction(_ identity: RepositoryIdentity, requestedAs requested: RepositoryName) throws -> StoredRepository {
        let byID = try repository(where: "r.github_id = $1", [identity.githubID])
        let byName = try repository(named: requested)
        let rowID: Int64
        if let byID {
            rowID = byID.id
        } else if let byName, byName.githubID == nil {
            rowID = byName.id
        } else {
            let placeholder = RepositoryName.disambiguated(identity.fullName, githubID: identity.githubID)
            rowID =
                try connection.execute("INSERT INTO repositories (full_name) VALUES ($1) RETURNING id", [placeholder])
                .int64(0, 0) ?? 0
        }
        let current = identity.fullName.description
        try displaceFormerHolder(of: current, from: rowID, for: identity.githubID)
        // The current name moves to this row unless another row holds it (made offline by `import`).
        let taken =
            try connection.execute(
                "SELECT count(*) FROM repositories WHERE lower(full_name) = lower($1) AND id <> $2", [current, rowID]
            ).int(0, 0) ?? 0
        try connection.execute(
            """
            UPDATE repositories SET github_id = $1, default_branch = $2, html_url = $3,
                full_name = CASE WHEN $4::bigint = 0 THEN $5 ELSE full_name END
            WHERE id = $6
            """, [identity.githubID, identity.defaultBranch, identity.htmlURL, taken, current, rowID])
        for name in [requested.description, current] { try addName(name, repositoryID: rowID) }
        return try repository(where: "r.id = $1", [rowID])!
    }

    /// A row holding `name` for another GitHub id is renamed out of the way (its
    /// history kept, findable by its old names) and marked gone.
    private func displaceFormerHolder(of name: String, from rowID: Int64, for githubID: Int) throws {
        let former = try connection.execute(
            "SELECT id, github_id FROM repositories WHERE lower(full_name) = lower($1) AND id <> $2", [name, rowID])
        guard former.count > 0, let formerID = former.int64(0, 0), let formerGitHubID = former.int(0, 1),
            formerGitHubID != githubID, let formerName = RepositoryName(parsing: name)
        else { return }
        let disambiguated = RepositoryName.disambiguated(formerName, githubID: formerGitHubID)
        try connection.execute("UPDATE repositories SET full_name = $1 WHERE id = $2", [disambiguated, formerID])
        try addName(disambiguated, repositoryID: formerID)
        try connection.execute(
            "UPDATE repository_names SET repository_id = $1 WHERE lower(name) = lower($2)", [rowID, name])
        if try repositoryState(repositoryID: formerID) == .active {
            try updateState(
                .gone, repositoryID: formerID,
                reason: "its name \(name) now belongs to another repository (id \(githubID))", at: Date())
        }
    }

    private func addName(_ name: String, repositoryID: Int64) throws {
        try connection.execute(
            "INSERT INTO repository_names (name, repository_id) VALUES ($1, $2) ON CONFLICT ((lower(name))) DO NOTHING",
            [name, repositoryID])
    }

    // MARK: - Owner listings (OWNER/* patterns)

    public func ownerListing(owner: String) throws -> OwnerListing? {
        try Self.ownerListing(owner: owner, on: connection)
    }

    /// The store's and the reader's answer.
    static func ownerListing(owner: String, on connection: PostgreSQLConnection) throws -> OwnerListing? {
        let rows = try connection.execute("SELECT pages, kind FROM owner_listings WHERE lower(owner) = lower($1)", [owner])
        guard rows.count > 0, let pages = rows.string(0, 0), let kind = rows.string(0, 1) else { return nil }
        return OwnerListing(owner: owner, storedKind: kind, storedPages: pages)
    }

    public func recordListing(_ listing: OwnerListing, selected identities: [RepositoryIdentity], at date: Date) throws
        -> [SelectedRepository]
    {
        let pages = PageStaging.storable(String(decoding: try JSONEncoder().encode(listing.pages), as: UTF8.self))
        let now = ISO8601Timestamp.format(date)
        return try write {
            try connection.execute(
                """
                INSERT INTO owner_listings (owner, kind, pages, listed_at) VALUES ($1, $2, $3, $4)
                ON CONFLICT ((lower(owner))) DO UPDATE SET kind = excluded.kind, pages = excluded.pages,
                    listed_at = excluded.listed_at
                """, [listing.owner, listing.kind.rawValue, pages, now])
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

    private func storedIdentities() throws -> [Int: StoredIdentity] {
        let rows = try connection.execute(
            "SELECT id, github_id, full_name, default_branch, html_url, state FROM repositories WHERE github_id IS NOT NULL")
        var identities: [Int: StoredIdentity] = [:]
        for row in 0..<rows.count {
            guard let githubID = rows.int(row, 1) else { continue }
            let identity = rows.string(row, 2).flatMap(RepositoryName.init(parsing:)).flatMap { name in
                rows.string(row, 3).map {
                    RepositoryIdentity(githubID: githubID, fullName: name, defaultBranch: $0, htmlURL: rows.string(row, 4))
                }
            }
            identities[githubID] = StoredIdentity(
                id: rows.int64(row, 0) ?? 0, identity: identity,
                state: rows.string(row, 5).flatMap(RepositoryState.init(rawValue:)) ?? .active)
        }
        return identities
    }

    public func namesByGitHubID() throws -> [Int: RepositoryName] {
        let rows = try connection.execute("SELECT github_id, full_name FROM repositories WHERE github_id IS NOT NULL")
        var names: [Int: RepositoryName] = [:]
        for row in 0..<rows.count {
            if let id = rows.int(row, 0) { names[id] = rows.string(row, 1).flatMap(RepositoryName.init(parsing:)) }
        }
        return names
    }

    public func activeRepositories(ownedBy owner: String) throws -> [StoredRepository] {
        try Self.activeRepositories(ownedBy: owner, on: connection)
    }

    /// The store's and the reader's answer.
    static func activeRepositories(ownedBy owner: String, on connection: PostgreSQLConnection) throws -> [StoredRepository] {
        let rows = try connection.execute(
            """
            SELECT \(Self.repositoryColumns) FROM repositories r
            WHERE r.state = 'active' AND lower(substr(r.full_name, 1, length($1) + 1)) = lower($1 || '/')
            ORDER BY lower(r.full_name COLLATE "C")
            """, [owner])
        return (0..<rows.count).map { Self.repository(rows, $0) }
    }

    // MARK: - Requests spent

    public func recordRequests(_ tallies: [RequestKind: RequestTally], token: String, at date: Date) throws {
        guard !tallies.isEmpty else { return }
        let minute = ISO8601Timestamp.format(Date(timeIntervalSince1970: (date.timeIntervalSince1970 / 60).rounded(.down) * 60))
        try write {
            for (kind, tally) in tallies.sorted(by: { $0.key < $1.key }) {
                try connection.execute(
                    """
                    INSERT INTO request_counts (token, minute, kind, requests, not_modified, points)
                    VALUES ($1, $2, $3, $4, $5, $6)
                    ON CONFLICT (token, minute, kind) DO UPDATE SET
                        requests = request_counts.requests + excluded.requests,
                        not_modified = request_counts.not_modified + excluded.not_modified,
                        points = request_counts.points + excluded.points
                    """, [token, minute, kind.rawValue, tally.requests, tally.notModified, tally.points])
            }
            try connection.execute(
                "DELETE FROM request_counts WHERE minute < $1",
                [ISO8601Timestamp.format(date.addingTimeInterval(-24 * 3600))])
        }
    }
}
