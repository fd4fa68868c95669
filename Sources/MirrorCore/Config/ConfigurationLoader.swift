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
        case include_forks, include_archived, git_bootstrap
        case name, lease_duration
        case request_timeout
    }

    enum RepositoryKey: String, CaseIterable {
        case name, branch, branches, interval, include_forks, include_archived
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
        for (keyNode, value) in mapping {
            let keyText = Self.excerpt(keyNode.scalar?.string ?? kind(of: keyNode))
            guard let key = TopKey(rawValue: keyText) else {
                throw error(
                    at: keyNode, key: keyText, problem: "unknown key",
                    expected: "one of \(TopKey.allCases.map(\.rawValue).joined(separator: ", "))")
            }
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
                (configuration.repositories, configuration.patterns, configuration.branchGlobs) = try repositories(value)
                sawRepositories = true
            case .include_forks:
                configuration.includeForks = try bool(value, key: keyText)
            case .include_archived:
                configuration.includeArchived = try bool(value, key: keyText)
            case .git_bootstrap:
                configuration.gitBootstrap = try bool(value, key: keyText)
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

    private func repositories(
        _ node: Node
    ) throws -> ([MirrorConfiguration.Repository], [MirrorConfiguration.Pattern], [MirrorConfiguration.BranchGlobs]) {
        let expected = "a list of OWNER/NAME or OWNER/* entries (or `name:`, `branch:`, `branches:`, `interval:` mappings)"
        guard case .sequence(let sequence) = node, !sequence.isEmpty else {
            let problem = node.sequence?.isEmpty == true ? "is an empty list" : "is \(kind(of: node))"
            throw error(at: node, key: "repositories", problem: problem, expected: expected)
        }
        var result: [MirrorConfiguration.Repository] = []
        var patterns: [MirrorConfiguration.Pattern] = []
        var branchGlobs: [MirrorConfiguration.BranchGlobs] = []
        var seen: [String: Int] = [:]
        for (index, entry) in sequence.enumerated() {
            let path = "repositories[\(index)]"
            let line = entry.mark?.line
            var selector: RepositorySelector
            var branch: String?
            var branches: (selection: BranchSelection, node: Node)?
            var interval: Duration?
            var includeForks: Bool?
            var includeArchived: Bool?
            var patternOnlyKey: (key: String, node: Node)?
            switch entry {
            case .scalar:
                selector = try repositorySelector(entry, key: path)
            case .mapping(let mapping):
                var name: RepositorySelector?
                for (keyNode, value) in mapping {
                    let keyText = Self.excerpt(keyNode.scalar?.string ?? kind(of: keyNode))
                    guard let key = RepositoryKey(rawValue: keyText) else {
                        throw error(
                            at: keyNode, key: "\(path).\(keyText)", problem: "unknown key",
                            expected: "one of \(RepositoryKey.allCases.map(\.rawValue).joined(separator: ", "))")
                    }
                    switch key {
                    case .name: name = try repositorySelector(value, key: "\(path).name")
                    case .branch:
                        let text = try string(value, key: "\(path).branch", expected: BranchName.expectedForm)
                        if let problem = BranchName.problem(with: text) {
                            throw error(
                                at: value, key: "\(path).branch",
                                problem: "\(BranchName.quoted(text)) is not a valid branch name: \(problem)",
                                expected: BranchName.expectedForm)
                        }
                        branch = text
                    case .branches: branches = (try branchSelection(value, key: "\(path).branches"), value)
                    case .interval: interval = try duration(value, key: "\(path).interval")
                    case .include_forks:
                        includeForks = try bool(value, key: "\(path).include_forks")
                        patternOnlyKey = patternOnlyKey ?? ("\(path).include_forks", keyNode)
                    case .include_archived:
                        includeArchived = try bool(value, key: "\(path).include_archived")
                        patternOnlyKey = patternOnlyKey ?? ("\(path).include_archived", keyNode)
                    }
                }
                guard let name else {
                    throw error(
                        at: entry, key: "\(path).name", problem: "missing",
                        expected: "`name: OWNER/NAME` or `name: OWNER/*`, e.g. `name: swiftlang/swift-evolution`")
                }
                selector = name
                if branch != nil, branches != nil {
                    throw error(
                        at: entry, key: "\(path).branch", problem: "is set, and so is branches; the two are exclusive",
                        expected: "either branch: (one branch) or branches: (a list): remove one of them")
                }
            default:
                throw error(at: entry, key: path, problem: "is \(kind(of: entry))", expected: expected)
            }
            var entries: [MirrorConfiguration.Repository] = []
            switch selector {
            case .repository(let name):
                if let patternOnlyKey {
                    throw error(
                        at: patternOnlyKey.node, key: patternOnlyKey.key, problem: "applies only to a pattern such as OWNER/*",
                        expected: "include_forks and include_archived on OWNER/* entries, or at the top level")
                }
                if let branches {
                    entries = branches.selection.names.map {
                        MirrorConfiguration.Repository(name: name, branch: $0, interval: interval, line: line)
                    }
                    let globs = branches.selection.patterns.filter(\.isGlob)
                    if !globs.isEmpty {
                        let globsEntry = MirrorConfiguration.BranchGlobs(
                            name: name, selection: BranchSelection(globs), interval: interval, line: line)
                        let key = "branch globs " + globsEntry.key
                        if let firstLine = seen[key] {
                            throw listedTwice(entry: entry, path: path, what: "branch globs of \(name)", firstLine: firstLine)
                        }
                        seen[key] = line ?? 0
                        branchGlobs.append(globsEntry)
                    }
                } else {
                    entries = [MirrorConfiguration.Repository(name: name, branch: branch, interval: interval, line: line)]
                }
            case .pattern(let pattern):
                if branch != nil {
                    throw error(
                        at: entry, key: "\(path).branch", problem: "a pattern mirrors each repository's default branch",
                        expected: "branches: [NAME] on an OWNER/* entry, or the repository on its own with branch:")
                }
                let patternEntry = MirrorConfiguration.Pattern(
                    pattern: pattern, interval: interval, includeForks: includeForks, includeArchived: includeArchived,
                    branches: branches?.selection, line: line)
                let key = "pattern " + patternEntry.key
                if let firstLine = seen[key] { throw listedTwice(entry: entry, path: path, what: "\(selector)", firstLine: firstLine) }
                seen[key] = line ?? 0
                patterns.append(patternEntry)
            }
            for repository in entries {
                if let firstLine = seen[repository.key] {
                    throw listedTwice(entry: entry, path: path, what: repository.description, firstLine: firstLine)
                }
                seen[repository.key] = line ?? 0
                result.append(repository)
            }
        }
        return (result, patterns, branchGlobs)
    }

    private func listedTwice(entry: Node, path: String, what: String, firstLine: Int) -> ConfigurationError {
        error(
            at: entry, key: path, problem: "\(what) is listed twice (first on line \(firstLine))",
            expected: "each repository and branch once")
    }

    private func repositorySelector(_ node: Node, key: String) throws -> RepositorySelector {
        let text = try string(node, key: key, expected: RepositoryName.expectedForm)
        if let selector = RepositorySelector(parsing: text) { return selector }
        if let problem = RepositoryPattern.problem(with: text), text.contains("*") {
            throw error(
                at: node, key: key, problem: "'\(Self.excerpt(text))' is not a repository pattern: \(problem)",
                expected: RepositorySelector.expectedForm)
        }
        throw error(
            at: node, key: key, problem: "'\(Self.excerpt(text))' is not a repository name", expected: RepositoryName.expectedForm)
    }
}
