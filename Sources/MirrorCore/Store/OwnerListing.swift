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
        public var repositories: [GitHubClient.ListedRepository]
    }

    public var owner: String
    public var kind: GitHubClient.OwnerKind
    public var pages: [Page]

    public init(owner: String, kind: GitHubClient.OwnerKind, pages: [Page]) {
        self.owner = owner
        self.kind = kind
        self.pages = pages
    }

    public var repositories: [GitHubClient.ListedRepository] { pages.flatMap(\.repositories) }
}
