import Foundation
import Logging

/// What the service and the one-shot sync read from the configuration
/// file (`config/commits-mirror.example.yaml` documents every key).
///
/// Values are as written in the file, with relative paths made absolute
/// against the file's directory. The environment is applied on top by the
/// `resolved…` accessors: `$COMMITS_DB` overrides `store`, `$GITHUB_API_URL`
/// overrides `api_url`, and `$GITHUB_TOKEN`, `$GH_TOKEN` and the systemd
/// credential `github-token` take precedence over `token_file`.
public struct MirrorConfiguration: Sendable, Equatable {
    /// One entry of `repositories`.
    public struct Repository: Sendable, Hashable, CustomStringConvertible {
        public var name: RepositoryName
        /// `nil`: the repository's default branch.
        public var branch: String?
        /// `nil`: `default_interval`.
        public var interval: Duration?
        /// Where the entry is in the file, for messages (not part of equality).
        public var line: Int?

        public init(name: RepositoryName, branch: String? = nil, interval: Duration? = nil, line: Int? = nil) {
            self.name = name
            self.branch = branch
            self.interval = interval
            self.line = line
        }

        /// Repositories are named case-insensitively, as GitHub does.
        public var key: String { "\(name.description.lowercased())@\(branch ?? "")" }

        /// `acme/widgets` or `acme/widgets@release`.
        public var description: String { branch.map { "\(name)@\($0)" } ?? name.description }

        public static func == (lhs: Self, rhs: Self) -> Bool {
            lhs.key == rhs.key && lhs.branch == rhs.branch && lhs.interval == rhs.interval
                && lhs.name.description == rhs.name.description
        }

        public func hash(into hasher: inout Hasher) { hasher.combine(key) }
    }

    /// One pattern entry of `repositories` (`OWNER/*`, `OWNER/swift-*`): every
    /// repository of the owner whose name matches, listed through the API.
    public struct Pattern: Sendable, Hashable, CustomStringConvertible {
        public var pattern: RepositoryPattern
        /// `nil`: `default_interval`.
        public var interval: Duration?
        /// `nil`: the file's `include_forks`.
        public var includeForks: Bool?
        /// `nil`: the file's `include_archived`.
        public var includeArchived: Bool?
        /// The branches of each repository it selects (`branches:`, names and globs
        /// alike, each matched against that repository's listing); `nil`: its default branch.
        public var branches: BranchSelection?
        /// `tags:`: which tags of the repositories it selects are recorded; `nil`: the file's `tags`.
        public var tags: TagSelection?
        /// `paths:`: whether the repositories it selects are read with their trees; `nil`: the file's `paths`.
        public var paths: Bool?
        /// `pull_requests:`: whether the pull requests of the repositories it selects are recorded; `nil`: the file's.
        public var pullRequests: Bool?
        /// Where the entry is in the file, for messages (not part of equality).
        public var line: Int?

        /// The branch globs of a repository it selected, polled on its interval.
        public func branchGlobs(of repository: RepositoryName) -> BranchGlobs? {
            branches.map { BranchGlobs(name: repository, selection: $0, interval: interval, line: line) }
        }

        /// Patterns are compared case-insensitively, as GitHub's names are.
        public var key: String { pattern.description.lowercased() }
        public var description: String { pattern.description }

        public static func == (lhs: Self, rhs: Self) -> Bool {
            lhs.key == rhs.key && lhs.interval == rhs.interval && lhs.includeForks == rhs.includeForks
                && lhs.includeArchived == rhs.includeArchived && lhs.branches == rhs.branches && lhs.tags == rhs.tags
                && lhs.paths == rhs.paths && lhs.pullRequests == rhs.pullRequests
        }

        public func hash(into hasher: inout Hasher) { hasher.combine(key) }
    }

