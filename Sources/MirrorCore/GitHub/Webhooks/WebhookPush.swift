import Foundation

/// What a verified `push` delivery says: which repository and branch to look
/// at now. A hint, never data: the sync it triggers fetches and checks the
/// history from the API exactly as a poll would, so nothing else of the
/// payload (commits, `after`, authors) is read.
public struct WebhookPush: Sendable, Equatable {
    /// GitHub's `repository.id` (it survives renames and transfers).
    public var repositoryID: Int?
    /// `repository.full_name`.
    public var repositoryName: RepositoryName
    /// The branch of `ref: refs/heads/BRANCH`; `nil` for another ref (a tag).
    public var branch: String?
    /// `repository.default_branch`, when the payload names it.
    public var defaultBranch: String?

    public init(repositoryID: Int?, repositoryName: RepositoryName, branch: String?, defaultBranch: String?) {
        self.repositoryID = repositoryID
        self.repositoryName = repositoryName
        self.branch = branch
        self.defaultBranch = defaultBranch
    }

    /// Reads the few fields a push hint needs from a (verified) JSON body;
    /// throws a one-line `Malformed` that quotes nothing of the body.
    public init(json body: some DataProtocol) throws {
        let (object, ref) = try Self.object(body)
        let prefix = "refs/heads/"
        try self.init(
            branch: ref.hasPrefix(prefix) && ref.count > prefix.count ? String(ref.dropFirst(prefix.count)) : nil, of: object)
    }

    /// The same hint from a `create` or `delete` event, which GitHub sends besides
    /// the push when a branch or a tag is created or deleted: its `ref` is the
    /// short name, and `ref_type` says which (a tag gives no branch).
    public init(createdOrDeleted body: some DataProtocol) throws {
        let (object, ref) = try Self.object(body)
        try self.init(branch: object["ref_type"] as? String == "branch" && !ref.isEmpty ? ref : nil, of: object)
    }

    /// The hint of a `pull_request` event (opened, edited, closed, reopened…): the repository's
    /// default branch, whose sync reads its pull requests; none when the payload does not name it.
    public init(pullRequest body: some DataProtocol) throws {
        guard let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else {
            throw Malformed(description: "the body is not a JSON object")
        }
        let repository = object["repository"] as? [String: Any]
        try self.init(branch: (repository?["default_branch"] as? String).flatMap { $0.isEmpty ? nil : $0 }, of: object)
    }

    private init(branch: String?, of object: [String: Any]) throws {
        guard let repository = object["repository"] as? [String: Any], let fullName = repository["full_name"] as? String,
            let name = RepositoryName(parsing: fullName)
        else {
            throw Malformed(description: "no `repository.full_name` of the form OWNER/REPO")
        }
        self.init(
            repositoryID: (repository["id"] as? NSNumber)?.intValue, repositoryName: name, branch: branch,
            defaultBranch: repository["default_branch"] as? String)
    }

    private static func object(_ body: some DataProtocol) throws -> (object: [String: Any], ref: String) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else {
            throw Malformed(description: "the body is not a JSON object")
        }
        guard let ref = object["ref"] as? String else { throw Malformed(description: "no `ref`") }
        return (object, ref)
    }

    public struct Malformed: Error, Sendable, CustomStringConvertible {
        public var description: String
    }
}
