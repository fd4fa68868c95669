import GitHash
import MirrorCore
import SQLite

/// The git pack's `PackCommitIndex`, kept in a private temporary SQLite
/// database (`Connection.Mode.scratch`), so what the index keeps in memory is
/// its page cache, whatever the history's size; the rest is on disk. A scratch
/// database of its own, whichever store the commits then go to.
///
/// Not `Sendable`: used on the thread that reads the pack.
package final class SQLitePackCommitIndex: PackCommitIndex {
    /// The scratch database's page cache: what the index may keep in memory.
    static let cacheBytes = 2 << 20
    private let db: Connection
    private var commits = 0
    private var trees = 0
    /// The most parents one commit has (an octopus merge may have dozens).
    private var mostParents = 0

    package init() throws {
        db = try Connection(path: "", mode: .scratch(cacheBytes: Self.cacheBytes))
        // Rows are appended in pack order; the name index is built once, sorted, after the last.
        try db.executeScript(
            """
            CREATE TABLE node(
                id INTEGER PRIMARY KEY,
                sha BLOB NOT NULL,
                offset INTEGER NOT NULL,
                -- The commit's tree, for the changes of the commits whose parent it is; null in a commits-only pack.
                tree BLOB,
                -- The distinct parents' names, 20 bytes each: one row a commit keeps the first pass fast.
                parents BLOB NOT NULL
            );
            -- A pack's trees, when it holds them; indexed by name once, after the last.
            CREATE TABLE tree(sha BLOB NOT NULL, offset INTEGER NOT NULL);
            BEGIN;
            """)
    }

    package func add(commit id: ObjectID, tree: ObjectID?, parents: [ObjectID], offset: Int) throws {
        // A hostile object may name thousands of parents, or one twice.
        var seen: Set<ObjectID> = []
        let distinct = parents.count < 2 ? parents : parents.filter { seen.insert($0).inserted }
        commits += 1
        mostParents = max(mostParents, distinct.count)
        // `id` is the pack position: `node.id` orders the commits as the pack does.
        let insert = try db.cachedStatement("INSERT INTO node(id, sha, offset, tree, parents) VALUES (?, ?, ?, ?, ?)")
        try insert.bind(.integer(Int64(commits)), at: 1)
        try insert.bind(.blob(id.digest), at: 2)
        try insert.bind(.integer(Int64(offset)), at: 3)
        try insert.bind(tree.map { .blob($0.digest) } ?? .null, at: 4)
        try insert.bind(.blob(distinct.flatMap(\.digest)), at: 5)
        try insert.run()
    }

    package var treeCount: Int { trees }

    package func add(tree id: ObjectID, offset: Int) throws {
        trees += 1
        let insert = try db.cachedStatement("INSERT INTO tree(sha, offset) VALUES (?, ?)")
        try insert.bind(.blob(id.digest), at: 1)
        try insert.bind(.integer(Int64(offset)), at: 2)
        try insert.run()
    }

    package func tree(ofCommit id: ObjectID) throws -> ObjectID? {
        let select = try db.cachedStatement("SELECT tree FROM node WHERE sha = ? AND tree IS NOT NULL")
        return try select.bind([SQLiteValue.blob(id.digest)]).first { Self.objectID($0, 0) }
    }

    package func offset(ofTree id: ObjectID) throws -> Int? {
        let select = try db.cachedStatement("SELECT offset FROM tree WHERE sha = ?")
        return try select.bind([SQLiteValue.blob(id.digest)]).first { $0.int(0) }
    }

    package func forEachCommit(
        reachedFrom tips: [ObjectID], parentsFirst body: (_ offset: Int, _ id: ObjectID) throws -> Void
    ) throws -> Int {
        try link()
        let reached = try reach(from: tips)
        let order: Statement
        if try db.scalarInt("SELECT EXISTS (SELECT 1 FROM link WHERE parent > 0 AND parent <= child)") == 0 {
            // Every commit is before its parents in the pack, as git writes them
            // (newest first): the pack read backwards is parents first.
            order = try db.prepare("SELECT n.offset, n.sha FROM reached r JOIN node n ON n.id = r.node ORDER BY r.node DESC")
        } else {
            try orderParentsFirst(reached: reached)
            order = try db.prepare("SELECT n.offset, n.sha FROM ordered o JOIN node n ON n.id = o.node ORDER BY o.seq")
        }
        try order.forEachRow { row in try body(row.int(0), Self.objectID(row, 1)) }
        return reached
    }

    /// Parent names resolved to nodes, once: `link.parent` is 0 for a parent the pack lacks.
    private func link() throws {
        try db.execute("COMMIT")
        do {
            try db.execute("CREATE UNIQUE INDEX node_sha ON node(sha)")
        } catch let error as SQLiteError where error.code.primary == .SQLITE_CONSTRAINT {
            let twice = try db.prepare("SELECT sha FROM node GROUP BY sha HAVING count(*) > 1 LIMIT 1").first { Self.objectID($0, 0) }
            throw GitError.malformedPack("commit \(twice?.hex ?? "?") appears twice")
        }
        // The same tree twice in a pack is harmless: either copy has the one content its name allows.
        if trees > 0 { try db.execute("CREATE INDEX tree_sha ON tree(sha)") }
        try db.executeScript(
            """
            CREATE TABLE ordinal(i INTEGER PRIMARY KEY);
            CREATE TABLE link(child INTEGER NOT NULL, parent INTEGER NOT NULL, PRIMARY KEY (child, parent)) WITHOUT ROWID;
            """)
        try db.execute(
            "INSERT INTO ordinal(i) WITH RECURSIVE s(i) AS (VALUES (0) UNION ALL SELECT i + 1 FROM s WHERE i + 1 < ?) SELECT i FROM s",
            [max(mostParents, 1)])
        try db.execute(
            """
            INSERT OR IGNORE INTO link(child, parent)
                SELECT n.id, coalesce(p.id, 0) FROM node n JOIN ordinal o ON o.i < length(n.parents) / 20
                LEFT JOIN node p ON p.sha = substr(n.parents, 1 + 20 * o.i, 20)
            """)
    }

    /// Marks the commits the tips reach; returns how many. Throws when a
    /// tip, or a parent of a reached commit, is not in the pack.
    private func reach(from tips: [ObjectID]) throws -> Int {
        try db.execute("CREATE TABLE tip(node INTEGER PRIMARY KEY)")
        for tip in tips {
            guard let start = try db.scalarInt("SELECT id FROM node WHERE sha = ?", [SQLiteValue.blob(tip.digest)]) else {
                throw GitError.tipMissing(tip: tip.hex)
            }
            try db.execute("INSERT OR IGNORE INTO tip(node) VALUES (?)", [start])
        }
        try db.execute("CREATE TABLE reached(node INTEGER PRIMARY KEY)")
        try db.execute(
            """
            INSERT INTO reached(node)
                WITH RECURSIVE r(node) AS (SELECT node FROM tip UNION SELECT l.parent FROM r JOIN link l ON l.child = r.node)
                SELECT node FROM r
            """)
        if try db.scalarInt("SELECT EXISTS (SELECT 1 FROM reached WHERE node = 0)") == 1 {
            // Only now are the names looked up again, to say which.
            let missing = try db.prepare(
                """
                SELECT c.sha, substr(c.parents, 1 + 20 * o.i, 20) AS parent
                FROM reached r JOIN node c ON c.id = r.node JOIN ordinal o ON o.i < length(c.parents) / 20
                WHERE NOT EXISTS (SELECT 1 FROM node p WHERE p.sha = parent) LIMIT 1
                """
            ).first { (Self.objectID($0, 0), Self.objectID($0, 1)) }
            throw GitError.parentMissing(commit: missing?.0.hex ?? "?", parent: missing?.1.hex ?? "?")
        }
        return try db.scalarInt("SELECT count(*) FROM reached") ?? 0
    }

    /// Kahn's algorithm over the reached commits, for a pack whose order is
    /// not already children first: each commit joins `ordered` once the last
    /// of its parents has. A commit left out is its own ancestor.
    private func orderParentsFirst(reached: Int) throws {
        try db.executeScript(
            """
            CREATE INDEX link_parent ON link(parent);
            CREATE TABLE ordered(seq INTEGER PRIMARY KEY, node INTEGER NOT NULL);
            -- Per reached commit: its parents not yet ordered.
            CREATE TABLE waiting(node INTEGER PRIMARY KEY, parents INTEGER NOT NULL);
            BEGIN;
            INSERT INTO waiting(node, parents) SELECT r.node, length(n.parents) / 20 FROM reached r JOIN node n ON n.id = r.node;
            INSERT INTO ordered(node) SELECT node FROM waiting WHERE parents = 0;
            """)
        let next = try db.prepare("SELECT node FROM ordered WHERE seq = ?")
        let release = try db.prepare(
            """
            UPDATE waiting SET parents = parents - 1
            WHERE node IN (SELECT child FROM link WHERE parent = ?)
            RETURNING node, parents
            """)
        let append = try db.prepare("INSERT INTO ordered(node) VALUES (?)")
        var seq = 1
        var ready: [Int] = []
        while let node = try next.bind([seq]).first({ $0.int(0) }) {
            ready.removeAll(keepingCapacity: true)
            try release.bind([node]).forEachRow { row in
                if row.int(1) == 0 { ready.append(row.int(0)) }
            }
            for child in ready { try append.bind([child]).run() }
            seq += 1
        }
        try db.execute("COMMIT")
        guard seq - 1 == reached else {
            let stuck = try db.prepare("SELECT n.sha FROM waiting w JOIN node n ON n.id = w.node WHERE w.parents > 0 LIMIT 1")
                .first { Self.objectID($0, 0) }
            throw GitError.malformedPack("the history has a cycle through or below commit \(stuck?.hex ?? "?")")
        }
    }

    private static func objectID(_ row: Statement, _ column: Int) -> ObjectID {
        guard case .blob(let bytes) = row.value(column), bytes.count == 20 else {
            preconditionFailure("the index stores 20-byte names only")
        }
        return ObjectID(digest: bytes)
    }
}

extension PackCommitIndexes {
    /// Makes the git pack's indexes scratch SQLite databases; executables call this first thing.
    public static func registerSQLite() {
        register { try SQLitePackCommitIndex() }
    }
}
