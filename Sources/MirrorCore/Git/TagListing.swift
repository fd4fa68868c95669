import GitHash
import MirrorModel

/// A repository's tags as one server listing gave them, over git
/// (`GitHistoryFetcher.listTags`) or REST (`GitHubClient.tagRefs`).
public struct TagListing: Sendable, Equatable {
    /// Every tag that passed the checks, in the order the server listed them.
    public var tags: [AnnouncedTag]
    /// Tags left out, each with why. A caller should keep what it stored under
    /// these names as it was: a skipped tag was neither seen nor seen deleted.
    public var skipped: [SkippedTag]
    /// Requests made for this listing: git's HTTP requests, or REST's logical ones
    /// (the request ledger counts REST's retries too).
    public var requests: Int

    public init(tags: [AnnouncedTag] = [], skipped: [SkippedTag] = [], requests: Int = 0) {
        self.tags = tags
        self.skipped = skipped
        self.requests = requests
    }
}

/// A listed tag left out of a `TagListing`, and why.
public struct SkippedTag: Sendable, Equatable, CustomStringConvertible {
    /// The name as listed (it may be one git refuses); show it with `BranchName.quoted`.
    public var name: String
    public var reason: String

    public init(name: String, reason: String) {
        self.name = name
        self.reason = reason
    }

    public var description: String { "tag \(BranchName.quoted(name)) skipped: \(reason)" }
}

/// How much of a tag listing is accepted before it fails as a whole.
public struct TagLimits: Sendable, Equatable {
    /// Tags listed, valid or not; a longer listing fails rather than being cut short,
    /// since a cut one would read as tags deleted.
    public var maximumTags = 50_000
    /// Bytes of one listing's response.
    public var maximumBytes = 32 << 20
    /// Tag objects followed from one ref before its chain is refused (REST).
    public var maximumChainHops = 10

    public init() {}
}

/// Why a whole tag listing was refused.
public enum TagListingError: Error, Sendable, Equatable, CustomStringConvertible {
    case tooManyTags(limit: Int)
    case tooLarge(limit: Int)

    public var description: String {
        switch self {
        case .tooManyTags(let limit): "the server lists more than \(limit) tags; the listing was refused whole"
        case .tooLarge(let limit): "the server's tag listing is larger than \(limit) bytes; it was refused whole"
        }
    }
}

/// Collects a listing's tags, skipping each one that fails a check and
/// refusing the listing once it passes its limits.
struct TagListBuilder {
    let limits: TagLimits
    private(set) var listing = TagListing()
    private var names: Set<String> = []
    private var listed = 0

    init(limits: TagLimits) { self.limits = limits }

    /// Adds `refs/tags/<name>` naming `object`, peeling to `commit` (nil when it does not or is not known yet).
    /// - Throws: `TagListingError.tooManyTags` once more than `limits.maximumTags` were listed.
    mutating func add(name: String, object: String, commit: String?, isAnnotated: Bool) throws {
        listed += 1
        guard listed <= limits.maximumTags else { throw TagListingError.tooManyTags(limit: limits.maximumTags) }
        if let problem = TagName.problem(with: name) { return skip(name, "git refuses the name: \(problem)") }
        guard let objectID = ObjectID(hex: object) else { return skip(name, "its object id is not 40 hex digits") }
        var commitID: ObjectID?
        if let commit {
            guard let id = ObjectID(hex: commit) else { return skip(name, "its peeled id is not 40 hex digits") }
            commitID = id
        }
        guard names.insert(name).inserted else { return skip(name, "it is listed more than once") }
        listing.tags.append(
            AnnouncedTag(name: name, objectSHA: objectID.hex, commitSHA: commitID?.hex, isAnnotated: isAnnotated))
    }

    /// Counts a listed tag that cannot be read at all (its line or element is unusable).
    mutating func skipUnreadable(_ name: String, _ reason: String) throws {
        listed += 1
        guard listed <= limits.maximumTags else { throw TagListingError.tooManyTags(limit: limits.maximumTags) }
        skip(name, reason)
    }

    private mutating func skip(_ name: String, _ reason: String) {
        listing.skipped.append(SkippedTag(name: name, reason: reason))
    }
}