    /// The file this came from (for messages).
    public var source: String
    /// `store`: the SQLite file.
    public var store: String?
    /// `api_url`.
    public var apiURL: String?
    /// `token_file`.
    public var tokenFile: String?
    /// The line of `token_file`, for messages about it.
    public var tokenFileLine: Int?
    /// `github_app`: authenticate as a GitHub App installation (exclusive with a token).
    public var githubApp: GitHubAppSettings?
    public var repositories: [Repository] = []
    /// The pattern entries of `repositories`, expanded by listing each owner's repositories.
    public var patterns: [Pattern] = []
    /// The branch globs of repository entries, expanded by listing each repository's branches.
    public var branchGlobs: [BranchGlobs] = []
    /// `include_forks`: whether patterns select forks (default: no).
    public var includeForks = false
    /// `include_archived`: whether patterns select archived repositories (default: no).
    public var includeArchived = false
    /// `mailmap`: the git .mailmap file `query`, `authors` and `show` merge
    /// identities with when the user names no other (relative to the file's directory).
    public var mailmap: String?
    /// The line of `mailmap`, for messages about it.
    public var mailmapLine: Int?
    /// `git_bootstrap`: whether a long first sync reads the history over git (default: yes).
    public var gitBootstrap = true
    /// `paths`: whether a history read over git is read with its trees, and
    /// stored with the paths each commit changed (default: yes).
    public var paths = true
    /// `tags`: which of a repository's tags each sync of its default branch records (default: every one).
    public var tags = TagSelection.all
    /// The `tags:` of repository entries, by the repository's name in lower case
    /// (the entries of one repository agree: the loader refuses them otherwise).
    public var repositoryTags: [String: TagSelection] = [:]
    /// The `paths:` of repository entries, by the repository's name in lower case (agreeing, as `repositoryTags`).
    public var repositoryPaths: [String: Bool] = [:]
    /// `pull_requests`: whether each sync of a repository's default branch records its pull requests
    /// (default: no).
    public var pullRequests = false
    /// The `pull_requests:` of repository entries, by the repository's name in lower case (agreeing, as `repositoryTags`).
    public var repositoryPullRequests: [String: Bool] = [:]
    /// `default_interval`: how often a repository is polled unless it says
    /// otherwise, and the default of both `min_interval` and `max_interval`.
    public var defaultInterval: Duration = MirrorConfiguration.defaultInterval
    /// `min_interval`: the shortest interval adaptive polling chooses (`nil`: `default_interval`).
    public var minimumInterval: Duration?
    /// `max_interval`: the longest interval adaptive polling chooses (`nil`: `default_interval`).
    public var maximumInterval: Duration?
    /// `rate_limit_reserve`: requests left unused for other clients of the same token.
    public var rateLimitReserve: Int = MirrorConfiguration.defaultRateLimitReserve
    /// `log_level`: the service's log level.
    public var logLevel: Logger.Level = MirrorConfiguration.defaultLogLevel
    /// `metrics_listen`: where the service serves /metrics, /healthz and /readyz (off when `nil`).
    public var metricsListen: ListenAddress?
    /// `webhook_listen`: where the service receives GitHub webhooks at `POST /webhook` (off when `nil`).
    public var webhookListen: ListenAddress?
    /// The line of `webhook_listen`, for messages about it.
    public var webhookListenLine: Int?
    /// `webhook_secret_file`: the webhook's secret (the systemd credential
    /// `github-webhook-secret` takes precedence).
    public var webhookSecretFile: String?
    /// `name`: this daemon's name in the claims it holds (`nil`: the host name, `DaemonName`).
    public var name: String?
    /// `lease_duration`: how long a claim on a repository lasts unless renewed (docs/SCALING.md).
    public var leaseDuration: Duration = MirrorConfiguration.defaultLeaseDuration
    /// `request_timeout`: how long a GitHub request may receive nothing before it fails
    /// (`nil`: the HTTP client's default, `HTTPClient.Configuration.stallTimeout`).
    public var requestTimeout: Duration?

