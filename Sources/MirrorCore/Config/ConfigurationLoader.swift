import Foundation
import Logging
import Yams

extension MirrorConfiguration {
    /// Reads and validates a configuration file. Every problem is a
    /// `ConfigurationError` whose one-line description names the file, the line,
    /// the key and the expected form.
    public static func load(contentsOf path: String) throws -> MirrorConfiguration {
        let readable = "a readable YAML file like config/commits-mirror.example.yaml"
        guard !path.isEmpty else {
            throw ConfigurationError(file: path, problem: "the configuration path is empty", expected: readable)
        }
        let text: String
        switch SmallTextFile.contents(of: path, limit: maximumSize) {
        case .success(let read):
            text = read
        case .failure(.notAFile(let kind)):
            throw ConfigurationError(file: path, problem: "is \(kind), not a configuration file", expected: readable)
        case .failure(.tooLarge):
            throw tooLarge(path)
        case .failure(.notUTF8):
            throw ConfigurationError(
                file: path, problem: "the file is not UTF-8 text", expected: "a YAML file like config/commits-mirror.example.yaml")
        case .failure(.missing):
            throw ConfigurationError(
                file: path, problem: "cannot read the configuration file: \(String(cString: strerror(ENOENT)))", expected: readable)
        case .failure(.unreadable(let reason)):
            throw ConfigurationError(file: path, problem: "cannot read the configuration file: \(reason)", expected: readable)
        }
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        return try parse(yaml: text, source: path, relativeTo: directory)
    }

    /// Far above any real configuration (a few hundred bytes per repository),
    /// far below what could hurt the parser.
    public static let maximumSize = 1 << 20

    private static func tooLarge(_ path: String) -> ConfigurationError {
        ConfigurationError(
            file: path, problem: "the file is larger than \(maximumSize / (1 << 20)) MiB",
            expected: "a configuration file like config/commits-mirror.example.yaml")
    }

    /// Parses configuration text. Relative paths are resolved against
    /// `relativeTo` (the file's directory).
    public static func parse(yaml text: String, source: String, relativeTo directory: String? = nil) throws -> MirrorConfiguration {
        let root: Node?
        do {
            // Before composing: Yams expands aliases while it builds the tree, so a
            // few hundred bytes of nested aliases cost minutes and gigabytes.
            if let alias = YAMLAliasScan.firstAlias(in: text) {
                throw ConfigurationError(
                    file: source, line: alias.line, column: alias.column,
                    problem:
                        "uses the alias *\(ConfigurationLoader.excerpt(alias.anchor, limit: 40)); aliases (*name) are not allowed in configuration files",
                    expected: "every value written out in full")
            }
            root = try Yams.compose(yaml: text)
        } catch let error as YamlError {
            throw ConfigurationLoader.describe(error, file: source)
        }
        guard let root else {
            throw ConfigurationError(
                file: source, problem: "the file is empty",
                expected: "settings as in config/commits-mirror.example.yaml (at least `repositories:`)")
        }
        return try ConfigurationLoader(file: source, directory: directory).configuration(from: root)
    }
}

/// Walks the YAML node tree Yams composed (with line marks) and checks every
/// key and value against the schema. Yams does the parsing; this only validates.
struct ConfigurationLoader {
    let file: String
    let directory: String?

    enum TopKey: String, CaseIterable {
        case store, api_url, token_file, github_app, repositories, default_interval, min_interval, max_interval, rate_limit_reserve,
            log_level
        case mailmap, metrics_listen, webhook_listen, webhook_secret_file
        case include_forks, include_archived, git_bootstrap, paths, tags, pull_requests
        case name, lease_duration
        case request_timeout
    }

    enum RepositoryKey: String, CaseIterable {
        case name, branch, branches, interval, include_forks, include_archived, tags, paths, pull_requests
    }

    static let levels = Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")

