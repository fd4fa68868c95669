import Foundation
import GitHubSim
import MirrorTestSupport
import Testing

/// Issue #27: daemons sharing a PostgreSQL store mirror `acme/*` with one of
/// them listing the organisation (the discovery turn) and the others following
/// the listings it records; a killed lister's turn passes to another. Real
/// commitsd processes, a real PostgreSQL server, github-sim.
@Suite(.serialized) struct CommitsdSharedDiscoveryTests {
    typealias Shared = CommitsdSharedQueueTests
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }

    /// commitsd named `name` mirroring the pattern `acme/*` from `uri`, listing it once an hour.
    func startDaemon(_ name: String, uri: String, simulator: GitHubSimulator) throws -> DaemonProcess {
        try DaemonProcess.mirroring(
            ["acme/*"], from: simulator, in: directory, store: uri, named: name, interval: "1h",
            settings: "lease_duration: 5s\ngit_bootstrap: false", logLevel: "info")
    }

    static let listing = "this daemon lists the patterns' owners"
    static let following = "another daemon lists the patterns' owners"

    @Test func oneDaemonListsTheOrganisationAndAllShareItsRepositories() async throws {
        let server = try await PostgreSQLServer.shared()
        let count = 24
        try await withRunning(Shared.simulator(repositories: count, commits: 250, delay: .milliseconds(30))) { simulator in
            let uri = try server.createDatabase()
            let daemons = try (1...3).map { try startDaemon("mirror-\($0)", uri: uri, simulator: simulator) }
            defer { for daemon in daemons { daemon.stop() } }
            #expect(
                await Shared.waitExact(server, uri, try Shared.expected(simulator, repositories: count), within: .seconds(300)),
                "\(daemons.map(\.log))")
            // One listing request in all (24 repositories: one page), by the one daemon that lists.
            #expect(simulator.stats().ownerListings == 1, "\(simulator.stats())")
            #expect(daemons.filter { $0.log.contains(Self.listing) }.count == 1, "\(daemons.map(\.log))")
            #expect(daemons.filter { $0.log.contains(Self.following) }.count == 2, "\(daemons.map(\.log))")
            // The followers synced repositories they never listed themselves.
            let followers = daemons.filter { $0.log.contains(Self.following) }
            #expect(followers.contains { $0.log.contains("sync finished") }, "\(followers.map(\.log))")

            // The lister dies; a repository appears: another daemon takes the turn, lists and mirrors it.
            try simulator.addRepository(
                SimRepository(
                    owner: "acme", name: "repo-\(count)", id: simulator.unusedRepositoryID(),
                    source: .synthetic(SyntheticSpec(commits: 120, seed: 99))))
            let lister = try #require(daemons.first { $0.log.contains(Self.listing) })
            lister.signal(SIGKILL)
            #expect(await lister.waitForExit(timeout: .seconds(30)) != nil)
            #expect(
                await Shared.waitExact(server, uri, try Shared.expected(simulator, repositories: count + 1), within: .seconds(120)),
                "\(followers.map(\.log))")
            #expect(followers.filter { $0.log.contains(Self.listing) }.count == 1, "\(followers.map(\.log))")
            #expect(simulator.stats().ownerListings == 2, "\(simulator.stats())")
            for daemon in followers { daemon.signal(SIGTERM) }
            for daemon in followers { #expect(await daemon.waitForExit(timeout: .seconds(30)) == 0, "\(daemon.log)") }
            let check = try await run("commitsctl", ["check", "--db", uri])
            #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        }
    }
}
