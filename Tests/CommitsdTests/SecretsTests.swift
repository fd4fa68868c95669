import MirrorTestSupport
import Foundation
import GitHubSim
import Testing

/// Issue #6 "secrets": the token never appears in logs at any level, error
/// messages, the store, or a process's argv — also on the paths where it is
/// most likely to slip out: GitHub rejecting it (commitsctl with a token file:
/// TokenFileSecretsTests).
@Suite struct SecretsTests {
    @Test func aRejectedTokenNeverShowsUpInLogsStatusStoreOrArgv() async throws {
        let directory = try TemporaryDirectory()
        let store = directory.path("state/commits.sqlite")
        var configuration = SimConfiguration()
        configuration.validTokens = ["the-only-valid-token"]
        try await withRunning(startSimulator([("widgets", 300)], configuration: configuration)) { simulator in
            let daemon = try DaemonProcess.mirroring(["acme/widgets"], from: simulator, in: directory)
            defer { daemon.stop() }
            #expect(await waitUntil(timeout: .seconds(15)) { daemon.log.contains("error sync failed") }, "\(daemon.log)")
            let argv = SecretScan.commandLine(of: daemon.pid) ?? ""
            daemon.signal(SIGTERM)
            #expect(await daemon.waitForExit(timeout: .seconds(10)) == 0)
            #expect(daemon.log.contains("GitHub rejected the token from environment variable GITHUB_TOKEN (401 Bad credentials)"))

            let status = try await run("commitsctl", ["status", "--db", store, "--json"])
            #expect(status.status == 0, "\(status.stderr)")
            let sync = try await run(
                "commitsctl",
                [
                    "sync", "acme/widgets", "--db", store, "--api-url", simulator.baseURL,
                    "--log-level", "trace",
                ], environment: ["GH_TOKEN": SecretScan.token])
            #expect(sync.status == 1)
            #expect(sync.stderr.contains("commitsctl: error: GitHub rejected the token from environment variable GH_TOKEN"))

            #expect(
                SecretScan.leaks(in: [
                    "commitsd log": daemon.log, "commitsd argv": argv, "status": status.stdout + status.stderr,
                    "sync": sync.stdout + sync.stderr,
                ]).isEmpty)
            #expect(SecretScan.leaks(inStoreAt: store).isEmpty)
        }
    }
}

/// Issue #25 item 4 under the service: a git host whose side band 3 echoes the
/// Basic credential commitsd sent, in every encoding. The journal (its log at
/// trace), the store and its argv hold none of them; the history still converges over REST.
@Suite struct EchoedCredentialTests {
    @Test func aSideBandEchoingTheBasicCredentialNeverReachesTheJournalOrTheStore() async throws {
        let directory = try TemporaryDirectory()
        let store = directory.path("state/commits.sqlite")
        try await withRunning(startSimulator([("widgets", 2_500)])) { simulator in
            let proxy = try HostileGitHub(upstream: simulator.baseURL)
            defer { proxy.stop() }
            proxy.echoCredentials(
                of: "acme/widgets", as: .sideBand3(tip: try simulator.headSHA(owner: "acme", name: "widgets")))
            let config = try directory.write(
                "config.yaml",
                "store: state/commits.sqlite\napi_url: \(proxy.baseURL)\ndefault_interval: 1h\nrepositories:\n  - acme/widgets\n")
            let daemon = try DaemonProcess(
                ["--config", config, "--log-level", "trace"], environment: ["GITHUB_TOKEN": SecretScan.token],
                logPath: directory.path("commitsd.log"))
            defer { daemon.stop() }
            let reachable = try simulator.reachableSHAs(owner: "acme", name: "widgets")
            // 25 pages over REST through the in-process proxy: seconds alone, minutes under the whole suite's load.
            #expect(
                await waitUntil(timeout: .seconds(180)) { StoreInspection(store).memberSHAsSoFar(of: "acme/widgets") == reachable },
                "\(daemon.log)")
            let argv = SecretScan.commandLine(of: daemon.pid) ?? ""
            daemon.signal(SIGTERM)
            #expect(await daemon.waitForExit(timeout: .seconds(10)) == 0)
            #expect(daemon.log.contains("the git server reported an error: fatal: denied for Basic [REDACTED]"), "\(daemon.log)")
            #expect(proxy.requests.contains { $0.authorization == SecretScan.basicCredential })
            #expect(SecretScan.leaks(in: ["commitsd log": daemon.log, "commitsd argv": argv]).isEmpty)
            #expect(SecretScan.leaks(inStoreAt: store).isEmpty)
        }
    }
}
