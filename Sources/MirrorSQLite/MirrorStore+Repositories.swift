import Foundation
import MirrorCore
import SQLite

/// Repositories: a repository is its GitHub id; its current name and every
/// name it was known by (renames, transfers, what a user typed) find it.
extension MirrorStore {
    static let repositoryColumns = "r.id, r.full_name, r.github_id, r.default_branch"

    /// The repository known by `name` (current or former, any case).
    public func repository(named name: RepositoryName) throws -> StoredRepository? {
        try StoreLookups.repository(named: name, in: db)
    }

    static func repository(from row: Statement) -> StoredRepository {
        StoredRepository(
            id: row.int64(0),
            name: RepositoryName(parsingStored: row.string(1)) ?? RepositoryName(owner: row.string(1), name: ""),
            githubID: row.optionalInt(2),
            defaultBranch: row.optionalString(3))
    }

    /// The repository known by `name`, created (without a GitHub id) if none is:
    /// for `import`, which works offline.
    public func ensureRepository(named name: RepositoryName) throws -> StoredRepository {
        if let existing = try repository(named: name) { return existing }
        return try write {
            try db.execute("INSERT INTO repositories (full_name) VALUES (?)", [name.description])
            try addName(name.description, repositoryID: db.lastInsertRowID)
            return try repository(named: name)!
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
        let byID = try db.prepare("SELECT \(Self.repositoryColumns) FROM repositories r WHERE r.github_id = ?")
            .bind([identity.githubID]).first(Self.repository(from:))
        let byName = try repository(named: requested)
        let rowID: Int64
        if let byID {
            rowID = byID.id
        } else if let byName, byName.githubID == nil {
            rowID = byName.id
        } else {
            try db.execute(
                "INSERT INTO repositories (full_name) VALUES (?)",
                [placeholderName(for: identity)])
            rowID = db.lastInsertRowID
        }
        let current = identity.fullName.description
        try displaceFormerHolder(of: current, from: rowID, for: identity.githubID)
        // The current name moves to this row (another row can hold it now only if
        // created offline by `import` under the new name: that one keeps its own).
        let taken =
            try db.scalarInt(
                "SELECT count(*) FROM repositories WHERE full_name = ? AND id != ?",
                [current, rowID]) ?? 0
        try db.execute(
            """
            UPDATE repositories SET github_id = ?, default_branch = ?, html_url = ?,
                full_name = CASE WHEN ? = 0 THEN ? ELSE full_name END
            WHERE id = ?
            """, [identity.githubID, identity.defaultBranch, identity.htmlURL, taken, current, rowID])
        for name in [requested.description, current] {
            try addName(name, repositoryID: rowID)
        }
        return try db.prepare("SELECT \(Self.repositoryColumns) FROM repositories r WHERE r.id = ?")
            .bind([rowID]).first(Self.repository(from:))!
    }

    /// A name for a new row that cannot collide while the real one is settled.
    private func placeholderName(for identity: RepositoryIdentity) -> String {
        RepositoryName.disambiguated(identity.fullName, githubID: identity.githubID)
    }

    /// GitHub gives `name` to the repository `githubID`: a row of another GitHub
    /// repository still holding it (deleted, then recreated under the same name)
    /// is renamed `OWNER/NAME#<its GitHub id>`, a name GitHub can never give, and
    /// marked gone if it was active. Its history stays, queryable under that
    /// name, and `name` (as current name and as a lookup name) moves to `rowID`,
    /// so requests only ever use the name GitHub gave.
    private func displaceFormerHolder(of name: String, from rowID: Int64, for githubID: Int) throws {
        guard
            let former = try db.prepare("SELECT id, github_id FROM repositories WHERE full_name = ? AND id != ?")
                .bind([name, rowID]).first({ (id: $0.int64(0), githubID: $0.optionalInt(1)) }),
            let formerGitHubID = former.githubID, formerGitHubID != githubID,
            let formerName = RepositoryName(parsing: name)
        else { return }
        let disambiguated = RepositoryName.disambiguated(formerName, githubID: formerGitHubID)
        try db.execute("UPDATE repositories SET full_name = ? WHERE id = ?", [disambiguated, former.id])
        try addName(disambiguated, repositoryID: former.id)
        try db.execute("UPDATE repository_names SET repository_id = ? WHERE name = ?", [rowID, name])
        if try repositoryState(repositoryID: former.id) == .active {
            try updateState(
                .gone, repositoryID: former.id, reason: "its name \(name) now belongs to another repository (id \(githubID))",
                at: Date())
        }
    }

    /// Points `name` at the repository, unless it already names another one
    /// (that repository keeps it: a name is never silently moved between ids).
    private func addName(_ name: String, repositoryID: Int64) throws {
        try db.execute(
            "INSERT INTO repository_names (name, repository_id) VALUES (?, ?) ON CONFLICT (name) DO NOTHING",
            [name, repositoryID])
    }
}
