import Foundation
import GitHubSim
import MirrorCore
import MirrorTestSupport
import Testing
import Curl

/// What hostile senders can make commitsd's webhook receiver hold: at most 32
/// connections (a new one closes the one waiting longest, so a genuine delivery
/// always gets in), at most 64 MB of push bodies across them (only a push body
/// is kept at all: any other is hashed as it arrives and dropped), and no
/// request longer than 10 s from the connection's opening, however slowly its
/// bytes trickle in. Real commitsd, real sockets.
@Suite(.serialized) struct CommitsdWebhookLimitsTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }

    static let connections = "commits_mirror_webhook_connections"
    static let buffered = "commits_mirror_webhook_buffered_bytes"
    static let overloaded = #"commits_mirror_webhook_deliveries_total{event="other",outcome="overloaded"}"#
    static let pushHead =
        "POST /webhook HTTP/1.1\r\nHost: 127.0.0.1\r\nX-GitHub-Event: push\r\nX-GitHub-Delivery: slow\r\nContent-Type: application/json\r\n"

    /// The slow connections' requests get `slowTimeout` instead of 10 s: every step up to the
    /// genuine delivery is done while they all still wait, however loaded the machine.
    static let slowTimeout = Duration.seconds(60)

    @Test func manySlowConnectionsDoNotKeepOutAGenuineDelivery() async throws {
        let rig = try await WebhookRig.start(
            in: directory, environment: [TestTimings.webhookTimeoutSeconds: "\(Self.slowTimeout.components.seconds)"])
        defer { Task { await rig.stop() } }
        let port = try #require(URLComponents(string: rig.webhookURL)?.port)
        // 32 connections, each with a head and 7 bytes of a 200-byte push body: the cap is full.
        var slow: [RawConnection] = []
        for _ in 0..<32 {
            let connection = try RawConnection(port: port)
            connection.send(Self.pushHead + "Content-Length: 200\r\n\r\n{\"ref\":")
            slow.append(connection)
        }
        var samples = await rig.samples { $0[Self.buffered] == 32 * 7 }
        #expect(samples[Self.buffered] == 32 * 7 && samples[Self.connections] == 32, "\(samples)")

        // 8 more: each closes the one that has waited longest, with a 503.
        for _ in 0..<8 {
            let connection = try RawConnection(port: port)
            connection.send(Self.pushHead + "Content-Length: 200\r\n\r\n{\"ref\":")
            slow.append(connection)
        }
        var answers = [String](repeating: "", count: slow.count)
        func refused() -> Int {
            for (index, connection) in slow.enumerated() { answers[index] += connection.available() }
            return zip(slow, answers).count { $0.closed && $1.hasPrefix("HTTP/1.1 503") }
        }
        #expect(await waitUntil { refused() == 8 }, "\(answers)")
        samples = await rig.samples { $0[Self.overloaded] == 8 && $0[Self.buffered] == 32 * 7 }
        #expect(samples[Self.overloaded] == 8 && samples[Self.connections] == 32, "\(samples)")
        // The 503s went to the oldest: none of the last 8 is among them.
        #expect(slow.suffix(8).allSatisfy { !$0.closed })

        // A genuine delivery gets in (closing one more) while the slow ones all wait: only
        // what shows it got in is waited for before their timeouts; the sync it starts comes after.
        try rig.simulator.moveHead(owner: "acme", name: "widgets", forward: 3)
        let head = rig.head
        #expect(await waitUntil { rig.simulator.webhookDeliveries().last?.status == 202 }, "\(rig.simulator.webhookDeliveries())")
        samples = await rig.samples { $0[Self.overloaded] == 9 }
        #expect(samples[Self.overloaded] == 9, "\(samples)")
        #expect((samples[#"commits_mirror_webhook_deliveries_total{event="other",outcome="timeout"}"#] ?? 0) == 0, "\(samples)")
        #expect(await waitUntil { refused() == 9 }, "\(answers)")
        #expect(answers.filter(\.isEmpty).count == 31)
        #expect(await waitUntil { rig.stored(head) }, "\(rig.daemon.log)")

        // Then every slow one that is left times out (408) and nothing is held.
        samples = await rig.samples(within: Self.slowTimeout + .seconds(60)) { $0[Self.connections] == 0 }
        #expect(samples[Self.connections] == 0 && samples[Self.buffered] == 0, "\(samples)")
        let timedOut = #"commits_mirror_webhook_deliveries_total{event="other",outcome="timeout"}"#
        #expect(samples[timedOut] == 31, "\(samples)")
        #expect(samples[#"commits_mirror_syncs_total{repository="acme/widgets",outcome="success"}"#] == 2)
    }

    /// The test-only variable is checked at start-up, before the store is opened.
    @Test func aWebhookTimeoutThatIsNoWholeNumberOfSecondsStopsTheStartInOneLine() async throws {
        let store = directory.path("never.sqlite")
        let config = try directory.write(
            "config.yaml", "store: \(store)\napi_url: http://127.0.0.1:9\nrepositories:\n  - acme/widgets\n")
        let daemon = try DaemonProcess(
            ["--config", config], environment: ["GITHUB_TOKEN": "t", TestTimings.webhookTimeoutSeconds: "abc"],
            logPath: directory.path("refused.log"))
        defer { daemon.stop() }
        #expect(await daemon.waitForExit(timeout: .seconds(60)) == 2, "\(daemon.log)")
        #expect(
            daemon.log
                == "commitsd: error: $COMMITS_MIRROR_TEST_WEBHOOK_TIMEOUT_SECONDS must be a whole number of seconds from 1 to 86400, not \"abc\"; it is for tests: unset it\n"
        )
        #expect(!FileManager.default.fileExists(atPath: store))
    }

    @Test func aRequestHeadTrickledByteByByteIsCutOffAfterTenSeconds() async throws {
        let rig = try await WebhookRig.start(in: directory)
        defer { Task { await rig.stop() } }
        let port = try #require(URLComponents(string: rig.webhookURL)?.port)
        let trickler = try RawConnection(port: port)
        trickler.send("POST /webhook HTTP/1.1\r\n")
        // A header line every 250 ms: never idle long, never complete. Cut off within 30 s at most.
        var lines = 0
        let cutOff = await waitUntil(timeout: .seconds(30), every: .milliseconds(250)) {
            lines += 1
            return !trickler.send("X-Trickle-\(lines): a\r\n") || (trickler.available().isEmpty && trickler.closed)
        }
        #expect(cutOff, "a connection trickling its head was still open after \(lines) lines")
        let samples = await rig.samples { $0[Self.connections] == 0 }
        #expect(samples[Self.connections] == 0, "\(samples)")
    }

    @Test func pushBodiesAreHeldOnlyWithinTheSharedBudgetAndNothingIsParsedUnverified() async throws {
        let rig = try await WebhookRig.start(in: directory)
        defer { Task { await rig.stop() } }
        let port = try #require(URLComponents(string: rig.webhookURL)?.port)
        let megabyte = 1 << 20
        let announced = Self.pushHead + "Content-Length: \(24 * megabyte)\r\n\r\n"

        // Two pushes of 24 MB each stop after 22 MB: 44 MB held of the 64.
        let first = try RawConnection(port: port)
        #expect(first.send(announced) && first.sendFiller(22 * megabyte))
        let second = try RawConnection(port: port)
        #expect(second.send(announced) && second.sendFiller(22 * megabyte))
        var samples = await rig.samples { $0[Self.buffered] == Double(44 * megabyte) }
        #expect(samples[Self.buffered] == Double(44 * megabyte), "\(samples)")

        // A third would pass 64 MB: 503 and closed, and what it held is given back.
        let third = try RawConnection(port: port)
        third.send(announced)
        third.sendFiller(22 * megabyte)
        samples = await rig.samples { $0[Self.overloaded] == 1 && $0[Self.connections] == 2 }
        #expect(samples[Self.overloaded] == 1 && samples[Self.buffered] == Double(44 * megabyte), "\(samples)")
        var answer = ""
        #expect(
            await waitUntil {
                answer += third.available()
                return third.closed
            })
        #expect(answer.isEmpty || answer.hasPrefix("HTTP/1.1 503"), "\(answer)")

        // Any other event's body is hashed and dropped, never held: 24 MB more fit.
        let issues = try RawConnection(port: port)
        issues.send(
            Self.pushHead.replacingOccurrences(of: "X-GitHub-Event: push", with: "X-GitHub-Event: issues")
                + "X-Hub-Signature-256: sha256=\(String(repeating: "0", count: 64))\r\nContent-Length: \(24 * megabyte)\r\n\r\n")
        #expect(issues.sendFiller(24 * megabyte))
        answer = ""
        #expect(
            await waitUntil {
                answer += issues.available(); return answer.contains("\r\n\r\n")
            })
        #expect(answer.hasPrefix("HTTP/1.1 401"), "\(answer)")

        // A genuine delivery still gets in beside the 44 MB.
        try rig.simulator.moveHead(owner: "acme", name: "widgets", forward: 2)
        let head = rig.head
        #expect(await waitUntil { rig.simulator.webhookDeliveries().last?.status == 202 }, "\(rig.simulator.webhookDeliveries())")
        #expect(await waitUntil { rig.stored(head) }, "\(rig.daemon.log)")

        // A push that is not JSON: unverified it is 401, never parsed (that would be 400); verified, 400.
        let notJSON = Array("this is { not JSON".utf8)
        #expect(try await rig.deliver(event: "push", body: notJSON, secret: "not-the-secret").status == 401)
        #expect(try await rig.deliver(event: "push", body: notJSON).status == 400)
        samples = await rig.samples { $0[#"commits_mirror_webhook_deliveries_total{event="push",outcome="invalid"}"#] == 1 }
        #expect(samples[#"commits_mirror_webhook_deliveries_total{event="other",outcome="unauthorized"}"#] == 2, "\(samples)")
        #expect(samples[#"commits_mirror_webhook_deliveries_total{event="push",outcome="invalid"}"#] == 1, "\(samples)")
        #expect(!rig.daemon.log.contains("this is { not JSON"))
    }
}
