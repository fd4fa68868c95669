/// What a backup wrote: a checked copy of a whole store, whichever backend
/// held it (`StoreLocation.backup(to:)`).
public struct StoreBackup: Sendable, Equatable {
    public var path: String
    public var bytes: Int
    public var repositories: Int
    public var commits: Int

    package init(path: String, bytes: Int, repositories: Int, commits: Int) {
        self.path = path
        self.bytes = bytes
        self.repositories = repositories
        self.commits = commits
    }
}
