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

        static let fields = RecordFields<RepositoryStatistics>([
            ("repository", { .string($0.repository) }),
            ("commits", { .int($0.commits) }),
            ("merges", { .int($0.merges) }),
            ("authors", { .int($0.authors) }),
            ("first_commit_date", { .optional($0.firstCommitDate) }),
            ("last_commit_date", { .optional($0.lastCommitDate) }),
            ("last_sync_at", { .optional($0.lastSyncAt) }),
        ])

        /// `acme/widgets: 5 commits, 1 merge, 4 authors, 2024-03-01 to 2024-03-05, last sync never`
        static func oneline(_ repository: RepositoryStatistics) -> String {
            var line =
                "\(repository.repository): \(plural(repository.commits, "commit")), "
                + "\(plural(repository.merges, "merge")), \(plural(repository.authors, "author"))"
            if let first = repository.firstCommitDate, let last = repository.lastCommitDate {
                line += ", \(first.prefix(10)) to \(last.prefix(10))"
            }
            return TextCleaning.singleLine(line + ", last sync \(repository.lastSyncAt ?? "never")")
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
                switch format {
                case .table:
                    // Narrow terminals leave out FIRST, then MERGES, before cutting a repository's name.
                    var table = TextTable([
                        .init(title: "REPOSITORY", flexible: true, minimumWidth: 16, isName: true),
                        .init(title: "COMMITS", numeric: true), .init(title: "MERGES", numeric: true, dropOrder: 2),
                        .init(title: "AUTHORS", numeric: true), .init(title: "FIRST", dropOrder: 1), .init(title: "LAST"),
                        .init(title: "LAST SYNC"),
                    ])
                    for repository in repositories {
                        table.append([
                            repository.repository, String(repository.commits), String(repository.merges),
                            String(repository.authors), repository.firstCommitDate.map { String($0.prefix(10)) } ?? "-",
                            repository.lastCommitDate.map { String($0.prefix(10)) } ?? "-",
                            repository.lastSyncAt ?? "never",
                        ])
                    }
                    for line in table.render(width: Terminal.outputWidth) { output.line(line) }
                case .oneline:
                    for repository in repositories { output.line(Self.oneline(repository)) }
                case .json, .ndjson, .csv:
                    RecordWriter.write(repositories, fields: Self.fields, as: RecordFormat(format)!, to: output)
                }
            }
        }
    }
}
