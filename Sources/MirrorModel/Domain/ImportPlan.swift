import Foundation

/// The commits of an import split by whether their history is whole.
public struct ImportPlan: Sendable {
    /// Attachable commits, parents before children, each sha once.
    public var closed: [Commit]
    /// Commits with an ancestor that is neither in the import nor mirrored.
    public var open: [Commit]
    /// Those missing ancestors (parents referenced but absent), for messages.
    public var missingParents: Set<String>
}

extension ImportPlan {
    /// Orders `commits` for storing parents first and keeps out those whose
    /// history reaches a parent neither in the input nor already a member of the
    /// repository (`isStoredMember`): the store's one question, asked once per
    /// such parent. Each sha once (overlapping pages are normal); the last copy
    /// wins, as in a sync.
    public init(_ commits: [Commit], isStoredMember: (String) throws -> Bool) rethrows {
        var index: [String: Int] = [:]
        var unique: [Commit] = []
        for commit in commits {
            if let existing = index[commit.sha] {
                unique[existing] = commit
            } else {
                index[commit.sha] = unique.count
                unique.append(commit)
            }
        }
        var children: [Int: [Int]] = [:]  // parent index → child indices
        var pendingParents = [Int](repeating: 0, count: unique.count)
        var isOpen = [Bool](repeating: false, count: unique.count)
        var missing = Set<String>()
        var openQueue: [Int] = []
        for (child, commit) in unique.enumerated() {
            for parent in Set(commit.parents) {
                if let parentIndex = index[parent] {
                    children[parentIndex, default: []].append(child)
                    pendingParents[child] += 1
                } else if try !isStoredMember(parent) {
                    missing.insert(parent)
                    if !isOpen[child] {
                        isOpen[child] = true
                        openQueue.append(child)
                    }
                }
            }
        }
        // Descendants of an open commit are open.
        while let next = openQueue.popLast() {
            for child in children[next] ?? [] where !isOpen[child] {
                isOpen[child] = true
                openQueue.append(child)
            }
        }
        // Parents first (Kahn), oldest-listed first among ready commits.
        var ready = unique.indices.reversed().filter { pendingParents[$0] == 0 && !isOpen[$0] }
        var closed: [Commit] = []
        closed.reserveCapacity(unique.count)
        var cursor = 0
        while cursor < ready.count {
            let next = ready[cursor]
            cursor += 1
            closed.append(unique[next])
            for child in children[next] ?? [] where !isOpen[child] {
                pendingParents[child] -= 1
                if pendingParents[child] == 0 { ready.append(child) }
            }
        }
        self.init(closed: closed, open: unique.indices.filter { isOpen[$0] }.map { unique[$0] }, missingParents: missing)
    }
}
