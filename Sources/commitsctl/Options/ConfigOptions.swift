import ArgumentParser
import Foundation
import MirrorCore

/// `--config`: the configuration file shared with commitsd (store, API URL,
/// token file, repositories). Flags and the environment override its values.
struct ConfigOptions: ParsableArguments {
    @Option(Options.config) var config: String?

    func validate() throws {
        if config?.isEmpty == true {
            throw ValidationError("--config is empty; give the path of a configuration file, or leave --config out")
        }
    }

    /// The configuration named by `--config` or `$COMMITS_MIRROR_CONFIG`; with
    /// `systemDefault`, also the systemd/`/etc` locations. `nil` when none applies.
    func load(
        systemDefault: Bool = false,
        environment: EnvironmentVariables = .process
    ) throws -> MirrorConfiguration? {
        let path: String?
        if systemDefault {
            path = MirrorConfiguration.locate(explicit: config, environment: environment)
        } else {
            path = config ?? environment.nonEmpty("COMMITS_MIRROR_CONFIG")
        }
        return try path.map(MirrorConfiguration.load(contentsOf:))
    }
}

/// Where a command's settings come from: flags, then the environment, then the
/// configuration file, then the defaults.
struct ResolvedSettings {
    var configuration: MirrorConfiguration?
    var store: StoreLocation
    var apiURL: String

    init(configuration: MirrorConfiguration?, store: StoreOptions, github: GitHubOptions? = nil) throws {
        self.configuration = configuration
        // `postgresql://…` from --db or $COMMITS_DB: refused here, before any command looks for it.
        if let explicit = store.path.flatMap({ $0.isEmpty ? nil : $0 }) {
            self.store = try StoreLocation(explicit)
        } else {
            self.store = try configuration?.resolvedStore() ?? StoreLocation.resolve(explicit: nil)
        }
        if let github {
            apiURL = github.apiURL ?? configuration?.resolvedAPIURL() ?? github.resolvedAPIURL
        } else {
            apiURL = configuration?.resolvedAPIURL() ?? GitHubClient.defaultAPIURL
        }
    }

    /// The API URL, refused when it carries `user:password@` (flags and the
    /// environment are checked by `GitHubOptions.validate`; this catches `api_url`).
    func checkedAPIURL() throws -> String {
        guard APIOrigin.containsCredentials(apiURL) else { return apiURL }
        throw ConfigurationError(
            file: configuration?.source ?? "", key: "api_url", problem: "must not contain a user name or credentials (…@ before the host)",
            expected: "the URL alone; put the token in GITHUB_TOKEN, --token-file or token_file")
    }

    /// `--token-file`, the environment, the systemd credential, then `token_file`;
    /// or the configuration's `github_app` (never with a token).
    func resolveCredentials(github: GitHubOptions) throws -> ResolvedCredentials {
        if let tokenFile = github.tokenFile, let app = configuration?.githubApp {
            throw ConfigurationError(
                file: configuration?.source ?? "", line: app.line, key: "github_app",
                problem: "is set, and so is --token-file \(tokenFile); the two are exclusive",
                expected: "either github_app or a personal token: leave out --token-file, or use a configuration without github_app")
        }
        if github.tokenFile == nil, let configuration {
            return try configuration.resolveCredentials { printWarning($0) }
        }
        return ResolvedCredentials(token: try github.resolveToken())
    }
}

/// A person's identities: `--mailmap FILE`, else the configuration's `mailmap:`.
struct MailmapSource {
    var flag: String?
    var configuration: MirrorConfiguration?

    func load() throws -> Mailmap? {
        if let flag { return try Mailmap(contentsOfFile: flag) }
        return try configuration?.loadMailmap()
    }
}
