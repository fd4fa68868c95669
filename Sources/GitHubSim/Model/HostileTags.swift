// Tags no honest repository has, which `FaultPlan.hostileTags` adds to every tag listing (git's and
// REST's) so a client's defences can be tested: a tag of a tree, a tag of a blob, a chain of tag
// objects, a cycle of tag objects (possible only because the simulator fabricates their ids), a
// name git refuses, and 100,000 tags, made one at a time as a listing reads them.

/// A kind of hostile tag (`FaultPlan.hostileTags`), by the name the control endpoint takes.
public enum HostileTag: String, Sendable, CaseIterable {
    case tree, blob, chain, cycle
    case dotDotName = "dot-dot-name"
    case hundredThousand = "100000-tags"
}

/// A repository's tags as served: its own, sorted by name, then any hostile ones.
struct ServedTags: RandomAccessCollection {
    static let bulkCount = 100_000

    let tags: [GitTag]
    /// How many `bulk/NNNNNN` tags follow, each a lightweight tag of `bulkTarget`.
    let bulk: Int
    let bulkTarget: String

    var startIndex: Int { 0 }
    var endIndex: Int { tags.count + bulk }

    subscript(position: Int) -> GitTag {
        guard position >= tags.count else { return tags[position] }
        let number = String(position - tags.count)
        return .lightweight("bulk/" + String(repeating: "0", count: Swift.max(0, 6 - number.count)) + number, commit: bulkTarget)
    }

    init(_ state: HostedRepository.State, graph: (any CommitGraph)?, hostile: Set<HostileTag>) {
        guard !hostile.isEmpty, let graph, let head = state.head else {
            (tags, bulk, bulkTarget) = (state.sortedTags, 0, "")
            return
        }
        let record = graph.record(of: head)
        tags = state.sortedTags + HostileTag.allCases.filter(hostile.contains).compactMap { Self.tag($0, head: record) }
        bulk = hostile.contains(.hundredThousand) ? Self.bulkCount : 0
        bulkTarget = record.sha
    }

    private static func tag(_ kind: HostileTag, head: CommitRecord) -> GitTag? {
        let tagger = GitSignature(name: "Mallory", email: "mallory@example.invalid", time: 1_700_000_000, utcOffsetMinutes: 0, user: nil)
        func object(_ name: String, of sha: String, type: String) -> TagObject {
            TagObject(objectSHA: sha, objectType: type, tagName: name, tagger: tagger, message: "hostile \(name)\n")
        }
        switch kind {
        case .tree:
            return .annotated(object("hostile-tree", of: head.tree, type: "tree"), peeled: nil)
        case .blob:
            var tag = GitTag.lightweight("hostile-blob", commit: fabricatedID("blob"))
            (tag.peeled, tag.lightweightType) = (nil, "blob")
            return tag
        case .chain:
            let inner = object("hostile-chain-inner", of: head.sha, type: "commit")
            var tag = GitTag.annotated(object("hostile-chain", of: inner.sha, type: "tag"), peeled: head.sha)
            tag.chained = [inner]
            return tag
        case .cycle:
            let (first, second) = (fabricatedID("cycle-1"), fabricatedID("cycle-2"))
            let one = object("hostile-cycle", of: second, type: "tag").fabricated(id: first)
            let two = object("hostile-cycle-2", of: first, type: "tag").fabricated(id: second)
            var tag = GitTag.annotated(one, peeled: nil)
            tag.chained = [two]
            return tag
        case .dotDotName:
            return .lightweight("hostile..name", commit: head.sha)
        case .hundredThousand:
            return nil
        }
    }

    /// An id no object has: 40 hex digits of a hash of `label`.
    private static func fabricatedID(_ label: String) -> String {
        String(Hashing.hex256("hostile-tag|\(label)").prefix(40))
    }
}
