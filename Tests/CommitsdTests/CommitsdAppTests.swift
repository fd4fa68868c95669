import Foundation
import MirrorCore
import MirrorTestSupport
import Testing
import Curl

/// Issue #28 acceptance 1: commitsd configured with a GitHub App against a
/// github-sim process polls and syncs an organisation's repositories while a
/// clock file both read (`TestTimings.clockFile`, `--app-clock-file`) takes
/// them past token after token's refresh time, then past one's expiry: each
/// time commitsd mints one new token, before the old one expires, and no
/// request is refused. Every request was authorised, and no key, JWT or token
/// is in the log (at trace), the store, `status --json`, `/metrics`, or the
/// process's argv and environment.
@Suite struct CommitsdAppTests {
    static let repositories = [("alpha", 400), ("beta", 300), ("gamma", 250)]
    /// An installation token's life (GitHub's hour); commitsd mints the next 5 minutes before its end.
    static let tokenLifetime = 3_600

    @Test func anAppInstallationKeepsAnOrganisationMirroredAcrossTokenAfterTokenLeakingNothing() async throws {
        let directory = try TemporaryDirectory()
        let keyPath = directory.path("app.pem")
        try AppKeys.writeWithOpenSSL(.pkcs1, to: keyPath)
        let keyPEM = try String(contentsOfFile: keyPath, encoding: .utf8)
        let publicKey = try directory.write("app.pub", try AppKeys.publicKeyPEM(ofPrivateKeyPEM: keyPEM))
        // No personal token is accepted: whatever commitsd sends must be the installation's.
        let noTokens = try directory.write("tokens", "")
        let clockFile = try directory.write("clock", "0")
        let simulator = try await SimulatorProcess.start(
            Self.repositories.map { "--synthetic=acme/\($0.0)=\($0.1)" } + [
                "--app-id", "4242", "--app-key-file", publicKey, "--app-installation", "678=acme",
                "--app-token-lifetime-seconds", "\(Self.tokenLifetime)", "--tokens-file", noTokens, "--app-clock-file", clockFile,
            ])
        defer { simulator.stop() }
        let store = directory.path("state/commits.sqlite")
        let config = try directory.write(
            "config.yaml",
            """
            store: \(store)
            api_url: \(simulator.baseURL)
            default_interval: 1s
            metrics_listen: 127.0.0.1:0
            github_app:
              app_id: 4242
              private_key_file: \(keyPath)
            repositories:
              - acme/*

            """)
        let daemon = try DaemonProcess(
            ["--config", config, "--log-level", "trace"], environment: [TestTimings.clockFile: clockFile],
            logPath: directory.path("commitsd.log"))
        defer { daemon.stop() }

        func stats() async -> [String: Any] { (try? await simulator.control("/_sim/stats")) ?? [:] }
        let mirrored = await waitUntil(timeout: .seconds(120)) {
            Self.repositories.allSatisfy { StoreInspection(store).memberSHAsSoFar(of: "acme/\($0.0)").count == $0.1 }
        }
        #expect(mirrored, "\(daemon.log.suffix(3000))")
        try await Self.takeTokensPastRefreshAndExpiry(clockFile: clockFile, simulator: simulator)
        let port = try #require(
            daemon.log.split(separator: "\n").first { $0.contains("serving metrics") }?
                .split(separator: ":").last.flatMap { Int($0.prefix { $0.isNumber }) })
        let metrics = try await CommitsdMetricsTests.get("http://127.0.0.1:\(port)/metrics")
        let metricsText = String(decoding: metrics.body, as: UTF8.self)
        #expect(metricsText.contains(#"commits_mirror_rate_limit_remaining{token="app"}"#), "\(metricsText)")
        let argv = SecretScan.commandLine(of: daemon.pid) ?? ""
        let environment = (FileManager.default.contents(atPath: "/proc/\(daemon.pid)/environ")).map {
            String(decoding: $0.map { $0 == 0 ? 0x0A : $0 }, as: UTF8.self)
        }
        #expect(environment != nil)
        let status = try await run("commitsctl", ["status", "--db", store, "--json"])
        #expect(status.status == 0, "\(status.stderr)")
        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(15)) == 0)
        let final = await stats()
        // Every API request carried the installation's token (or, minting, the App's JWT).
        #expect(final["requests"] as? Int == final["authorizationHeadersSeen"] as? Int, "\(final)")
        #expect(final["jwtRefusals"] as? Int == 0)
        // The only errors GitHub gave were 401s to tokens that expired in flight, each answered by a new one.
        #expect(final["errors"] as? Int == final["expiredTokenRefusals"] as? Int, "\(final)")
        let log = daemon.log
        let failures = log.split(separator: "\n").filter { $0.contains("sync failed") || $0.contains("discovery failed") }
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")

        var storeText = ""
        for file in [store, store + "-wal", store + "-shm"] {
            if let bytes = FileManager.default.contents(atPath: file) { storeText += String(decoding: bytes, as: UTF8.self) }
        }
        let leaks = AppKeys.leaks(
            in: [
                "commitsd log": log, "store": storeText, "status --json": status.stdout + status.stderr, "/metrics": metricsText,
                "argv": argv, "environment": environment ?? "",
            ], keyPEM: keyPEM)
        #expect(leaks.isEmpty, "\(leaks)")
        // The scan can find what it looks for: the simulator's own tokens are shaped as it expects.
        #expect(!AppKeys.leaks(in: ["probe": "Bearer ghs_x"], keyPEM: keyPEM).isEmpty)
    }

    /// Moves the clock `clockFile` holds past three tokens' refresh times, short of their expiry,
    /// expecting exactly one new token each time and none sent expired; then past a token's expiry,
    /// expecting a new token and the syncs going on with it.
    static func takeTokensPastRefreshAndExpiry(clockFile: String, simulator: SimulatorProcess) async throws {
        var offset = 0
        func advanceClock(by seconds: Int) throws {
            offset += seconds
            try "\(offset)".write(toFile: clockFile, atomically: true, encoding: .utf8)
        }
        func stats() async -> [String: Any] { (try? await simulator.control("/_sim/stats")) ?? [:] }
        /// The simulator's count `key` once it reaches `count`, or as it is after 90 s.
        func count(_ key: String, reaching count: Int) async throws -> Int {
            let deadline = ContinuousClock.now + .seconds(90)
            var seen = await stats()[key] as? Int ?? 0
            while seen < count && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
                seen = await stats()[key] as? Int ?? 0
            }
            return seen
        }
        #expect(try await count("appTokensIssued", reaching: 1) == 1)
        for round in 1...3 {
            try advanceClock(by: tokenLifetime - 100)
            let issued = try await count("appTokensIssued", reaching: round + 1)
            #expect(issued == round + 1, "round \(round)")
        }
        let refreshed = await stats()
        #expect(refreshed["expiredTokenRefusals"] as? Int == 0, "no token was sent past its expiry: \(refreshed)")
        // A request in flight while the clock passes the expiry may meet a 401, answered by a new token.
        try advanceClock(by: 2 * tokenLifetime)
        #expect(try await count("appTokensIssued", reaching: 5) >= 5)
        let requests = refreshed["requests"] as? Int ?? 0
        #expect(try await count("requests", reaching: requests + 10) >= requests + 10, "the syncs go on with the new token")
    }

    /// A hung token endpoint is remembered: commitsd's first sync waits out one 2 s
    /// timeout, the other repository fails at once with the same line instead of waiting
    /// on the endpoint again, and the endpoint is asked once in all.
    @Test func aHungTokenEndpointIsAskedOnceForEveryRepository() async throws {
        let directory = try TemporaryDirectory()
        let hung = try await HungTokenEndpoint.start(in: directory)
        defer { hung.simulator.stop() }
        let started = ContinuousClock.now
        let daemon = try DaemonProcess(["--config", hung.config], logPath: directory.path("commitsd.log"))
        defer { daemon.stop() }
        func failed(_ repository: String) -> Bool {
            daemon.log.split(separator: "\n").contains {
                $0.contains("sync failed") && $0.contains("repo=\(repository)") && $0.contains(hung.failurePrefix)
            }
        }
        let bothFailed = await waitUntil(timeout: .seconds(60)) { failed("acme/one") && failed("acme/two") }
        let elapsed = ContinuousClock.now - started
        #expect(bothFailed, "\(daemon.log.suffix(3000))")
        #expect(try await hung.tokenRequests() == 1, "\(daemon.log.suffix(3000))")
        // Start-up and one 2 s timeout; waiting out five per repository would take over 35 s.
        #expect(elapsed < .seconds(30), "\(elapsed)")
        #expect(daemon.log.contains("then it is asked again"), "\(daemon.log.suffix(2000))")
    }

    /// The test clock is checked at start-up, by commitsd and github-sim alike.
    @Test func aClockFileHoldingNoWholeNumberOfSecondsStopsTheStartInOneLine() async throws {
        let directory = try TemporaryDirectory()
        let (keyPath, config) = try Self.appConfiguration(in: directory, key: .pkcs1)
        let clockFile = try directory.write("clock", "soon")
        let daemon = try await run("commitsd", ["--check-config", "--config", config], environment: [TestTimings.clockFile: clockFile])
        #expect(daemon.status == 2)
        #expect(
            daemon.stderr
                == "commitsd: error: $COMMITS_MIRROR_TEST_CLOCK_FILE must name a file holding a whole number of seconds, 0 or more, to add to the clock; \"\(clockFile)\" does not; it is for tests: unset it\n"
        )
        let simulator = try await run(
            "github-sim", ["--app-id", "1", "--app-key-file", keyPath, "--app-installation", "2=acme", "--app-clock-file", clockFile])
        #expect(simulator.status != 0)
        #expect(simulator.stderr.split(separator: "\n").count == 1, "\(simulator.stderr)")
        #expect(
            simulator.stderr.contains("--app-clock-file \(clockFile): expected a file holding a whole number of seconds, 0 or more"),
            "\(simulator.stderr)")
    }

    /// An App key written as `format` and a configuration of App 1 with it, mirroring acme/widgets.
    static func appConfiguration(in directory: TemporaryDirectory, key format: AppKeys.Format) throws -> (key: String, config: String) {
        let keyPath = directory.path("app.pem")
        try AppKeys.writeWithOpenSSL(format, to: keyPath)
        let config = try directory.write(
            "config.yaml", "github_app:\n  app_id: 1\n  private_key_file: \(keyPath)\nrepositories: [acme/widgets]\n")
        return (keyPath, config)
    }

    @Test func anAppBesideATokenOrWithABadKeyIsOneLineAndNoStart() async throws {
        let directory = try TemporaryDirectory()
        let (keyPath, config) = try Self.appConfiguration(in: directory, key: .pkcs8)
        let both = try await run("commitsd", ["--check-config", "--config", config], environment: ["GITHUB_TOKEN": "ghp_abcdefgh12345"])
        #expect(both.status == 2)
        #expect(
            both.stderr
                == "commitsd: error: \(config):1: github_app: is set, and so is a token (from environment variable GITHUB_TOKEN); the two are exclusive; expected either github_app or a personal token: remove one of them\n"
        )
        let valid = try await run("commitsd", ["--check-config", "--config", config])
        #expect(valid.status == 0, "\(valid.stderr)")
        #expect(valid.stdout.contains("GitHub App 1 (key from file \(keyPath))"), "\(valid.stdout)")

        // Mode 600, so the only line is the error (an over-readable key is warned about first).
        chmod(try directory.write("bad.pem", "-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----\n"), 0o600)
        let badConfig = try directory.write(
            "bad.yaml", "github_app:\n  app_id: 1\n  private_key_file: bad.pem\nrepositories: [acme/widgets]\n")
        let bad = try await run("commitsd", ["--config", badConfig])
        #expect(bad.status != 0)
        #expect(bad.stderr.split(separator: "\n").count == 1, "\(bad.stderr)")
        #expect(bad.stderr.contains("the GitHub App private key from file \(directory.path("bad.pem")) is not a PEM RSA private key"))
    }
}
