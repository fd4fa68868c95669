import MirrorTestSupport
import Foundation
import Testing

/// commitsd's half of the token and network policy: credentials in the API
/// URL and a token with a line break are refused at start-up without echoing
/// them, and a long retry-after goes back to the scheduler instead of being
/// slept inside one repository's sync.
@Suite struct CommitsdNetworkPolicyTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }

    func checkConfig(apiURL: String, environment: [String: String] = [:]) async throws -> (ProcessResult, String) {
        let path = try directory.write(
            "config-\(UUID().uuidString.prefix(6)).yaml",
            "api_url: \(apiURL)\nrepositories: [acme/widgets]\n")
        return (try await run("commitsd", ["--check-config", "--config", path], environment: environment), path)
    }

    @Test func credentialsInTheAPIURLAreRefusedWithoutEchoingThem() async throws {
        let (file, path) = try await checkConfig(apiURL: "http://user:password@127.0.0.1:1")
        #expect(file.status == 2)
        #expect(
            file.stderr
                == "commitsd: error: \(path): api_url: must not contain a user name or credentials (…@ before the host); expected the URL alone; put the token in GITHUB_TOKEN or token_file\n"
        )

        let (variable, _) = try await checkConfig(
            apiURL: "http://127.0.0.1:1",
            environment: ["GITHUB_API_URL": "http://user:password@127.0.0.1:1"])
        #expect(variable.status == 2)
        #expect(variable.stderr.contains("api_url: $GITHUB_API_URL must not contain a user name or credentials"), "\(variable.stderr)")
        for result in [file, variable] {
            #expect(!result.stderr.contains("password") && !result.stdout.contains("password"), "\(result.stderr)")
        }
    }

    @Test func aTokenWithALineBreakIsRefusedAtStartUp() async throws {
        let (result, _) = try await checkConfig(apiURL: "http://127.0.0.1:1", environment: ["GITHUB_TOKEN": "abc\r\nX-Evil: 1"])
        #expect(result.status == 2)
        #expect(
            result.stderr
                == "commitsd: error: the token from environment variable GITHUB_TOKEN contains a control character or whitespace; set it to the token alone (no spaces, line breaks or extra header lines)\n"
        )
    }

    /// 120 s is under the 15-minute secondary cap, so commitsctl would wait; the
    /// daemon's inline cap is a minute, so its scheduler pauses instead.
    @Test func aLongRetryAfterPausesTheSchedulerInsteadOfSleepingInTheSync() async throws {
        let api = try HostileServer { request, connection in
            let json = [("Content-Type", "application/json; charset=utf-8")]
            if request.path == "/repos/acme/widgets" {
                connection.respond(
                    status: 200, headers: json,
                    body: Array(#"{"id":7,"full_name":"acme/widgets","default_branch":"main"}"#.utf8))
            } else {
                connection.respond(
                    status: 403, reason: "Forbidden", headers: json + [("retry-after", "120")],
                    body: Array(#"{"message":"You have exceeded a secondary rate limit."}"#.utf8))
            }
        }
        defer { api.stop() }
        let config = try directory.write(
            "config.yaml",
            """
            store: commits.sqlite
            api_url: \(api.baseURL)
            default_interval: 1s
            repositories:
              - acme/widgets

            """)
        let daemon = try DaemonProcess(
            ["--config", config, "--log-level", "info"],
            environment: ["GITHUB_TOKEN": SecretScan.token], logPath: directory.path("commitsd.log"))
        defer { daemon.stop() }
        let paused = await waitUntil(timeout: .seconds(60)) { daemon.log.contains("rate limited; pausing all syncs until the reset") }
        #expect(paused, "\(daemon.log)")
        #expect(daemon.log.contains("asks to retry after"), "\(daemon.log)")
        // One refused request, not retried inside the sync (which would sleep 120 s, past the wait above).
        #expect(api.requests.filter { $0.path != "/repos/acme/widgets" }.count == 1, "\(api.requests.map(\.target))")
        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(10)) == 0)
        #expect(SecretScan.leaks(in: ["log": daemon.log]).isEmpty)
    }
}
