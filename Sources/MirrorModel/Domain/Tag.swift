import Foundation

/// A tag as a server announces it: the ref `refs/tags/<name>`, what it points
/// to, and the commit it peels to.
public struct AnnouncedTag: Sendable, Equatable, Hashable {
    /// The name after `refs/tags/`.
    public var name: String
    /// The ref's own target: a tag object for an annotated tag, else the commit.
    public var objectSHA: String
    /// The commit it peels to through any tag objects; nil when it ends at a tree or blob, and for
    /// an annotated tag listed over REST until its tag object is read (`GitHubClient.readAnnotations`).
    public var commitSHA: String?
    /// An annotated tag: its ref names a tag object, not the commit itself.
    public var isAnnotated: Bool
    /// An annotated tag's tag object, once read; nil for a lightweight tag or one not read yet.
    public var annotation: TagAnnotation?

    public init(
        name: String, objectSHA: String, commitSHA: String?, isAnnotated: Bool, annotation: TagAnnotation? = nil
    ) {
        self.name = name
        self.objectSHA = objectSHA
        self.commitSHA = commitSHA
        self.isAnnotated = isAnnotated
        self.annotation = annotation
    }
}

/// What an annotated tag's object says of itself.
public struct TagAnnotation: Sendable, Equatable, Hashable {
    public var taggerName: String?
    public var taggerEmail: String?
    /// The tagger's date, ISO 8601 in UTC.
    public var taggedAt: String?
    public var message: String

    public init(taggerName: String?, taggerEmail: String?, taggedAt: String?, message: String) {
        self.taggerName = taggerName
        self.taggerEmail = taggerEmail
        self.taggedAt = taggedAt
        self.message = message
    }
}

/// A tag as the store keeps it: one row per place a name pointed to, so a
/// moved or deleted tag stays answerable for what it was.
public struct StoredTag: Sendable, Equatable {
    public var repository: RepositoryName
    public var tag: AnnouncedTag
    /// When the mirror first saw the name point here (ISO 8601).
    public var firstSeenAt: String
    /// When it stopped pointing here (moved or deleted); nil while it still does.
    public var endedAt: String?
    /// The commit it peels to as the reader's own id, when that commit is stored.
    public var commitID: Int64?
    /// That commit's committer date (ISO 8601), when it is stored.
    public var commitDate: String?

    public init(
        repository: RepositoryName, tag: AnnouncedTag, firstSeenAt: String, endedAt: String?, commitID: Int64?,
        commitDate: String?
    ) {
        self.repository = repository
        self.tag = tag
        self.firstSeenAt = firstSeenAt
        self.endedAt = endedAt
        self.commitID = commitID
        self.commitDate = commitDate
    }

    /// Git's `creatordate`: the tagger's date of an annotated tag, the commit's of a lightweight one.
    public var creatorDate: String? { tag.annotation?.taggedAt ?? commitDate }
}

/// What recording a repository's tag listing changed.
public struct TagChanges: Sendable, Equatable {
    public var added = 0
    public var moved = 0
    public var deleted = 0

    public init(added: Int = 0, moved: Int = 0, deleted: Int = 0) {
        self.added = added
        self.moved = moved
        self.deleted = deleted
    }

    public var isEmpty: Bool { added == 0 && moved == 0 && deleted == 0 }
}
