import Curl
import Foundation
import GitHubSim
import MirrorCore
import MirrorTestSupport
import Testing

/// Reliability round 4 (items 4 and 6, webhook parts), over the real path: a
/// real commitsd receives signed deliveries from the test, github-sim counts
/// what it was asked. A captured delivery replayed with fresh ids (the id is
/// not signed) starts at most one sync of its branch a second, another
/// repository's polls stay on time, refusals do not flood the log, a payload's
/// control characters reach the log escaped, a connection answered with
/// `Connection: close` is closed at once, and a push to what is not mirrored
/// says so.
@Suite(.serialized) struct CommitsdWebhookFloodTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }

    /// Deliveries a second, and for how long, in the flood.
    static let rate = 40
    static let flood: Duration = .seconds(4)

    /// API requests github-sim served for `repository` (by name or by id).
    static func requests(_ stats: SimStats, _ repository: String, id: Int) -> Int {
        (stats.requestsByRepository[repository] ?? 0) + (stats.requestsByRepository["#\(id)"] ?? 0)
    }

    /// On SQLite commitsd keeps its own schedule; on PostgreSQL it claims from the shared queue.
    @Test(arguments: [false, true])
    func aReplayedPushStartsAtMostOneSyncOfItsBranchASecondAndOtherPollsStayOnTime(onPostgreSQL: Bool) async throws {
        var postgreSQL: (server: PostgreSQLServer, uri: String)?
        if onPostgreSQL {
            let server = try await PostgreSQLServer.shared()
            postgreSQL = (server, try server.createDatabase())
        }
        let rig = try await WebhookRig.start(
            in: directory, others: [("steady", 30, "{name: acme/steady, interval: 1s}")], postgreSQL: postgreSQL)
        defer { Task { await rig.stop() } }
        // A real push, captured: replayed from here on with fresh delivery ids.
        rig.simulator.setWebhook(nil)
        try rig.simulator.moveHead(owner: "acme", name: "widgets", forward: 3)
        let head = rig.head
        let body = rig.pushBody(after: head)

        let before = rig.simulator.stats()
        let started = ContinuousClock.now
        var answers: [String: Int] = [:]
        let total = Self.rate * Int(Self.flood.components.seconds)
        var last = head
        for index in 0..<total {
            try? await Task.sleep(until: started + .seconds(1) * (Double(index) / Double(Self.rate)), clock: .continuous)
            // A real push just before the flood ends, announced only by the deliveries folded after it.
            if index == total - 6 {
                try rig.simulator.moveHead(owner: "acme", name: "widgets", forward: 2)
                last = rig.head
            }
            let response = try await rig.deliver(event: "push", body: body)
            answers["\(response.status) \(String(decoding: response.body, as: UTF8.self))", default: 0] += 1
        }
        let elapsed = ContinuousClock.now - started
        let after = rig.simulator.stats()
        let seconds = Int((elapsed / .seconds(1)).rounded(.up))

        // One hint a second at most for the branch: its syncs (one request each when nothing moved,
        // a few when it did) stay within a few per second, where each delivery used to start one.
        let widgets = Self.requests(after, "acme/widgets", id: 1001) - Self.requests(before, "acme/widgets", id: 1001)
        #expect(widgets <= 3 * (seconds + 1), "\(widgets) requests for acme/widgets in \(elapsed): \(answers)")
        #expect(answers.keys.allSatisfy { $0.hasPrefix("202 accepted") }, "\(answers)")
        let folded = answers["202 accepted; a sync of this branch is already due, and this push is folded into it\n"] ?? 0
        #expect(folded >= answers.values.reduce(0, +) - 2 * (seconds + 1), "\(answers)")
        // The other repository, polled every second, was polled about as often as the flood lasted
        // (on the shared queue, a second's claim poll may come on top of its interval).
        let steady = Self.requests(after, "acme/steady", id: 1002) - Self.requests(before, "acme/steady", id: 1002)
        #expect(steady >= (onPostgreSQL ? seconds / 2 - 1 : seconds - 2), "acme/steady polled \(steady) times in \(elapsed)")
        // Nothing pushed was lost: the folded hint went after the flood, and the last push is stored
        // (the repository polls hourly).
        #expect(await waitUntil { rig.stored(head) && rig.stored(last) }, "\(rig.daemon.log)")
        let samples = await rig.samples { ($0[#"commits_mirror_webhook_pushes_total{outcome="folded"}"#] ?? 0) >= Double(folded) }
        #expect(samples[#"commits_mirror_webhook_pushes_total{outcome="folded"}"#] == Double(folded), "\(samples)")
    }

    @Test func refusedDeliveriesAreCountedEachButLoggedOnce() async throws {
        let rig = try await WebhookRig.start(in: directory)
        defer { Task { await rig.stop() } }
        let body = rig.pushBody(after: rig.head)
        for _ in 0..<200 {
            #expect(try await rig.deliver(event: "push", body: body, secret: "not-the-secret").status == 401)
        }
        let unauthorized = #"commits_mirror_webhook_deliveries_total{event="other",outcome="unauthorized"}"#
        let samples = await rig.samples { $0[unauthorized] == 200 }
        #expect(samples[unauthorized] == 200, "\(samples)")
        let lines = rig.daemon.log.split(separator: "\n").filter { $0.contains("refused a webhook delivery") }
        #expect(lines.count == 1, "\(lines.count) lines: \(lines.prefix(3))")
    }

    @Test func aPushNotMirroredSaysSoAndItsControlCharactersReachTheLogEscaped() async throws {
        let rig = try await WebhookRig.start(in: directory)
        defer { Task { await rig.stop() } }
        rig.simulator.setWebhook(nil)
        let syncs = #"commits_mirror_syncs_total{repository="acme/widgets",outcome="success"}"#
        // The first sync's outcome is counted just after its commits are stored.
        let synced = await rig.samples { $0[syncs] == 1 }[syncs]
        #expect(synced == 1)
        // A terminal title and a colour, as JSON escapes (the JSON text itself holds none).
        let escape = #"\u001b]0;owned\u0007\u001b[31m"#
        let bodies = [
            #"{"ref":"refs/heads/main","repository":{"id":99,"full_name":"acme/other","default_branch":"main"}}"#,
            #"{"ref":"refs/heads/feature\#(escape)","repository":{"id":1001,"full_name":"acme/widgets","default_branch":"main"}}"#,
        ]
        for body in bodies {
            let response = try await rig.deliver(event: "push", body: Array(body.utf8))
            #expect(response.status == 202)
            #expect(String(decoding: response.body, as: UTF8.self) == "not mirrored; nothing to do\n")
        }
        let notMirrored = #"commits_mirror_webhook_pushes_total{outcome="not_mirrored"}"#
        let ignored = #"commits_mirror_webhook_deliveries_total{event="push",outcome="ignored"}"#
        let samples = await rig.samples { $0[notMirrored] == 2 && $0[ignored] == 2 }
        #expect(samples[notMirrored] == 2, "\(samples)")
        #expect(samples[ignored] == 2, "\(samples)")
        #expect((samples[#"commits_mirror_webhook_pushes_total{outcome="due_now"}"#] ?? 0) == 0, "\(samples)")
        #expect(await staysTrue(for: .seconds(1)) { !rig.daemon.log.contains("syncing now") }, "\(rig.daemon.log)")
        #expect(await rig.samples()[syncs] == synced)
        // The branch is logged (at debug), every control character escaped.
        #expect(await waitUntil { rig.daemon.log.contains(#"feature\u{1B}]0;owned\u{7}\u{1B}[31m"#) }, "\(rig.daemon.log)")
        #expect(!rig.daemon.log.unicodeScalars.contains { $0.properties.generalCategory == .control && $0 != "\n" })
    }

    @Test func aConnectionAnsweredWithConnectionCloseIsClosedAtOnce() async throws {
        let rig = try await WebhookRig.start(in: directory)
        defer { Task { await rig.stop() } }
        // A Content-Length that is not a number: NIO's parser answers 400 with Connection: close.
        let connection = try RawConnection(port: rig.port)
        connection.send("POST /webhook HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: many\r\n\r\n")
        var answer = ""
        // Left to the request deadline it would stay open 10 s; at once is well before that.
        let closed = await waitUntil(timeout: .seconds(5)) {
            answer += connection.available()
            return connection.closed
        }
        #expect(closed, "still open 5 s after: \(answer)")
        #expect(answer.hasPrefix("HTTP/1.1 400") && answer.lowercased().contains("connection: close"), "\(answer)")
    }
}
