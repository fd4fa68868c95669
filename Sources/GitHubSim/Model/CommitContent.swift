// What a synthetic commit says before any object id: the REST element renders it in UTC, the git
// object with each person's own time zone.

/// One `author` or `committer` of a commit.
struct GitSignature: Sendable {
    var name: String
    var email: String
    /// Seconds since 1970.
    var time: Int64
    /// Minutes east of UTC, as the object's `+hhmm` says.
    var utcOffsetMinutes: Int
    /// The GitHub account the email belongs to (REST only).
    var user: SimUser?
}

struct CommitContent: Sendable {
    var author: GitSignature
    var committer: GitSignature
    /// Without a trailing newline, as REST shows it.
    var message: String
    /// Whether the object's message ends with a newline (REST drops it).
    var newlineAtEnd: Bool
}
