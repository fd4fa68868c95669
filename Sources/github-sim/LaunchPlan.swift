// Turns the command-line options into a simulator configuration, with one clear error per problem.

import Foundation
import GitHubSim

struct ArgumentProblem: Error, CustomStringConvertible {
    var description: String
}

struct LaunchPlan {
    struct HeadMove {
        var owner: String
        var name: String
        var steps: Int
    }

    var configuration = SimConfiguration()
    var repositories: [SimRepository] = []
    var headMoves: [HeadMove] = []
    /// Set after the start-up head moves, so only later moves are delivered.
    var webhook: SimWebhook?

    /// `--clone-url`'s server, without a trailing slash (clone URLs append `/OWNER/NAME.git`).
    static func cloneServer(_ server: String) throws -> String {
        guard let url = URL(string: server), ["http", "https"].contains(url.scheme), url.host != nil else {
            throw ArgumentProblem(description: "--clone-url \(server): expected an http or https URL")
        }
        return server.hasSuffix("/") ? String(server.dropLast()) : server
    }

    init(command: GitHubSimCommand) throws {
        configuration.host = command.host
        configuration.port = command.port
        configuration.authenticatedLimit = command.authenticatedLimit
        configuration.unauthenticatedLimit = command.unauthenticatedLimit
        guard command.rateWindowSeconds > 0 else { throw ArgumentProblem(description: "--rate-window-seconds must be positive") }
        configuration.rateLimitWindow = .seconds(command.rateWindowSeconds)
        guard (0...600_000).contains(command.latencyMs) else {
            throw ArgumentProblem(description: "--latency-ms \(command.latencyMs): expected milliseconds from 0 to 600000")
        }
        configuration.latency = .milliseconds(command.latencyMs)
        if let name = command.gitFault {
            guard let fault = GitFault(rawValue: name) else {
                let names = GitFault.allCases.map(\.rawValue).joined(separator: ", ")
                throw ArgumentProblem(description: "--git-fault \(name): unknown fault; use one of \(names)")
            }
            configuration.faults.git = fault
        }
        configuration.cloneServer = try command.cloneURL.map(Self.cloneServer)
        configuration.app = try Self.app(command)
        webhook = try Self.webhook(command)
        if let path = command.tokensFile {
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw ArgumentProblem(description: "cannot read --tokens-file \(path)")
            }
            configuration.validTokens = Set(
                text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
        }

        guard command.syntheticTagsEvery >= 0 else {
            throw ArgumentProblem(description: "--synthetic-tags-every \(command.syntheticTagsEvery): expected 0 or more")
        }
        var sources = [(String, String, RepositorySource)]()
        for argument in command.datasets {
            let (owner, name, path) = try Self.split(argument, option: "--dataset", valueName: "PATH")
            sources.append((owner, name, .dataset(path: path)))
        }
        for argument in command.gitRepositories {
            let (owner, name, path) = try Self.split(argument, option: "--git-repository", valueName: "PATH")
            sources.append((owner, name, .gitRepository(path: path)))
        }
        for argument in command.synthetic {
            let (owner, name, value) = try Self.split(argument, option: "--synthetic", valueName: "COMMITS[:SEED[:SHAPE]]")
            let fields = value.split(separator: ":", omittingEmptySubsequences: false)
            guard (1...3).contains(fields.count), let commits = Int(fields[0]), commits >= 0,
                let seed = fields.count >= 2 ? UInt64(fields[1]) : 1
            else {
                throw ArgumentProblem(
                    description: "--synthetic \(argument): expected OWNER/NAME=COMMITS[:SEED[:SHAPE]] with whole numbers")
            }
            let shapes = SyntheticSpec.Shape.allCases.map(\.rawValue)
            guard let shape = fields.count == 3 ? SyntheticSpec.Shape(rawValue: String(fields[2])) : .simple else {
                throw ArgumentProblem(
                    description: "--synthetic \(argument): unknown shape \(fields[2]); use one of \(shapes.joined(separator: ", "))")
            }
            var spec = SyntheticSpec(commits: commits, shape: shape, seed: seed)
            spec.tagEvery = command.syntheticTagsEvery
            sources.append((owner, name, .synthetic(spec)))
        }
        for argument in command.empty {
            guard let (owner, name) = Self.repositoryName(argument) else {
                throw ArgumentProblem(description: "--empty \(argument): expected OWNER/NAME")
            }
            sources.append((owner, name, .empty))
        }
        repositories = sources.enumerated().map { position, source in
            SimRepository(owner: source.0, name: source.1, id: 1001 + position, source: source.2)
        }
        for argument in command.headBack {
            let (owner, name, value) = try Self.split(argument, option: "--head-back", valueName: "N")
            guard let steps = Int(value), steps >= 0 else {
                throw ArgumentProblem(description: "--head-back \(argument): N must be a non-negative whole number")
            }
            headMoves.append(HeadMove(owner: owner, name: name, steps: steps))
        }
    }

