import ArgumentParser
import Foundation
import MirrorCore

extension Commitsctl {
    struct Repos: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "repos",
            abstract: "List the mirrored repositories, or stop mirroring one.",
            subcommands: [List.self, Remove.self],
            defaultSubcommand: List.self
        )

        struct List: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "list",
                abstract: "List every repository in the store: name, former names, branches, commits, state and last success.",
                discussion: """
                    State is active, gone (left its owner's listing or answered 404: history kept, no longer \
                    polled, active again when it reappears) or removed (by `commitsctl repos remove`). \
                    The store is opened read-only.
                    """
            )

            @Option(help: "How to print the rows (json: an array of objects with snake_case keys).")
            var format: ReportFormat = .table

            @OptionGroup var store: StoreOptions

            /// One row of `repos --format json`.
            struct Row: Encodable {
                var repository: String
                var formerNames: [String]
                var githubID: Int?
                var branches: [String]
                var commits: Int
                var complete: Bool
                var state: String
                var stateReason: String?
                var stateChangedAt: String?
                var lastSuccessAt: String?

                enum CodingKeys: String, CodingKey, CaseIterable {
                    case repository, formerNames = "former_names", githubID = "github_id", branches, commits, complete, state
                    case stateReason = "state_reason", stateChangedAt = "state_changed_at", lastSuccessAt = "last_success_at"
                }

                init(_ overview: RepositoryOverview) {
                    repository = overview.name
                    formerNames = overview.formerNames
                    githubID = overview.githubID
                    branches = overview.branches
                    commits = overview.commits
                    complete = overview.complete
                    state = overview.state.rawValue
                    stateReason = overview.stateReason
                    stateChangedAt = overview.stateChangedAt
                    lastSuccessAt = overview.lastSuccessAt
                }

                func encode(to encoder: any Encoder) throws {
                    // Every key always present (null when unknown), as `status` does.
                    var container = encoder.container(keyedBy: CodingKeys.self)
                    try container.encode(repository, forKey: .repository)
                    try container.encode(formerNames, forKey: .formerNames)
                    try container.encode(githubID, forKey: .githubID)
                    try container.encode(branches, forKey: .branches)
                    try container.encode(commits, forKey: .commits)
                    try container.encode(complete, forKey: .complete)
                    try container.encode(state, forKey: .state)
                    try container.encode(stateReason, forKey: .stateReason)
                    try container.encode(stateChangedAt, forKey: .stateChangedAt)
                    try container.encode(lastSuccessAt, forKey: .lastSuccessAt)
                }

                var cells: [String] {
                    [
                        repository, formerNames.isEmpty ? "-" : formerNames.joined(separator: ", "),
                        branches.isEmpty ? "(default)" : branches.joined(separator: ","), String(commits), state,
                        lastSuccessAt ?? "never",
                    ]
                }

                /// `acme/widgets: main, 300 commits, active, last success …`
                var oneline: String {
                    var line = "\(repository): \(branches.isEmpty ? "(default)" : branches.joined(separator: ",")), "
                    line += "\(plural(commits, "commit")), \(state)"
                    if let stateReason { line += " (\(stateReason))" }
                    if !formerNames.isEmpty { line += ", formerly \(formerNames.joined(separator: ", "))" }
                    line += ", last success \(lastSuccessAt ?? "never")"
                    return TextCleaning.singleLine(line)
                }

                var csvFields: [String] {
                    [
                        repository, formerNames.joined(separator: " "), githubID.map(String.init) ?? "", branches.joined(separator: " "),
                        String(commits), String(complete), state, stateReason ?? "", stateChangedAt ?? "", lastSuccessAt ?? "",
                    ]
                }
            }

            func run() async throws {
                try await reportingErrors {
                    let mirror = try store.resolvedLocation.openReader()
                    let rows = try mirror.repositoryOverviews().map(Row.init)
                    let encoder = JSONEncoder()
                    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
                    switch format {
                    case .table:
                        var table = TextTable([
                            .init(title: "REPOSITORY", flexible: true, minimumWidth: 16, isName: true),
                            .init(title: "FORMER NAMES", flexible: true, minimumWidth: 8, dropOrder: 1),
                            .init(title: "BRANCH"), .init(title: "COMMITS", numeric: true), .init(title: "STATE"),
                            .init(title: "LAST SUCCESS"),
                        ])
                        for row in rows { table.append(row.cells) }
                        for line in table.render(width: Terminal.outputWidth) { print(line) }
                    case .oneline:
                        for row in rows { print(row.oneline) }
                    case .json:
                        encoder.outputFormatting.insert(.prettyPrinted)
                        print(String(decoding: try encoder.encode(rows), as: UTF8.self))
                    case .ndjson:
                        for row in rows { print(String(decoding: try encoder.encode(row), as: UTF8.self)) }
                    case .csv:
                        var text = CSV.row(Row.CodingKeys.allCases.map(\.rawValue))
                        for row in rows { text += CSV.row(row.csvFields) }
                        print(text, terminator: "")
                    }
                }
            }
        }

        struct Remove: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "remove",
                abstract: "Stop mirroring a repository; its history is kept.",
                discussion: """
                    The repository is marked removed: no sync or pattern (OWNER/*) polls it again, its commits \
                    stay queryable, and its lock file beside the store is deleted. `commitsctl sync OWNER/NAME` \
                    mirrors it again. A repository the configuration names on its own is synced again by the \
                    next run that reads that configuration: take it out of the file too. --purge also deletes \
                    the commits no other repository holds, after copying the store beside itself \
                    (<store>.backup-purge-<UTC time>, checked).
                    """
            )

            @Argument(help: "The repository to stop mirroring, as OWNER/NAME (current or former name).")
            var repository: String

            @Flag(help: "Also delete the commits no other repository holds, after a checked backup of the store.")
            var purge = false

            @OptionGroup var store: StoreOptions

            func validate() throws {
                if RepositoryName(parsing: repository) == nil {
                    throw ValidationError("'\(repository)' is not a repository name; expected \(RepositoryName.expectedForm)")
                }
            }

            func run() async throws {
                try await reportingErrors {
                    let name = RepositoryName(parsing: repository)!
                    let location = try store.resolvedLocation
                    // Read-only first: a mistyped name neither creates nor upgrades a store.
                    guard try location.openReader().repository(named: name) != nil else {
                        throw UnknownRepositoryError(name: name, store: location)
                    }
                    let writer = try location.openWriter()
                    reportUpgrade(of: writer)
                    guard let stored = try writer.repository(named: name) else { throw UnknownRepositoryError(name: name, store: location) }
                    // A sync running now would write on after the removal: its lock keeps it out meanwhile.
                    let lock = try RepositoryLock.acquire(store: location, repository: stored.name, holder: "commitsctl repos remove")
                    defer {
                        lock.release()
                        RepositoryLock.removeLockFile(store: location, repository: stored.name)
                    }
                    let reason = "removed by the user"
                    guard purge else {
                        try writer.setState(.removed, repositoryID: stored.id, reason: reason)
                        let commits = try writer.commitCount(repositoryID: stored.id)
                        print("\(stored.name): removed; its \(plural(commits, "commit")) stay in the store")
                        return
                    }
                    let stamp = ISO8601Timestamp.format(Date()).filter { $0 != "-" && $0 != ":" }
                    let copy = try location.openReader().backup(to: "\(location.sqlitePath).backup-purge-\(stamp)")
                    let purged = try writer.removeAndPurge(repositoryID: stored.id, reason: reason)
                    print(
                        "\(stored.name): removed and purged: \(plural(purged.deleted, "commit")) deleted, \(purged.shared) kept for other repositories; the copy made first is \(copy.path)"
                    )
                }
            }
        }
    }
}
