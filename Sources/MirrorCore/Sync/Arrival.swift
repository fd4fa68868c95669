import Synchronization

/// Something that happens once (a page arriving), waited for with a time limit:
/// each waiter is resumed as it happens, or with false when its limit passes
/// first or its task is cancelled.
final class Arrival: Sendable {
    private let state = Mutex(State())

    private struct State {
        var arrived = false
        var nextWaiter = 0
        var waiters: [Int: Waiter] = [:]
    }

    private struct Waiter {
        let continuation: CheckedContinuation<Bool, Never>
        let timer: Task<Void, Never>
    }

    /// Whether a task waits (for tests).
    var hasWaiters: Bool { state.withLock { !$0.waiters.isEmpty } }

    /// Marks the arrival and wakes every waiter.
    func arrive() {
        let waiters = state.withLock { state in
            state.arrived = true
            defer { state.waiters = [:] }
            return state.waiters.values
        }
        for waiter in waiters {
            waiter.timer.cancel()
            waiter.continuation.resume(returning: true)
        }
    }

    /// True once arrived, waiting at most `limit`; false when the limit passes or the task is cancelled.
    func wait(upTo limit: Duration) async -> Bool {
        let id = state.withLock { state -> Int? in
            guard !state.arrived else { return nil }
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        guard let id else { return true }  // arrived already: no timer, no suspension
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let timer = Task { [weak self] in
                    try? await Task.sleep(for: limit)
                    self?.expire(id)
                }
                let arrived = state.withLock { state -> Bool? in
                    guard !state.arrived, !Task.isCancelled else { return state.arrived }
                    state.waiters[id] = Waiter(continuation: continuation, timer: timer)
                    return nil
                }
                if let arrived {
                    timer.cancel()
                    continuation.resume(returning: arrived)
                }
            }
        } onCancel: {
            expire(id)
        }
    }

    private func expire(_ id: Int) {
        guard let waiter = state.withLock({ $0.waiters.removeValue(forKey: id) }) else { return }
        waiter.timer.cancel()
        waiter.continuation.resume(returning: false)
    }
}
