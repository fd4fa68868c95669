import Foundation
import MirrorCore

// Repositories: a repository is its GitHub id; its current name and every
// name it was known by (renames, transfers, what a user typed) find it.

extension SQLBookkeeping {
    /// The repository known by `name` (current or former, any case).
    public func repository(named name: RepositoryName) throws -> StoredRepository? {
        try RepositoryRows.repository(named: name, in: session)
    }

    /// The repository known by `name`, created (without a GitHub id) if none is:
    /// for `import`, which works offline.
    public func ensureRepository(named name: RepositoryName) throws -> StoredRepository {
        if let existing = try repository(named: name) { return existing }
        return try write {
            let id = try insertRepository(named: name.description)
            try addName(name.description, repositoryID: id)
            return StoredRepository(id: id, name: name, githubID: nil, defaultBranch: nil)
        }
    }

    /// Records what GitHub answered for `requested`: the row holding that GitHub
    /// id (or the row known by `requested` that has no id yet, or a new row)
    /// takes the id, the current name and the default branch, and keeps every
    /// name it was known by. Never gives one repository two rows.
    public func adopt(_ identity: RepositoryIdentity, requestedAs requested: RepositoryName) throws -> StoredRepository {
        try write { try adoptInTransaction(identity, requestedAs: requested) }
    }

    /// `adopt` inside a transaction the caller holds (several adoptions in one).
    func adoptInTransaction(_ identity: RepositoryIdentity, requestedAs requested: RepositoryName) throws -> StoredRepository {
        let byID = try session.firstRow(RepositoryStatements.byGitHubID, [identity.githubID], RepositoryRows.repository(from:))
        let byName = try repository(named: requested)
        let rowID: Int64
        if let byID {
            rowID = byID.id
        } else if let byName, byName.githubID == nil {
            rowID = byName.id
        } else {
            // A name for a new row that cannot collide while the real one is settled.
            rowID = try insertRepository(named: RepositoryName.disambiguated(identity.fullName, githubID: identity.githubID))
        }
        let current = identity.fullName.description
        try displaceFormerHolder(of: current, from: rowID, for: identity.githubID)
        // The current name moves to this row (another row can hold it now only if
        // created offline by `import` under the new name: that one keeps its own).
        let taken = try session.scalarInt(RepositoryStatements.nameTaken, [current, rowID]) ?? 0
        try session.run(
            RepositoryStatements.adopt, [identity.githubID, identity.defaultBranch, identity.htmlURL, taken, current, rowID])
        for name in [requested.description, current] {
            try addName(name, repositoryID: rowID)
        }
        return try session.firstRow(RepositoryStatements.byID, [rowID], RepositoryRows.repository(from:))!
    }

    private func insertRepository(named name: String) throws -> Int64 {
        try session.firstRow(RepositoryStatements.insert, [name]) { $0.int64(0) }.flatMap { $0 } ?? 0
    }

    /// GitHub gives `name` to the repository `githubID`: a row of another GitHub
    /// repository still holding it (deleted, then recreated under the same name)
    /// is renamed `OWNER/NAME#<its GitHub id>`, a name GitHub can never give, and
    /// marked gone if it was active. Its history stays, queryable under that
    /// name, and `name` (as current name and as a lookup name) moves to `rowID`,
    /// so requests only ever use the name GitHub gave.
    private func displaceFormerHolder(of name: String, from rowID: Int64, for githubID: Int) throws {
        guard
            let former = try session.firstRow(
                RepositoryStatements.formerHolder, [name, rowID], { (id: $0.int64(0) ?? 0, githubID: $0.int(1)) }),
            let formerGitHubID = former.githubID, formerGitHubID != githubID,
            let formerName = RepositoryName(parsing: name)
        else { return }
        let disambiguated = RepositoryName.disambiguated(formerName, githubID: formerGitHubID)
        try session.run(RepositoryStatements.rename, [disambiguated, former.id])
        try addName(disambiguated, repositoryID: former.id)
        try session.run(RepositoryStatements.moveName, [rowID, name])
        if try repositoryState(repositoryID: former.id) == .active {
            try updateState(
                .gone, repositoryID: former.id, reason: "its name \(name) now belongs to another repository (id \(githubID))",
                at: Date())
        }
    }

    /// Points `name` at the repository, unless it already names another one
    /// (that repository keeps it: a name is never silently moved between ids).
    private func addName(_ name: String, repositoryID: Int64) throws {
        try session.run(RepositoryStatements.addName, [name, repositoryID])
    }

    public func repositoryState(repositoryID: Int64) throws -> RepositoryState {
        try session.firstRow(RepositoryStatements.state, [repositoryID]) { $0.string(0) }?
            .flatMap(RepositoryState.init(rawValue:)) ?? .active
    }

    /// Sets the repository's state, with why (shown by `status`); its history is never touched.
    public func setState(_ state: RepositoryState, repositoryID: Int64, reason: String?, at date: Date) throws {
        try write { try updateState(state, repositoryID: repositoryID, reason: reason, at: date) }
    }

    public func updateState(_ state: RepositoryState, repositoryID: Int64, reason: String?, at date: Date) throws {
        try session.run(RepositoryStatements.setState, [state.rawValue, reason, ISO8601Timestamp.format(date), repositoryID])
    }

    public func commitCount(repositoryID: Int64?) throws -> Int {
        try RepositoryRows.commitCount(repositoryID: repositoryID, in: session)
    }
}

/// The repositories' statements, each written once for both dialects.
enum RepositoryStatements {
    static let byGitHubID = PortableSQL("SELECT \(RepositoryRows.columns) FROM repositories r WHERE r.github_id = ?")
    static let byID = PortableSQL("SELECT \(RepositoryRows.columns) FROM repositories r WHERE r.id = ?")
    static let insert = PortableSQL("INSERT INTO repositories (full_name) VALUES (?) RETURNING id")
    static let nameTaken = PortableSQL(names: {
        "SELECT count(*) FROM repositories WHERE \($0.same("full_name", "?1")) AND id <> ?2"
    })
    static let adopt = PortableSQL(
        """
        UPDATE repositories SET github_id = ?, default_branch = ?, html_url = ?,
            full_name = CASE WHEN CAST(? AS BIGINT) = 0 THEN ? ELSE full_name END
        WHERE id = ?
        """)
    static let formerHolder = PortableSQL(names: {
        "SELECT id, github_id FROM repositories WHERE \($0.same("full_name", "?1")) AND id <> ?2"
    })
    static let rename = PortableSQL("UPDATE repositories SET full_name = ? WHERE id = ?")
    static let moveName = PortableSQL(names: {
        "UPDATE repository_names SET repository_id = ?1 WHERE \($0.same("name", "?2"))"
    })
    static let addName = PortableSQL(names: {
        "INSERT INTO repository_names (name, repository_id) VALUES (?, ?) ON CONFLICT \($0.key("name")) DO NOTHING"
    })
    static let state = PortableSQL("SELECT state FROM repositories WHERE id = ?")
    static let setState = PortableSQL(
        """
        UPDATE repositories SET state = ?1, state_reason = ?2,
            state_changed_at = CASE WHEN state = ?1 THEN state_changed_at ELSE ?3 END
        WHERE id = ?4
        """)
}
