import MirrorCore
import NIOCore
import Synchronization

/// What all webhook connections may hold together, so that no sender, however
/// many connections it opens or however slowly it sends, makes commitsd hold
/// more than `maximumConnections` sockets and `maximumBufferedBytes` of bodies.
///
/// At the connection cap a new connection is taken and the one that has waited
/// longest for its current request is closed: GitHub sends a delivery in
/// milliseconds, so the connection waiting longest is the slow one, and a
/// genuine delivery gets in however many trickling connections hold the rest.
final class WebhookAdmission: Sendable {
    private struct Entry {
        let channel: any Channel
        /// When its current request began to be awaited (a counter: only the order matters).
        var waitingSince: UInt64
    }
    private struct State {
        var connections: [ObjectIdentifier: Entry] = [:]
        var bufferedBytes = 0
        var clock: UInt64 = 0
    }
    private let state = Mutex(State())
    let maximumConnections: Int
    let maximumBufferedBytes: Int
    let metrics: MirrorMetrics

    init(maximumConnections: Int, maximumBufferedBytes: Int, metrics: MirrorMetrics) {
        self.maximumConnections = maximumConnections
        self.maximumBufferedBytes = maximumBufferedBytes
        self.metrics = metrics
    }

    /// Counts `channel` in; returns the connection to close to make room for it, if any.
    func admit(_ channel: any Channel) -> (any Channel)? {
        let (evicted, connections, bytes) = state.withLock { state -> ((any Channel)?, Int, Int) in
            var evicted: (any Channel)?
            if state.connections.count >= maximumConnections,
                let oldest = state.connections.min(by: { $0.value.waitingSince < $1.value.waitingSince })
            {
                state.connections[oldest.key] = nil
                evicted = oldest.value.channel
            }
            state.clock += 1
            state.connections[ObjectIdentifier(channel)] = Entry(channel: channel, waitingSince: state.clock)
            return (evicted, state.connections.count, state.bufferedBytes)
        }
        metrics.recordWebhookLoad(connections: connections, bufferedBytes: bytes)
        return evicted
    }

    /// `channel` answered a request: its wait for the next one starts now.
    func answered(_ channel: any Channel) {
        state.withLock { state in
            state.clock += 1
            state.connections[ObjectIdentifier(channel)]?.waitingSince = state.clock
        }
    }

    /// `channel` is closed: it no longer counts.
    func left(_ channel: any Channel) {
        let (connections, bytes) = state.withLock { state in
            state.connections[ObjectIdentifier(channel)] = nil
            return (state.connections.count, state.bufferedBytes)
        }
        metrics.recordWebhookLoad(connections: connections, bufferedBytes: bytes)
    }

    /// Takes `count` more bytes of the shared budget; false (nothing taken) when they do not fit.
    func reserve(_ count: Int) -> Bool {
        let load = state.withLock { state -> (connections: Int, bytes: Int)? in
            guard state.bufferedBytes + count <= maximumBufferedBytes else { return nil }
            state.bufferedBytes += count
            return (state.connections.count, state.bufferedBytes)
        }
        guard let load else { return false }
        metrics.recordWebhookLoad(connections: load.connections, bufferedBytes: load.bytes)
        return true
    }

    /// Gives back bytes taken by `reserve`.
    func release(_ count: Int) {
        guard count > 0 else { return }
        let (connections, bytes) = state.withLock { state in
            state.bufferedBytes -= count
            return (state.connections.count, state.bufferedBytes)
        }
        metrics.recordWebhookLoad(connections: connections, bufferedBytes: bytes)
    }
}
