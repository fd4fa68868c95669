import Synchronization

/// A page fetched ahead while the previous one is stored, and whether it has
/// arrived: the engine commits its open batch rather than wait long for one.
final class PrefetchedPage: Sendable {
    private let task: Task<GitHubClient.CommitsPage, any Error>
    private let arrival: Arrival

    private final class Arrival: Sendable {
        let flag = Atomic<Bool>(false)
    }

    init(_ fetch: @escaping @Sendable () async throws -> GitHubClient.CommitsPage) {
        let arrival = Arrival()
        self.arrival = arrival
        task = Task {
            defer { arrival.flag.store(true, ordering: .releasing) }
            return try await fetch()
        }
    }

    /// Whether the page arrives within `limit` (polled: waiting for the task
    /// itself could not stop at the limit).
    func arrives(within limit: Duration) async -> Bool {
        let deadline = ContinuousClock.now + limit
        while !arrival.flag.load(ordering: .acquiring) {
            guard ContinuousClock.now < deadline else { return false }
            do {
                try await Task.sleep(for: .milliseconds(1))
            } catch {
                break  // cancelled: the caller commits and stops
            }
        }
        return arrival.flag.load(ordering: .acquiring)
    }

    /// The page; the fetch is an unstructured task, so our cancellation is passed on to it.
    var value: GitHubClient.CommitsPage {
        get async throws {
            try await withTaskCancellationHandler {
                try await task.value
            } onCancel: { [task] in
                task.cancel()
            }
        }
    }

    func cancel() { task.cancel() }
}
