import ArgumentParser
import MirrorCore

extension Commitsctl {
    /// Synchronous, like `query`: it reads on the main thread.
    struct Authors: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "authors",
            _superCommandName: Commitsctl.name,
            abstract: "List people (identities merged by name, or by --mailmap and GitHub login) with commits authored and co-authored."
        )

        @OptionGroup var repository: RepositoryFilterOptions

        @Option(Options.top) var top: Int?
        @Option(Options.format) var format: ReportFormat
        @Option(Options.mailmap) var mailmap: String?
        @Argument(help: Options.pathsHelp) var paths: [String] = []

        @OptionGroup var pager: PagerOptions

        /// `--config`, declared by `StoreOptions` so every store-opening command has it.
        var config: ConfigOptions { store.configuration }

        @OptionGroup var store: StoreOptions

        static let fields = RecordFields<AuthorStatistics>([
            ("name", { .string($0.name) }),
            ("emails", { .array($0.emails.map(JSONValue.string)) }),
            ("commits", { .int($0.commits) }),
            ("first_commit_date", { .string($0.firstCommitDate) }),
            ("last_commit_date", { .string($0.lastCommitDate) }),
            ("co_authored", { .int($0.coAuthored) }),
            ("identities", { .array($0.identities.map(JSONValue.string)) }),
        ])

        /// `git shortlog -sne`'s shape: `   324\tJoe Groff <jgroff@apple.com, arcata@gmail.com>`, then co-authored.
        static func oneline(_ author: AuthorStatistics) -> String {
            let count = String(author.commits)
            var line =
                String(repeating: " ", count: max(0, 6 - count.count)) + count + "\t"
                + TextCleaning.singleLine("\(author.name) <\(author.emails.joined(separator: ", "))>")
            if author.coAuthored > 0 { line += " (co-authored \(plural(author.coAuthored, "commit")))" }
            return line
        }

        static func cells(_ author: AuthorStatistics) -> [String] {
            [
                String(author.commits), String(author.coAuthored), String(author.firstCommitDate.prefix(10)),
                String(author.lastCommitDate.prefix(10)), "\(author.name) <\(author.emails.joined(separator: ", "))>",
            ]
        }

        func validate() throws {
            if let top, top < 0 { throw ValidationError("--top must be 0 or more, not \(top)") }
            if !paths.isEmpty { _ = try PathArguments.pathspec(paths) }
        }

        /// With paths, the people of the commits `git shortlog --no-merges -- PATH…` counts.
        private func authorStatistics(
            in mirror: any MirrorReading, repository name: RepositoryName?, mailmap: Mailmap?
        ) throws -> [AuthorStatistics] {
            guard !paths.isEmpty else { return try mirror.authorStatistics(repository: name, top: top, mailmap: mailmap) }
            var filter = CommitFilter(merges: .exclude, repository: name)
            filter.needsParentsAndRepositories = false
            try PathArguments.restrict(&filter, to: paths, simplification: .simplified, in: mirror, leftOut: "not counted")
            var commits: Set<Int64> = []
            try mirror.forEachCommit(matching: filter) { commits.insert($0.storeID) }
            return try mirror.authorStatistics(repository: name, commits: commits, top: top, mailmap: mailmap)
        }

        func run() throws {
            try reportingErrors {
                let configuration = try config.load()
                let settings = try ResolvedSettings(configuration: configuration, store: store)
                let mirror = try settings.store.openCommitReader()
                let name = try repository.resolve(in: mirror)
                let mailmap = try MailmapSource(flag: mailmap, configuration: configuration).load()
                let authors = try authorStatistics(in: mirror, repository: name, mailmap: mailmap)
                pager.start()
                let output = OutputWriter()
                defer { output.flush() }
                let columns: [TextTable.Column] = [
                    .init(title: "COMMITS", numeric: true), .init(title: "CO-AUTHORED", numeric: true),
                    .init(title: "FIRST"), .init(title: "LAST"),
                    .init(title: "AUTHOR", flexible: true, minimumWidth: 20, isName: true),
                ]
                format.write(authors, columns: columns, cells: Self.cells, oneline: Self.oneline, fields: Self.fields, to: output)
            }
        }
    }
}
