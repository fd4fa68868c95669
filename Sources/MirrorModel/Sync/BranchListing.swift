/// A repository's branches as last listed, page by page with each page's ETag:
/// what the next listing sends back as `If-None-Match` (docs/BRANCHES.md).
public struct BranchListing: Sendable, Equatable, Codable {
    public struct Page: Sendable, Equatable, Codable {
        public var url: String
        public var etag: String?
        public var next: String?
        public var branches: [ListedBranch]

        package init(url: String, etag: String?, next: String?, branches: [ListedBranch]) {
            self.url = url
            self.etag = etag
            self.next = next
            self.branches = branches
        }
    }

    public var pages: [Page]

    public init(pages: [Page]) { self.pages = pages }

    public var branches: [ListedBranch] { pages.flatMap(\.branches) }

    /// Every branch's head, by name.
    public var heads: [String: String] {
        Dictionary(branches.map { ($0.name, $0.head) }, uniquingKeysWith: { first, _ in first })
    }
}
