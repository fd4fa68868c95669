import Logging
import Synchronization

/// Refused webhook deliveries, logged without letting a sender fill the log:
/// the first refusal after a quiet `interval` is logged in full; the ones after
/// it are only counted (as every refusal is, in the deliveries metric), and
/// their number is logged once per `interval` while they go on.
final class WebhookRefusalLog: Sendable {
    private struct State {
        var loggedAt: ContinuousClock.Instant?
        /// Refusals since `loggedAt` that no line named.
        var unlogged = 0
    }
    private let state = Mutex(State())
    let interval: Duration

    init(interval: Duration = .seconds(60)) { self.interval = interval }

    /// A delivery was refused: true when it is to be logged on its own.
    func refused(now: ContinuousClock.Instant = .now) -> Bool {
        state.withLock { state in
            if state.unlogged == 0, state.loggedAt.map({ now - $0 >= interval }) ?? true {
                state.loggedAt = now
                return true
            }
            state.unlogged += 1
            return false
        }
    }

    /// The refusals no line named, once `interval` has passed since the last line
    /// (counted from then on afresh), with how long they took; `nil` otherwise.
    func summary(now: ContinuousClock.Instant = .now) -> (count: Int, over: Duration)? {
        state.withLock { state in
            guard state.unlogged > 0, let logged = state.loggedAt, now - logged >= interval else { return nil }
            defer { (state.unlogged, state.loggedAt) = (0, now) }
            return (state.unlogged, now - logged)
        }
    }

    /// Logs the summary if one is due.
    func logSummary(to logger: Logger, now: ContinuousClock.Instant = .now) {
        guard let (count, over) = summary(now: now) else { return }
        logger.warning(
            "\(count) more refused webhook \(count == 1 ? "delivery" : "deliveries") in the last \(over.components.seconds) s; commits_mirror_webhook_deliveries_total counts them by outcome"
        )
    }
}
