import NIOCore
import Synchronization

/// Responses a `FaultPlan.holdFrom` (or `holdAccessTokens`) keeps back until the plan is replaced. A test then
/// acts while a walk is certainly waiting for a page, however slowly a loaded machine ran the
/// pages before, and lets the walk go on the moment it is done: no delay to guess.
final class HeldResponses: Sendable {
    private struct State {
        /// Bumped by every release: a response held under an older plan is already free.
        var generation = 0
        var waiting: [EventLoopPromise<Void>] = []
    }

    private let state = Mutex(State())

    /// The plan in force now, as the generation a response held under it carries.
    var generation: Int { state.withLock { $0.generation } }

    /// Completes `released` when the plan of `generation` is replaced, at once if it already is.
    func hold(_ released: EventLoopPromise<Void>, generation: Int) {
        let alreadyFree = state.withLock { state in
            guard state.generation == generation else { return true }
            state.waiting.append(released)
            return false
        }
        if alreadyFree { released.succeed() }
    }

    /// Lets every held response go (a new plan, or the simulator shutting down).
    func releaseAll() {
        let waiting = state.withLock { state in
            state.generation += 1
            defer { state.waiting = [] }
            return state.waiting
        }
        for released in waiting { released.succeed() }
    }
}
