import MirrorTestSupport
import Curl
import Foundation
import GitHubSim
import MirrorCore
import SQLite
import Testing

/// Issue #15 acceptance 3: a running commitsd's `/metrics` after a sync against
/// github-sim, scraped over HTTP and parsed; `/healthz` and `/readyz`; and the
/// same metrics from `commitsctl sync --metrics-textfile`.
@Suite(.serialized) struct CommitsdMetricsTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }

    static let token = "metrics-test-token-0815"

    /// `name{labels} value` lines of Prometheus text, keyed by `name{labels}`.
    static func samples(_ text: String) -> [String: Double] {
        var samples: [String: Double] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
            samples[String(line[..<space])] = value
        }
        return samples
    }

    static func get(_ url: String) async throws -> HTTPResponse {
        try await HTTPClient().send(HTTPRequest(url: url))
    }

    @Test func metricsAfterASyncAreServedAndParse() async throws {
        let simulator = try await startSimulator([("widgets", 240)])
        defer { Task { try? await simulator.shutdown() } }
        let store = directory.path("state/commits.sqlite")
        // From a file, whose path (like the store's) the unauthenticated endpoints never name.
        let tokenFile = try directory.write("github-token", Self.token + "\n")
        chmod(tokenFile, 0o600)
        let config = try directory.write(
            "config.yaml",
            """
            store: \(store)
            api_url: \(simulator.baseURL)
            token_file: \(tokenFile)
            default_interval: 1h
            min_interval: 10m
            max_interval: 2h
            metrics_listen: 127.0.0.1:0
            repositories:
              - acme/widgets

            """)
        let daemon = try DaemonProcess(["--config", config], environment: [:], logPath: directory.path("commitsd.log"))
        defer { daemon.stop() }
        let expected = try simulator.reachableSHAs(owner: "acme", name: "widgets").count
        #expect(await waitUntil { StoreInspection(store).memberSHAsSoFar(of: "acme/widgets").count == expected }, "\(daemon.log)")

        // "… serving metrics metrics.listen=127.0.0.1:PORT"
        let listening = await waitUntil { daemon.log.contains("metrics.listen=127.0.0.1:") }
        #expect(listening, "\(daemon.log)")
        let port = try #require(
            daemon.log.split(separator: "\n").first { $0.contains("serving metrics") }?
                .split(separator: ":").last.flatMap { Int($0.prefix { $0.isNumber }) })
        let base = "http://127.0.0.1:\(port)"

        // The sync's outcome is recorded just after the store shows it: poll the scrape. What the store
        // holds is recorded before the outcome, so the scrape that first counts the sync has its commits too.
        var samples: [String: Double] = [:]
        let success = #"commits_mirror_syncs_total{repository="acme/widgets",outcome="success"}"#
        let deadline = ContinuousClock.now + .seconds(30)
        while samples[success] == nil && ContinuousClock.now < deadline {
            if let response = try? await Self.get(base + "/metrics") {
                samples = Self.samples(String(decoding: response.body, as: UTF8.self))
            }
            if samples[success] == nil { try await Task.sleep(for: .milliseconds(50)) }
        }
        let scraped = samples[success] != nil
        #expect(scraped, "\(samples)")
        #expect(samples[#"commits_mirror_commits{repository="acme/widgets"}"#] == Double(expected))
        #expect(samples[#"commits_mirror_syncs_total{repository="acme/widgets",outcome="success"}"#] == 1)
        // Failures are a series from the first attempt, at zero, so an alert's increase() sees the first one.
        #expect(samples[#"commits_mirror_syncs_total{repository="acme/widgets",outcome="failure"}"#] == 0, "\(samples.keys)")
        let pages = Double((expected + 99) / 100)
        #expect((samples[#"commits_mirror_requests_total{outcome="fetched"}"#] ?? 0) >= pages)
        // One histogram for every repository (a label per repository is eleven series each).
        #expect(samples["commits_mirror_sync_duration_seconds_count"] == 1)
        #expect(!samples.keys.contains { $0.hasPrefix("commits_mirror_sync_duration_seconds") && $0.contains("repository=") })
        // Our buckets, up to a 15-minute first walk.
        let top = samples.first { $0.key.hasPrefix(#"commits_mirror_sync_duration_seconds_bucket{le="900"#) }
        #expect(top?.value == 1, "\(samples.keys.filter { $0.contains("bucket") })")
        let lastSuccess = try #require(samples[#"commits_mirror_last_success_timestamp_seconds{repository="acme/widgets",branch="main"}"#])
        #expect(abs(lastSuccess - Date().timeIntervalSince1970) < 120)
        let remaining = samples.first { $0.key.hasPrefix("commits_mirror_rate_limit_remaining{token=") }
        #expect(remaining != nil && remaining!.value < 5000 && remaining!.value > 0, "\(samples)")
        #expect(samples.keys.contains { $0.hasPrefix("commits_mirror_rate_limit_reset_timestamp_seconds{token=") })
        // The quota beside what remains (github-sim's, like GitHub's for a token: 5,000), for the alert's fraction.
        #expect(samples[#"commits_mirror_rate_limit_limit{token="file"}"#] == 5000, "\(samples.keys)")
        // The adaptive policy's longest interval, not its shortest: what "not synced for N intervals" counts in.
        #expect(samples[#"commits_mirror_poll_interval_max_seconds{repository="acme/widgets"}"#] == 7200, "\(samples.keys)")
        #expect(!samples.keys.contains { $0.contains(Self.token) }, "the token is never a label")
        // Issue #25 item 6: the token is named by its kind, and no path is in any label.
        #expect(samples[#"commits_mirror_rate_limit_remaining{token="file"}"#] != nil, "\(samples.keys)")
        #expect(!samples.keys.contains { $0.contains(directory.url.path) }, "\(samples.keys)")

        #expect(try await Self.get(base + "/healthz").status == 200)
        let ready = try await Self.get(base + "/readyz")
        #expect(ready.status == 200)
        #expect(String(decoding: ready.body, as: UTF8.self) == "ready: the store opens and is migrated\n")
        #expect(try await Self.get(base + "/nothing").status == 404)

        daemon.signal(SIGTERM)
        #expect(await daemon.waitForExit(timeout: .seconds(5)) == 0, "\(daemon.log)")
    }

    @Test func syncWritesTheSameMetricsToATextfile() async throws {
        let simulator = try await startSimulator([("widgets", 150)])
        defer { Task { try? await simulator.shutdown() } }
        let store = directory.path("commits.sqlite")
        let textfile = directory.path("commits_mirror.prom")
        let result = try await run(
            "commitsctl",
            [
                "sync", "acme/widgets", "--db", store, "--api-url", simulator.baseURL, "--metrics-textfile", textfile,
            ], environment: ["GITHUB_TOKEN": Self.token])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty, "no progress when stderr is not a terminal: \(result.stderr)")
        let samples = Self.samples(try String(contentsOfFile: textfile, encoding: .utf8))
        let expected = try simulator.reachableSHAs(owner: "acme", name: "widgets").count
        #expect(samples[#"commits_mirror_commits{repository="acme/widgets"}"#] == Double(expected))
        #expect(samples[#"commits_mirror_syncs_total{repository="acme/widgets",outcome="success"}"#] == 1)
        #expect(samples[#"commits_mirror_last_success_timestamp_seconds{repository="acme/widgets",branch="main"}"#] != nil)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path("")).filter { $0.hasSuffix(".tmp") }
        #expect(leftovers.isEmpty, "the temporary file is renamed, never left")
    }
}
