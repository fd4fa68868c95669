import Dispatch
import Foundation

/// SIGTERM and SIGINT while commitsd opens its store, before ServiceGroup
/// listens for them: opening may wait (a lock another session holds, a
/// database server that does not answer), and the default action would end
/// the process by the signal instead of the exit 0 a requested stop deserves.
/// Nothing is stored yet, and what the opening had begun is rolled back by the
/// store, so exiting at once is safe.
final class StartupSignals: @unchecked Sendable {
    private let sources: [any DispatchSourceSignal]
    private let lock = NSLock()
    private var opened = false

    /// One for the process: its sources must outlive the start-up they guard.
    static let installed = StartupSignals()

    private init() {
        let queue = DispatchQueue(label: "commitsd startup signals")
        var sources: [any DispatchSourceSignal] = []
        for signal in [SIGTERM, SIGINT] {
            Foundation.signal(signal, SIG_IGN)
            sources.append(DispatchSource.makeSignalSource(signal: signal, queue: queue))
        }
        self.sources = sources
        for source in sources {
            source.setEventHandler { [self] in
                if !lock.withLock({ opened }) { _exit(0) }
            }
            source.resume()
        }
    }

    /// From here ServiceGroup handles the signals; these sources stay, doing
    /// nothing, so no signal falls between the two.
    func storeOpened() { lock.withLock { opened = true } }
}
