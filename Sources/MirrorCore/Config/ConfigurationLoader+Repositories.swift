import Yams

/// `repositories:`: each entry read on its own (`EntryFields`), then checked
/// against the entries before it (`RepositoryEntries`).
extension ConfigurationLoader {
    /// What one entry of `repositories:` says, its keys checked one by one.
    private struct EntryFields {
        var selector: RepositorySelector
        var options = EntryOptions()
    }

    /// The keys of a mapping entry besides its `name:`.
    private struct EntryOptions {
        var branch: String?
        var branches: (selection: BranchSelection, node: Node)?
        var interval: Duration?
        var includeForks: Bool?
        var includeArchived: Bool?
        var tags: (value: TagSelection, node: Node)?
        var paths: (value: Bool, node: Node)?
        var pullRequests: (value: Bool, node: Node)?
        /// The first key that only a pattern may carry, for the error if the entry names one repository.
        var patternOnlyKey: (key: String, node: Node)?
    }

    /// The entries read so far, and the line each key was first listed on.
    private struct RepositoryEntries {
        var repositories: [MirrorConfiguration.Repository] = []
        var patterns: [MirrorConfiguration.Pattern] = []
        var branchGlobs: [MirrorConfiguration.BranchGlobs] = []
        /// `tags:` by repository (in lower case), with the line that set it.
        var repositoryTags: [String: (value: TagSelection, line: Int)] = [:]
        var repositoryPaths: [String: (value: Bool, line: Int)] = [:]
        var repositoryPullRequests: [String: (value: Bool, line: Int)] = [:]
        var seen: [String: Int] = [:]
    }

    func readRepositories(_ node: Node, into configuration: inout MirrorConfiguration) throws {
        let expected = "a list of OWNER/NAME or OWNER/* entries (or `name:`, `branch:`, `branches:`, `interval:` mappings)"
        guard case .sequence(let sequence) = node, !sequence.isEmpty else {
            let problem = node.sequence?.isEmpty == true ? "is an empty list" : "is \(kind(of: node))"
            throw error(at: node, key: "repositories", problem: problem, expected: expected)
        }
        var entries = RepositoryEntries()
        for (index, entry) in sequence.enumerated() {
            let path = "repositories[\(index)]"
            let fields: EntryFields
            switch entry {
            case .scalar: fields = EntryFields(selector: try repositorySelector(entry, key: path))
            case .mapping(let mapping): fields = try entryFields(mapping, of: entry, path: path)
            default: throw error(at: entry, key: path, problem: "is \(kind(of: entry))", expected: expected)
            }
            try add(fields, of: entry, path: path, to: &entries)
        }
        (configuration.repositories, configuration.patterns, configuration.branchGlobs) =
            (entries.repositories, entries.patterns, entries.branchGlobs)
        configuration.repositoryTags = entries.repositoryTags.mapValues(\.value)
        configuration.repositoryPaths = entries.repositoryPaths.mapValues(\.value)
        configuration.repositoryPullRequests = entries.repositoryPullRequests.mapValues(\.value)
    }

    private func entryFields(_ mapping: Node.Mapping, of entry: Node, path: String) throws -> EntryFields {
        var name: RepositorySelector?
        var options = EntryOptions()
        try forEachSetting(of: mapping, path: "\(path).", keys: RepositoryKey.self) { key, keyNode, value in
            switch key {
            case .name: name = try repositorySelector(value, key: "\(path).name")
            case .branch: options.branch = try branchName(value, key: "\(path).branch")
            case .branches: options.branches = (try branchSelection(value, key: "\(path).branches"), value)
            case .interval: options.interval = try duration(value, key: "\(path).interval")
            case .include_forks:
                options.includeForks = try bool(value, key: "\(path).include_forks")
                options.patternOnlyKey = options.patternOnlyKey ?? ("\(path).include_forks", keyNode)
            case .tags: options.tags = (try tagSelection(value, key: "\(path).tags"), keyNode)
            case .paths: options.paths = (try bool(value, key: "\(path).paths"), keyNode)
            case .pull_requests: options.pullRequests = (try bool(value, key: "\(path).pull_requests"), keyNode)
            case .include_archived:
                options.includeArchived = try bool(value, key: "\(path).include_archived")
                options.patternOnlyKey = options.patternOnlyKey ?? ("\(path).include_archived", keyNode)
            }
        }
        guard let name else {
            throw error(
                at: entry, key: "\(path).name", problem: "missing",
                expected: "`name: OWNER/NAME` or `name: OWNER/*`, e.g. `name: swiftlang/swift-evolution`")
        }
        if options.branch != nil, options.branches != nil {
            throw error(
                at: entry, key: "\(path).branch", problem: "is set, and so is branches; the two are exclusive",
                expected: "either branch: (one branch) or branches: (a list): remove one of them")
        }
        return EntryFields(selector: name, options: options)
    }

