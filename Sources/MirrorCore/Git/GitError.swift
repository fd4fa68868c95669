import GitTrees

/// Why reading history over git's smart HTTP failed. Each case says what went
/// wrong in one line, for the sync to log before it falls back to REST; none
/// ever holds a token. URLs are shown as `APIOrigin.displayable` makes them.
public enum GitError: Error, Sendable, Equatable, CustomStringConvertible {
    // MARK: The server and the protocol
    /// The clone URL is not an absolute http(s) URL without user information.
    case invalidCloneURL(String)
    /// A connection, TLS or timeout failure (libcurl's text).
    case transport(url: String, detail: String)
    /// 401 or 403: private without access, or a token the git host refused.
    case accessDenied(url: String, status: Int, sentCredentials: Bool)
    /// 404: no repository there, or a private one this client may not see.
    case repositoryNotFound(url: String)
    case unexpectedStatus(url: String, status: Int)
    /// A redirect to another origin, or one that does not keep git's URL shape.
    case redirectRefused(from: String, to: String)
    case tooManyRedirects(url: String)
    /// The server answered with protocol v0/v1 (or not git at all).
    case protocolV2Unsupported(url: String)
    /// The server's `fetch` has no `filter`, so a commits-only fetch would carry every blob.
    case filterUnsupported(url: String)
    case unsupportedObjectFormat(String)
    case branchNotFound(branch: String)
    /// ls-refs names another tip than the one the history must end at.
    case tipDiffers(branch: String, expected: String, found: String)
    /// A name git would refuse as a branch (`BranchName`), or too long to ask for.
    case invalidBranchName(String, problem: String)
    /// An `ERR` packet or side-band 3: the server's own words.
    case remoteError(String)
    case malformedPacketLine(String)
    case malformedResponse(String)
    /// The server kept the fetch alive without sending the pack fast enough (`GitFetchPace`).
    case fetchTooSlow(String)

    // MARK: The pack
    case malformedPack(String)
    /// The pack grew past the configured bound before it ended.
    case packTooLarge(limit: Int)
    /// An object declares (or a delta builds) a body over the configured bound.
    case objectTooLarge(offset: Int, size: Int, limit: Int)
    case packChecksumMismatch
    case malformedCommit(sha: String, detail: String)
    /// The tip that ls-refs announced is not among the pack's commits.
    case tipMissing(tip: String)
    /// A commit of the pack names a parent the pack does not hold.
    case parentMissing(commit: String, parent: String)
    /// A pack fetched with its trees lacks one that a commit's changes need.
    case treeMissing(tree: String, commit: String)
    /// A tree of the pack failed its checks (`GitTree`), or is another type of object.
    case badTree(TreeError, commit: String)

    // MARK: Local
    case temporaryFile(String)
    /// No index for a pack's commits was registered (`PackCommitIndexes`): a build without MirrorSQLite.
    case noPackIndex
    case cancelled

    /// Whether the failure is of the trees a fetch with them asked for (a tree
    /// the pack lacks, or one failing a check), which the same fetch without
    /// trees does not meet. A server's own error is not: it would answer a
    /// commits-only fetch alike.
    public var concernsTrees: Bool {
        switch self {
        case .treeMissing, .badTree: true
        default: false
        }
    }

    public var description: String {
        switch self {
        case .invalidCloneURL(let url):
            return "the clone URL \(url) is not an http or https URL (without user information)"
        case .transport(let url, let detail):
            return "git fetch from \(url) failed: \(detail)"
        case .accessDenied(let url, let status, let sentCredentials):
            return "the git host refused access to \(url) (HTTP \(status)); "
                + (sentCredentials ? "the token was sent and not accepted" : "no credentials were sent to this host")
        case .repositoryNotFound(let url):
            return "no git repository at \(url) (HTTP 404), or it is private and not visible with these credentials"
        case .unexpectedStatus(let url, let status):
            return "the git host answered HTTP \(status) for \(url)"
        case .redirectRefused(let from, let to):
            return "refused a redirect from \(from) to \(to): git history is read only from the clone URL's own origin"
        case .tooManyRedirects(let url):
            return "too many redirects from \(url)"
        case .protocolV2Unsupported(let url):
            return "the git server at \(url) does not speak git protocol version 2"
        case .filterUnsupported(let url):
            return "the git server at \(url) does not allow partial fetches (no 'filter' for fetch)"
        case .unsupportedObjectFormat(let format):
            return "the repository uses object format \(format); only sha1 is supported"
        case .branchNotFound(let branch):
            return "the git server lists no branch \(BranchName.quoted(branch))"
        case .tipDiffers(let branch, let expected, let found):
            return "git's tip of \(BranchName.quoted(branch)) is \(found), not \(expected) as the API says"
        case .invalidBranchName(let branch, let problem):
            return "\(BranchName.quoted(branch)) is not a branch name git accepts: \(problem)"
        case .remoteError(let message):
            return "the git server reported an error: \(message)"
        case .malformedPacketLine(let detail):
            return "malformed git protocol data: \(detail)"
        case .malformedResponse(let detail):
            return "malformed git protocol response: \(detail)"
        case .fetchTooSlow(let detail):
            return "the git server sends the pack too slowly: \(detail)"
        case .malformedPack(let detail):
            return "malformed pack: \(detail)"
        case .packTooLarge(let limit):
            return "the pack is larger than the \(limit)-byte limit"
        case .objectTooLarge(let offset, let size, let limit):
            return "the pack object at offset \(offset) is \(size) bytes, over the \(limit)-byte limit"
        case .packChecksumMismatch:
            return "the pack's trailing SHA-1 does not match its content"
        case .malformedCommit(let sha, let detail):
            return "commit \(sha) is malformed: \(detail)"
        case .tipMissing(let tip):
            return "the pack does not contain the announced tip \(tip) (its commits hash to other names)"
        case .parentMissing(let commit, let parent):
            return "the pack is incomplete: commit \(commit) names parent \(parent), which it does not hold"
        case .treeMissing(let tree, let commit):
            return "the pack is incomplete: the changes of commit \(commit) need tree \(tree), which it does not hold"
        case .badTree(let error, let commit):
            return "\(error) (reading the changes of commit \(commit))"
        case .temporaryFile(let detail):
            return "cannot spool the pack to a temporary file: \(detail)"
        case .noPackIndex:
            return "this program was built without an index for a pack's commits (MirrorSQLite registers it)"
        case .cancelled:
            return "the git fetch was cancelled"
        }
    }
}
