// A JSON array of list elements for one page.

import NIOCore

enum PageRenderer {
    /// Typical compact element size; reserving it up front avoids regrowing the buffer.
    static let elementSizeEstimate = 3600

    static func render(
        nodes: [Int], graph: any CommitGraph, cache: ElementCache?, renderer: ElementRenderer
    ) -> ByteBuffer {
        var out = ByteBuffer()
        out.reserveCapacity(nodes.count * elementSizeEstimate + 2)
        out.writeStaticString("[")
        if let cache {
            let elements = cache.elements(for: nodes, key: renderer.cacheKey) { node in
                var element = ByteBuffer()
                element.reserveCapacity(elementSizeEstimate)
                renderer.writeElement(graph.record(of: node), into: &element)
                return element
            }
            for (k, element) in elements.enumerated() {
                if k > 0 { out.writeStaticString(",") }
                out.writeImmutableBuffer(element)
            }
        } else {
            for (k, node) in nodes.enumerated() {
                if k > 0 { out.writeStaticString(",") }
                renderer.writeElement(graph.record(of: node), into: &out)
            }
        }
        out.writeStaticString("]")
        return out
    }
}
