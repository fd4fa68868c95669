import Curl
import Foundation
import GitHubSim
import MirrorCore
import MirrorTestSupport
import Testing

/// Issue #28 acceptance 3 (its functional part; the 2 s p99 is
/// Benchmarks/webhook-latency.sh): with webhooks on and polling at 1 h, a push
/// in github-sim is stored and queryable; forged, replayed, oversized and
/// trickling deliveries change nothing and hold up no other delivery.
@Suite(.serialized) struct CommitsdWebhookTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }

    @Test func aPushInGitHubSimIsStoredAndQueryable() async throws {
        let rig = try await WebhookRig.start(in: directory)
        defer { Task { await rig.stop() } }
        try rig.simulator.moveHead(owner: "acme", name: "widgets", forward: 4)
        let head = rig.head
        #expect(await waitUntil { rig.stored(head) }, "\(rig.daemon.log)")
        let query = try await run("commitsctl", ["query", "--db", rig.store, "--limit", "10"])
        #expect(query.status == 0, "\(query.stderr)")
        #expect(query.lines.contains { $0.hasPrefix(String(head.prefix(7))) }, "\(query.stdout)")
        // The ping on start went nowhere (no URL yet); the push was answered 202.
        let answered = await waitUntil { !rig.simulator.webhookDeliveries().isEmpty }
        #expect(answered && rig.simulator.webhookDeliveries().map { "\($0.event) \($0.status ?? 0)" } == ["push 202"])

        let samples = await rig.samples { $0["commits_mirror_webhook_push_to_stored_seconds_count"] == 1 }
        #expect(samples["commits_mirror_webhook_push_to_stored_seconds_count"] == 1, "\(samples)")
        #expect(samples[#"commits_mirror_webhook_deliveries_total{event="push",outcome="accepted"}"#] == 1)
        #expect(samples[#"commits_mirror_webhook_pushes_total{outcome="due_now"}"#] == 1)

        // The secret is in no log, metric, status or argv.
        let status = try await run("commitsctl", ["status", "--json", "--db", rig.store])
        let metrics = try await HTTPClient().send(HTTPRequest(url: rig.metricsURL))
        let texts = [
            "log": rig.daemon.log, "metrics": String(decoding: metrics.body, as: UTF8.self), "status": status.stdout + status.stderr,
            "argv": SecretScan.commandLine(of: rig.daemon.pid) ?? "",
        ]
        #expect(!texts.values.contains { $0.contains(WebhookRig.secret) }, "the webhook secret leaked")
        #expect(!texts.values.contains { $0.contains(String(WebhookRig.secret.prefix(12))) })
        #expect(SecretScan.leaks(inStoreAt: rig.store).isEmpty)
    }

    @Test func forgedAndReplayedDeliveriesChangeNothing() async throws {
        let rig = try await WebhookRig.start(in: directory)
        defer { Task { await rig.stop() } }
        // Moves from here on are announced by hand.
        rig.simulator.setWebhook(nil)
        try rig.simulator.moveHead(owner: "acme", name: "widgets", forward: 2)
        let first = rig.head
        let body = rig.pushBody(after: first)

        let forged = try await rig.deliver(event: "push", body: body, secret: "not-the-secret")
        #expect(forged.status == 401)
        let unsigned = try await rig.deliver(event: "push", body: body, signature: "")
        #expect(unsigned.status == 401)
        #expect(await staysTrue(for: .seconds(2)) { !rig.stored(first) }, "a forged delivery started a sync")
        #expect(rig.daemon.log.contains("refused a webhook delivery: its X-Hub-Signature-256 is missing or wrong"))

        let id = UUID().uuidString
        let genuine = try await rig.deliver(event: "push", body: body, id: id)
        #expect(genuine.status == 202)
        #expect(await waitUntil { rig.stored(first) }, "\(rig.daemon.log)")

        try rig.simulator.moveHead(owner: "acme", name: "widgets", forward: 2)
        let second = rig.head
        let replay = try await rig.deliver(event: "push", body: body, id: id)
        #expect(replay.status == 200)
        #expect(await staysTrue(for: .seconds(2)) { !rig.stored(second) }, "a replayed delivery started a sync")

        #expect(try await rig.deliver(event: "ping", body: Array(#"{"zen":"hi"}"#.utf8)).status == 200)
        #expect(try await rig.deliver(event: "issues", body: Array(#"{"action":"opened"}"#.utf8)).status == 204)
        // A push for a repository not mirrored is taken, and counted as such.
        let other = Array(#"{"ref":"refs/heads/main","repository":{"id":99,"full_name":"acme/other"}}"#.utf8)
        #expect(try await rig.deliver(event: "push", body: other).status == 202)

        let notMirrored = #"commits_mirror_webhook_pushes_total{outcome="not_mirrored"}"#
        let samples = await rig.samples { $0[notMirrored] == 1 }
        #expect(samples[notMirrored] == 1, "\(samples)")
        #expect(samples[#"commits_mirror_webhook_deliveries_total{event="other",outcome="unauthorized"}"#] == 2)
        #expect(samples[#"commits_mirror_webhook_deliveries_total{event="push",outcome="duplicate"}"#] == 1)
        #expect(samples[#"commits_mirror_webhook_deliveries_total{event="ping",outcome="pong"}"#] == 1)
        #expect(samples[#"commits_mirror_webhook_deliveries_total{event="other",outcome="ignored"}"#] == 1)
        #expect(samples[#"commits_mirror_syncs_total{repository="acme/widgets",outcome="success"}"#] == 2)
        #expect(!rig.daemon.log.contains(WebhookRig.secret))
    }

    @Test func oversizedAndTricklingBodiesHoldUpNoOtherDelivery() async throws {
        let rig = try await WebhookRig.start(in: directory)
        defer { Task { await rig.stop() } }
        let port = try #require(URLComponents(string: rig.webhookURL)?.port)
        let request = "POST /webhook HTTP/1.1\r\nHost: 127.0.0.1\r\nX-GitHub-Event: push\r\nContent-Type: application/json\r\n"

        // Announced over 25 MB: 413 before any of the body is sent.
        let announced = try RawConnection(port: port)
        announced.send(request + "Content-Length: \(25 * 1024 * 1024 + 1)\r\n\r\n")
        var answer = ""
        #expect(
            await waitUntil {
                answer += announced.available(); return answer.hasPrefix("HTTP/1.1 413")
            }, "\(answer)")

        // Chunked, so the length is known only as it arrives: 413 once it passes 25 MB.
        let streamed = try RawConnection(port: port)
        streamed.send(request + "Transfer-Encoding: chunked\r\n\r\n")
        let chunk = "100000\r\n" + String(repeating: "x", count: 0x100000) + "\r\n"
        var sent = 0
        while sent < 40, streamed.send(chunk) { sent += 1 }
        answer = ""
        #expect(
            await waitUntil {
                answer += streamed.available(); return answer.hasPrefix("HTTP/1.1 413")
            }, "\(answer)")

        // A client trickling a signed-looking body holds its own connection only.
        let trickler = try RawConnection(port: port)
        trickler.send(request + "Content-Length: 200\r\nX-GitHub-Delivery: slow\r\n\r\n{\"ref\":")
        try rig.simulator.moveHead(owner: "acme", name: "widgets", forward: 3)
        let head = rig.head
        #expect(await waitUntil { rig.stored(head) }, "\(rig.daemon.log)")
        #expect(await waitUntil { rig.simulator.webhookDeliveries().last?.status == 202 })
        #expect(trickler.available().isEmpty, "the trickling client was answered before the other delivery")
        // Its body never completes: 408 after the read timeout, and nothing synced for it.
        answer = ""
        #expect(
            await waitUntil(timeout: .seconds(30)) {
                answer += trickler.available(); return answer.contains("408")
            }, "\(answer)")

        let timedOut = #"commits_mirror_webhook_deliveries_total{event="other",outcome="timeout"}"#
        let samples = await rig.samples { $0[timedOut] == 1 }
        #expect(samples[timedOut] == 1, "\(samples)")
        #expect(samples[#"commits_mirror_webhook_deliveries_total{event="other",outcome="too_large"}"#] == 2)
        #expect(samples[#"commits_mirror_syncs_total{repository="acme/widgets",outcome="success"}"#] == 2)
    }

    @Test func webhookListenNeedsASecretAndCheckConfigNamesOnlyItsSource() async throws {
        let without = try directory.write("without.yaml", "webhook_listen: 127.0.0.1:9465\nrepositories: [acme/widgets]\n")
        let refused = try await run("commitsd", ["--check-config", "--config", without], environment: ["GITHUB_TOKEN": "t"])
        #expect(refused.status == 2)
        #expect(
            refused.stderr
                == "commitsd: error: \(without):1: webhook_listen: is set, but no webhook secret is; expected webhook_secret_file naming a file that holds the secret set on GitHub's webhook page, or the systemd credential github-webhook-secret\n"
        )
        let secretFile = try directory.write("webhook-secret", WebhookRig.secret)
        chmod(secretFile, 0o600)
        let with = try directory.write(
            "with.yaml", "webhook_listen: 127.0.0.1:9465\nwebhook_secret_file: \(secretFile)\nrepositories: [acme/widgets]\n")
        let valid = try await run("commitsd", ["--check-config", "--config", with], environment: ["GITHUB_TOKEN": "t"])
        #expect(valid.status == 0, "\(valid.stderr)")
        #expect(valid.stdout.contains("; webhooks at http://127.0.0.1:9465/webhook, secret from file \(secretFile)"), "\(valid.stdout)")
        #expect(!(valid.stdout + valid.stderr).contains(WebhookRig.secret))
    }
}
