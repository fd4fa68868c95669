import ArgumentParser
import Foundation
import Logging
import MirrorCore

extension Commitsctl {
    struct Sync: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "sync",
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

        @Argument(help: "The repository to mirror, as OWNER/NAME (default: every repository in the configuration file).")
        var repository: String?

        @Option(help: "The branch to mirror (default: the repository's default branch).")
        var branch: String?

        @Flag(help: "When the API rate limit is exhausted, wait for its reset instead of exiting with status 75.")
        var wait = false

        @Option(help: "Log level for diagnostics on stderr (trace, debug, info, notice, warning, error, critical).")
        var logLevel: Logger.Level = .error

        @Flag(
            help:
                "Show progress on stderr even when it is not a terminal (by default only a terminal gets progress, so cron mails only errors)."
        )
        var progress = false

        @Option(help: "After the run, write its metrics (Prometheus text) to this file atomically, for node_exporter's textfile collector.")
        var metricsTextfile: String?

        @OptionGroup var store: StoreOptions
        /// `--config`, declared by `StoreOptions` so every store-opening command has it.
        var config: ConfigOptions { store.configuration }
        @OptionGroup var github: GitHubOptions

        func validate() throws {
            if let repository, RepositoryName(parsing: repository) == nil {
                throw ValidationError("'\(repository)' is not a repository name; expected \(RepositoryName.expectedForm)")
            }
            if let branch, branch.isEmpty { throw ValidationError("--branch must not be empty") }
            if let branch, let problem = BranchName.problem(with: branch) {
                throw ValidationError(
                    "--branch \(BranchName.quoted(branch)) is not a valid branch name: \(problem); expected \(BranchName.expectedForm)")
            }
            if branch != nil && repository == nil {
                throw ValidationError("--branch needs a repository; configured repositories take their branch from the configuration file")
            }
        }

        func run() async throws {
            try await reportingErrors {
                SyncInterruption.install()
                let logger = makeCommandLogger(level: logLevel)
                let configuration = try config.load(systemDefault: repository == nil)
                let settings = ResolvedSettings(configuration: configuration, store: store, github: github)
                let targets: [MirrorConfiguration.Repository]
                if let repository {
                    targets = [.init(name: RepositoryName(parsing: repository)!, branch: branch)]
                } else if let configuration {
                    targets = configuration.repositories
                } else {
                    throw ConfigurationError(
                        file: "", problem: "no repository given and no configuration file found",
                        expected:
                            "OWNER/REPO, or --config PATH (or $COMMITS_MIRROR_CONFIG), or \(MirrorConfiguration.systemPath); see config/commits-mirror.example.yaml"
                    )
                }
                var clientConfiguration = GitHubClient.Configuration(
                    apiURL: try settings.checkedAPIURL(), token: try settings.resolveToken(github: github))
                clientConfiguration.waitForRateLimit = wait
                clientConfiguration.rateLimitReserve = configuration?.rateLimitReserve ?? 0
                let client = try GitHubClient(configuration: clientConfiguration, logger: logger)
                // Opened once up front: an upgrade is reported, and a bad store fails before any request.
                reportUpgrade(of: try MirrorStore(path: settings.storePath))
                let sync = RepositorySync(storePath: settings.storePath, client: client, logger: logger, holder: "commitsctl")
                let textfile = metricsTextfile.map(MetricsTextfile.init(path:))
                let recorder = textfile.map {
                    SyncMetricsRecorder(metrics: $0.metrics, client: client, token: clientConfiguration.token?.source ?? "none")
                }
                defer {
                    if let textfile, let recorder {
                        recorder.finish(storePath: settings.storePath)
                        do { try textfile.write() } catch { printError("\(error)") }
                    }
                }

                if repository != nil {
                    // One repository: its error is the command's error (exit status as documented).
                    switch await run(sync, targets[0], recorder) {
                    case .synced(let report): print(report.summary)
                    case .skipped(let holder): throw RepositoryLockError.busy(repository: targets[0].name, holder: holder)
                    case .rateLimited(let error, _): throw error
                    case .interrupted: throw CancellationError()
                    case .failed(let failure): throw failure.error
                    }
                    return
                }
                throw ExitCode(await syncAll(targets, sync, recorder))
            }
        }

        private func run(
            _ sync: RepositorySync, _ target: MirrorConfiguration.Repository,
            _ recorder: SyncMetricsRecorder?
        ) async -> RepositorySync.Outcome {
            let reporter = ProgressReporter(enabled: progress || Terminal.standardErrorIsTerminal)
            defer { reporter.finish() }
            let started = ContinuousClock.now
            let outcome = await sync.run(target.name, branch: target.branch, progress: reporter.report)
            recorder?.record(target, outcome, duration: ContinuousClock.now - started)
            return outcome
        }

        /// Every configured repository once, in order; one line each. Returns the exit status.
        /// A rate limit (or the configuration's `rate_limit_reserve`, which the
        /// client keeps) ends the run: the rest would only be refused too.
        private func syncAll(
            _ targets: [MirrorConfiguration.Repository], _ sync: RepositorySync,
            _ recorder: SyncMetricsRecorder?
        ) async -> Int32 {
            var failed = 0
            var tryLater = 0
            targets: for (index, target) in targets.enumerated() {
                switch await run(sync, target, recorder) {
                case .synced(let report):
                    print(report.summary)
                case .skipped(let holder):
                    printWarning("\(RepositoryLockError.busy(repository: target.name, holder: holder))")
                    tryLater += 1
                case .rateLimited(let error, _):
                    printError("\(target): \(Advice.line(for: error))")
                    tryLater += 1
                    let rest = targets[(index + 1)...].map(\.description)
                    if !rest.isEmpty { printWarning("not attempted (rate-limited): \(rest.joined(separator: ", "))") }
                    break targets
                case .interrupted:
                    return 130
                case .failed(let failure):
                    printError("\(target): \(Advice.line(for: failure.error))")
                    failed += 1
                }
            }
            if failed > 0 { return ExitStatus.failure }
            return tryLater > 0 ? ExitStatus.tryLater : 0
        }
    }
}
