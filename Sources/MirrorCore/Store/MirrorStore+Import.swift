import Foundation
import SQLite

/// Seeding a repository from saved API responses (an import).
///
/// The sync engine stops a walk as soon as every parent of what it fetched is
/// stored, which is exact only if every stored commit's history is stored too
/// (or still owed by an unfinished walk). Imported commits carry no such
/// promise, so an import attaches to the repository only commits whose whole
/// history is present — in the import or already mirrored — and stores them
/// parents first, so even an interrupted import leaves a closed history. It
/// never touches sync state: nothing is marked complete, and the next sync
/// proves completeness the usual way (cheaply: its walk stops at the first
/// page whose parents are all stored).
extension MirrorStore {
    /// Splits `commits` into those whose history is closed and the rest.
    public func planImport(_ commits: [Commit], repositoryID: Int64) throws -> ImportPlan {
        // Each sha once (overlapping pages are normal); the last copy wins, as in a sync.
        var index: [String: Int] = [:]
        var unique: [Commit] = []
        for commit in commits {
            let sha = commit.sha
            if let existing = index[sha] {
                unique[existing] = commit
            } else {
                index[sha] = unique.count
                unique.append(commit)
            }
        }
        let isMember = try db.cachedStatement(
            """
            SELECT 1 FROM commits c JOIN repository_commits rc ON rc.commit_id = c.id
            WHERE c.sha = ? AND rc.repository_id = ?
            """)
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
                } else if try isMember.bind([parent, repositoryID]).first({ _ in true }) == nil {
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
        let open = unique.indices.filter { isOpen[$0] }.map { unique[$0] }
        return ImportPlan(closed: closed, open: open, missingParents: missing)
    }

    /// Upserts one batch of commits into the repository in one transaction,
    /// through the same path a synced page takes. Sync state is not touched.
    public func importBatch(_ commits: [Commit], repositoryID: Int64) throws -> PageOutcome {
        try write { try upsert(commits, repositoryID: repositoryID) }
    }
}
