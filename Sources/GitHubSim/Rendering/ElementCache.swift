// Rendered elements of a dataset repository, kept because the same few thousand commits are
// served over and over. Invalidated whenever the URLs inside them change (start, rename).

import NIOCore
import Synchronization

final class ElementCache: Sendable {
    private struct State {
        var key = ""
        var elements: [Int: ByteBuffer] = [:]
    }

    private let state = Mutex(State())

    /// The rendered element of each node, rendering (outside the lock) those not cached for `key`.
    func elements(for nodes: [Int], key: String, render: (Int) -> ByteBuffer) -> [ByteBuffer] {
        var found: [ByteBuffer?] = state.withLock { state in
            if state.key != key {
                state = State(key: key)
            }
            return nodes.map { state.elements[$0] }
        }
        var fresh = [(Int, ByteBuffer)]()
        for (k, node) in nodes.enumerated() where found[k] == nil {
            let element = render(node)
            found[k] = element
            fresh.append((node, element))
        }
        if !fresh.isEmpty {
            state.withLock { state in
                guard state.key == key else { return }
                for (node, element) in fresh { state.elements[node] = element }
            }
        }
        return found.map { $0! }
    }
}
