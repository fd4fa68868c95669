import Foundation

/// `github_app:` in the configuration: authenticate as a GitHub App
/// installation instead of with a personal token (docs/GITHUB-APP.md).
public struct GitHubAppSettings: Sendable, Equatable {
    /// `app_id`: the App's numeric id (its settings page, "App ID").
    public var appID: Int
    /// `installation_id`; `nil`: the App's only installation on the owner the
    /// repositories name.
    public var installationID: Int?
    /// `private_key_file`: the PEM key downloaded from the App's settings;
    /// `nil` when only the systemd credential `github-app-key` holds it.
    public var privateKeyFile: String?
    /// The line of `github_app`, for messages about it (not part of equality).
    public var line: Int?

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.appID == rhs.appID && lhs.installationID == rhs.installationID && lhs.privateKeyFile == rhs.privateKeyFile
    }

    /// `app 12345, installation 678, key /etc/…/app.pem`, for reload messages.
    public var summary: String {
        "app \(appID), installation \(installationID.map(String.init) ?? "(the owner's only one)"), key \(privateKeyFile ?? "(credential \(GitHubAppKey.credentialName))")"
    }
}

/// How requests authenticate, resolved from the configuration and the environment.
public struct ResolvedCredentials: Sendable {
    public var token: GitHubToken?
    public var app: GitHubApp?

    public init(token: GitHubToken? = nil, app: GitHubApp? = nil) {
        self.token = token
        self.app = app
    }
}

extension MirrorConfiguration {
    /// Every owner the repositories and patterns name, lowercased.
    public var owners: Set<String> {
        Set(repositories.map { $0.name.owner.lowercased() } + patterns.map { $0.pattern.owner.lowercased() })
    }

    /// The token (`resolveToken`) or the GitHub App, never both: a token from
    /// anywhere beside `github_app` is a configuration error naming both. A
    /// key that cannot be read or is no RSA key is one too, naming the key's source.
    /// `now`: the App's clock (`GitHubApp.now`).
    public func resolveCredentials(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        warn: (String) -> Void = { _ in },
        now: @escaping @Sendable () -> Date = Date.init
    ) throws -> ResolvedCredentials {
        let token = try resolveToken(environment: environment, warn: warn)
        guard let settings = githubApp else { return ResolvedCredentials(token: token) }
        if let token {
            throw ConfigurationError(
                file: source, line: settings.line, key: "github_app",
                problem: "is set, and so is a token (from \(token.source)); the two are exclusive",
                expected: "either github_app or a personal token: remove one of them")
        }
        let key: GitHubAppKey
        do {
            guard
                let resolved = try GitHubAppKey.resolve(
                    configuredFile: settings.privateKeyFile, environment: environment, warn: warn)
            else {
                throw ConfigurationError(
                    file: source, line: settings.line, key: "github_app.private_key_file", problem: "missing",
                    expected:
                        "the path of the App's PEM private key, or the systemd credential \(GitHubAppKey.credentialName)")
            }
            key = resolved
        } catch let error as GitHubAppKey.KeyError {
            throw ConfigurationError(file: source, line: settings.line, key: "github_app", problem: "\(error)")
        } catch let error as SecretFile.Refused {
            throw ConfigurationError(file: source, line: settings.line, key: "github_app", problem: "\(error)")
        }
        let installation: GitHubApp.Installation
        if let id = settings.installationID {
            installation = .id(id)
        } else if let owner = owners.first, owners.count == 1 {
            installation = .onlyOne(owner: owner)
        } else {
            throw ConfigurationError(
                file: source, line: settings.line, key: "github_app.installation_id",
                problem: "missing, and the repositories name \(owners.count) owners",
                expected: "the installation id (the number in the installation's settings URL)")
        }
        return ResolvedCredentials(app: GitHubApp(appID: settings.appID, installation: installation, key: key, now: now))
    }
}