    func configuration(from root: Node) throws -> MirrorConfiguration {
        guard case .mapping(let mapping) = root else {
            throw error(
                at: root, key: nil, problem: "the top level is \(kind(of: root))",
                expected: "`key: value` settings as in config/commits-mirror.example.yaml")
        }
        var configuration = MirrorConfiguration(source: file)
        var sawRepositories = false
        var rangeLines: (minimum: Int?, maximum: Int?) = (nil, nil)
        try forEachSetting(of: mapping, path: "", keys: TopKey.self) { key, keyNode, value in
            let keyText = key.rawValue
            switch key {
            case .store:
                configuration.store = try store(value, key: keyText)
            case .api_url:
                configuration.apiURL = try apiURL(value, key: keyText)
            case .token_file:
                configuration.tokenFile = try path(value, key: keyText, expected: "the path of a file holding the token")
                configuration.tokenFileLine = value.mark?.line
            case .github_app:
                configuration.githubApp = try githubApp(value, line: keyNode.mark?.line)
            case .mailmap:
                // Read when a query command uses it: the daemon never needs the file.
                configuration.mailmap = try path(value, key: keyText, expected: "the path of a git .mailmap file")
                configuration.mailmapLine = value.mark?.line
            case .repositories:
                try readRepositories(value, into: &configuration)
                sawRepositories = true
            case .include_forks:
                configuration.includeForks = try bool(value, key: keyText)
            case .include_archived:
                configuration.includeArchived = try bool(value, key: keyText)
            case .git_bootstrap:
                configuration.gitBootstrap = try bool(value, key: keyText)
            case .paths:
                configuration.paths = try bool(value, key: keyText)
            case .tags:
                configuration.tags = try tagSelection(value, key: keyText)
            case .pull_requests:
                configuration.pullRequests = try bool(value, key: keyText)
            case .default_interval:
                configuration.defaultInterval = try duration(value, key: keyText)
            case .min_interval:
                configuration.minimumInterval = try duration(value, key: keyText)
                rangeLines.minimum = value.mark?.line
            case .max_interval:
                configuration.maximumInterval = try duration(value, key: keyText)
                rangeLines.maximum = value.mark?.line
            case .rate_limit_reserve:
                configuration.rateLimitReserve = try rateLimitReserve(value, key: keyText)
            case .metrics_listen:
                configuration.metricsListen = try listenAddress(
                    value, key: keyText, expected: "HOST:PORT to serve /metrics, /healthz and /readyz on, e.g. 127.0.0.1:9464")
            case .webhook_listen:
                configuration.webhookListen = try listenAddress(
                    value, key: keyText, expected: "HOST:PORT to receive GitHub webhooks on (POST /webhook), e.g. 0.0.0.0:9465")
                configuration.webhookListenLine = keyNode.mark?.line
            case .webhook_secret_file:
                configuration.webhookSecretFile = try path(
                    value, key: keyText, expected: "the path of a file holding the webhook's secret")
            case .name:
                configuration.name = try daemonName(value, key: keyText)
            case .lease_duration:
                configuration.leaseDuration = try leaseDuration(value, key: keyText)
            case .request_timeout:
                configuration.requestTimeout = try requestTimeout(value, key: keyText)
            case .log_level:
                configuration.logLevel = try logLevel(value, key: keyText)
            }
        }
        guard sawRepositories else {
            throw ConfigurationError(
                file: file, key: "repositories", problem: "missing",
                expected: "a list of repositories to mirror, e.g. `repositories: [swiftlang/swift-evolution]`")
        }
        try checkAdaptiveRange(of: configuration, lines: rangeLines)
        try checkExclusiveSettings(of: configuration)
        return configuration
    }

    /// `min_interval` ≤ `max_interval` (each defaulting to `default_interval`); each is at most a day (`duration`).
    private func checkAdaptiveRange(of configuration: MirrorConfiguration, lines: (minimum: Int?, maximum: Int?)) throws {
        let range = configuration.adaptiveRange
        let format = DurationText.format
        guard range.minimum <= range.maximum else {
            let blamesMinimum = configuration.minimumInterval != nil
            let maximumText =
                configuration.maximumInterval == nil
                ? "\(format(range.maximum)) (max_interval, which defaults to default_interval)"
                : "\(format(range.maximum)) (max_interval)"
            let minimumText =
                configuration.minimumInterval == nil
                ? "\(format(range.minimum)) (min_interval, which defaults to default_interval)"
                : "\(format(range.minimum)) (min_interval)"
            throw ConfigurationError(
                file: file, line: blamesMinimum ? lines.minimum : lines.maximum,
                key: blamesMinimum ? "min_interval" : "max_interval",
                problem: "the shortest interval \(minimumText) is longer than the longest, \(maximumText)",
                expected: "min_interval no longer than max_interval")
        }
    }
}
