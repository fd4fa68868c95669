/// What a sync refused to believe. Each leaves every stored commit as it was
/// and the branch as complete as it was before; the walk in progress keeps its
/// checkpoint, so a later sync against a sane server picks up from there.
public enum SyncError: Error, Sendable, CustomStringConvertible {
    /// The server's answers contradict each other or the history they describe.
    case inconsistentServer(repository: String, branch: String, detail: String)
    /// The name now answers for another GitHub repository than the one mirrored under it.
    case repositoryIdentityChanged(repository: String, storedID: Int, foundID: Int, apiURL: String)
    /// A `Link: rel="next"` that leaves the API's origin (or is no URL at all).
    case linkRefused(repository: String, link: String, origin: String)
    /// A stored `OWNER/NAME#<id>` name (`RepositoryName.disambiguated`): GitHub gave its name to
    /// another repository, so it is kept for queries and never goes into a request.
    case storedNameOnly(repository: String)

    public var description: String {
        switch self {
        case .inconsistentServer(let repository, let branch, let detail):
            return
                "\(repository)@\(branch): the server's answers are inconsistent (\(detail)); nothing stored was changed or removed and the branch is not marked complete; the next sync retries from here"
        case .repositoryIdentityChanged(let repository, let storedID, let foundID, let apiURL):
            return
                "\(repository) is mirrored here as GitHub repository id \(storedID), but \(apiURL) answers with id \(foundID) for that name (another repository: a wrong API URL, or the repository was deleted and recreated); nothing was changed"
        case .linkRefused(let repository, let link, let origin):
            return
                "\(repository): the server's next-page link '\(link)' leaves \(origin); it was not followed or saved, and nothing stored was changed"
        case .storedNameOnly(let repository):
            return
                "\(repository) names a repository whose name GitHub gave to another one; its history is kept for queries under this name and it is never synced"
        }
    }
}