    private func branchName(_ value: Node, key: String) throws -> String {
        let text = try string(value, key: key, expected: BranchName.expectedForm)
        if let problem = BranchName.problem(with: text) {
            throw error(
                at: value, key: key, problem: "\(BranchName.quoted(text)) is not a valid branch name: \(problem)",
                expected: BranchName.expectedForm)
        }
        return text
    }

    private func add(_ fields: EntryFields, of entry: Node, path: String, to entries: inout RepositoryEntries) throws {
        let line = entry.mark?.line
        let options = fields.options
        switch fields.selector {
        case .repository(let name):
            if let patternOnlyKey = options.patternOnlyKey {
                throw error(
                    at: patternOnlyKey.node, key: patternOnlyKey.key, problem: "applies only to a pattern such as OWNER/*",
                    expected: "include_forks and include_archived on OWNER/* entries, or at the top level")
            }
            if let tags = options.tags {
                try note("tags", tags, of: name, path: path, in: &entries.repositoryTags)
            }
            if let paths = options.paths {
                try note("paths", paths, of: name, path: path, in: &entries.repositoryPaths)
            }
            if let pullRequests = options.pullRequests {
                try note("pull_requests", pullRequests, of: name, path: path, in: &entries.repositoryPullRequests)
            }
            guard let branches = options.branches else {
                let repository = MirrorConfiguration.Repository(
                    name: name, branch: options.branch, interval: options.interval, line: line)
                return try add([repository], of: entry, path: path, to: &entries)
            }
            let globs = branches.selection.patterns.filter(\.isGlob)
            if !globs.isEmpty {
                let globsEntry = MirrorConfiguration.BranchGlobs(
                    name: name, selection: BranchSelection(globs), interval: options.interval, line: line)
                try note("branch globs " + globsEntry.key, what: "branch globs of \(name)", of: entry, path: path, in: &entries)
                entries.branchGlobs.append(globsEntry)
            }
            let named = branches.selection.names.map {
                MirrorConfiguration.Repository(name: name, branch: $0, interval: options.interval, line: line)
            }
            try add(named, of: entry, path: path, to: &entries)
        case .pattern(let pattern):
            if options.branch != nil {
                throw error(
                    at: entry, key: "\(path).branch", problem: "a pattern mirrors each repository's default branch",
                    expected: "branches: [NAME] on an OWNER/* entry, or the repository on its own with branch:")
            }
            let patternEntry = MirrorConfiguration.Pattern(
                pattern: pattern, interval: options.interval, includeForks: options.includeForks,
                includeArchived: options.includeArchived, branches: options.branches?.selection, tags: options.tags?.value,
                paths: options.paths?.value, pullRequests: options.pullRequests?.value, line: line)
            try note("pattern " + patternEntry.key, what: "\(fields.selector)", of: entry, path: path, in: &entries)
            entries.patterns.append(patternEntry)
        }
    }

    private func add(
        _ repositories: [MirrorConfiguration.Repository], of entry: Node, path: String, to entries: inout RepositoryEntries
    ) throws {
        for repository in repositories {
            try note(repository.key, what: repository.description, of: entry, path: path, in: &entries)
            entries.repositories.append(repository)
        }
    }

    /// Records `key` as listed on this entry's line, or throws if an earlier entry listed it.
    /// A repository's `key:` is one setting, whichever of its entries (one per branch) says it.
    private func note<Value: Equatable & CustomStringConvertible>(
        _ key: String, _ setting: (value: Value, node: Node), of name: RepositoryName, path: String,
        in settings: inout [String: (value: Value, line: Int)]
    ) throws {
        let lowercased = name.description.lowercased()
        if let earlier = settings[lowercased], earlier.value != setting.value {
            throw error(
                at: setting.node, key: "\(path).\(key)",
                problem: "is \(setting.value), and line \(earlier.line) says \(earlier.value) for \(name)",
                expected: "one \(key): setting for a repository, on any one of its entries")
        }
        settings[lowercased] = (setting.value, setting.node.mark?.line ?? 0)
    }

    private func note(_ key: String, what: String, of entry: Node, path: String, in entries: inout RepositoryEntries) throws {
        if let firstLine = entries.seen[key] {
            throw error(
                at: entry, key: path, problem: "\(what) is listed twice (first on line \(firstLine))",
                expected: "each repository and branch once")
        }
        entries.seen[key] = entry.mark?.line ?? 0
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
