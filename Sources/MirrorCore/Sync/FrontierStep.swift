/// The page-local half of a walk's frontier rule — what one stored page changes
/// in the set of parents the walk still misses — as a pure function of the
/// page, so every store backend applies the same rule. The store answers only
/// the other half: which of `parentsOffPage` it already holds on the branch.
///
/// A page lists commits newest first, so most parents are the next commit on
/// the same page and need no lookup at all.
public struct FrontierStep: Sendable, Equatable {
    /// Parents of the page's commits that are not on the page, each once, in
    /// page order: they join the frontier unless the branch already holds them.
    public var parentsOffPage: [String]
    /// The page's own commits, each once: whatever walk missed them has them now.
    public var listed: [String]

    public init(page: [Commit]) {
        var onPage = Set<String>(minimumCapacity: page.count)
        listed = []
        for commit in page where onPage.insert(commit.sha).inserted { listed.append(commit.sha) }
        var seen = Set<String>()
        parentsOffPage = []
        for commit in page {
            for parent in commit.parents where !onPage.contains(parent) && seen.insert(parent).inserted {
                parentsOffPage.append(parent)
            }
        }
    }
}
