import Foundation

/// Where a repository's branch listing is kept between runs (`branch_listings`):
/// the next listing sends its ETags back, so an unchanged repository answers
/// 304s (0 points) even in a new process, and the heads it names tell which
/// branches need no request of their own (docs/BRANCHES.md).
public protocol BranchListingRecords: RepositoryRecords {
    func branchListing(repositoryID: Int64) throws -> BranchListing?
    /// Replaces the kept listing; a listing is only a cache of GitHub's answer.
    func recordBranchListing(_ listing: BranchListing, repositoryID: Int64, at date: Date) throws
}

extension BranchListing {
    /// The pages as a store keeps them (JSON).
    public var storedPages: String {
        // Encoding plain strings and optionals cannot fail.
        String(decoding: (try? JSONEncoder().encode(pages)) ?? Data("[]".utf8), as: UTF8.self)
    }

    /// A listing as a store keeps it; `nil` when this version cannot read it
    /// (the repository is then listed unconditionally, as if never listed).
    public init?(storedPages: String) {
        guard let pages = try? JSONDecoder().decode([Page].self, from: Data(storedPages.utf8)) else { return nil }
        self.init(pages: pages)
    }

    /// Keeps this listing for `repository`, once the store holds it (after its
    /// first sync); a listing of a repository it does not hold is not kept.
    /// Returns whether it was kept.
    @discardableResult
    public func keep(for repository: RepositoryName, in store: any BranchListingRecords, at date: Date = Date()) throws -> Bool {
        guard let stored = try store.repository(named: repository) else { return false }
        try store.recordBranchListing(self, repositoryID: stored.id, at: date)
        return true
    }
}
