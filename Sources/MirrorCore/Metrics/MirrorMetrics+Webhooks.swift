import CoreMetrics

extension MirrorMetrics {
    /// How commitsd answered one webhook delivery (the `outcome` label).
    public enum WebhookOutcome: String, Sendable, CaseIterable {
        /// A verified push (or repository event): the hint was taken.
        case accepted
        /// A verified `ping`.
        case pong
        /// A verified event commitsd does not act on, or a push of a tag.
        case ignored
        /// A delivery id seen recently: nothing done again.
        case duplicate
        /// A missing or wrong `X-Hub-Signature-256`.
        case unauthorized
        /// Over 25 MB.
        case tooLarge = "too_large"
        /// The body did not arrive in time.
        case timeout
        /// Not `POST /webhook`, or a verified body that is not the event's JSON.
        case invalid
        /// Refused for want of room: the bodies buffered across connections
        /// would pass their cap, or the connection was the slowest when too
        /// many were open at once.
        case overloaded
    }

    /// What a verified push became (the `outcome` label of `webhook_pushes_total`).
    public enum PushOutcome: String, Sendable {
        /// A configured repository and branch: due now.
        case dueNow = "due_now"
        /// No configured repository is that repository, or none mirrors that branch.
        case notMirrored = "not_mirrored"
        /// Folded into the hint its branch already had waiting (webhook hints are spaced and budgeted).
        case folded
        /// Left to the next poll: too many branches had a hint waiting.
        case dropped
    }

    public static let pushToStoredName = prefix + "webhook_push_to_stored_seconds"
    /// From a delivery received to its sync's commits stored: well under a second to a minute.
    public static let pushToStoredBuckets: [Duration] = [
        .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2), .seconds(5),
        .seconds(15), .seconds(60),
    ]

    /// The labels `event` takes: GitHub's event names commitsd knows, else `other`
    /// (the header is the sender's text: unverified, it must not make new series).
    public static func webhookEventLabel(_ event: String?) -> String {
        switch event ?? "" {
        case "push": "push"
        case "ping": "ping"
        case "repository": "repository"
        case "create": "create"
        case "delete": "delete"
        default: "other"
        }
    }

    /// One webhook delivery answered.
    public func recordWebhook(event: String?, outcome: WebhookOutcome) {
        Counter(
            label: Self.prefix + "webhook_deliveries_total",
            dimensions: [("event", Self.webhookEventLabel(event)), ("outcome", outcome.rawValue)], factory: factory
        ).increment()
    }

    /// The webhook connections open and the body bytes they hold, after a change.
    public func recordWebhookLoad(connections: Int, bufferedBytes: Int) {
        Gauge(label: Self.prefix + "webhook_connections", factory: factory).record(connections)
        Gauge(label: Self.prefix + "webhook_buffered_bytes", factory: factory).record(bufferedBytes)
    }

    /// What the service made of one verified push.
    public func recordPush(_ outcome: PushOutcome) {
        Counter(label: Self.prefix + "webhook_pushes_total", dimensions: [("outcome", outcome.rawValue)], factory: factory)
            .increment()
    }

    /// From a push delivery received to the sync it started having stored the branch.
    public func recordPushToStored(_ duration: Duration) {
        let nanoseconds = duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000
        CoreMetrics.Timer(label: Self.pushToStoredName, factory: factory).recordNanoseconds(nanoseconds)
    }
}
