// Maps an API path to what it asks for. Repository lookup happens later, against live state.

enum RepositoryReference: Equatable {
    case name(owner: Substring, repo: Substring)
    case id(Int)
}

/// Whose repositories a listing asks for: by login (`/orgs/{org}/repos`, `/users/{user}/repos`)
/// or by account id (`/organizations/{id}/repos`, `/user/{id}/repos`, the form `Link` uses).
enum OwnerReference: Equatable {
    case organization(Substring)
    case user(Substring)
    case organizationID(Int)
    case userID(Int)
}

/// The GitHub App endpoints (App mode).
enum AppRoute: Equatable {
    /// `GET /app/installations` (JWT).
    case installations
    /// `POST /app/installations/{id}/access_tokens` (JWT).
    case accessTokens(installation: Int)
    /// `GET /orgs/{org}/installation`, `GET /users/{user}/installation` (JWT).
    case accountInstallation(login: Substring, organization: Bool)
    /// `GET /installation/repositories` (an installation token).
    case installationRepositories
    /// `DELETE /installation/token`: revokes the token the request carries.
    case revokeToken
}

enum Route: Equatable {
    case rateLimit
    case app(AppRoute)
    case ownerRepositories(OwnerReference)
    /// `tail` is what follows the repository: [] for the repository itself, ["commits"], ["commits", ref…].
    case repository(RepositoryReference, tail: [Substring])
    case notFound

    init(path: String) {
        // GitHub answers 404 to a trailing slash, and empty segments match nothing either.
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        guard segments.count >= 2, segments[0].isEmpty, !segments.dropFirst().contains(where: \.isEmpty) else {
            self = .notFound
            return
        }
        let parts = Array(segments.dropFirst())
        switch parts[0] {
        case "rate_limit" where parts.count == 1:
            self = .rateLimit
        case "app" where parts.count == 2 && parts[1] == "installations":
            self = .app(.installations)
        case "app" where parts.count == 4 && parts[1] == "installations" && parts[3] == "access_tokens":
            self = Int(parts[2]).map { .app(.accessTokens(installation: $0)) } ?? .notFound
        case "orgs" where parts.count == 3 && parts[2] == "installation":
            self = .app(.accountInstallation(login: parts[1], organization: true))
        case "users" where parts.count == 3 && parts[2] == "installation":
            self = .app(.accountInstallation(login: parts[1], organization: false))
        case "installation" where parts.count == 2 && parts[1] == "repositories":
            self = .app(.installationRepositories)
        case "installation" where parts.count == 2 && parts[1] == "token":
            self = .app(.revokeToken)
        case "repos" where parts.count >= 3:
            self = .repository(.name(owner: parts[1], repo: parts[2]), tail: Array(parts[3...]))
        case "orgs" where parts.count == 3 && parts[2] == "repos":
            self = .ownerRepositories(.organization(parts[1]))
        case "users" where parts.count == 3 && parts[2] == "repos":
            self = .ownerRepositories(.user(parts[1]))
        case "organizations" where parts.count == 3 && parts[2] == "repos":
            self = Int(parts[1]).map { .ownerRepositories(.organizationID($0)) } ?? .notFound
        case "user" where parts.count == 3 && parts[2] == "repos":
            self = Int(parts[1]).map { .ownerRepositories(.userID($0)) } ?? .notFound
        case "repositories" where parts.count >= 2:
            guard let id = Int(parts[1]) else {
                self = .notFound
                return
            }
            self = .repository(.id(id), tail: Array(parts[2...]))
        default:
            self = .notFound
        }
    }

    /// The list-commits endpoint in either path form; faults and `listRequests` count these.
    /// The repository a request is counted against in `SimStats.requestsByRepository`.
    var repositoryStatsKey: String? {
        switch self {
        case .repository(.name(let owner, let repo), _): "\(owner)/\(repo)".lowercased()
        case .repository(.id(let id), _): "#\(id)"
        default: nil
        }
    }

    /// A listing of an account's repositories (`/orgs/…/repos` and its forms, `/installation/repositories`).
    var isOwnerListing: Bool {
        switch self {
        case .ownerRepositories, .app(.installationRepositories): true
        default: false
        }
    }

    /// `POST /app/installations/{id}/access_tokens`: minting an installation token.
    var isAccessTokens: Bool {
        if case .app(.accessTokens) = self { return true }
        return false
    }

    var isListCommits: Bool {
        if case .repository(_, let tail) = self { return tail == ["commits"] }
        return false
    }
}
