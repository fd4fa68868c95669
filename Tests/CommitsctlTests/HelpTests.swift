import ArgumentParser
import MirrorTestSupport
import Testing
@testable import commitsctl

/// Every command's declaration is valid (ArgumentParser checks it only when the
/// command is parsed, e.g. two option groups both naming --config) and says
/// something about each option.
@Suite struct HelpTests {
    @Test(arguments: [
        "sync", "query", "show", "authors", "stats", "status", "import", "backup", "check", "prune", "repos", "repos list",
        "repos remove",
    ])
    func helpIsValid(_ command: String) async throws {
        let result = try await run("commitsctl", command.split(separator: " ").map(String.init) + ["--help"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("USAGE: commitsctl \(command)"), "\(result.stdout)")
    }
}

/// Every subcommand names itself: without `commandName`, ArgumentParser derives the
/// name with `String(describing:)` on every run, whose dynamic casts scan every
/// protocol conformance in the binary (an eighth of `commitsctl --version`'s time).
@Suite struct CommandNameTests {
    @Test func everySubcommandNamesItself() {
        for command in Commitsctl.configuration.subcommands + Commitsctl.Repos.configuration.subcommands {
            #expect(command.configuration.commandName != nil, "\(command) has no commandName")
        }
    }
}

/// `commitsctl` parses the named subcommand alone first (Commitsctl.parseSubcommandFirst):
/// whatever the arguments, it must give what parsing the whole tree gives.
@Suite struct SubcommandFirstParsingTests {
    @Test(arguments: [
        ["query", "--author", "Joe Groff", "-n", "5"], ["query", "--help"], ["query", "-h"], ["query", "--version"],
        ["query", "--bogus"], ["repos", "list", "--format", "json"], ["repos", "--help"], ["repos", "remove", "--help"],
        ["show", "abc123"], ["show"], ["sync", "acme/widgets", "--branch", "main"], ["help", "query"], ["--version"],
        ["query", "--generate-completion-script", "bash"], ["nonsense"],
    ])
    func givesWhatTheWholeTreeGives(_ arguments: [String]) {
        let alone = Result { try Commitsctl.parseSubcommandFirst(arguments) }
        let tree = Result { try Commitsctl.parseAsRoot(arguments) }
        switch (alone, tree) {
        case (.success(let alone), .success(let tree)):
            // Every parsed value (for ArgumentParser's help command, the command stack it prints help for).
            #expect(String(describing: alone) == String(describing: tree))
        case (.failure(let alone), .failure(let tree)):
            #expect(Commitsctl.fullMessage(for: alone) == Commitsctl.fullMessage(for: tree))
            #expect(Commitsctl.exitCode(for: alone) == Commitsctl.exitCode(for: tree))
        default:
            Issue.record("alone: \(alone), the whole tree: \(tree)")
        }
    }
}
