import ArgumentParser
import Foundation
import Logging
import MirrorCore

extension Commitsctl {
    struct Sync: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "sync",
            _superCommandName: Commitsctl.name,
            abstract: "Mirror a repository's branch once (or every configured repository), printing a one-line summary each.",
            discussion: """
                Without OWNER/REPO, syncs every repository in the configuration file once (cron style). \
                The token comes from --token-file, $GITHUB_TOKEN, $GH_TOKEN, the systemd credential \
                github-token, then the configuration's token_file; it is never accepted on the command line. \
                A repository another process is syncing right now is skipped, not waited for. \
                Exit status: 0 all synced; 1 some failed; 2 bad configuration; 64 bad arguments; \
                75 try again later (rate-limited, store busy, or a repository was skipped because another \
                process was syncing it).
                """
        )

        @Argument(
            help:
                "The repository to mirror, as OWNER/NAME, or an owner's repositories as OWNER/* or a glob such as OWNER/swift-* (default: every repository in the configuration file)."
        )
        var repository: String?

        @Flag(help: "Let patterns (OWNER/*) select forks too (default: the configuration's include_forks, else no).")
        var includeForks = false

        @Flag(help: "Let patterns (OWNER/*) select archived repositories too (default: the configuration's include_archived, else no).")
        var includeArchived = false

        @Option(
            help: ArgumentHelp(
                "A branch to mirror, or a glob such as 'release/*' (repeatable; default: the repository's default branch). Each branch is mirrored exactly on its own; commits they share are stored once.",
                valueName: "branch"))
        var branch: [String] = []

        @Flag(help: "Mirror every branch of the repository, each exactly on its own (listed once per run).")
        var allBranches = false

        @Flag(help: "When the API rate limit is exhausted, wait for its reset instead of exiting with status 75.")
        var wait = false

        @Option(help: "Log level for diagnostics on stderr (trace, debug, info, notice, warning, error, critical).")
        var logLevel: Logger.Level = .error

        @Flag(
            help:
                "Show progress on stderr even when it is not a terminal (by default only a terminal gets progress, so cron mails only errors)."
        )
        var progress = false

        @Flag(
            help:
                "Read every history over the REST API only, even a long first sync (default: the configuration's git_bootstrap, else over git)."
        )
        var noGitBootstrap = false

        @Flag(
            help:
                "Also record each repository's pull requests when its default branch is synced (default: the configuration's pull_requests, else not)."
        )
        var pullRequests = false

        @Flag(
            help:
                "After each branch is synced, read the changed paths its stored commits lack over git (one blobless fetch of the branch)."
        )
        var paths = false

        @Option(help: "After the run, write its metrics (Prometheus text) to this file atomically, for node_exporter's textfile collector.")
        var metricsTextfile: String?

        @OptionGroup var store: StoreOptions
        /// `--config`, declared by `StoreOptions` so every store-opening command has it.
        var config: ConfigOptions { store.configuration }
        @OptionGroup var github: GitHubOptions

        func validate() throws {
            if paths && noGitBootstrap { throw ValidationError("--paths reads over git, which --no-git-bootstrap turns off; give one") }
            if let repository, repository.contains("*"), let problem = RepositoryPattern.problem(with: repository) {
                throw ValidationError(
                    "'\(repository)' is not a repository pattern: \(problem); expected \(RepositorySelector.expectedForm)")
            }
            if let repository, RepositorySelector(parsing: repository) == nil {
                throw ValidationError("'\(repository)' is not a repository name; expected \(RepositoryName.expectedForm)")
            }
            if case .repository? = repository.flatMap(RepositorySelector.init(parsing:)), includeForks || includeArchived {
                throw ValidationError(
                    "--include-forks and --include-archived apply to patterns such as OWNER/*; a repository named on its own is always mirrored"
                )
            }
            let flag = branch.isEmpty ? "--all-branches" : "--branch"
            if case .pattern? = repository.flatMap(RepositorySelector.init(parsing:)), !branch.isEmpty || allBranches {
                throw ValidationError("\(flag) needs a single repository; a pattern mirrors each repository's default branch")
            }
            if !branch.isEmpty || allBranches, repository == nil {
                throw ValidationError(
                    "\(flag) needs a repository; configured repositories take their branches from the configuration file")
            }
            if allBranches, !branch.isEmpty {
                throw ValidationError("--all-branches mirrors every branch: give it without --branch")
            }
            var seen: Set<String> = []
            for name in branch {
                if name.isEmpty { throw ValidationError("--branch must not be empty") }
                if !name.contains("*"), let problem = BranchName.problem(with: name) {
                    throw ValidationError(
                        "--branch \(BranchName.quoted(name)) is not a valid branch name: \(problem); expected \(BranchName.expectedForm)")
                }
                if let problem = BranchPattern.problem(with: name) {
                    throw ValidationError(
                        "--branch \(BranchName.quoted(name)) is not a branch glob: \(problem); expected \(BranchPattern.expectedForm)")
                }
                if !seen.insert(name).inserted { throw ValidationError("--branch \(BranchName.quoted(name)) is given twice") }
            }
        }

        func run() async throws {
            try await reportingErrors {
                SyncInterruption.install()
                // libcurl loads while the configuration is read and the store opened.
                GitHubClient.loadHTTPLibraryInBackground()
                defer { GitHubClient.waitForHTTPLibrary() }
                let logger = makeCommandLogger(level: logLevel)
                let configuration = try config.load(systemDefault: repository == nil)
                let settings = try ResolvedSettings(configuration: configuration, store: store, github: github)
                var (targets, selections) = try namedTargets(configuration)
                let clientConfiguration = try self.clientConfiguration(settings, configuration)
                let holds = try TestHolds()
                // Opened once up front: an upgrade is reported, and a bad store fails before any
                // request; libcurl loads meanwhile.
                let store = try settings.store.openSyncWriter()
                reportUpgrade(of: store)
                let client = try GitHubClient(configuration: clientConfiguration, logger: logger)
                // What the token spent, for `commitsctl status --requests` (through the same
                // connection: an idle poll opens the store once more, not twice).
                var ledger = RequestLedger(store: settings.store, client: client)
                defer {
                    do { try ledger.write(client, into: store) } catch { printWarning("could not record the requests spent: \(error)") }
                }
                let sync = repositorySync(settings, configuration, holds, client: client, logger: logger)
                let textfile = metricsTextfile.map(MetricsTextfile.init(path:))
                let recorder = textfile.map {
                    SyncMetricsRecorder(metrics: $0.metrics, client: client)
                }
                defer {
                    if let textfile, let recorder {
                        recorder.finish(store: settings.store)
                        do { try textfile.write() } catch { printError("\(error)") }
                    }
                }

                var listings = BranchListings(store: store)
                defer { listings.keep() }
                if case .repository(let name)? = repository.flatMap(RepositorySelector.init(parsing:)), let branchSelection {
                    targets = try await branchTargets(
                        name, branchSelection, client: client, store: settings.store, sync: sync, listings: &listings)
                }
                if repository != nil, selections.isEmpty, targets.count == 1 {
                    // One repository: its error is the command's error (exit status as documented).
                    switch await run(sync, targets[0], listings, recorder, mirrorRemoved: true) {
                    case .synced(let report): print(report.summary)
                    case .skipped(let holder): throw RepositoryLockError.busy(repository: targets[0].name, holder: holder)
                    case .rateLimited(let error, _): throw error
                    case .interrupted: throw CancellationError()
                    case .removed: preconditionFailure("a repository named on the command line is synced even when removed")
                    case .stepEnded: preconditionFailure("commitsctl syncs without a page limit")
                    case .failed(let failure): throw failure.error
                    }
                    return
                }
                let discovery = RepositoryDiscovery(store: settings.store, client: client, logger: logger)
                // Patterns with `branches:` select branches of each repository they select.
                let patternEntries = repository == nil ? configuration?.patterns ?? [] : []
                var patternGlobs: [MirrorConfiguration.BranchGlobs] = []
                var tally = await discover(selections, discovery, patternEntries, into: &targets, globs: &patternGlobs)
                if !tally.stop, repository == nil, let configuration {
                    await discoverBranches(
                        configuration.branchGlobs + patternGlobs, client: client, store: settings.store, sync: sync,
                        into: &targets, listings: &listings, tally: &tally)
                }
                if !tally.stop {
                    // Branches of a repository named on the command line are synced even when it was removed.
                    await syncAll(targets, sync, listings, recorder, mirrorRemoved: repository != nil, tally: &tally)
                }
                throw ExitCode(tally.status)
            }
        }

        /// How each repository is synced: over git or not, which paths, tags and backfills,
        /// as the configuration and the command line say.
        private func repositorySync(
            _ settings: ResolvedSettings, _ configuration: MirrorConfiguration?, _ holds: TestHolds,
            client: GitHubClient, logger: Logger
        ) -> RepositorySync {
            let overGit = !noGitBootstrap && configuration?.gitBootstrap != false
            var bootstrap = GitBootstrap(pauseAfterFirstBatch: holds.gitPause)
            bootstrap.readsChanges = configuration?.paths != false
            var sync = RepositorySync(
                store: settings.store, client: client, logger: logger, holder: "commitsctl", gitBootstrap: overGit ? bootstrap : nil)
            sync.heldBatches = holds.heldBatches
            if paths { sync.pathBackfillMinimum = 1 }
            sync.tags = { configuration?.tagSelection(for: $0) ?? .all }
            sync.paths = { configuration?.readsPaths(of: $0) ?? true }
            sync.pullRequests = { [pullRequests] in pullRequests || configuration?.readsPullRequests(of: $0) == true }
            return sync
        }

        /// The pauses tests ask for, read before the store is touched so a bad value changes nothing.
        private struct TestHolds {
            let heldBatches: Duration?
            let gitPause: Duration?

            init() throws {
                heldBatches = try EnvironmentVariables.process.testSeconds(TestTimings.batchSeconds).map { .seconds($0) }
                gitPause = try EnvironmentVariables.process.testSeconds(TestTimings.gitPauseSeconds).map { .seconds($0) }
            }
        }

        /// The repositories to sync as the command line or else the configuration names
        /// them, and the patterns to discover more by.
        private func namedTargets(
            _ configuration: MirrorConfiguration?
        ) throws -> ([MirrorConfiguration.Repository], [RepositoryDiscovery.Selection]) {
            switch repository.flatMap(RepositorySelector.init(parsing:)) {
            case .repository(let name)?:
                // Globs and --all-branches are expanded once the client exists (below).
                return (branch.isEmpty ? [.init(name: name)] : branch.map { .init(name: name, branch: $0) }, [])
            case .pattern(let pattern)?:
                let selection = RepositoryDiscovery.Selection(
                    pattern: pattern, includeForks: includeForks || configuration?.includeForks == true,
                    includeArchived: includeArchived || configuration?.includeArchived == true)
                return ([], [selection])
            case nil:
                guard let configuration else {
                    throw ConfigurationError(
                        file: "", problem: "no repository given and no configuration file found",
                        expected:
                            "OWNER/REPO, or --config PATH (or $COMMITS_MIRROR_CONFIG), or \(MirrorConfiguration.systemPath); see config/commits-mirror.example.yaml"
                    )
                }
                let selections: [RepositoryDiscovery.Selection] = configuration.patterns.map { entry in
                    let includes = configuration.includes(for: entry)
                    return .init(
                        pattern: entry.pattern, includeForks: includeForks || includes.forks,
                        includeArchived: includeArchived || includes.archived)
                }
                return (configuration.repositories, selections)
            }
        }

        private func clientConfiguration(
            _ settings: ResolvedSettings, _ configuration: MirrorConfiguration?
        ) throws -> GitHubClient.Configuration {
            let credentials = try settings.resolveCredentials(github: github)
            var clientConfiguration = GitHubClient.Configuration(
                apiURL: try settings.checkedAPIURL(), token: credentials.token, app: credentials.app)
            clientConfiguration.waitForRateLimit = wait
            clientConfiguration.rateLimitReserve = configuration?.rateLimitReserve ?? 0
            if let timeout = configuration?.requestTimeout { clientConfiguration.stallTimeout = timeout }
            return clientConfiguration
        }

        /// How a run went: failures and repositories to try later, for the exit status.
        struct Tally {
            var failed = 0
            var tryLater = 0
            var interrupted = false
            /// A rate limit (or an interruption) ended the run early.
            var stop = false

            var status: Int32 {
                if interrupted { return 130 }
                if failed > 0 { return ExitStatus.failure }
                return tryLater > 0 ? ExitStatus.tryLater : 0
            }

            /// The App got no token: every other repository would fail the same way
            /// (`GitHubApp.failureMemory`), so the run ends on this one line.
            mutating func stopForCredentials(_ error: GitHubAppError, of target: String) {
                printError("\(target): \(Advice.line(for: error))")
                failed += 1
                stop = true
            }
        }

        /// Lists each owner the patterns name, once, printing one line per owner, and
        /// adds the repositories they select to `targets` (a repository already there stays as given),
        /// or, for a pattern of `entries` with `branches:`, the repository's branch globs to `globs`.
        private func discover(
            _ selections: [RepositoryDiscovery.Selection], _ discovery: RepositoryDiscovery,
            _ entries: [MirrorConfiguration.Pattern],
            into targets: inout [MirrorConfiguration.Repository], globs: inout [MirrorConfiguration.BranchGlobs]
        ) async -> Tally {
            var tally = Tally()
            var owners: [String] = []
            for selection in selections where !owners.contains(where: { $0.lowercased() == selection.pattern.owner.lowercased() }) {
                owners.append(selection.pattern.owner)
            }
            var known = Set(targets.map { $0.name.description.lowercased() })
            for (index, owner) in owners.enumerated() {
                let patterns = selections.filter { $0.pattern.owner.lowercased() == owner.lowercased() }
                let label = patterns.map(\.pattern.description).joined(separator: ", ")
                do {
                    let outcome = try await discovery.discover(owner: owner, selections: patterns)
                    print(outcome.summary(patterns: label))
                    for gone in outcome.gone { printWarning("\(gone.name) is gone (\(gone.reason)); its history is kept") }
                    for selected in outcome.selected where known.insert(selected.name.description.lowercased()).inserted {
                        let pattern = patterns[selected.selection].pattern
                        if let branchGlobs = entries.first(where: { $0.pattern == pattern })?.branchGlobs(of: selected.name) {
                            globs.append(branchGlobs)
                        } else {
                            targets.append(.init(name: selected.name))
                        }
                    }
                } catch is CancellationError {
                    tally.interrupted = true
                    tally.stop = true
                    return tally
                } catch let error as GitHubError where error.isRateLimit {
                    printError("\(label): \(Advice.line(for: error))")
                    let rest = owners[(index + 1)...].map { "\($0)/…" } + targets.map(\.description)
                    if !rest.isEmpty { printWarning("not attempted (rate-limited): \(rest.joined(separator: ", "))") }
                    tally.tryLater += 1
                    tally.stop = true
                    return tally
                } catch let error as GitHubAppError {
                    tally.stopForCredentials(error, of: label)
                    return tally
                } catch {
                    printError("\(label): \(Advice.line(for: error))")
                    tally.failed += 1
                }
            }
            return tally
        }

        private func run(
            _ sync: RepositorySync, _ target: MirrorConfiguration.Repository, _ listings: BranchListings,
            _ recorder: SyncMetricsRecorder?, mirrorRemoved: Bool = false
        ) async -> RepositorySync.Outcome {
            let reporter = ProgressReporter(enabled: progress || Terminal.standardErrorIsTerminal)
            defer { reporter.finish() }
            let started = ContinuousClock.now
            let outcome = await sync.run(
                target.name, branch: target.branch, listedHead: listings.listedHead(of: target), mirrorRemoved: mirrorRemoved,
                progress: reporter.report)
            recorder?.record(target, outcome, duration: ContinuousClock.now - started)
            return outcome
        }

        /// Every target once, in order; one line each, counted into `tally`.
        /// A rate limit (or the configuration's `rate_limit_reserve`, which the
        /// client keeps) ends the run: the rest would only be refused too.
        private func syncAll(
            _ targets: [MirrorConfiguration.Repository], _ sync: RepositorySync, _ listings: BranchListings,
            _ recorder: SyncMetricsRecorder?, mirrorRemoved: Bool = false, tally: inout Tally
        ) async {
            targets: for (index, target) in targets.enumerated() {
                switch await run(sync, target, listings, recorder, mirrorRemoved: mirrorRemoved) {
                case .synced(let report):
                    print(report.summary)
                case .skipped(let holder):
                    printWarning("\(RepositoryLockError.busy(repository: target.name, holder: holder))")
                    tally.tryLater += 1
                case .rateLimited(let error, _):
                    printError("\(target): \(Advice.line(for: error))")
                    tally.tryLater += 1
                    let rest = targets[(index + 1)...].map(\.description)
                    if !rest.isEmpty { printWarning("not attempted (rate-limited): \(rest.joined(separator: ", "))") }
                    break targets
                case .removed:
                    printWarning(
                        "\(target.name) was removed from mirroring (commitsctl repos remove); skipped it: take it out of the configuration, or `commitsctl sync \(target.name)` to mirror it again"
                    )
                case .interrupted:
                    tally.interrupted = true
                    return
                case .stepEnded:
                    preconditionFailure("commitsctl syncs without a page limit")
                case .failed(let failure):
                    if let error = failure.error as? GitHubAppError {
                        tally.stopForCredentials(error, of: target.description)
                        return
                    }
                    printError("\(target): \(Advice.line(for: failure.error))")
                    tally.failed += 1
                }
            }
        }
    }
}
