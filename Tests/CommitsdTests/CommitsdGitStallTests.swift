import Foundation
import GitHubSim
import MirrorTestSupport
import Testing

/// Issue #25, item 3, as processes: commitsd mirroring ten repositories, one of
/// them a first sync whose git server trickles the pack a byte every half
/// second. The stalled fetch is cut short by the pack's pace and the walk goes
/// on over REST, while the nine healthy repositories are polled on their
/// interval all along (before, one such repository held every poll for up to
/// 30 minutes).
@Suite(.serialized) struct CommitsdGitStallTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }
    var store: String { directory.path("state/commits.sqlite") }
    static let healthy = (1...9).map { "healthy\($0)" }

    /// Whether a log line is about `acme/<repository>` (metadata is sorted, so `repo=` may end the line).
    func mentions(_ line: Substring, _ repository: String) -> Bool {
        line.hasSuffix(" repo=acme/\(repository)") || line.contains(" repo=acme/\(repository) ")
    }

    func mirrored(_ simulator: GitHubSimulator, _ name: String) throws -> Bool {
        StoreInspection(store).memberSHAsSoFar(of: "acme/\(name)") == (try simulator.reachableSHAs(owner: "acme", name: name))
    }

    @Test func aStalledGitServerHoldsUpOnlyItsOwnRepository() async throws {
        var configuration = SimConfiguration()
        configuration.validTokens = [SecretScan.token]
        configuration.faults.git = .trickledPack
        // 30 pages: a first sync that reads the rest over git. The healthy ones are a page each.
        let simulator = try await startSimulator(Self.healthy.map { ($0, 50) } + [("stalled", 3_000)], configuration: configuration)
        try await withRunning(simulator) { simulator in
            let entries = Self.healthy.map { "  - {name: acme/\($0), interval: 2s}" } + ["  - acme/stalled"]
            let config = try directory.write(
                "config.yaml",
                """
                store: state/commits.sqlite
                api_url: \(simulator.baseURL)
                repositories:
                \(entries.joined(separator: "\n"))

                """)
            let daemon = try DaemonProcess(
                ["--config", config, "--log-level", "info"], environment: ["GITHUB_TOKEN": SecretScan.token],
                logPath: directory.path("commitsd.log"))
            defer { daemon.stop() }

            // The pack's request is under way (advertisement, ls-refs, fetch): from here the fetch stalls.
            #expect(await waitUntil(timeout: .seconds(60)) { simulator.stats().gitRequests >= 3 }, "\(daemon.log)")
            let stallBegan = ContinuousClock.now
            let before = simulator.stats().requestsByRepository
            let fellBack = { daemon.log.split(separator: "\n").filter { $0.contains("history not read over git") } }
            #expect(await waitUntil(timeout: .seconds(90)) { !fellBack().isEmpty }, "\(daemon.log)")
            let stalled = ContinuousClock.now - stallBegan
            let during = simulator.stats().requestsByRepository

            // Bounded by the pack's pace (15 s windows), not by the 30-minute whole-fetch timeout.
            #expect(stalled < .seconds(120), "\(stalled)")
            let warnings = fellBack()
            #expect(warnings.count == 1 && warnings.allSatisfy { mentions($0, "stalled") && $0.contains("too slowly") }, "\(warnings)")
            // Every healthy repository polled on its 2 s interval while git stalled (~15 s): about
            // 7 times, at least half that on a loaded machine; held up, it would be none.
            let expected = max(2, Int(stalled.components.seconds) / 4)
            for name in Self.healthy {
                let polls = during["acme/\(name)", default: 0] - before["acme/\(name)", default: 0]
                #expect(polls >= expected, "\(name): \(polls) polls in \(stalled), expected \(expected)\n\(during)")
            }

            // The stalled one goes on over REST to the exact history; the healthy ones are exact too.
            #expect(try await waitUntil(timeout: .seconds(120)) { try mirrored(simulator, "stalled") }, "\(daemon.log)")
            for name in Self.healthy { #expect(try mirrored(simulator, name), "\(name)") }
            #expect(StoreInspection(store).commitsWithMissingParents() == 0)
            #expect(try StoreInspection(store).integrity() == "ok")
            #expect(daemon.log.split(separator: "\n").filter { $0.contains("history not read over git") }.count == 1)

            daemon.signal(SIGTERM)
            #expect(await daemon.waitForExit(timeout: .seconds(10)) == 0)
            #expect(SecretScan.leaks(in: ["log": daemon.log]).isEmpty)
            #expect(SecretScan.leaks(inStoreAt: store).isEmpty)
        }
    }
}
