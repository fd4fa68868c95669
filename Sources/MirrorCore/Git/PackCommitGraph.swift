/// The parent links of a pack's commits, compact (about 110 bytes a commit),
/// to find the commits the wanted tip reaches, check that none of those lacks
/// a parent, and order them parents first, before any commit is handed on.
struct PackCommitGraph {
    private var indexByID: [ObjectID: Int32] = [:]
    /// Per node: where its parents start in `parentIndexes`, or -1 while the pack has not held it.
    private var firstParent: [Int32] = []
    private var parentCount: [Int32] = []
    private var parentIndexes: [Int32] = []
    /// Per node: where the commit starts in the pack.
    private var offsets: [Int] = []

    mutating func add(commit id: ObjectID, parents: [ObjectID], offset: Int) throws {
        let node = index(of: id)
        // git never packs an object twice; handing a commit on twice would be a bug downstream.
        guard firstParent[node] < 0 else { throw GitError.malformedPack("commit \(id.hex) appears twice") }
        firstParent[node] = Int32(parentIndexes.count)
        parentCount[node] = Int32(parents.count)
        offsets[node] = offset
        for parent in parents { parentIndexes.append(Int32(index(of: parent))) }
    }

    /// The commits `tip` reaches, where they are in the pack, every commit
    /// after all its parents (a depth-first post-order). Throws when the tip or
    /// a reached parent is not in the pack.
    func parentsFirstOrder(from tip: ObjectID) throws -> [(offset: Int, id: ObjectID)] {
        guard let start = indexByID[tip].map(Int.init), firstParent[start] >= 0 else {
            throw GitError.tipMissing(tip: tip.hex)
        }
        enum Mark: UInt8 { case unseen, onPath, done }
        var marks = [Mark](repeating: .unseen, count: firstParent.count)
        var order: [Int32] = []
        // (node, how many of its parents were visited): an explicit stack, as histories are deep.
        var path: [(node: Int32, visited: Int32)] = [(Int32(start), 0)]
        marks[start] = .onPath
        while let (node, visited) = path.last.map({ (Int($0.node), Int($0.visited)) }) {
            guard visited < parentCount[node] else {
                marks[node] = .done
                order.append(Int32(node))
                path.removeLast()
                continue
            }
            path[path.count - 1].visited += 1
            let parent = Int(parentIndexes[Int(firstParent[node]) + visited])
            guard firstParent[parent] >= 0 else {
                throw GitError.parentMissing(commit: id(of: node).hex, parent: id(of: parent).hex)
            }
            switch marks[parent] {
            case .unseen:
                marks[parent] = .onPath
                path.append((Int32(parent), 0))
            case .onPath:
                // Only forged names could make a cycle; nothing sensible can be stored from it.
                throw GitError.malformedPack("commit \(id(of: parent).hex) is its own ancestor")
            case .done:
                break
            }
        }
        // Names come from the one map that holds them, without a second copy per node.
        var position = [Int32](repeating: -1, count: firstParent.count)
        for (index, node) in order.enumerated() { position[Int(node)] = Int32(index) }
        var result = [(offset: Int, id: ObjectID)](repeating: (0, tip), count: order.count)
        for (id, node) in indexByID where position[Int(node)] >= 0 {
            result[Int(position[Int(node)])] = (offsets[Int(node)], id)
        }
        return result
    }

    /// Only for an error message: names are not kept twice.
    private func id(of node: Int) -> ObjectID {
        indexByID.first { $0.value == node }!.key
    }

    private mutating func index(of id: ObjectID) -> Int {
        if let index = indexByID[id] { return Int(index) }
        let index = firstParent.count
        indexByID[id] = Int32(index)
        firstParent.append(-1)
        parentCount.append(0)
        offsets.append(-1)
        return index
    }
}
