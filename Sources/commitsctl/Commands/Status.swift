import ArgumentParser
import Foundation
import MirrorCore

extension Commitsctl {
    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "status",
            _superCommandName: Commitsctl.name,
            abstract: "Show the sync state of every mirrored repository and branch.",
            discussion: """
                One row per repository and branch: commits mirrored, whether the history is known to be \
                complete, the repository's current tags, the head, the last attempt and success, the rate limit last seen and the last \
                error. With a configuration file, configured repositories that never synced are listed too. \
                The store is opened read-only, so status never waits for a running sync. With --requests: \
                the requests each token spent in the last hour (commitsd and commitsctl sync record them), \
                by kind, and the points they cost.
                """
        )

        @Option(help: "How to print the rows (json: an array of objects with snake_case keys).")
        var format: ReportFormat = .table

        @Flag(help: "The same as --format json (kept for scripts written before --format).")
        var json = false

        @Flag(help: "Show the requests each token spent in the last hour, by kind, instead of the repositories.")
        var requests = false

        @OptionGroup var store: StoreOptions
        /// `--config`, declared by `StoreOptions` so every store-opening command has it.
        var config: ConfigOptions { store.configuration }

        /// One row of `status`.
        struct Row {
            var repository: String
            var branch: String?
            var configured: Bool?
            var commits: Int
            var complete: Bool
            var headSHA: String?
            var headETag: String?
            var lastAttemptAt: String?
            var lastSuccessAt: String?
            var lastError: String?
            var rateLimitRemaining: Int?
            var rateLimitResetAt: String?
            var pendingWalks: Int
            /// `active`, `gone` or `removed`.
            var state = RepositoryState.active
            var stateReason: String?
            /// On a store daemons share (PostgreSQL): the daemon whose claim on the
            /// repository is not released, and when its lease ends (or ended).
            var heldBy: String?
            var leaseUntil: String?
            /// Of the repository's commits (every branch's), those whose changed paths are stored.
            var commitsWithPaths: Int?
            /// The repository's current tags (moved and deleted ones not counted).
            var tags: Int?
            /// The repository's pull requests (nil for a repository not in the store).
            var pullRequests: Int?

            /// json, ndjson and csv: every field always present (null when unknown), so scripts can rely
            /// on the shape. The order is docs/QUERY.md's, the one csv columns always had.
            static let fields = RecordFields<Row>([
                ("repository", { .string($0.repository) }),
                ("branch", { .optional($0.branch) }),
                ("configured", { $0.configured.map(JSONValue.bool) ?? .null }),
                ("commits", { .int($0.commits) }),
                ("complete", { .bool($0.complete) }),
                ("head_sha", { .optional($0.headSHA) }),
                ("head_etag", { .optional($0.headETag) }),
                ("last_attempt_at", { .optional($0.lastAttemptAt) }),
                ("last_success_at", { .optional($0.lastSuccessAt) }),
                ("last_error", { .optional($0.lastError) }),
                ("rate_limit_remaining", { $0.rateLimitRemaining.map(JSONValue.int) ?? .null }),
                ("rate_limit_reset_at", { .optional($0.rateLimitResetAt) }),
                ("pending_walks", { .int($0.pendingWalks) }),
                ("state", { .string($0.state.rawValue) }),
                ("state_reason", { .optional($0.stateReason) }),
                ("held_by", { .optional($0.heldBy) }),
                ("lease_until", { .optional($0.leaseUntil) }),
                ("repository_commits_with_paths", { $0.commitsWithPaths.map(JSONValue.int) ?? .null }),
                ("repository_tags", { $0.tags.map(JSONValue.int) ?? .null }),
                ("repository_pull_requests", { $0.pullRequests.map(JSONValue.int) ?? .null }),
            ])

            /// `acme/widgets@main: 5 commits, complete, head aaaa111, last success 2024-03-09T16:00:00Z`
            var oneline: String {
                var line = "\(repository)@\(branch ?? "(default)"): \(plural(commits, "commit")), "
                line += complete ? "complete" : pendingWalks > 0 ? "resuming" : "incomplete"
                if let headSHA { line += ", head \(headSHA.prefix(7))" }
                line += ", last success \(lastSuccessAt ?? "never")"
                if state != .active { line += ", \(state.rawValue)" + (stateReason.map { " (\($0))" } ?? "") }
                if let heldBy { line += ", held by \(heldBy) until \(leaseUntil ?? "?")" }
                if let lastError { line += ", last error: \(lastError)" }
                return TextCleaning.singleLine(line)
            }

            func withCounts(_ counts: RepositoryCounts) -> Row {
                var row = self
                (row.commitsWithPaths, row.tags) = (counts.paths[repository] ?? 0, counts.tags[repository] ?? 0)
                row.pullRequests = counts.pullRequests[repository] ?? 0
                return row
            }

            /// A branch deleted on GitHub (of a repository still there) shows as gone, saying since when.
            func withBranchGone(since date: String?) -> Row {
                guard let date, state == .active else { return self }
                var row = self
                row.state = .gone
                row.stateReason = "branch deleted on GitHub" + (date.isEmpty ? "" : " (since \(date))") + "; its commits are kept"
                return row
            }
        }

        func validate() throws {
            if json && format != .table && format != .json {
                throw ValidationError("--json is --format json; give one of --json and --format \(format.rawValue)")
            }
        }

        func run() async throws {
            try reportingErrors {
                let configuration = try config.load()
                let settings = try ResolvedSettings(configuration: configuration, store: store)
                if requests {
                    Self.printSpentRequests(
                        try settings.store.openCommitReader().spentRequestsInLastHour(), format: json ? .json : format)
                    return
                }
                let rows = try Self.rows(store: settings.store, configuration: configuration)
                let output = OutputWriter()
                defer { output.flush() }
                switch json ? .json : format {
                case .table:
                    break
                case .oneline:
                    for row in rows { output.line(row.oneline) }
                    return
                case .json, .ndjson, .csv:
                    RecordWriter.write(rows, fields: Row.fields, as: RecordFormat(json ? .json : format)!, to: output)
                    return
                }
                // Narrow terminals cut LAST ERROR, then leave out PULLS, TAGS, RATE LEFT, LAST ATTEMPT and HEAD (in --format json).
                // STATE only when some repository is gone or removed.
                let showState = rows.contains { $0.state != .active }
                var columns: [TextTable.Column] = [
                    .init(title: "REPOSITORY", flexible: true, minimumWidth: 16, isName: true), .init(title: "BRANCH"),
                    .init(title: "COMMITS", numeric: true), .init(title: "COMPLETE"),
                ]
                if showState { columns.append(.init(title: "STATE")) }
                // HELD BY only on a store daemons share, while one holds a claim.
                let showHolder = rows.contains { $0.heldBy != nil }
                if showHolder { columns.append(.init(title: "HELD BY")) }
                columns.append(.init(title: "TAGS", numeric: true, dropOrder: 0))
                // PULLS only once some repository's pull requests are recorded.
                let showPulls = rows.contains { ($0.pullRequests ?? 0) > 0 }
                if showPulls { columns.append(.init(title: "PULLS", numeric: true, dropOrder: -1)) }
                columns += [
                    .init(title: "HEAD", dropOrder: 3),
                    .init(title: "LAST SUCCESS"), .init(title: "LAST ATTEMPT", dropOrder: 2),
                    .init(title: "RATE LEFT", numeric: true, dropOrder: 1),
                    .init(title: "LAST ERROR", flexible: true, minimumWidth: 12),
                ]
                var table = TextTable(columns)
                for row in rows {
                    var cells = [
                        row.repository, row.branch ?? "(default)", String(row.commits),
                        row.complete ? "yes" : (row.pendingWalks > 0 ? "resuming" : "no"),
                    ]
                    if showState { cells.append(row.state.rawValue) }
                    if showHolder { cells.append(row.heldBy.map { "\($0) until \(row.leaseUntil ?? "?")" } ?? "-") }
                    cells.append(row.tags.map(String.init) ?? "-")
                    if showPulls { cells.append(row.pullRequests.map(String.init) ?? "-") }
                    table.append(
                        cells + [
                            row.headSHA.map { String($0.prefix(7)) } ?? "-",
                            row.lastSuccessAt ?? "never", row.lastAttemptAt ?? "never",
                            row.rateLimitRemaining.map(String.init) ?? "-", row.lastError ?? row.stateReason ?? "-",
                        ])
                }
                for line in table.render(width: Terminal.outputWidth) { output.line(line) }
            }
        }

        /// The store's sync state, plus configured repositories it has never synced.
        static func rows(store: StoreLocation, configuration: MirrorConfiguration?) throws -> [Row] {
            var states: [SyncState] = []
            // Repositories with commits but no sync yet (e.g. only imported).
            var unsynced: [(name: String, commits: Int)] = []
            var held: [SyncLease] = []
            var counts = RepositoryCounts()
            if try configuration == nil || store.exists() {
                let mirror = try store.openCommitReader()
                states = try mirror.allSyncStates()
                held = try mirror.heldClaims()
                counts = RepositoryCounts(
                    paths: try mirror.commitsWithPaths(), tags: try mirror.tagCounts(), pullRequests: try mirror.pullRequestCounts())
                let names = Set(states.map { $0.repository.lowercased() })
                for repository in try mirror.repositories() where !names.contains(repository.name.description.lowercased()) {
                    unsynced.append((repository.name.description, try mirror.commitCount(repositoryID: repository.id)))
                }
            }
            let named = Set(
                ((configuration?.repositories.map(\.name) ?? []) + (configuration?.branchGlobs.map(\.name) ?? [])).map {
                    $0.description.lowercased()
                })
            // Named in the file, or selected by one of its patterns (OWNER/*).
            let configured = { (repository: String) in
                named.contains(repository.lowercased())
                    || RepositoryName(parsing: repository).map { name in
                        configuration?.patterns.contains { $0.pattern.matches(name) } == true
                    } == true
            }
            var rows = states.map { state in
                Row(
                    repository: state.repository, branch: state.branch,
                    configured: configuration.map { _ in configured(state.repository) },
                    commits: state.commits, complete: state.complete, headSHA: state.headSHA, headETag: state.headETag,
                    lastAttemptAt: state.lastAttemptAt, lastSuccessAt: state.lastSuccessAt, lastError: state.lastError,
                    rateLimitRemaining: state.rateLimitRemaining, rateLimitResetAt: state.rateLimitResetAt,
                    pendingWalks: state.pendingWalks, state: state.repositoryState, stateReason: state.stateReason
                )
                .withBranchGone(since: state.branchGoneSince)
                .withCounts(counts)
            }
            for repository in unsynced {
                rows.append(
                    Row(
                        repository: repository.name,
                        configured: configuration.map { _ in configured(repository.name) },
                        commits: repository.commits, complete: false, pendingWalks: 0
                    ).withCounts(counts))
            }
            let seen = Set(states.map { $0.repository.lowercased() } + unsynced.map { $0.name.lowercased() })
            for repository in configuration?.repositories ?? [] where !seen.contains(repository.name.description.lowercased()) {
                rows.append(
                    Row(
                        repository: repository.name.description, branch: repository.branch, configured: true,
                        commits: 0, complete: false, pendingWalks: 0))
            }
            return withHolders(rows, held: held)
        }

        /// The rows with who holds each repository's claim (plus a row for each one
        /// claimed before it has any other), on a store whose queue
        /// daemons on several hosts share (none on a SQLite store: one host's claims are its own).
        static func withHolders(_ rows: [Row], held claims: [SyncLease]) -> [Row] {
            let held = Dictionary(claims.map { ($0.target.repository.description.lowercased(), $0) }, uniquingKeysWith: { $1 })
            // A repository claimed before its first sync wrote anything is listed all the same.
            let listed = Set(rows.map { $0.repository.lowercased() })
            let unlisted = held.filter { !listed.contains($0.key) }.values.sorted { $0.target.description < $1.target.description }
            let claimedOnly = unlisted.map {
                Row(repository: $0.target.repository.description, commits: 0, complete: false, pendingWalks: 0)
            }
            return (rows + claimedOnly).map { row in
                var row = row
                if let lease = held[row.repository.lowercased()] {
                    row.heldBy = lease.owner
                    row.leaseUntil = ISO8601Timestamp.format(lease.expiresAt)
                }
                return row
            }
        }
    }
}

/// What `status` counts per repository (by its full name) beside its sync state.
struct RepositoryCounts {
    var paths: [String: Int] = [:]
    var tags: [String: Int] = [:]
    var pullRequests: [String: Int] = [:]
}
