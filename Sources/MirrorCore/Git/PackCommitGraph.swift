/// The parent links of a pack's commits, compact (about 100 bytes a commit),
/// to decide which commits the wanted tip reaches and that none of those
/// lacks a parent, before any commit is handed on.
struct PackCommitGraph {
    private var indexByID: [ObjectID: Int32] = [:]
    /// Per node: where its parents start in `parentIndexes`, or -1 while the pack has not held it.
    private var firstParent: [Int32] = []
    private var parentCount: [Int32] = []
    private var parentIndexes: [Int32] = []

    var commitCount: Int { firstParent.count(where: { $0 >= 0 }) }

    mutating func add(commit id: ObjectID, parents: [ObjectID]) throws {
        let node = index(of: id)
        // git never packs an object twice; handing a commit on twice would be a bug downstream.
        guard firstParent[node] < 0 else { throw GitError.malformedPack("commit \(id.hex) appears twice") }
        firstParent[node] = Int32(parentIndexes.count)
        parentCount[node] = Int32(parents.count)
        for parent in parents { parentIndexes.append(Int32(index(of: parent))) }
    }

    /// Which commits `tip` reaches; throws when the tip or a reached parent is not in the pack.
    func reachable(from tip: ObjectID) throws -> ReachableCommits {
        guard let start = indexByID[tip], firstParent[Int(start)] >= 0 else {
            throw GitError.tipMissing(tip: tip.hex)
        }
        var reached = [Bool](repeating: false, count: firstParent.count)
        var stack = [Int(start)]
        reached[Int(start)] = true
        while let node = stack.popLast() {
            let first = Int(firstParent[node])
            for parent in parentIndexes[first..<first + Int(parentCount[node])].map(Int.init) where !reached[parent] {
                guard firstParent[parent] >= 0 else {
                    throw GitError.parentMissing(commit: id(of: node).hex, parent: id(of: parent).hex)
                }
                reached[parent] = true
                stack.append(parent)
            }
        }
        return ReachableCommits(indexByID: indexByID, reached: reached)
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
        return index
    }
}

/// The answer of `PackCommitGraph.reachable(from:)`.
struct ReachableCommits {
    fileprivate let indexByID: [ObjectID: Int32]
    fileprivate let reached: [Bool]

    var count: Int { reached.count(where: { $0 }) }

    func contains(_ id: ObjectID) -> Bool {
        indexByID[id].map { reached[Int($0)] } ?? false
    }
}
