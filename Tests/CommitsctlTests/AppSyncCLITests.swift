import Foundation
import GitHubSim
import MirrorTestSupport
import Testing

/// `commitsctl sync --config` with `github_app:`: the real binary authenticates
/// as the App's installation against github-sim in App mode, and refuses a
/// `--token-file` beside it in one line naming both.
@Suite struct AppSyncCLITests {
    @Test func aConfiguredAppSyncsAnOrganisationAndRefusesATokenFileBesideIt() async throws {
        let directory = try TemporaryDirectory()
        let keyPath = directory.path("app.pem")
        try AppKeys.writeWithOpenSSL(.pkcs8, to: keyPath)
        let key = try String(contentsOfFile: keyPath, encoding: .utf8)
        var configuration = SimConfiguration()
        configuration.validTokens = []
        configuration.app = try SimApp(
            appID: 31, keyPEM: try AppKeys.publicKeyPEM(ofPrivateKeyPEM: key), installations: [SimInstallation(id: 32, account: "acme")])
        let repositories = (1...3).map { index in
            SimRepository(
                owner: "acme", name: "tool-\(index)", id: 4000 + index, source: .synthetic(SyntheticSpec(commits: 20, seed: UInt64(index))),
                isPrivate: index == 2)
        }
        let simulator = try GitHubSimulator(configuration: configuration, repositories: repositories)
        try await simulator.start()
        try await withRunning(simulator) { simulator in
            let config = try directory.write(
                "config.yaml",
                """
                store: \(directory.path("commits.sqlite"))
                api_url: \(simulator.baseURL)
                github_app:
                  app_id: 31
                  private_key_file: app.pem
                repositories: [acme/*]

                """)
            let synced = try await run("commitsctl", ["sync", "--config", config, "--log-level", "trace"])
            #expect(synced.status == 0, "\(synced.stderr)")
            #expect(synced.stdout.contains("acme/*: 3 repositories (3 new)"), "\(synced.stdout)")
            #expect(synced.stdout.contains("acme/tool-2@main: 20 new"), "\(synced.stdout)")
            let stats = simulator.stats()
            #expect(stats.appTokensIssued == 1 && stats.requests == stats.authorizationHeadersSeen && stats.errors == 0, "\(stats)")
            #expect(AppKeys.leaks(in: ["sync": synced.stdout + synced.stderr], keyPEM: key).isEmpty)

            let tokenFile = try directory.write("token", "ghp_abcdefgh12345\n")
            chmod(tokenFile, 0o600)
            let both = try await run("commitsctl", ["sync", "--config", config, "--token-file", tokenFile])
            #expect(both.status != 0)
            #expect(
                both.stderr
                    == "commitsctl: error: \(config):3: github_app: is set, and so is --token-file \(tokenFile); the two are exclusive; expected either github_app or a personal token: leave out --token-file, or use a configuration without github_app\n"
            )
        }
    }
}
