import Foundation
import MirrorCore
import PostgreSQL

/// Each repository's last branch listing (`branch_listings`, schema version 6).
extension PostgreSQLStore {
    public func branchListing(repositoryID: Int64) throws -> BranchListing? {
        let rows = try connection.execute("SELECT pages FROM branch_listings WHERE repository_id = $1", [repositoryID])
        guard rows.count > 0, let pages = rows.string(0, 0) else { return nil }
        return BranchListing(storedPages: pages)
    }

    public func recordBranchListing(_ listing: BranchListing, repositoryID: Int64, at date: Date) throws {
        try write {
            try connection.execute(
                """
                INSERT INTO branch_listings (repository_id, pages, listed_at) VALUES ($1, $2, $3)
                ON CONFLICT (repository_id) DO UPDATE SET pages = excluded.pages, listed_at = excluded.listed_at
                """, [repositoryID, PageStaging.storable(listing.storedPages), ISO8601Timestamp.format(date)])
        }
    }
}
