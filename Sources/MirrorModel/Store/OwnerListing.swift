import Foundation

/// Whether a repository is still mirrored (schema version 6).
public enum RepositoryState: String, Sendable, Codable {
    case active
    /// It left its owner's listing or GitHub answered 404: history kept, no
    /// longer polled, active again when it reappears.
    case gone
    /// The user stopped mirroring it: history kept, never polled again unless
    /// synced by name.
    case removed
}

/// An owner's repositories as last listed, page by page with each page's ETag
/// (what `RepositoryDiscovery` sends back as `If-None-Match`).
public struct OwnerListing: Sendable, Equatable, Codable {
    public struct Page: Sendable, Equatable, Codable {
        public var url: String
        public var etag: String?
        public var next: String?
        public var repositories: [ListedRepository]

        package init(url: String, etag: String?, next: String?, repositories: [ListedRepository]) {
            self.url = url
            self.etag = etag
            self.next = next
            self.repositories = repositories
        }
    }

    public var owner: String
    public var kind: OwnerKind
    public var pages: [Page]

    public init(owner: String, kind: OwnerKind, pages: [Page]) {
        self.owner = owner
        self.kind = kind
        self.pages = pages
    }

    public var repositories: [ListedRepository] { pages.flatMap(\.repositories) }

    /// A listing as a store keeps it: its kind's raw value and its pages as JSON.
    /// `nil` when this version cannot read it: a listing is only a cache, and the
    /// owner is listed again.
    public init?(owner: String, storedKind: String, storedPages: String) {
        guard let kind = OwnerKind(rawValue: storedKind),
            let pages = try? JSONDecoder().decode([Page].self, from: Data(storedPages.utf8))
        else { return nil }
        self.init(owner: owner, kind: kind, pages: pages)
    }
}
