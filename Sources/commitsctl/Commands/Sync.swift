import ArgumentParser
import Foundation
import Logging
import MirrorCore

extension Commitsctl {
    struct Sync: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Mirror a repository's branch once, then print a one-line summary.",
            discussion: "The token comes from $GITHUB_TOKEN or $GH_TOKEN; it is never accepted on the command line."
        )

        @Argument(help: "The repository to mirror, as OWNER/NAME.")
        var repository: String

        @Option(help: "The branch to mirror (default: the repository's default branch).")
        var branch: String?

        @Flag(help: "When the API rate limit is exhausted, wait for its reset instead of exiting with status 75.")
        var wait = false

        @Option(help: "Log level for diagnostics on stderr (trace, debug, info, notice, warning, error, critical).")
        var logLevel: Logger.Level = .warning

        @OptionGroup var store: StoreOptions
        @OptionGroup var github: GitHubOptions

        func validate() throws {
            guard RepositoryName(parsing: repository) != nil else {
                throw ValidationError("'\(repository)' is not a repository name; expected \(RepositoryName.expectedForm)")
            }
            if let branch, branch.isEmpty { throw ValidationError("--branch must not be empty") }
        }

        func run() async throws {
            try await reportingErrors {
                let name = RepositoryName(parsing: repository)!
                let logger = makeCommandLogger(level: logLevel)
                var configuration = GitHubClient.Configuration(apiURL: github.resolvedAPIURL, token: GitHubToken.fromEnvironment())
                configuration.waitForRateLimit = wait
                let client = try GitHubClient(configuration: configuration, logger: logger)
                let mirror = try MirrorStore(path: store.resolvedPath)
                let reporter = ProgressReporter()
                let engine = SyncEngine(client: client, store: mirror, logger: logger, progress: reporter.report)
                let report = try await engine.sync(name, branch: branch)
                reporter.finish()
                print(report.summary)
            }
        }
    }
}
