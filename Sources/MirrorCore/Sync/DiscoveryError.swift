/// What a discovery refused to believe. Each leaves the store as it was: no
/// repository is marked gone, the last good listing stays.
public enum DiscoveryError: Error, Sendable, CustomStringConvertible {
    /// Neither `/orgs/{owner}/repos` nor `/users/{owner}/repos` knows the owner.
    case ownerNotFound(owner: String, tokenSource: String?, mirrored: Int)
    /// The listing contradicts itself or what it lists (another owner's repository, no id, a loop).
    case inconsistentListing(owner: String, detail: String)
    /// A `Link: rel="next"` that leaves the API's origin.
    case linkRefused(owner: String, link: String, origin: String)

    public var description: String {
        switch self {
        case .ownerNotFound(let owner, let source, 0):
            return "GitHub knows no organization or user \(owner)" + (source.map { " that the token from \($0) can see" } ?? "")
        case .ownerNotFound(let owner, _, let mirrored):
            return
                "GitHub answers 404 for the organization or user \(owner), whose \(plural(mirrored, "repository", "repositories")) are mirrored here; none was marked gone (an owner does not vanish with all its repositories at once: check the token's access and the owner's name)"
        case .inconsistentListing(let owner, let detail):
            return "\(owner)'s repository listing is inconsistent (\(detail)); nothing stored was changed, the last listing stays"
        case .linkRefused(let owner, let link, let origin):
            return
                "\(owner)'s repository listing: the next-page link '\(link)' leaves \(origin); it was not followed, and nothing stored was changed"
        }
    }
}
