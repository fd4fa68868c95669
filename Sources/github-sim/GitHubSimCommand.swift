// github-sim: serves GitHub's commit endpoints on loopback for tests, demos and benchmarks.
// Prints the base URL as its only stdout line, then runs until SIGTERM or SIGINT.

import ArgumentParser
import Foundation
import GitHubSim

@main
struct GitHubSimCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "github-sim",
        abstract: "Imitate api.github.com's commit endpoints, and git's smart HTTP, on a local port.",
        discussion: """
            Repository ids are 1001, 1002, … in the order: every --dataset, then every --git-repository, \
            then every --synthetic, then every --empty. The base URL is printed as the only line on stdout; diagnostics go to stderr.
            """)

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on; 0 picks a free one.")
    var port = 0

    @Option(
        name: .customLong("dataset"),
        help: ArgumentHelp("Serve a JSON Lines dataset (optionally gzip'd) as a repository.", valueName: "OWNER/NAME=PATH"))
    var datasets: [String] = []

    @Option(
        name: .customLong("git-repository"),
        help: ArgumentHelp(
            "Serve a git repository on disk (bare or not; read with git from PATH) with all its branches, over REST and git; "
                + "its HEAD names the default branch.",
            valueName: "OWNER/NAME=PATH"))
    var gitRepositories: [String] = []

    @Option(
        name: .customLong("synthetic"),
        help: ArgumentHelp(
            "Serve a generated history of COMMITS commits from SEED (default 1), shaped simple (default) or realistic.",
            valueName: "OWNER/NAME=COMMITS[:SEED[:SHAPE]]"))
    var synthetic: [String] = []

    @Option(
        name: .customLong("synthetic-tags-every"),
        help: ArgumentHelp(
            "Give every --synthetic history a release tag every N first-parent commits (every third annotated, "
                + "some on side commits); 0, the default, for none.",
            valueName: "N"))
    var syntheticTagsEvery = 0

    @Option(
        name: .customLong("empty"),
        help: ArgumentHelp("Serve a repository with no commits (its list endpoint answers 409).", valueName: "OWNER/NAME"))
    var empty: [String] = []

    @Option(help: "Requests per window for each token.")
    var authenticatedLimit = 5000

    @Option(help: "Requests per window for each client address without a token.")
    var unauthenticatedLimit = 60

    @Option(help: "Length of the rate-limit window in seconds.")
    var rateWindowSeconds = 3600

    @Option(help: "A file with one accepted token per line; other tokens get 401 (tokens never go on the command line).")
    var tokensFile: String?

    @Option(help: "App mode: the GitHub App's id; its JWTs mint installation tokens (needs --app-key-file and --app-installation).")
    var appID: Int?

    @Option(help: "App mode: the App's public key, or its private key (only the public half is used), as PEM.")
    var appKeyFile: String?

    @Option(
        name: .customLong("app-installation"),
        help: ArgumentHelp(
            "App mode: an installation of the App on an account; it sees all the account's repositories.", valueName: "ID=OWNER"))
    var appInstallations: [String] = []

    @Option(help: "App mode: how long an installation token lives, in seconds.")
    var appTokenLifetimeSeconds = 3600

    @Option(
        help: ArgumentHelp(
            "App mode, for tests: the App's clock is the wall clock plus the whole seconds this file holds, read at each use (commitsd follows the same file under $COMMITS_MIRROR_TEST_CLOCK_FILE).",
            valueName: "PATH"))
    var appClockFile: String?

    @Option(help: "App mode: requests per window for each installation.")
    var installationLimit = 5000

    @Option(help: "Milliseconds added to every answer, API and git alike (a network's round trip).")
    var latencyMs = 0

    @Option(
        help: ArgumentHelp(
            "Make every git request fail this way: \(GitFault.allCases.map(\.rawValue).joined(separator: ", ")).",
            valueName: "FAULT"))
    var gitFault: String?

    @Option(
        name: .customLong("head-back"),
        help: ArgumentHelp("Start with this repository's head moved back N first-parent steps.", valueName: "OWNER/NAME=N"))
    var headBack: [String] = []

    @Option(
        help: ArgumentHelp(
            "Point every clone_url to this git server instead (URL/OWNER/NAME.git), e.g. git http-backend serving the same repositories.",
            valueName: "URL"))
    var cloneURL: String?

    @Option(help: "Deliver a signed push webhook here whenever a head moves (and a ping on start), e.g. http://127.0.0.1:9465/webhook.")
    var webhookURL: String?

    @Option(help: "The file holding the webhook's secret (needed with --webhook-url; never on the command line).")
    var webhookSecretFile: String?

    @Option(
        help: ArgumentHelp(
            "Run this shell command against the simulator (GITHUB_API_URL is set), then stop and exit with its status.",
            valueName: "COMMAND"))
    var exec: String?

    func run() async throws {
        do {
            let plan = try LaunchPlan(command: self)
            let simulator = try GitHubSimulator(configuration: plan.configuration, repositories: plan.repositories)
            for move in plan.headMoves {
                try simulator.moveHead(owner: move.owner, name: move.name, back: move.steps)
            }
            simulator.setWebhook(plan.webhook)
            let signals = TerminationSignals()
            signals.install([SIGTERM, SIGINT])
            try await simulator.start()
            // An unbuffered write: whoever launched us reads this line to find the port.
            FileHandle.standardOutput.write(Data((simulator.baseURL + "\n").utf8))
            if let exec {
                let status = try await ExecCommand.run(exec, baseURL: simulator.baseURL)
                try await simulator.shutdown()
                if status != 0 { throw ExitCode(status) }
                return
            }
            let signal = await signals.wait()
            Diagnostics.log("received signal \(signal), shutting down")
            try await simulator.shutdown()
        } catch let exit as ExitCode {
            throw exit
        } catch {
            Diagnostics.log("\(error)")
            throw ExitCode.failure
        }
    }
}

enum Diagnostics {
    /// One line on stderr; stdout carries only the base URL.
    static func log(_ message: String) {
        let line = "github-sim: " + message.replacingOccurrences(of: "\n", with: " ") + "\n"
        FileHandle.standardError.write(Data(line.utf8))
    }
}
