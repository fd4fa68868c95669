import Foundation

/// The kind of account whose repositories are listed: GitHub answers 404 to
/// `/orgs/{user}/repos`, so a user account is listed through `/users/{user}/repos`.
public enum OwnerKind: String, Sendable, Codable {
    case organization, user
}

/// What a mirror keeps of one element of an owner listing.
public struct ListedRepository: Sendable, Equatable, Codable {
    public var id: Int
    public var fullName: String
    public var ownerLogin: String
    public var defaultBranch: String?
    public var htmlURL: String?
    public var fork: Bool
    public var archived: Bool

    public init(
        id: Int, fullName: String, ownerLogin: String, defaultBranch: String?, htmlURL: String?, fork: Bool, archived: Bool
    ) {
        self.id = id
        self.fullName = fullName
        self.ownerLogin = ownerLogin
        self.defaultBranch = defaultBranch
        self.htmlURL = htmlURL
        self.fork = fork
        self.archived = archived
    }
}

/// One element of a branch listing: a branch and its head.
public struct ListedBranch: Sendable, Equatable, Codable {
    public var name: String
    public var head: String

    public init(name: String, head: String) {
        self.name = name
        self.head = head
    }
}
