import ArgumentParser
import MirrorCore

extension Commitsctl {
    /// Synchronous, like `query`: it reads on the main thread.
    struct Stats: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "stats",
            _superCommandName: Commitsctl.name,
            abstract: "Per repository: commits, merges, authors, date range and last successful sync.",
            discussion: """
                With --branches: the same per mirrored branch (what its head reaches), one row each, \
                `gone` for a branch deleted on GitHub (its commits kept).
                """
        )

        @OptionGroup var repository: RepositoryFilterOptions

        @Option(Options.format) var format: ReportFormat
        @Flag(Options.branches) var branches: Bool

        @OptionGroup var pager: PagerOptions

        /// `--config`, declared by `StoreOptions` so every store-opening command has it.
        var config: ConfigOptions { store.configuration }

        @OptionGroup var store: StoreOptions

        static let fields =
            RecordFields<RepositoryStatistics>([("repository", { .string($0.repository) })]) + countFields.reading { $0.counts }

        /// `acme/widgets: 5 commits, 1 merge, 4 authors, 2024-03-01 to 2024-03-05, last sync never`
        static func oneline(_ repository: RepositoryStatistics) -> String {
            TextCleaning.singleLine("\(repository.repository): " + counts(repository.counts))
        }

        static func cells(_ repository: RepositoryStatistics) -> [String] {
            [repository.repository] + countCells(repository.counts)
        }

        func run() throws {
            try reportingErrors {
                let settings = try ResolvedSettings(configuration: try config.load(), store: store)
                let mirror = try settings.store.openCommitReader()
                let name = try repository.resolve(in: mirror)
                if branches {
                    let rows = try mirror.branchStatistics(repository: name)
                    pager.start()
                    let output = OutputWriter()
                    defer { output.flush() }
                    Self.write(rows, format: format, to: output)
                    return
                }
                let repositories = try mirror.repositoryStatistics(repository: name)
                pager.start()
                let output = OutputWriter()
                defer { output.flush() }
                let columns = [TextTable.Column(title: "REPOSITORY", flexible: true, minimumWidth: 16, isName: true)]
                format.write(
                    repositories, columns: columns + Self.countColumns, cells: Self.cells, oneline: Self.oneline,
                    fields: Self.fields, to: output)
            }
        }
    }
}

extension Commitsctl.Stats {
    /// The fields every `stats` record ends with, read from a row's `counts`.
    static let countFields = RecordFields<CommitCounts>([
        ("commits", { .int($0.commits) }),
        ("merges", { .int($0.merges) }),
        ("authors", { .int($0.authors) }),
        ("first_commit_date", { .optional($0.firstCommitDate) }),
        ("last_commit_date", { .optional($0.lastCommitDate) }),
        ("last_sync_at", { .optional($0.lastSyncAt) }),
    ])

    /// `5 commits, 1 merge, 4 authors, 2024-03-01 to 2024-03-05, last sync never`
    static func counts(_ row: CommitCounts) -> String {
        var line = "\(plural(row.commits, "commit")), \(plural(row.merges, "merge")), \(plural(row.authors, "author"))"
        if let first = row.firstCommitDate, let last = row.lastCommitDate {
            line += ", \(first.prefix(10)) to \(last.prefix(10))"
        }
        return line + ", last sync \(row.lastSyncAt ?? "never")"
    }

    /// The columns every `stats` table ends with: narrow terminals leave out
    /// FIRST, then MERGES, before cutting a repository's name.
    static let countColumns: [TextTable.Column] = [
        .init(title: "COMMITS", numeric: true), .init(title: "MERGES", numeric: true, dropOrder: 2),
        .init(title: "AUTHORS", numeric: true), .init(title: "FIRST", dropOrder: 1), .init(title: "LAST"),
        .init(title: "LAST SYNC"),
    ]

    /// The table cells every `stats` row ends with: counts, days, last sync.
    static func countCells(_ row: CommitCounts) -> [String] {
        [
            String(row.commits), String(row.merges), String(row.authors),
            row.firstCommitDate.map { String($0.prefix(10)) } ?? "-",
            row.lastCommitDate.map { String($0.prefix(10)) } ?? "-", row.lastSyncAt ?? "never",
        ]
    }
}
