import Foundation
import MirrorCore
import SQLite

/// StoredRepository lifecycle: owner listings, and the active/gone/removed state.
extension MirrorStore {
    /// The listing of `owner` stored by the last discovery, if any.
    public func ownerListing(owner: String) throws -> OwnerListing? {
        try StoreLookups.ownerListing(owner: owner, in: db)
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
            try db.execute(
                """
                INSERT INTO owner_listings (owner, kind, pages, listed_at) VALUES (?, ?, ?, ?)
                ON CONFLICT (owner) DO UPDATE SET kind = excluded.kind, pages = excluded.pages, listed_at = excluded.listed_at
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

    /// What is stored about every repository with a GitHub id, by id.
    private func storedIdentities() throws -> [Int: StoredIdentity] {
        var rows: [Int: StoredIdentity] = [:]
        try db.prepare("SELECT id, github_id, full_name, default_branch, html_url, state FROM repositories WHERE github_id IS NOT NULL")
            .forEachRow { row in
                let githubID = row.int(1)
                let identity = RepositoryName(parsing: row.string(2)).flatMap { name in
                    row.optionalString(3).map {
                        RepositoryIdentity(githubID: githubID, fullName: name, defaultBranch: $0, htmlURL: row.optionalString(4))
                    }
                }
                rows[githubID] = StoredIdentity(
                    id: row.int64(0), identity: identity, state: RepositoryState(rawValue: row.string(5)) ?? .active)
            }
        return rows
    }

    /// The current name of every repository stored with a GitHub id, by id.
    public func namesByGitHubID() throws -> [Int: RepositoryName] {
        var names: [Int: RepositoryName] = [:]
        for row in try db.prepare("SELECT github_id, full_name FROM repositories WHERE github_id IS NOT NULL").map({
            ($0.int(0), $0.string(1))
        }) {
            names[row.0] = RepositoryName(parsing: row.1)
        }
        return names
    }

    /// Active repositories whose current name is under `owner` (any case).
    public func activeRepositories(ownedBy owner: String) throws -> [StoredRepository] {
        try StoreLookups.activeRepositories(ownedBy: owner, in: db)
    }

    public func repositoryState(repositoryID: Int64) throws -> RepositoryState {
        let text = try db.prepare("SELECT state FROM repositories WHERE id = ?").bind([repositoryID]).first { $0.string(0) }
        return text.flatMap(RepositoryState.init(rawValue:)) ?? .active
    }

    /// Sets the repository's state, with why (shown by `status`); its history is never touched.
    public func setState(_ state: RepositoryState, repositoryID: Int64, reason: String?, at date: Date) throws {
        try write { try updateState(state, repositoryID: repositoryID, reason: reason, at: date) }
    }

    /// The explicit purge (`HistoryRemoval`; the user's command, after a backup).
    public func removeAndPurge(repositoryID: Int64, reason: String, at date: Date) throws -> PurgeOutcome {
        try write {
            try updateState(.removed, repositoryID: repositoryID, reason: reason, at: date)
            let held = try db.scalarInt("SELECT count(*) FROM repository_commits WHERE repository_id = ?", [repositoryID]) ?? 0
            try db.execute(
                """
                DELETE FROM commits WHERE id IN (SELECT commit_id FROM repository_commits WHERE repository_id = ?1)
                AND NOT EXISTS (SELECT 1 FROM repository_commits o WHERE o.commit_id = commits.id AND o.repository_id != ?1)
                """, [repositoryID])
            let deleted = db.changes
            // A shared commit is off-branch when it is so in every repository still holding it.
            try db.execute(
                """
                UPDATE commits SET off_branch = NOT EXISTS (
                    SELECT 1 FROM repository_commits rc
                    WHERE rc.commit_id = commits.id AND rc.repository_id != ?1 AND rc.off_branch_since IS NULL)
                WHERE id IN (SELECT commit_id FROM repository_commits WHERE repository_id = ?1)
                """, [repositoryID])
            try db.execute("DELETE FROM repository_commits WHERE repository_id = ?", [repositoryID])
            // Its history is gone, so what the sync state says about it no longer holds.
            try db.execute("DELETE FROM sync_state WHERE repository_id = ?", [repositoryID])
            try db.execute("DELETE FROM repository_branches WHERE repository_id = ?", [repositoryID])
            return PurgeOutcome(held: held, deleted: deleted)
        }
    }

    func updateState(_ state: RepositoryState, repositoryID: Int64, reason: String?, at date: Date) throws {
        try db.execute(
            """
            UPDATE repositories SET state = ?1, state_reason = ?2,
                state_changed_at = CASE WHEN state IS ?1 THEN state_changed_at ELSE ?3 END
            WHERE id = ?4
            """, [state.rawValue, reason, ISO8601Timestamp.format(date), repositoryID])
    }
}
