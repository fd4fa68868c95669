import ArgumentParser
import Foundation
import MirrorCore

extension Commitsctl {
    struct Query: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List mirrored commits, newest first, filtered like git log.",
            discussion: """
                Filters combine with AND. Text filters match a substring, ignoring case; \
                %, _, \\ and quotes are ordinary characters. The store is opened read-only, \
                so queries run while a sync writes. JSON fields are described in docs/QUERY.md.
                """
        )

        @Option(help: ArgumentHelp("Only commits whose author name or email contains this text, ignoring case.", valueName: "text"))
        var author: String?

        @Option(help: ArgumentHelp("Only commits whose committer name or email contains this text, ignoring case.", valueName: "text"))
        var committer: String?

        @Option(help: ArgumentHelp("Only commits whose message contains this text, ignoring case.", valueName: "text"))
        var grep: String?

        @Flag(help: "Only commits whose message does not contain the --grep text.")
        var invertGrep = false

        @Flag(help: "Leave out merge commits (more than one parent).")
        var noMerges = false

        @Flag(help: "Only merge commits (more than one parent).")
        var merges = false

        @Option(help: ArgumentHelp("Only commits committed at or after this date (2024-05-01, 2024-05-01T12:00:00Z, \"2 weeks ago\", yesterday).", valueName: "date"))
        var since: String?

        @Option(help: ArgumentHelp("Only commits committed at or before this date (same forms as --since; a bare date includes that whole day).", valueName: "date"))
        var until: String?

        @OptionGroup var repository: RepositoryFilterOptions

        @Option(name: [.customShort("n"), .customLong("limit")], help: ArgumentHelp("Show at most this many commits (the newest).", valueName: "n"))
        var limit: Int?

        @Flag(help: "Print the selected commits oldest first.")
        var reverse = false

        @Flag(help: "Also list commits a confirmed force-push left off every mirrored branch (kept in the store, hidden by default).")
        var includeRewritten = false

        @Option(help: "How to print the commits (JSON fields: docs/QUERY.md).")
        var format: OutputFormat = .oneline

        @OptionGroup var store: StoreOptions

        func validate() throws {
            if let limit, limit < 0 { throw ValidationError("--limit must be 0 or more, not \(limit)") }
            if merges && noMerges { throw ValidationError("--merges and --no-merges exclude each other; give one") }
            if invertGrep && grep == nil { throw ValidationError("--invert-grep needs --grep TEXT") }
            let bounds = try dateBounds()
            if let since = bounds.since, let until = bounds.until, since > until {
                throw ValidationError("--since (\(ISO8601Timestamp.format(since))) is after --until (\(ISO8601Timestamp.format(until)))")
            }
        }

        func dateBounds(now: Date = Date()) throws -> (since: Date?, until: Date?) {
            func parse(_ text: String?, _ option: String, _ bound: DateExpression.Bound) throws -> Date? {
                guard let text else { return nil }
                do {
                    return try DateExpression.parse(text, bound: bound, now: now)
                } catch {
                    throw ValidationError("\(option): \(error)")
                }
            }
            return (try parse(since, "--since", .lower), try parse(until, "--until", .upper))
        }

        func filter() throws -> CommitFilter {
            let bounds = try dateBounds()
            return CommitFilter(
                author: author, committer: committer, grep: grep, invertGrep: invertGrep,
                merges: merges ? .only : noMerges ? .exclude : .include,
                since: bounds.since, until: bounds.until,
                repository: repository.name, limit: limit, includeOffBranch: includeRewritten)
        }

        func run() async throws {
            try await reportingErrors {
                let mirror = try MirrorStore(path: store.resolvedPath, access: .readOnly)
                let filter = try filter()
                _ = try repository.resolve(in: mirror)
                let output = OutputWriter()
                defer { output.flush() }
                switch format {
                case .table:
                    var commits = try mirror.commits(matching: filter)
                    if reverse { commits.reverse() }
                    for line in CommitRendering.table(commits, width: Terminal.outputWidth) { output.line(line) }
                case .oneline:
                    try forEachCommit(in: mirror, filter) { output.line(CommitRendering.oneline($0)) }
                case .json, .ndjson, .csv:
                    let kind: RecordPrinter.Kind = format == .json ? .json : format == .ndjson ? .ndjson : .csv
                    var printer = RecordPrinter(kind, fieldNames: CommitRendering.fieldNames, output: output)
                    printer.begin()
                    try forEachCommit(in: mirror, filter) { printer.print(CommitRendering.fields($0)) }
                    printer.end()
                }
            }
        }

        /// Streams unless --reverse needs the whole result first.
        private func forEachCommit(in mirror: MirrorStore, _ filter: CommitFilter,
                                   _ body: (CommitSummary) throws -> Void) throws {
            if reverse {
                for commit in try mirror.commits(matching: filter).reversed() { try body(commit) }
            } else {
                try mirror.forEachCommit(matching: filter, body)
            }
        }
    }
}
