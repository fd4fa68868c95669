// Sends GitHub-shaped webhook deliveries (`push` when a branch moves, is created
// or deleted, `create` / `delete` besides, `pull_request` when the control endpoint
// opens or changes one, `ping` on start) to the configured
// URL, signed with the secret as GitHub signs them.

import Crypto
import Foundation
import Synchronization

/// Where the simulator delivers webhooks, and the secret it signs them with.
public struct SimWebhook: Sendable {
    public var url: String
    public var secret: String
    /// The events the hook subscribes to, as on GitHub's webhook page; `nil` for
    /// every event. `ping` is always sent.
    public var events: Set<String>?

    public init(url: String, secret: String, events: Set<String>? = nil) {
        self.url = url
        self.secret = secret
        self.events = events
    }
}

/// One delivery's outcome, for tests and benchmarks.
public struct SimWebhookDelivery: Sendable {
    public var event: String
    public var id: String
    /// The receiver's status; nil when it did not answer.
    public var status: Int?
    /// Why it did not answer (never the secret).
    public var failure: String?
}

final class WebhookDispatcher: Sendable {
    private struct State {
        var target: SimWebhook?
        var delivered: [SimWebhookDelivery] = []
    }
    private let state: Mutex<State>

    init(_ target: SimWebhook?) { state = Mutex(State(target: target)) }

    var target: SimWebhook? {
        get { state.withLock { $0.target } }
        set { state.withLock { $0.target = newValue } }
    }

    var delivered: [SimWebhookDelivery] { state.withLock { $0.delivered } }

    /// `X-Hub-Signature-256` for `body` under `secret`.
    static func signature(of body: [UInt8], secret: String) -> String {
        let code = HMAC<SHA256>.authenticationCode(for: body, using: SymmetricKey(data: Array(secret.utf8)))
        return "sha256=" + code.map { byte in (byte < 16 ? "0" : "") + String(byte, radix: 16) }.joined()
    }

    /// A `push` of `branch` from `before` (`nil`: created) to `after` (`nil`:
    /// deleted), in the background; a no-op without a target.
    func pushed(_ repository: HostedRepository, branch: String, before: String?, after: String?) {
        let zero = String(repeating: "0", count: 40)
        let object: [String: Any] = [
            "ref": "refs/heads/\(branch)", "before": before ?? zero, "after": after ?? zero,
            "created": before == nil, "deleted": after == nil, "forced": false,
            "repository": Self.repositoryObject(repository),
            "pusher": ["name": "github-sim", "email": "github-sim@example.invalid"], "commits": [] as [Any],
        ]
        send(event: "push", object: object)
    }

    /// The `create` or `delete` event GitHub sends, besides the push, when a branch
    /// is created or deleted: `ref` is the branch's short name.
    func branchEvent(_ event: String, _ repository: HostedRepository, branch: String) {
        let object: [String: Any] = [
            "ref": branch, "ref_type": "branch", "master_branch": repository.defaultBranch, "pusher_type": "user",
            "repository": Self.repositoryObject(repository),
        ]
        send(event: event, object: object)
    }

    /// The `pull_request` event GitHub sends when a pull request is opened, edited, closed or reopened.
    func pullRequestEvent(_ action: String, _ repository: HostedRepository, number: Int, pullRequest: Any) {
        let object: [String: Any] = [
            "action": action, "number": number, "pull_request": pullRequest, "repository": Self.repositoryObject(repository),
        ]
        send(event: "pull_request", object: object)
    }

    private static func repositoryObject(_ repository: HostedRepository) -> [String: Any] {
        let snapshot = repository.snapshot
        return [
            "id": repository.id, "name": snapshot.name, "full_name": snapshot.fullName,
            "private": repository.isPrivate, "default_branch": repository.defaultBranch,
            "owner": ["login": snapshot.owner, "name": snapshot.owner],
        ]
    }

    /// The `ping` GitHub sends when a webhook is created.
    func ping() {
        send(event: "ping", object: ["zen": "Keep it logically awesome.", "hook_id": 1])
    }

    private func send(event: String, object: [String: Any]) {
        guard let target, event == "ping" || target.events?.contains(event) ?? true,
            let body = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        else { return }
        let bytes = Array(body)
        let id = UUID().uuidString.lowercased()
        Task {
            _ = await deliver(event: event, id: id, body: bytes, to: target)
        }
    }

    /// Delivers one signed event and records how it went.
    func deliver(event: String, id: String, body: [UInt8], to target: SimWebhook) async -> SimWebhookDelivery {
        var delivery = SimWebhookDelivery(event: event, id: id)
        do {
            delivery.status = try await WebhookPoster.post(
                url: target.url,
                headers: [
                    ("User-Agent", "GitHub-Hookshot/github-sim"), ("Content-Type", "application/json"),
                    ("X-GitHub-Event", event), ("X-GitHub-Delivery", id),
                    ("X-GitHub-Hook-ID", "1"), ("X-Hub-Signature-256", Self.signature(of: body, secret: target.secret)),
                ], body: body)
        } catch {
            delivery.failure = "\(error)"
        }
        state.withLock { $0.delivered.append(delivery) }
        return delivery
    }
}
