import Foundation

/// A person on a commit, as the store keeps them.
public struct CommitPerson: Sendable, Equatable {
    public var name: String
    public var email: String
    /// The GitHub account, when GitHub linked the email to one.
    public var login: String?
    /// ISO 8601 UTC, e.g. `2023-08-28T18:27:45Z`.
    public var date: String

    public init(name: String, email: String, login: String?, date: String) {
        self.name = name
        self.email = email
        self.login = login
        self.date = date
    }
}

/// One commit of a query result.
public struct CommitSummary: Sendable, Equatable {
    public var sha: String
    public var message: String
    /// The commit's page on GitHub, when known.
    public var url: String?
    public var author: CommitPerson
    public var committer: CommitPerson
    /// Parent shas, first parent first.
    public var parents: [String]
    /// Mirrored repositories that contain the commit (`OWNER/NAME`), sorted.
    public var repositories: [String]
    /// The commit's row id: a key, not an order (SQLite reuses the id of a
    /// deleted newest row; `query --follow` orders by the change cursor instead).
    public var storeID: Int64 = 0

    public init(
        sha: String, message: String, url: String?, author: CommitPerson, committer: CommitPerson, parents: [String],
        repositories: [String], storeID: Int64 = 0
    ) {
        self.sha = sha
        self.message = message
        self.url = url
        self.author = author
        self.committer = committer
        self.parents = parents
        self.repositories = repositories
        self.storeID = storeID
    }

    /// The message's first line: up to its first newline (`Character.isNewline`).
    /// Searched scalar by scalar, which finds the same end without segmenting
    /// graphemes, the costly part of a long subject: every newline scalar is
    /// a grapheme of its own, or the CR that starts CR LF.
    public var subject: String {
        guard let end = message.unicodeScalars.firstIndex(where: Self.isNewline) else { return message }
        return String(message.unicodeScalars[..<end])
    }

    private static func isNewline(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0A...0x0D, 0x85, 0x2028, 0x2029: return true
        default: return false
        }
    }

    /// A list a store hands over joined by spaces (parent shas, repository
    /// names), split on its UTF-8 bytes rather than its Characters: the same
    /// pieces, as neither holds a space of its own, without grapheme segmentation.
    /// A loop rather than the generic `split`, which costs every row of a query
    /// more than the two or three pieces are worth.
    public static func spaceSeparated(_ joined: String) -> [String] {
        var pieces: [String] = []
        let bytes = joined.utf8
        var start = bytes.startIndex
        var index = start
        while index != bytes.endIndex {
            if bytes[index] == UInt8(ascii: " ") {
                if index != start { pieces.append(String(Substring(bytes[start..<index]))) }
                start = bytes.index(after: index)
            }
            index = bytes.index(after: index)
        }
        if index != start { pieces.append(String(Substring(bytes[start..<index]))) }
        return pieces
    }

    public var isMerge: Bool { parents.count > 1 }
}
