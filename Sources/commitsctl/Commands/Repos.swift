import ArgumentParser
import Foundation
import MirrorCore

extension Commitsctl {
    struct Repos: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "repos",
            _superCommandName: Commitsctl.name,
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

            /// One row of `repos`.
            struct Row {
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

                /// json, ndjson and csv: every field always present (null when unknown), as `status` does.
                static let fields = RecordFields<Row>([
                    ("repository", { .string($0.repository) }),
                    ("former_names", { .array($0.formerNames.map(JSONValue.string)) }),
                    ("github_id", { $0.githubID.map(JSONValue.int) ?? .null }),
                    ("branches", { .array($0.branches.map(JSONValue.string)) }),
                    ("commits", { .int($0.commits) }),
                    ("complete", { .bool($0.complete) }),
                    ("state", { .string($0.state) }),
                    ("state_reason", { .optional($0.stateReason) }),
                    ("state_changed_at", { .optional($0.stateChangedAt) }),
                    ("last_success_at", { .optional($0.lastSuccessAt) }),
                ])

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
            }

            func run() async throws {
                try reportingErrors {
                    let mirror = try store.resolvedLocation.openCommitReader()
                    let rows = try mirror.repositoryOverviews().map(Row.init)
                    let output = OutputWriter()
                    defer { output.flush() }
                    let columns: [TextTable.Column] = [
                        .init(title: "REPOSITORY", flexible: true, minimumWidth: 16, isName: true),
                        .init(title: "FORMER NAMES", flexible: true, minimumWidth: 8, dropOrder: 1),
                        .init(title: "BRANCH"), .init(title: "COMMITS", numeric: true), .init(title: "STATE"),
                        .init(title: "LAST SUCCESS"),
                    ]
                    format.write(rows, columns: columns, cells: \.cells, oneline: \.oneline, fields: Row.fields, to: output)
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
                    the commits no other repository holds, in one transaction, after a checked copy of the \
                    whole store: beside an SQLite store (<store>.backup-purge-<UTC time>); for a PostgreSQL \
                    store, a new SQLite file in the current directory \
                    (<database>.backup-purge-<UTC time>.sqlite). The message says where the copy went.
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
                try reportingErrors {
                    let name = RepositoryName(parsing: repository)!
                    let location = try store.resolvedLocation
                    // Read-only first: a mistyped name neither creates nor upgrades a store.
                    guard try location.openCommitReader().repository(named: name) != nil else {
                        throw UnknownRepositoryError(name: name, store: location)
                    }
                    let writer = try location.openSyncWriter()
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
                    let copy = try location.safetyCopy(before: "purge")
                    let purged = try writer.removeAndPurge(repositoryID: stored.id, reason: reason)
                    print(
                        "\(stored.name): removed and purged: \(plural(purged.deleted, "commit")) deleted, \(purged.shared) kept for other repositories; the copy made first is \(copy.path)"
                    )
                }
            }
        }
    }
}
