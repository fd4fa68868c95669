// GET /repos/{o}/{r}/compare/{base}...{head}: how two commits relate (LIST-COMMITS.md §7).
// Only the fields a client reads to detect a rewrite are computed; `commits` and `files`
// come back empty, as on a page past the end.

import NIOCore
import Foundation
import NIOHTTP1

enum CompareEndpoint {
    static func respond(_ context: EndpointContext, spec: String) -> SimResponse {
        guard let graph = context.repository.graph, let head = context.state.head else {
            return .emptyRepository(section: "compare-two-commits")
        }
        let refs = spec.components(separatedBy: "...")
        guard refs.count == 2,
            let base = context.repository.resolve(ref: refs[0], head: head, branches: context.state.branches),
            let target = context.repository.resolve(ref: refs[1], head: head, branches: context.state.branches)
        else { return .notFound() }
        let fromTarget = reachable(from: target, in: graph)
        let fromBase = reachable(from: base, in: graph)
        let ahead = fromTarget.subtracting(fromBase).count
        let behind = fromBase.subtracting(fromTarget).count
        let status =
            switch (ahead, behind) {
            case (0, 0): "identical"
            case (_, 0): "ahead"
            case (0, _): "behind"
            default: "diverged"
            }
        let url = "\(context.baseURL)/repos/\(context.state.owner)/\(context.state.name)/compare/\(spec)"
        let body = """
            {"url":"\(url)","status":"\(status)","ahead_by":\(ahead),"behind_by":\(behind),\
            "total_commits":\(ahead),"commits":[],"files":[]}
            """
        return .json(.ok, ByteBuffer(string: body))
    }

    private static func reachable(from node: Int, in graph: any CommitGraph) -> Set<Int> {
        let listing = graph.listing(from: node, since: nil, until: nil)
        var nodes = Set<Int>(minimumCapacity: listing.count)
        for position in 0..<listing.count { nodes.insert(listing[position]) }
        return nodes
    }
}
