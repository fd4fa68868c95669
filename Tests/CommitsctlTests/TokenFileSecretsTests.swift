import MirrorTestSupport
import Foundation
import GitHubSim
import Testing

/// Issue #6 "secrets", `commitsctl` side: a token read from `--token-file`
/// stays out of argv, output and the store (commitsd's side is in SecretsTests).
@Suite struct TokenFileSecretsTests {
    @Test func aTokenFileKeepsTheTokenOutOfArgvAndOutput() async throws {
        let directory = try TemporaryDirectory()
        let store = directory.path("commits.sqlite")
        let tokenFile = try directory.write("token", SecretScan.token + "\n")
        chmod(tokenFile, 0o600)
        var configuration = SimConfiguration()
        configuration.validTokens = [SecretScan.token]
        try await withRunning(startSimulator([("widgets", 450)], configuration: configuration)) { simulator in
            let observed = try? await runObserved(
                "commitsctl",
                [
                    "sync", "acme/widgets", "--db", store, "--api-url", simulator.baseURL,
                    "--token-file", tokenFile, "--log-level", "trace",
                ])
            let result = try #require(observed)
            #expect(result.result.status == 0, "\(result.result.stderr)")
            #expect(result.argv.contains("--token-file \(tokenFile)"))
            #expect(SecretScan.leaks(in: ["argv": result.argv, "stdout": result.result.stdout, "stderr": result.result.stderr]).isEmpty)
            #expect(SecretScan.leaks(inStoreAt: store).isEmpty)
        }
    }
}
