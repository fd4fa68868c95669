import ArgumentParser
import Foundation
import MirrorCore

extension Commitsctl {
    /// Synchronous, like `query`: it reads on the main thread.
    struct Paths: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "paths",
            abstract: "List the most changed paths (the hot spots of a codebase), with the people who changed each most.",
            discussion: """
                A path counts the commits that are not merges whose change against their first parent names it, \
                across every mirrored repository (or --repo's), optionally only between --since and --until and \
                only under the given paths (pathspecs as query's). Commits whose paths are not stored yet are not \
                counted: `commitsctl status` shows how far the paths are read.
                """
        )

        @OptionGroup var repository: RepositoryFilterOptions

        @Option(help: ArgumentHelp("Show this many paths, the most changed.", valueName: "n")) var top = 20
        @Option(help: ArgumentHelp("Name this many authors of each path, the most active.", valueName: "n")) var authors = 3
        @Option(help: ArgumentHelp("Only commits committed at or after this date (as query's).", valueName: "date"))
        var since: String?
        @Option(help: ArgumentHelp("Only commits committed at or before this date (as query's).", valueName: "date"))
        var until: String?
        @Option(help: "How to print the paths (json: an array of objects with snake_case keys).")
        var format: ReportFormat = .table
        @Argument(help: ArgumentHelp("Only paths these pathspecs match (a directory, a glob …).", valueName: "path"))
        var paths: [String] = []

        @OptionGroup var pager: PagerOptions

        /// `--config`, declared by `StoreOptions` so every store-opening command has it.
        var config: ConfigOptions { store.configuration }

        @OptionGroup var store: StoreOptions

        static let fields = RecordFields<PathActivity>([
            ("path", { .string(String(validating: $0.path, as: UTF8.self) ?? GitPathText.quoted($0.path)) }),
            ("commits", { .int($0.commits) }),
            ("last_commit_date", { .string($0.lastCommitDate) }),
            ("authors", { .array($0.topAuthors.map { .object([("name", .string($0.name)), ("commits", .int($0.commits))]) }) }),
        ])

        static func authorsText(_ path: PathActivity) -> String {
            path.topAuthors.map { "\($0.name) (\($0.commits))" }.joined(separator: ", ")
        }

        /// `   42\tSources/Parse/Lexer.swift\tJoe Groff (30), Ada (12)`
        static func oneline(_ path: PathActivity) -> String {
            let count = String(path.commits)
            return TextCleaning.singleLine(
                String(repeating: " ", count: max(0, 6 - count.count)) + count + "\t" + GitPathText.quoted(path.path) + "\t"
                    + authorsText(path))
        }

        func validate() throws {
            if top < 0 { throw ValidationError("--top must be 0 or more, not \(top)") }
            if authors < 0 { throw ValidationError("--authors must be 0 or more, not \(authors)") }
            if !paths.isEmpty { _ = try PathArguments.pathspec(paths) }
            _ = try scope()
        }

        func scope() throws -> PathActivityScope {
            func parse(_ text: String?, _ option: String, _ bound: DateExpression.Bound) throws -> Date? {
                guard let text else { return nil }
                do {
                    return try DateExpression.parse(text, bound: bound, now: Date())
                } catch {
                    throw ValidationError("\(option): \(error)")
                }
            }
            return PathActivityScope(
                repository: repository.name, since: try parse(since, "--since", .lower), until: try parse(until, "--until", .upper))
        }

        func run() throws {
            try reportingErrors {
                let configuration = try config.load()
                let settings = try ResolvedSettings(configuration: configuration, store: store)
                let mirror = try settings.store.openCommitReader()
                _ = try repository.resolve(in: mirror)
                let scope = try scope()
                let pathspec = paths.isEmpty ? nil : try Pathspec(paths)
                var ranked = Array(
                    PathActivity.ranked(try mirror.pathActivity(scope).filter { pathspec?.matches($0.path) ?? true }).prefix(top))
                if authors > 0 {
                    let names = try mirror.pathAuthors(ranked.map(\.pathID), scope, limit: authors)
                    for index in ranked.indices { ranked[index].topAuthors = names[ranked[index].pathID] ?? [] }
                }
                pager.start()
                let output = OutputWriter()
                defer { output.flush() }
                let columns: [TextTable.Column] = [
                    .init(title: "COMMITS", numeric: true), .init(title: "LAST"),
                    .init(title: "PATH", flexible: true, minimumWidth: 20), .init(title: "AUTHORS", flexible: true, minimumWidth: 12),
                ]
                format.write(
                    ranked, columns: columns,
                    cells: {
                        [String($0.commits), String($0.lastCommitDate.prefix(10)), GitPathText.quoted($0.path), Self.authorsText($0)]
                    },
                    oneline: Self.oneline, fields: Self.fields, to: output)
            }
        }
    }
}
