import Curl
import Foundation
import GitHubSim
import MirrorTestSupport
import Testing

/// github-sim's side of push webhooks: a ping on start, a signed push when a
/// head moves over the control API, with GitHub's headers, and each answer kept.
@Suite struct WebhookDeliveryTests {
    /// A receiver answering 202 to everything, and a simulator delivering to it (`events`,
    /// as `SimWebhook` takes them) once its `ping` is in. Both stopped by the caller.
    static func deliveringSimulator(events: Set<String>? = nil) async throws -> (HostileServer, GitHubSimulator) {
        let receiver = try HostileServer { _, connection in
            connection.respond(status: 202, reason: "Accepted", body: Array("ok\n".utf8))
        }
        var configuration = SimConfiguration()
        configuration.webhook = SimWebhook(url: receiver.baseURL + "/webhook", secret: "sim-secret", events: events)
        let simulator = try GitHubSimulator(
            configuration: configuration,
            repositories: [SimRepository.widgets(id: 4242, SyntheticSpec(commits: 50))])
        try await simulator.start()
        #expect(await waitUntil { simulator.webhookDeliveries().count == 1 })
        return (receiver, simulator)
    }

    @Test func aHeadMovedOverTheControlAPIIsDeliveredAsASignedPush() async throws {
        let (receiver, simulator) = try await Self.deliveringSimulator()
        defer { receiver.stop() }
        defer { Task { try? await simulator.shutdown() } }

        let moved = try await HTTPClient().send(
            HTTPRequest(url: simulator.baseURL + "/_sim/repos/acme/widgets/head?back=3", method: "POST", body: []))
        #expect(moved.status == 200)
        // Not moved: nothing to deliver.
        _ = try await HTTPClient().send(
            HTTPRequest(url: simulator.baseURL + "/_sim/repos/acme/widgets/head?back=0", method: "POST", body: []))
        #expect(await waitUntil { simulator.webhookDeliveries().count == 2 })
        #expect(simulator.webhookDeliveries().map { "\($0.event) \($0.status ?? 0)" } == ["ping 202", "push 202"])

        let requests = receiver.requests
        #expect(requests.map(\.target) == ["/webhook", "/webhook"])
        let push = try #require(requests.last)
        #expect(push.method == "POST")
        #expect(push.headers["x-github-event"] == "push")
        #expect(push.headers["content-type"] == "application/json")
        #expect(push.headers["x-github-delivery"] == simulator.webhookDeliveries().last?.id)
        #expect(push.headers["x-github-delivery"] != requests.first?.headers["x-github-delivery"])
        let signature = try #require(push.headers["x-hub-signature-256"])
        #expect(signature.hasPrefix("sha256=") && signature.count == 71, "\(signature)")
        #expect(!push.headers.values.contains { $0.contains("sim-secret") })
    }

    /// A branch created, moved and deleted over the control API: a `push` each time (created,
    /// moved, deleted), and the `create` and `delete` GitHub sends besides; a hook subscribed to
    /// some events only gets those (and the `ping`).
    @Test(arguments: [nil, ["create", "delete"]] as [Set<String>?])
    func aBranchsLifeIsDeliveredAsGitHubDeliversIt(events: Set<String>?) async throws {
        let (receiver, simulator) = try await Self.deliveringSimulator(events: events)
        defer { receiver.stop() }
        defer { Task { try? await simulator.shutdown() } }

        let client = try HTTPClient()
        let branch = simulator.baseURL + "/_sim/repos/acme/widgets/branch?name=feature"
        for (method, query) in [("POST", "&back=5"), ("POST", "&back=2"), ("DELETE", "")] {
            let answer = try await client.send(HTTPRequest(url: branch + query, method: method, body: []))
            #expect(answer.status == 200)
        }
        let expected = events == nil ? ["create", "delete", "ping", "push", "push", "push"] : ["create", "delete", "ping"]
        #expect(await waitUntil { simulator.webhookDeliveries().count == expected.count })
        #expect(simulator.webhookDeliveries().map(\.event).sorted() == expected)
        #expect(Set(receiver.requests.compactMap { $0.headers["x-github-event"] }) == Set(expected))
    }

    @Test func anUnreachableReceiverIsRecordedNotFatal() async throws {
        var configuration = SimConfiguration()
        // A port nothing listens on (the receiver is gone).
        let gone = try HostileServer { _, _ in }
        let url = gone.baseURL + "/webhook"
        gone.stop()
        configuration.webhook = SimWebhook(url: url, secret: "s")
        let simulator = try GitHubSimulator(
            configuration: configuration,
            repositories: [SimRepository.widgets(id: 1, SyntheticSpec(commits: 10))])
        try await simulator.start()
        defer { Task { try? await simulator.shutdown() } }
        try simulator.moveHead(owner: "acme", name: "widgets", back: 1)
        #expect(await waitUntil { simulator.webhookDeliveries().count == 2 })
        #expect(simulator.webhookDeliveries().allSatisfy { $0.status == nil && $0.failure != nil })
        #expect(try await HTTPClient().send(HTTPRequest(url: simulator.baseURL + "/_sim/stats")).status == 200)
    }
}
