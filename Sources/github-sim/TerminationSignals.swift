// Waits for SIGTERM/SIGINT so the server can shut down cleanly instead of dying mid-response.

import Dispatch
import Foundation

/// Signal sources are installed before the server starts, so a signal that arrives early is
/// remembered rather than killing the process.
final class TerminationSignals: @unchecked Sendable {
    // All mutable state is touched only on `queue`.
    private let queue = DispatchQueue(label: "github-sim.signals")
    private var sources: [any DispatchSourceSignal] = []
    private var received: Int32?
    private var continuation: CheckedContinuation<Int32, Never>?

    func install(_ signals: [Int32]) {
        queue.sync {
            for number in signals {
                signal(number, SIG_IGN)  // let the dispatch source, not the default action, see it
                let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
                source.setEventHandler { [unowned self] in deliver(number) }
                source.resume()
                sources.append(source)
            }
        }
    }

    /// Returns the first signal received.
    func wait() async -> Int32 {
        await withCheckedContinuation { continuation in
            queue.async { [self] in
                if let received {
                    continuation.resume(returning: received)
                } else {
                    self.continuation = continuation
                }
            }
        }
    }

    private func deliver(_ number: Int32) {
        if received == nil { received = number }
        continuation?.resume(returning: number)
        continuation = nil
    }
}
