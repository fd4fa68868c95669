import Foundation

/// The commits of an import split by whether their history is whole.
public struct ImportPlan: Sendable {
    /// Attachable commits, parents before children, each sha once.
    public var closed: [Commit]
    /// Commits with an ancestor that is neither in the import nor mirrored.
    public var open: [Commit]
    /// Those missing ancestors (parents referenced but absent), for messages.
    public var missingParents: Set<String>
}