    /// App mode from `--app-id`, `--app-key-file` and `--app-installation`, or nil without `--app-id`.
    private static func app(_ command: GitHubSimCommand) throws -> SimApp? {
        guard let appID = command.appID else {
            if command.appKeyFile != nil || !command.appInstallations.isEmpty || command.appClockFile != nil {
                throw ArgumentProblem(description: "--app-key-file, --app-installation and --app-clock-file need --app-id")
            }
            return nil
        }
        guard appID > 0 else { throw ArgumentProblem(description: "--app-id \(appID): expected a positive whole number") }
        guard let path = command.appKeyFile else {
            throw ArgumentProblem(description: "--app-id needs --app-key-file PATH, the App's public (or private) key as PEM")
        }
        guard let pem = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw ArgumentProblem(description: "cannot read --app-key-file \(path)")
        }
        var installations: [SimInstallation] = []
        for argument in command.appInstallations {
            let fields = argument.split(separator: "=", maxSplits: 1)
            guard fields.count == 2, let id = Int(fields[0]), id > 0, !fields[1].isEmpty else {
                throw ArgumentProblem(description: "--app-installation \(argument): expected ID=OWNER, e.g. 678=acme")
            }
            installations.append(SimInstallation(id: id, account: String(fields[1])))
        }
        guard command.appTokenLifetimeSeconds > 0 else {
            throw ArgumentProblem(description: "--app-token-lifetime-seconds must be positive")
        }
        let clock = try command.appClockFile.map(AppClockFile.init(path:))
        do {
            var app = try SimApp(appID: appID, keyPEM: pem, installations: installations)
            app.tokenLifetime = .seconds(command.appTokenLifetimeSeconds)
            app.installationLimit = command.installationLimit
            if let clock { app.now = clock.now }
            return app
        } catch {
            throw ArgumentProblem(description: "--app-key-file \(path): \(error)")
        }
    }

    /// `OWNER/NAME=VALUE`
    private static func split(_ argument: String, option: String, valueName: String) throws -> (String, String, String) {
        guard let eq = argument.firstIndex(of: "="), !argument[argument.index(after: eq)...].isEmpty else {
            throw ArgumentProblem(description: "\(option) \(argument): expected OWNER/NAME=\(valueName)")
        }
        guard let (owner, name) = repositoryName(String(argument[..<eq])) else {
            throw ArgumentProblem(description: "\(option) \(argument): expected OWNER/NAME=\(valueName)")
        }
        return (owner, name, String(argument[argument.index(after: eq)...]))
    }

    /// `OWNER/NAME` with GitHub's name characters, or nil.
    private static func repositoryName(_ text: String) -> (String, String)? {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-_."))
        guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0.unicodeScalars.allSatisfy(allowed.contains) }) else {
            return nil
        }
        return (String(parts[0]), String(parts[1]))
    }

    /// `--webhook-url` with `--webhook-secret-file` (the secret never goes on the command line).
    static func webhook(_ command: GitHubSimCommand) throws -> SimWebhook? {
        switch (command.webhookURL, command.webhookSecretFile) {
        case (nil, nil):
            return nil
        case (let url?, let path?):
            guard url.hasPrefix("http://") else {
                throw ArgumentProblem(description: "--webhook-url \(url): expected an http:// URL such as http://127.0.0.1:9465/webhook")
            }
            guard let text = try? String(contentsOfFile: path, encoding: .utf8),
                !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
            else {
                throw ArgumentProblem(
                    description: "cannot read a secret from --webhook-secret-file \(path); put the webhook's secret in it")
            }
            return SimWebhook(url: url, secret: text.trimmingCharacters(in: .whitespacesAndNewlines))
        default:
            throw ArgumentProblem(description: "--webhook-url and --webhook-secret-file go together; give both or neither")
        }
    }
}
