/// A sync stopped after the pages it was allowed (`SyncEngine`'s `pageLimit`):
/// the pages are stored with the walk's checkpoint, and the next sync of the
/// repository resumes the walk there. Not a failure: a long walk taken in
/// steps, so that one repository's first sync does not hold up the others.
public struct SyncStepEnded: Error, Sendable, CustomStringConvertible {
    public var repository: RepositoryName
    /// Pages this step fetched.
    public var pages: Int

    public var description: String {
        "\(repository): walk paused after \(plural(pages, "page")) to let other repositories be polled; it resumes from its checkpoint"
    }
}
