import ArgumentParser
import Foundation
import Logging
import MirrorCore

extension Commitsctl {
    struct Sync: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
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

        @Flag(help: "Show progress on stderr even when it is not a terminal (by default only a terminal gets progress, so cron mails only errors).")
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
                throw ValidationError("--branch \(BranchName.quoted(branch)) is not a valid branch name: \(problem); expected \(BranchName.expectedForm)")
            }
            if branch != nil && repository == nil {
                throw ValidationError("--branch needs a repository; configured repositories take their branch from the configuration file")
            }
        }

        func run() async throws {
            try await reportingErrors {
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
                        expected: "OWNER/REPO, or --config PATH (or $COMMITS_MIRROR_CONFIG), or \(MirrorConfiguration.systemPath); see config/commits-mirror.example.yaml")
                }
                var clientConfiguration = GitHubClient.Configuration(apiURL: settings.apiURL, token: try settings.resolveToken(github: github))
                clientConfiguration.waitForRateLimit = wait
                clientConfiguration.rateLimitReserve = configuration?.rateLimitReserve ?? 0
                let client = try GitHubClient(configuration: clientConfiguration, logger: logger)
                let mirror = try MirrorStore(path: settings.storePath)
                reportUpgrade(of: mirror)
                let textfile = metricsTextfile.map(MetricsTextfile.init(path:))
                let recorder = textfile.map {
                    SyncMetricsRecorder(metrics: $0.metrics, client: client, token: clientConfiguration.token?.source ?? "none")
                }
                defer {
                    if let textfile, let recorder {
                        recorder.finish(store: mirror)
                        do { try textfile.write() } catch { printError("\(error)") }
                    }
                }

                if repository != nil {
                    // One repository: its error is the command's error (exit status as documented).
                    let lock = try RepositoryLock.acquire(storePath: settings.storePath, repository: targets[0].name)
                    defer { lock.release() }
                    print(try await recorder.measure(targets[0]) {
                        try await sync(targets[0], client: client, store: mirror, logger: logger)
                    }.summary)
                    return
                }
                throw ExitCode(try await syncAll(targets, storePath: settings.storePath, client: client, store: mirror,
                                                 logger: logger, recorder: recorder))
            }
        }

        private func sync(_ target: MirrorConfiguration.Repository, client: GitHubClient, store: MirrorStore,
                          logger: Logger) async throws -> SyncReport {
            let reporter = ProgressReporter(enabled: progress || Terminal.standardErrorIsTerminal)
            defer { reporter.finish() }
            let engine = SyncEngine(client: client, store: store, logger: logger, progress: reporter.report)
            return try await engine.sync(target.name, branch: target.branch)
        }

        /// Every configured repository once, in order; one line each. Returns the exit status.
        /// A rate limit (or the configuration's `rate_limit_reserve`, which the
        /// client keeps) ends the run: the rest would only be refused too.
        private func syncAll(_ targets: [MirrorConfiguration.Repository], storePath: String,
                             client: GitHubClient, store: MirrorStore, logger: Logger,
                             recorder: SyncMetricsRecorder?) async throws -> Int32 {
            var failed = 0
            var tryLater = 0
            for (index, target) in targets.enumerated() {
                do {
                    let lock = try RepositoryLock.acquire(storePath: storePath, repository: target.name)
                    defer { lock.release() }
                    print(try await recorder.measure(target) {
                        try await sync(target, client: client, store: store, logger: logger)
                    }.summary)
                } catch let error as RepositoryLockError {
                    if case .busy = error {
                        recorder?.record(target, outcome: .skipped)
                        printWarning("\(error)")
                        tryLater += 1
                    } else {
                        printError("\(target): \(error)")
                        failed += 1
                    }
                } catch let error as GitHubError where error.isRateLimit {
                    printError("\(target): \(error)")
                    tryLater += 1
                    let rest = targets[(index + 1)...].map(\.description)
                    if !rest.isEmpty { printWarning("not attempted (rate-limited): \(rest.joined(separator: ", "))") }
                    break
                } catch is CancellationError {
                    throw CancellationError()
                } catch {
                    printError("\(target): \(error)")
                    failed += 1
                }
            }
            if failed > 0 { return ExitStatus.failure }
            return tryLater > 0 ? ExitStatus.tryLater : 0
        }
    }
}