    public static let defaultLeaseDuration: Duration = .seconds(60)
    public static let minimumLeaseDuration: Duration = .seconds(5)
    public static let defaultInterval: Duration = .seconds(15 * 60)
    public static let defaultRateLimitReserve = 0
    public static let defaultLogLevel: Logger.Level = .info

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.store == rhs.store && lhs.apiURL == rhs.apiURL && lhs.tokenFile == rhs.tokenFile && lhs.githubApp == rhs.githubApp
            && lhs.repositories == rhs.repositories && lhs.patterns == rhs.patterns && lhs.branchGlobs == rhs.branchGlobs
            && lhs.includeForks == rhs.includeForks && lhs.includeArchived == rhs.includeArchived
            && lhs.defaultInterval == rhs.defaultInterval && lhs.minimumInterval == rhs.minimumInterval
            && lhs.maximumInterval == rhs.maximumInterval
            && lhs.rateLimitReserve == rhs.rateLimitReserve && lhs.logLevel == rhs.logLevel
            && lhs.metricsListen == rhs.metricsListen && lhs.gitBootstrap == rhs.gitBootstrap && lhs.paths == rhs.paths
            && lhs.tags == rhs.tags && lhs.repositoryTags == rhs.repositoryTags && lhs.repositoryPaths == rhs.repositoryPaths
            && lhs.pullRequests == rhs.pullRequests && lhs.repositoryPullRequests == rhs.repositoryPullRequests
            && lhs.webhookListen == rhs.webhookListen && lhs.webhookSecretFile == rhs.webhookSecretFile
            && lhs.name == rhs.name && lhs.leaseDuration == rhs.leaseDuration && lhs.requestTimeout == rhs.requestTimeout
    }

    /// Whether `pattern` selects forks and archived repositories.
    public func includes(for pattern: Pattern) -> (forks: Bool, archived: Bool) {
        (pattern.includeForks ?? includeForks, pattern.includeArchived ?? includeArchived)
    }

    /// How often `repository` is polled at most (its policy's shortest interval).
    public func interval(for repository: Repository) -> Duration {
        pollingPolicy(for: repository).minimum
    }

    /// An entry's own `interval` stays fixed; the others adapt to their activity
    /// between `min_interval` and `max_interval` (fixed when the two are equal).
    public func pollingPolicy(for repository: Repository) -> PollingPolicy {
        if let interval = repository.interval { return .fixed(interval) }
        let range = adaptiveRange
        return range.minimum == range.maximum ? .fixed(range.minimum) : .adaptive(minimum: range.minimum, maximum: range.maximum)
    }

    /// `min_interval` and `max_interval` with their defaults applied.
    public var adaptiveRange: (minimum: Duration, maximum: Duration) {
        (minimumInterval ?? defaultInterval, maximumInterval ?? defaultInterval)
    }

    /// The longest `max_interval` accepted: a dormant repository is still polled daily.
    public static let longestMaximumInterval: Duration = .seconds(24 * 3600)

    // MARK: - Where the file is

    /// The packaged location, used when nothing else names a file.
    public static let systemPath = "/etc/commits-mirror/config.yaml"
    /// The store of the packaged service (`StateDirectory=commits-mirror`).
    public static let systemStorePath = "/var/lib/commits-mirror/commits.sqlite"

    /// The configuration file to read: `explicit` (given by the user), else
    /// `$COMMITS_MIRROR_CONFIG`, else `$CONFIGURATION_DIRECTORY/config.yaml`
    /// (systemd's `ConfigurationDirectory=`), else `/etc/commits-mirror/config.yaml`
    /// when it exists. `nil` when none applies.
    public static func locate(
        explicit: String?,
        environment: EnvironmentVariables = .process
    ) -> String? {
        if let explicit, !explicit.isEmpty { return explicit }
        if let path = environment.nonEmpty("COMMITS_MIRROR_CONFIG") { return path }
        if let directory = environment.nonEmpty("CONFIGURATION_DIRECTORY") {
            // systemd may list several directories separated by ':'; ours is the first.
            let first = directory.split(separator: ":").first.map(String.init) ?? directory
            return first + "/config.yaml"
        }
        return FileManager.default.fileExists(atPath: systemPath) ? systemPath : nil
    }

    // MARK: - Settings with the environment applied

    /// `$COMMITS_DB`, else `store`, else `$STATE_DIRECTORY/commits.sqlite`
    /// (systemd's `StateDirectory=`), else for /etc/commits-mirror/config.yaml
    /// /var/lib/commits-mirror/commits.sqlite, else the per-user default.
    public func resolvedStore(environment: EnvironmentVariables = .process) throws -> StoreLocation {
        try StoreLocation(resolvedStoreText(environment: environment))
    }

    private func resolvedStoreText(environment: EnvironmentVariables) -> String {
        if let fromEnvironment = environment.nonEmpty("COMMITS_DB") { return fromEnvironment }
        if let store { return store }
        if let directory = environment.nonEmpty("STATE_DIRECTORY") {
            let first = directory.split(separator: ":").first.map(String.init) ?? directory
            return first + "/commits.sqlite"
        }
        // The packaged configuration without `store`: where its service keeps it
        // (StateDirectory=commits-mirror), so a reader pointed at this configuration finds it too.
        if source == Self.systemPath { return Self.systemStorePath }
        return StorePath.resolve(explicit: nil, environment: environment)
    }

    /// `$GITHUB_API_URL`, else `api_url`, else `https://api.github.com`.
    public func resolvedAPIURL(environment: EnvironmentVariables = .process) -> String {
        if let fromEnvironment = environment.nonEmpty("GITHUB_API_URL") { return fromEnvironment }
        return apiURL ?? GitHubClient.defaultAPIURL
    }

    /// The token: `$GITHUB_TOKEN`, `$GH_TOKEN`, the systemd credential, then
    /// `token_file` (see `GitHubToken.resolve`). A `token_file` that is used
    /// and cannot be read is a configuration error naming the key and its line.
    public func resolveToken(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        warn: (String) -> Void = { _ in }
    ) throws -> GitHubToken? {
        do {
            return try GitHubToken.resolve(configuredFile: tokenFile, environment: environment, warn: warn)
        } catch let error as GitHubToken.TokenError {
            // Only `token_file` can fail here unless the credential file vanished under us.
            if case .unreadable(let path, let reason) = error, path == tokenFile {
                throw ConfigurationError(
                    file: source, line: tokenFileLine, key: "token_file",
                    problem: "cannot read \(path): \(reason)",
                    expected: "a file this user can read holding the token on its first line")
            }
            if case .empty(let path) = error, path == tokenFile {
                throw ConfigurationError(
                    file: source, line: tokenFileLine, key: "token_file", problem: "\(path) is empty",
                    expected: "a file this user can read holding the token on its first line")
            }
            throw error
        } catch let error as SecretFile.Refused where error.path == tokenFile {
            throw ConfigurationError(file: source, line: tokenFileLine, key: "token_file", problem: "\(error)")
        }
    }

    // MARK: - Reload

    /// What changed from `self` to `new`, one human-readable line each (no
    /// secrets: the token itself is never part of the configuration).
    public func changes(to new: MirrorConfiguration) -> [String] {
        var changes: [String] = []
        func compare<T: Equatable>(_ key: String, _ old: T, _ new: T, _ show: (T) -> String) {
            if old != new { changes.append("\(key): \(show(old)) -> \(show(new))") }
        }
        let orNone = { (value: String?) in value ?? "(not set)" }
        compare("store", store, new.store, orNone)
        compare("api_url", apiURL, new.apiURL, orNone)
        compare("token_file", tokenFile, new.tokenFile, orNone)
        compare("github_app", githubApp, new.githubApp, { $0?.summary ?? "(not set)" })
        compare("default_interval", defaultInterval, new.defaultInterval, DurationText.format)
        let orDefault = { (value: Duration?) in value.map(DurationText.format) ?? "(not set)" }
        compare("min_interval", minimumInterval, new.minimumInterval, orDefault)
        compare("max_interval", maximumInterval, new.maximumInterval, orDefault)
        compare("rate_limit_reserve", rateLimitReserve, new.rateLimitReserve, { "\($0)" })
        compare("log_level", logLevel, new.logLevel, { $0.rawValue })
        compare("metrics_listen", metricsListen, new.metricsListen, { $0?.description ?? "(not set)" })
        compare("webhook_listen", webhookListen, new.webhookListen, { $0?.description ?? "(not set)" })
        compare("webhook_secret_file", webhookSecretFile, new.webhookSecretFile, orNone)
        compare("name", name, new.name, orNone)
        compare("lease_duration", leaseDuration, new.leaseDuration, DurationText.format)
        compare("request_timeout", requestTimeout, new.requestTimeout, orDefault)

        let oldByKey = Dictionary(repositories.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        let newByKey = Dictionary(new.repositories.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        for repository in new.repositories {
            guard let old = oldByKey[repository.key] else {
                changes.append("repository added: \(repository)")
                continue
            }
            if old.interval != repository.interval {
                let show = { (value: Duration?) in value.map(DurationText.format) ?? "default" }
                changes.append("repository \(repository): interval \(show(old.interval)) -> \(show(repository.interval))")
            }
        }
        for repository in repositories where newByKey[repository.key] == nil {
            changes.append("repository removed: \(repository)")
        }
        let oldGlobs = Dictionary(branchGlobs.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        let newGlobs = Set(new.branchGlobs.map(\.key))
        for globs in new.branchGlobs where oldGlobs[globs.key] != globs {
            changes.append(
                oldGlobs[globs.key].map { "branches of \($0.name) changed: \($0.selection) -> \(globs.selection)" }
                    ?? "branches added: \(globs)")
        }
        for globs in branchGlobs where !newGlobs.contains(globs.key) { changes.append("branches removed: \(globs)") }
        compare("git_bootstrap", gitBootstrap, new.gitBootstrap, { "\($0)" })
        compare("paths", paths, new.paths, { "\($0)" })
        compare("pull_requests", pullRequests, new.pullRequests, { "\($0)" })
        compare("tags", tags, new.tags, { "\($0)" })
        changes += Self.changes("tags", repositoryTags, new.repositoryTags)
        changes += Self.changes("paths", repositoryPaths, new.repositoryPaths)
        changes += Self.changes("pull_requests", repositoryPullRequests, new.repositoryPullRequests)
        compare("include_forks", includeForks, new.includeForks, { "\($0)" })
        compare("include_archived", includeArchived, new.includeArchived, { "\($0)" })
        let oldPatterns = Dictionary(patterns.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        let newPatterns = Set(new.patterns.map(\.key))
        for pattern in new.patterns {
            if let old = oldPatterns[pattern.key] {
                if old != pattern { changes.append("pattern \(pattern) changed") }
            } else {
                changes.append("pattern added: \(pattern)")
            }
        }
        for pattern in patterns where !newPatterns.contains(pattern.key) {
            changes.append("pattern removed: \(pattern)")
        }
        return changes
    }
}

extension MirrorConfiguration {
    /// The `mailmap` file, read and parsed; a file that cannot be read is a
    /// configuration error naming the key and its line.
    public func loadMailmap() throws -> Mailmap? {
        guard let mailmap else { return nil }
        do {
            return try Mailmap(contentsOfFile: mailmap)
        } catch let error as Mailmap.FileError {
            throw ConfigurationError(
                file: source, line: mailmapLine, key: "mailmap", problem: "\(mailmap) \(error.problem)",
                expected: "the path of a git .mailmap file (gitmailmap(5))")
        }
    }

    /// The repositories whose own `key:` setting differs between two files, one line each.
    private static func changes<Value: Equatable & CustomStringConvertible>(
        _ key: String, _ old: [String: Value], _ new: [String: Value]
    ) -> [String] {
        let show = { (value: Value?) in value.map(\.description) ?? "default" }
        return Set(old.keys).union(new.keys).sorted().filter { old[$0] != new[$0] }.map {
            "repository \($0): \(key) \(show(old[$0])) -> \(show(new[$0]))"
        }
    }
}
