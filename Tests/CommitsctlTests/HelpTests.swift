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
