import Foundation

/// What tags, revision names and containment ask of a store (`MirrorReading`
/// refines it). Commit ids are the reader's own, as in `HistoryGraph`.
public protocol TagReading: AnyObject {
    /// The tags of one repository, or of every one (by repository, then name,
    /// then when first seen); with `includingEnded`, also where moved or deleted tags pointed.
    func tags(repositoryID: Int64?, includingEnded: Bool) throws -> [StoredTag]
    /// What `name` can mean in one repository: its current tag, its branch's
    /// recorded head, and the commits whose sha starts with it.
    func revisionTargets(_ name: String, repositoryID: Int64) throws -> RevisionTargets
    /// Per repository holding the commit `sha`, the earliest current tag (git's
    /// `--sort=creatordate`) whose commit reaches it, as the last refresh of the
    /// repository's tags recorded it; repositories by name (ASCII case ignored).
    func earliestTags(containing sha: String) throws -> [RepositoryTag]
    /// The stored shas of `commitIDs`, for the answers that name them.
    func shas(ofCommits commitIDs: [Int64]) throws -> [Int64: String]
    /// Per repository (by its full name) with current tags, how many it has, as `status` shows them.
    func tagCounts() throws -> [String: Int]
}

/// The commits a revision name can stand for in one repository, in git's order
/// of precedence: a tag, then a branch, then a sha prefix.
public struct RevisionTargets: Sendable, Equatable {
    /// The commit the current tag of that name peels to; `.some(nil)` for a tag
    /// whose commit is not stored (or that does not end at a commit).
    public var tag: Int64??
    /// The recorded head of the branch of that name.
    public var branch: Int64?
    /// Commits whose sha starts with the name (a name of 4 to 40 hex digits), at
    /// most `CommitResolution.ambiguityListLimit + 1`, with their shas.
    public var commits: [(id: Int64, sha: String)]

    public init(tag: Int64?? = nil, branch: Int64? = nil, commits: [(id: Int64, sha: String)] = []) {
        self.tag = tag
        self.branch = branch
        self.commits = commits
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.tag == rhs.tag && lhs.branch == rhs.branch && lhs.commits.map(\.id) == rhs.commits.map(\.id)
            && lhs.commits.map(\.sha) == rhs.commits.map(\.sha)
    }
}

/// What a sync records of a repository's tags (`SyncStore` refines it).
public protocol TagRecords: AnyObject {
    /// Records the repository's whole tag listing, in one write: a new name is
    /// added, a name that points elsewhere now ends its row and starts another
    /// (moved), a name no longer listed ends its row (deleted). Nothing is ever
    /// deleted. An annotation given fills the row's when it has none. `etag`
    /// is kept for the next listing to be asked for conditionally, with
    /// `selection`, the tags it was narrowed to (nil: every one), without which that ETag is no guide.
    func recordTags(_ tags: [AnnouncedTag], repositoryID: Int64, etag: String?, selection: String?, at date: Date) throws -> TagChanges
    /// The tag objects of the repository's current annotated tags whose annotation is not stored yet.
    func tagObjectsWithoutAnnotation(repositoryID: Int64) throws -> [String]
    /// The repository's current tags and the ETag of the listing they were recorded from.
    func tagListing(repositoryID: Int64) throws -> StoredTagListing
    /// Notes that the listing was asked for at `date` and GitHub answered that it had not changed.
    func recordTagListingUnchanged(repositoryID: Int64, at date: Date) throws
    /// Brings each stored commit's earliest containing tag up to date with the
    /// repository's tags and graph, in one write; returns how many rows changed.
    @discardableResult
    func refreshTagContainment(repositoryID: Int64) throws -> Int
}

extension TagRecords {
    /// A listing recorded without an ETag to ask with next time.
    public func recordTags(_ tags: [AnnouncedTag], repositoryID: Int64, at date: Date) throws -> TagChanges {
        try recordTags(tags, repositoryID: repositoryID, etag: nil, selection: nil, at: date)
    }
}

/// What the store holds of a repository's last tag listing.
public struct StoredTagListing: Sendable, Equatable {
    /// The listing's ETag (nil before the first listing, or when GitHub gave none).
    public var etag: String?
    /// The selection the listing was narrowed to when recorded (nil: every tag).
    public var selection: String?
    /// The current tags, as they were announced and read.
    public var tags: [AnnouncedTag]
    /// When the listing was last asked for (ISO 8601; nil before the first).
    public var listedAt: String?

    public init(etag: String?, selection: String? = nil, tags: [AnnouncedTag], listedAt: String? = nil) {
        self.etag = etag
        self.selection = selection
        self.tags = tags
        self.listedAt = listedAt
    }
}
