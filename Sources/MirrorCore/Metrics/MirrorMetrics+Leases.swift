import CoreMetrics

extension MirrorMetrics {
    /// What happened to one of this daemon's claims on a shared queue (docs/SCALING.md).
    public enum LeaseEvent: String, Sendable, CaseIterable {
        /// A target claimed from the queue.
        case claim = "lease_claims_total"
        /// A lease extended while its sync ran (every third of the lease).
        case renewal = "lease_renewals_total"
        /// A claim lost (a renewal or a fenced write refused): its work dropped, nothing written.
        case lost = "leases_lost_total"
        /// A claim on a target whose former owner's lease ran out unreleased.
        case takeover = "lease_takeovers_total"
    }

    /// One claim event of this daemon (each daemon serves its own counters).
    public func recordLease(_ event: LeaseEvent) {
        // Every event's counter exists from the first claim, at zero: `increase()` over a
        // series that first appears at 1 sees no increase, so the first lost lease would alert no one.
        let counter = { (event: LeaseEvent) in Counter(label: Self.prefix + event.rawValue, factory: factory) }
        for other in LeaseEvent.allCases where other != event { _ = counter(other) }
        counter(event).increment()
    }
}
