import MirrorTestSupport
import Testing

/// Every command's declaration is valid (ArgumentParser checks it only when the
/// command is parsed, e.g. two option groups both naming --config) and says
/// something about each option.
@Suite struct HelpTests {
    @Test(arguments: ["sync", "query", "show", "authors", "stats", "status", "import", "backup", "check", "prune"])
    func helpIsValid(_ command: String) async throws {
        let result = try await run("commitsctl", [command, "--help"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("USAGE: commitsctl \(command)"), "\(result.stdout)")
    }
}
