import ArgumentParser
import Foundation
import MirrorCore

extension Commitsctl {
    /// Synchronous, so it reads on the main thread: an async command starts
    /// worker threads and a malloc arena of their own (four threads, a hundred
    /// `mprotect` calls) for a few milliseconds of reading.
    struct Query: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "query",
            _superCommandName: Commitsctl.name,
            abstract: "List mirrored commits, newest first, filtered like git log.",
            discussion: """
                Filters combine with AND. Text filters match a substring, ignoring case; \
                %, _, \\ and quotes are ordinary characters. The store is opened read-only, \
                so queries run while a sync writes. JSON fields are described in docs/QUERY.md.
                """
        )

        @Option(
            help: ArgumentHelp(
                "Only commits whose author name or email contains this text, ignoring case (repeat: any of them).", valueName: "text"))
        var author: [String] = []

        @Option(
            help: ArgumentHelp(
                "Only commits whose committer name or email contains this text, ignoring case (repeat: any of them).", valueName: "text"))
        var committer: [String] = []

        @Option(
            help: ArgumentHelp(
                "Only commits crediting a co-author (Co-authored-by:) whose name or email contains this text (repeat: any of them).",
                valueName: "text"))
        var coAuthor: [String] = []

        @Option(
            help: ArgumentHelp("Only commits whose message contains this text, ignoring case (repeat: any of them).", valueName: "text"))
        var grep: [String] = []

        @Flag(help: "Only commits whose message contains every --grep text, not just one.")
        var allMatch = false

        @Flag(help: "Only commits whose message does not match the --grep texts.")
        var invertGrep = false

        @Flag(
            name: [.customShort("i"), .customLong("regexp-ignore-case")],
            help: "Ignore case in --grep, --author and --committer (always the case; accepted for git habits).")
        var ignoreCase = false

        @Flag(help: "Leave out merge commits (more than one parent).")
        var noMerges = false

        @Flag(help: "Only merge commits (more than one parent).")
        var merges = false

        @Option(
            name: [.customLong("since"), .customLong("after")],
            help: ArgumentHelp(
                "Only commits committed at or after this date (2024-05-01, \"2 weeks ago\", yesterday, \"last tuesday\", noon).",
                valueName: "date"))
        var since: String?

        @Option(
            name: [.customLong("until"), .customLong("before")],
            help: ArgumentHelp(
                "Only commits committed at or before this date (same forms as --since; a bare date includes that whole day).",
                valueName: "date"))
        var until: String?

        @Option(
            help: ArgumentHelp(
                "Merge identities with this git .mailmap file (default: the configuration's mailmap), so --author and --co-author match any identity of a person.",
                valueName: "file"))
        var mailmap: String?

        @Flag(help: "After printing, keep running and print each matching commit as it arrives (joins the repository) until interrupted.")
        var follow = false

        @OptionGroup var repository: RepositoryFilterOptions

        @Option(
            help: ArgumentHelp(
                "Only commits this mirrored branch reaches (repeat: any of them; * matches any run of characters, / included: \"release/*\"). With --repo, that repository's branches.",
                valueName: "name"))
        var branch: [String] = []

        @Option(
            name: [.customShort("n", allowingJoined: true), .customLong("limit"), .customLong("max-count")],
            help: ArgumentHelp("Show at most this many commits, the newest (also -N, as in git log).", valueName: "n"))
        var limit: Int?

        @Flag(help: "Print the selected commits oldest first.")
        var reverse = false

        @Flag(help: "Also list commits a confirmed force-push left off every mirrored branch (kept in the store, hidden by default).")
        var includeRewritten = false

        @Option(help: "How to print the commits (JSON fields: docs/QUERY.md).")
        var format: OutputFormat = .oneline

        @OptionGroup var pager: PagerOptions

        /// `--config`, declared by `StoreOptions` so every store-opening command has it.
        var config: ConfigOptions { store.configuration }

        @OptionGroup var store: StoreOptions

        func validate() throws {
            if let limit, limit < 0 { throw ValidationError("--limit must be 0 or more, not \(limit)") }
            if merges && noMerges { throw ValidationError("--merges and --no-merges exclude each other; give one") }
            if invertGrep && grep.isEmpty { throw ValidationError("--invert-grep needs --grep TEXT") }
            if allMatch && grep.isEmpty { throw ValidationError("--all-match needs --grep TEXT") }
            if let long = grep.first(where: { $0.unicodeScalars.count > CommitFilter.longestGrep }) {
                throw ValidationError(
                    "--grep is \(long.unicodeScalars.count) characters long; at most \(CommitFilter.longestGrep) are searched for: give a shorter part of the text"
                )
            }
            if follow && format == .json {
                throw ValidationError("--follow prints commits as they arrive, which one JSON array cannot; use --format ndjson")
            }
            if follow && reverse { throw ValidationError("--follow prints commits as they arrive, which --reverse cannot; give one") }
            try validateBranches()
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

        func filter(mailmap source: MailmapSource? = nil) throws -> CommitFilter {
            let bounds = try dateBounds()
            var filter = CommitFilter(
                invertGrep: invertGrep, merges: merges ? .only : noMerges ? .exclude : .include,
                since: bounds.since, until: bounds.until,
                repository: repository.name, limit: limit, includeOffBranch: includeRewritten)
            filter.authors = author
            filter.committers = committer
            filter.coAuthors = coAuthor
            filter.greps = grep
            filter.allMatch = allMatch
            filter.branches = branchSelection
            filter.mailmap = try (source ?? MailmapSource(flag: mailmap)).load()
            return filter
        }

        func run() throws {
            try reportingErrors {
                let configuration = try config.load()
                let settings = try ResolvedSettings(configuration: configuration, store: store)
                let mirror = try settings.store.openCommitReader()
                var filter = try filter(mailmap: MailmapSource(flag: mailmap, configuration: configuration))
                // Only the machine formats print parents and repositories.
                filter.needsParentsAndRepositories = RecordFormat(format) != nil
                _ = try repository.resolve(in: mirror)
                try checkBranchesMirrored(in: mirror)
                // --follow: what the store holds at its latest change is listed first;
                // what arrives after that change is printed below it.
                let start = follow ? try mirror.latestChange() : nil
                filter.arrivedThrough = start
                // A live --follow stream is not paged: less would hold back what arrives.
                if !follow { pager.start() }
                let output = OutputWriter()
                defer { output.flush() }
                // nil for table and oneline. One writer for the whole run: --follow appends to what it began.
                var records = RecordFormat(format).map { RecordWriter($0, fields: CommitRendering.fields, output: output) }
                switch format {
                case .table:
                    var commits = try mirror.matchingCommits(filter)
                    if reverse { commits.reverse() }
                    for line in CommitRendering.table(commits, width: Terminal.outputWidth) { output.line(line) }
                case .oneline:
                    try forEachCommit(in: mirror, filter) { output.line(CommitRendering.oneline($0)) }
                case .json, .ndjson, .csv:
                    records?.begin()
                    try forEachCommit(in: mirror, filter) { records?.append($0) }
                    if start == nil { records?.end() }
                }
                guard let start else { return }
                output.flush()
                try mirror.follow(filter, after: start, interval: .milliseconds(100), isStopped: { false }) { arrived in
                    switch format {
                    case .table:
                        for line in CommitRendering.table(arrived, width: Terminal.outputWidth) { output.line(line) }
                    case .oneline:
                        for commit in arrived { output.line(CommitRendering.oneline(commit)) }
                    case .json, .ndjson, .csv:
                        for commit in arrived { records?.append(commit) }
                    }
                    output.flush()
                }
            }
        }

        /// Streams unless --reverse needs the whole result first.
        private func forEachCommit(
            in mirror: any MirrorReading, _ filter: CommitFilter,
            _ body: (CommitSummary) throws -> Void
        ) throws {
            if reverse {
                for commit in try mirror.matchingCommits(filter).reversed() { try body(commit) }
            } else {
                try mirror.forEachCommit(matching: filter, body)
            }
        }
    }
}
