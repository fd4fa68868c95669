import Foundation
import Logging
import MirrorCore

/// A validated configuration with the environment applied and the token (or
/// the GitHub App) resolved into a client: everything a sync needs, loaded at start-up and on
/// every SIGHUP. One `GitHubClient` per token, shared by every repository, so
/// requests with that token go out one at a time.
struct DaemonSettings: Sendable {
    let configuration: MirrorConfiguration
    let store: StoreLocation
    let apiURL: String
    /// Where the token came from ("file /run/credentials/…/github-token"), or
    /// the GitHub App and its key's source; never a secret.
    let tokenSource: String?
    let client: GitHubClient
    /// This daemon's name in the claims it holds: `name`, or the host name (`DaemonName`).
    let name: String
    /// With `webhook_listen`: the secret deliveries are verified with (never printed).
    var webhookSecret: WebhookSecret? = nil

    /// Reads, validates and resolves; throws `ConfigurationError` (or
    /// `GitHubToken.TokenError` for an unreadable credential).
    static func load(
        path: String, logger: Logger,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> DaemonSettings {
        let configuration = try MirrorConfiguration.load(contentsOf: path)
        let apiURL = configuration.resolvedAPIURL(environment: EnvironmentVariables(environment))
        if APIOrigin.containsCredentials(apiURL) {
            // Never echoed: the part before @ is a password.
            let source = environment["GITHUB_API_URL"]?.isEmpty == false ? "$GITHUB_API_URL " : ""
            throw ConfigurationError(
                file: path, key: "api_url", problem: "\(source)must not contain a user name or credentials (…@ before the host)",
                expected: "the URL alone; put the token in GITHUB_TOKEN or token_file")
        }
        guard let components = URLComponents(string: apiURL), ["http", "https"].contains(components.scheme ?? ""),
            components.host?.isEmpty == false
        else {
            throw ConfigurationError(
                file: path, key: "api_url", problem: "$GITHUB_API_URL '\(APIOrigin.displayable(apiURL))' is not an http(s) URL",
                expected: "an http(s) URL such as https://api.github.com")
        }
        // A test's clock file, when set, moves the App's clock with github-sim's.
        let appClock = try TestClock.configured(in: EnvironmentVariables(environment))
        let credentials = try configuration.resolveCredentials(
            environment: environment, warn: { logger.warning("\($0)") }, now: appClock?.now ?? Date.init)
        var clientConfiguration = GitHubClient.Configuration(apiURL: apiURL, token: credentials.token, app: credentials.app)
        // The client stops before a request that would dip into the reserve (or
        // hit an exhausted limit); the service then pauses everything until the reset.
        clientConfiguration.waitForRateLimit = false
        clientConfiguration.rateLimitReserve = configuration.rateLimitReserve
        if let timeout = configuration.requestTimeout { clientConfiguration.stallTimeout = timeout }
        // A longer pause (a large retry-after) is thrown back to the scheduler, which pauses every repository.
        clientConfiguration.retry.maximumInlineWait = .seconds(60)
        let client = try GitHubClient(configuration: clientConfiguration, logger: logger)
        // The service's store is the one its configuration names: a $COMMITS_DB
        // left in the environment (meant for commitsctl) must not move it.
        var storeEnvironment = environment
        if let store = configuration.store, let fromEnvironment = environment["COMMITS_DB"], !fromEnvironment.isEmpty {
            if fromEnvironment != store {
                logger.warning(
                    "ignoring $COMMITS_DB: the configuration names the store",
                    metadata: [
                        "store": "\(store)", "store.ignored": "\(fromEnvironment)", "config.file": "\(path)",
                    ])
            }
            storeEnvironment["COMMITS_DB"] = nil
        }
        let store = try configuration.resolvedStore(environment: EnvironmentVariables(storeEnvironment))
        return DaemonSettings(
            configuration: configuration, store: store,
            apiURL: apiURL, tokenSource: clientConfiguration.credentialSource, client: client,
            name: DaemonName.resolve(configured: configuration.name, environment: environment),
            webhookSecret: try webhookSecret(of: configuration, path: path, environment: environment, logger: logger))
    }

    /// `webhook_listen` needs a secret: GitHub signs with it, and an unsigned
    /// delivery is never acted on.
    private static func webhookSecret(
        of configuration: MirrorConfiguration, path: String, environment: [String: String], logger: Logger
    ) throws -> WebhookSecret? {
        guard configuration.webhookListen != nil else { return nil }
        let secret: WebhookSecret?
        do {
            secret = try WebhookSecret.resolve(configuredFile: configuration.webhookSecretFile, environment: environment) {
                logger.warning("\($0)")
            }
        } catch {
            throw ConfigurationError(file: path, key: "webhook_secret_file", problem: "\(error)")
        }
        guard let secret else {
            throw ConfigurationError(
                file: path, line: configuration.webhookListenLine, key: "webhook_listen",
                problem: "is set, but no webhook secret is",
                expected:
                    "webhook_secret_file naming a file that holds the secret set on GitHub's webhook page, or the systemd credential \(WebhookSecret.credentialName)"
            )
        }
        return secret
    }

    /// Lines describing what a reload changes (configuration keys, and where the token comes from).
    func changes(to new: DaemonSettings) -> [String] {
        var changes = configuration.changes(to: new.configuration)
        if apiURL != new.apiURL && configuration.apiURL == new.configuration.apiURL {
            changes.append("api_url (from the environment): \(apiURL) -> \(new.apiURL)")
        }
        if tokenSource != new.tokenSource {
            changes.append("token: \(tokenSource ?? "none") -> \(new.tokenSource ?? "none")")
        }
        return changes
    }

    /// The same settings, on another store (a changed `store` only takes effect on restart).
    func keepingStore(_ store: StoreLocation) -> DaemonSettings {
        DaemonSettings(
            configuration: configuration, store: store, apiURL: apiURL,
            tokenSource: tokenSource, client: client, name: name, webhookSecret: webhookSecret)
    }
}
