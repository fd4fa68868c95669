import MirrorCore
import Synchronization

/// Between the webhook receiver and the plan: verified deliveries become at
/// most one hint per repository and branch every `spacing`, and at most
/// `perMinute` hints in all (bursts of `burst`), so no number of deliveries,
/// however fast or however they are replayed, starts more syncs than that.
///
/// A delivery id is not signed, so a captured delivery replayed with fresh ids
/// passes every check before this one. A hint that cannot go now is folded into
/// the one its branch already has waiting, which goes as soon as the spacing and
/// the budget allow: a push is never lost, only merged with its neighbours, and
/// the sync it starts reads the branch as it is by then.
final class WebhookHintGate: Sendable {
    struct Limits: Sendable {
        /// Between two hints for one repository and branch.
        var spacing: Duration = .seconds(1)
        /// Between two `repository` events' hints: each lists the patterns' owners, many pages.
        var repositoryEventSpacing: Duration = .seconds(30)
        /// Hints that may go at once after a quiet spell.
        var burst = 10
        /// Hints in all, a minute, once the burst is spent.
        var perMinute = 120
        /// Repositories and branches remembered at once (each waiting hint is one).
        var maximumKeys = 4096
    }

    /// What became of one delivery's hint.
    enum Admission: Equatable, Sendable {
        /// Sent to the plan now.
        case sent
        /// Folded into the hint its branch has waiting (sent within `spacing`, or once the budget allows).
        case folded
        /// No configured repository and branch is that one: no hint.
        case notMirrored
        /// So many branches wait already that this one is left to its next poll.
        case dropped
    }

    /// A repository and branch, or (an empty name) the `repository` events.
    fileprivate struct Key: Hashable {
        var name: String
        var branch: String?
    }
    private struct Entry {
        /// Whether a configured repository is that one, as of `checkedAt`.
        var mirrored: Bool
        var checkedAt: ContinuousClock.Instant
        var sentAt: ContinuousClock.Instant?
        var waiting: WebhookHint?
        /// When the hint waiting began to wait: the longest waiting goes first.
        var waitingSince: ContinuousClock.Instant?
    }
    private struct State {
        var entries: [Key: Entry] = [:]
        var tokens: Double
        var refilledAt: ContinuousClock.Instant
    }

    let limits: Limits
    private let state: Mutex<State>
    private let send: @Sendable (WebhookHint) -> Void

    init(limits: Limits = Limits(), now: ContinuousClock.Instant = .now, send: @escaping @Sendable (WebhookHint) -> Void) {
        self.limits = limits
        self.send = send
        state = Mutex(State(tokens: Double(limits.burst), refilledAt: now))
    }

    /// `hint` for its repository and branch; `isMirrored` is asked (at most once
    /// per `spacing` for one key) whether any configured repository is that one.
    func admit(
        _ hint: WebhookHint, now: ContinuousClock.Instant = .now, isMirrored: () -> Bool
    ) -> Admission {
        let key = Self.key(of: hint)
        let known = state.withLock { state in
            state.entries[key].flatMap { now - $0.checkedAt < limits.spacing ? $0.mirrored : nil }
        }
        // Asked outside the lock: it may read the store.
        let mirrored = known ?? isMirrored()
        let (admission, due) = state.withLock { state -> (Admission, [WebhookHint]) in
            let room = state.entries[key] != nil || state.entries.count < limits.maximumKeys
            guard mirrored else {
                if known == nil, room { state.entries[key] = Entry(mirrored: false, checkedAt: now) }
                return (.notMirrored, [])
            }
            guard room else { return (.dropped, []) }
            var entry = state.entries[key] ?? Entry(mirrored: true, checkedAt: now)
            if known == nil { (entry.mirrored, entry.checkedAt) = (true, now) }
            if entry.waiting == nil { entry.waitingSince = now }
            entry.waiting = Self.merged(entry.waiting, hint)
            state.entries[key] = entry
            let due = Self.takeDue(&state, limits: limits, now: now)
            return (due.contains { $0.key == key } ? .sent : .folded, due.map(\.hint))
        }
        due.forEach(send)
        return admission
    }

    /// Sends the hints whose spacing has passed, as far as the budget allows, and
    /// forgets the branches with nothing waiting and nothing to remember.
    func sendDue(now: ContinuousClock.Instant = .now) {
        let due = state.withLock { state in
            let due = Self.takeDue(&state, limits: limits, now: now).map(\.hint)
            state.entries = state.entries.filter { key, entry in
                entry.waiting != nil || now - max(entry.checkedAt, entry.sentAt ?? entry.checkedAt) < limits.spacing(of: key)
            }
            return due
        }
        due.forEach(send)
    }

    /// Hints waiting to be sent (for tests and the log).
    var waiting: Int { state.withLock { state in state.entries.values.count { $0.waiting != nil } } }

    private static func key(of hint: WebhookHint) -> Key {
        switch hint {
        case .push(let push, _): Key(name: push.repositoryName.description.lowercased(), branch: push.branch)
        case .repositoryChanged: Key(name: "", branch: nil)
        }
    }

    /// One waiting hint per branch: the newest payload, the earliest arrival
    /// (what the push-to-stored latency is measured from).
    private static func merged(_ waiting: WebhookHint?, _ new: WebhookHint) -> WebhookHint {
        guard case .push(_, let earlier)? = waiting, case .push(let push, let received) = new else { return new }
        return .push(push, receivedAt: min(earlier, received))
    }

    /// Takes the waiting hints whose spacing has passed, the longest waiting first, while tokens last.
    private static func takeDue(_ state: inout State, limits: Limits, now: ContinuousClock.Instant) -> [(key: Key, hint: WebhookHint)] {
        let rate = Double(limits.perMinute) / 60
        let elapsed = now - state.refilledAt
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        // Two deliveries may take their instants in one order and the lock in the other.
        state.tokens = min(Double(limits.burst), state.tokens + max(0, seconds) * rate)
        state.refilledAt = max(state.refilledAt, now)
        let keys = state.entries.compactMap { key, entry in entry.waitingSince.map { (key, $0) } }.sorted { $0.1 < $1.1 }.map(\.0)
        var due: [(key: Key, hint: WebhookHint)] = []
        for key in keys {
            guard state.tokens >= 1, var entry = state.entries[key], let hint = entry.waiting else { continue }
            if let sent = entry.sentAt, now - sent < limits.spacing(of: key) { continue }
            state.tokens -= 1
            (entry.waiting, entry.waitingSince, entry.sentAt) = (nil, nil, now)
            state.entries[key] = entry
            due.append((key, hint))
        }
        return due
    }
}

extension WebhookHintGate.Limits {
    fileprivate func spacing(of key: WebhookHintGate.Key) -> Duration {
        key.name.isEmpty ? repositoryEventSpacing : spacing
    }
}
