import Synchronization

/// Set from any thread by a task-cancellation handler; read by libcurl's
/// progress callback on the transfer thread, which then aborts the transfer.
final class CancellationFlag: Sendable {
    private let cancelled = Atomic<Bool>(false)

    var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

    func cancel() {
        cancelled.store(true, ordering: .releasing)
    }
}
