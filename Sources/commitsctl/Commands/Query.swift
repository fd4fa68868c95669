import ArgumentParser
import Foundation
import MirrorCore

extension Commitsctl {
    /// Synchronous, so it reads on the main thread: an async command starts
    /// worker threads and a malloc arena of their own for a few milliseconds of
    /// reading.
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

        @Option(Options.author) var author: [String]
        @Option(Options.committer) var committer: [String]
        @Option(Options.coAuthor) var coAuthor: [String]
        @Option(Options.grep) var grep: [String]
        @Flag(Options.allMatch) var allMatch: Bool
        @Flag(Options.invertGrep) var invertGrep: Bool
        @Flag(Options.ignoreCase) var ignoreCase: Bool
        @Flag(Options.noMerges) var noMerges: Bool
        @Flag(Options.merges) var merges: Bool
        @Option(Options.since) var since: String?
        @Option(Options.until) var until: String?
        @Option(Options.mailmap) var mailmap: String?
        @Flag(Options.follow) var follow: Bool

        @OptionGroup var repository: RepositoryFilterOptions

        @Option(Options.branch) var branch: [String]
        @Option(Options.limit) var limit: Int?
        @Flag(Options.reverse) var reverse: Bool
        @Flag(Options.includeRewritten) var includeRewritten: Bool
        @Option(Options.format) var format: OutputFormat
        @Flag(Options.fullHistory) var fullHistory: Bool
        @Flag(Options.firstParent) var firstParent: Bool
        @Option(Options.pullRequest) var pullRequest: Int?
        @Argument(help: Options.revisionsHelp) var revisionsOrPaths: [String] = []
        /// What followed `--`, every one a path: `GitLogArguments` passes each as `--path PATH`.
        @Option(Options.path, parsing: .unconditionalSingleValue) var paths: [String]

        @OptionGroup var pager: PagerOptions

        /// `--config`, declared by `StoreOptions` so every store-opening command has it.
        var config: ConfigOptions { store.configuration }

        @OptionGroup var store: StoreOptions

        func validate() throws {
            if let limit, limit < 0 { throw ValidationError("--limit must be 0 or more, not \(limit)") }
            if let pullRequest, pullRequest < 1 { throw ValidationError("--pr is a pull request's number, 1 or more, not \(pullRequest)") }
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
            if !paths.isEmpty || !revisionsOrPaths.isEmpty || pullRequest != nil {
                if follow {
                    throw ValidationError("--follow cannot follow revisions, paths or --pr yet; give them or --follow, not both")
                }
            }
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
                try restrictToRevisionsAndPaths(&filter, in: mirror)
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

        /// With revisions, narrows `filter` to what `git log A..B` lists; with paths,
        /// to what `git log -- PATH…` lists, and says how many commits of the
        /// walked histories have no stored paths yet.
        private func restrictToRevisionsAndPaths(_ filter: inout CommitFilter, in mirror: any MirrorReading) throws {
            let (revisions, leadingPaths) = try RevisionArguments.split(revisionsOrPaths, filter: filter, in: mirror)
            var selection = try RevisionArguments.restrict(&filter, to: revisions, in: mirror)
            if let pullRequest {
                // Within the revisions too, when both are given: filter.commitIDs keeps what both select.
                selection = try PullRequestQuery.restrict(&filter, toPullRequest: pullRequest, in: mirror)
            }
            let allPaths = leadingPaths + paths
            guard !allPaths.isEmpty else { return }
            let simplification: HistorySimplification = firstParent ? .firstParent : fullHistory ? .fullHistory : .simplified
            try PathArguments.restrict(
                &filter, to: allPaths, simplification: simplification, within: selection, in: mirror, leftOut: "not listed")
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
