import Foundation
import GitHubSim
import MirrorTestSupport
import Testing

/// Push webhooks on the queue daemons share (a PostgreSQL store): a push
/// received by any daemon makes the repository due now for whichever daemon
/// claims next, so a push is stored within seconds although every daemon
/// polls hourly. Real commitsd processes, a real PostgreSQL server, github-sim
/// delivering signed pushes.
@Suite(.serialized) struct CommitsdSharedWebhookTests {
    typealias Shared = CommitsdSharedQueueTests
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }

    func startDaemon(_ name: String, uri: String, simulator: GitHubSimulator, secretFile: String) throws -> DaemonProcess {
        try DaemonProcess.mirroring(
            ["acme/repo-0", "acme/repo-1"], from: simulator, in: directory, store: uri, named: name, interval: "1h",
            settings: "git_bootstrap: false\nwebhook_listen: 127.0.0.1:0\nwebhook_secret_file: \(secretFile)", logLevel: "info")
    }

    @Test func aPushToAnyDaemonIsSyncedAtOnceByWhicheverClaimsIt() async throws {
        let server = try await PostgreSQLServer.shared()
        try await withRunning(Shared.simulator(repositories: 2, commits: 300, delay: .zero)) { simulator in
            for n in 0..<2 { try simulator.moveHead(owner: "acme", name: "repo-\(n)", back: 10) }
            let secretFile = try directory.write("webhook-secret", WebhookRig.secret + "\n")
            chmod(secretFile, 0o600)
            let uri = try server.createDatabase()
            let daemons = try (1...2).map { try startDaemon("hook-\($0)", uri: uri, simulator: simulator, secretFile: secretFile) }
            defer { for daemon in daemons { daemon.stop() } }
            #expect(
                await Shared.waitExact(server, uri, try Shared.expected(simulator, repositories: 2), within: .seconds(120)),
                "\(daemons.map(\.log))")

            // Pushes delivered to the second daemon, one after the other, each stored long before an interval.
            simulator.setWebhook(
                SimWebhook(
                    url: "http://127.0.0.1:\(try await daemons[1].listeningPort("webhook.listen="))/webhook", secret: WebhookRig.secret))
            for round in 0..<3 {
                let repository = "repo-\(round % 2)"
                try simulator.moveHead(owner: "acme", name: repository, forward: 3)
                let head = try simulator.headSHA(owner: "acme", name: repository)
                let stored = await waitUntil(timeout: .seconds(30)) {
                    Shared.stored(server, uri).contains("acme/\(repository) \(head)")
                }
                #expect(stored, "push \(round) to \(repository): \(daemons.map(\.log))")
            }
            #expect(daemons[1].log.contains("push webhook: due now"), "\(daemons[1].log)")
            #expect(simulator.webhookDeliveries().allSatisfy { $0.status == 202 }, "\(simulator.webhookDeliveries())")
            for daemon in daemons { daemon.signal(SIGTERM) }
            for daemon in daemons { #expect(await daemon.waitForExit(timeout: .seconds(30)) == 0, "\(daemon.log)") }
            let check = try await run("commitsctl", ["check", "--db", uri])
            #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        }
    }
}
