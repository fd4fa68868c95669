import Foundation
import MirrorCore
import SQLite

/// Each repository's last branch listing (`branch_listings`, schema version 10).
extension MirrorStore: BranchListingRecords {
    public func branchListing(repositoryID: Int64) throws -> BranchListing? {
        try db.prepare("SELECT pages FROM branch_listings WHERE repository_id = ?").bind([repositoryID])
            .first { $0.string(0) }
            .flatMap(BranchListing.init(storedPages:))
    }

    public func recordBranchListing(_ listing: BranchListing, repositoryID: Int64, at date: Date) throws {
        try write {
            try db.execute(
                """
                INSERT INTO branch_listings (repository_id, pages, listed_at) VALUES (?, ?, ?)
                ON CONFLICT (repository_id) DO UPDATE SET pages = excluded.pages, listed_at = excluded.listed_at
                """, [repositoryID, listing.storedPages, ISO8601Timestamp.format(date)])
        }
    }
}
