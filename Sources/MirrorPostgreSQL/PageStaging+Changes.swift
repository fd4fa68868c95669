import MirrorCore
import PostgreSQL

// A git batch's changed paths (`Commit.changes`), stored with the SQLite store's
// meaning (MirrorSQLite/MirrorStore+Changes.swift): a commit's changes once, the
// first time it comes with them, each path once in `paths`. Two statements per
// batch whatever its size, each column one binary array (BinaryArray), and none
// for a batch read without its trees.

extension PageStaging {
    /// Stores the changes of each commit read with them whose changes are not
    /// stored yet. Call in the transaction that stored the commits, after them.
    static func storeChanges(of commits: [Commit], on connection: PostgreSQLConnection) throws {
        let columns = ChangeColumns(commits)
        guard !columns.shas.isEmpty else { return }
        try connection.executePrepared(internPaths, arrays: [.text(columns.changeSHAs), .bytea(columns.paths)])
        try connection.executePrepared(insertChanges, arrays: columns.all)
    }

    /// The paths of changes to be stored that `paths` lacks, numbered in the order
    /// the batch first names them, as the SQLite store numbers them one by one.
    /// Its own statement, so that the next one's snapshot sees them.
    static let internPaths = """
        INSERT INTO paths (path)
        SELECT x.path FROM unnest($1::text[], $2::bytea[]) WITH ORDINALITY AS x(sha, path, ord)
        JOIN commits c ON c.sha = x.sha
        WHERE NOT EXISTS (SELECT 1 FROM commit_changes_read r WHERE r.commit_id = c.id)
            AND NOT EXISTS (SELECT 1 FROM paths p WHERE p.path = x.path)
        GROUP BY x.path ORDER BY min(x.ord)
        ON CONFLICT (path) DO NOTHING
        """

    /// Marks the commits' changes known; the rows of those not known before
    /// (`known`: the marks this statement made) go into `commit_changes`.
    static let insertChanges = """
        WITH known AS (
            INSERT INTO commit_changes_read (commit_id)
            SELECT c.id FROM unnest($1::text[]) AS s(sha) JOIN commits c ON c.sha = s.sha
            ON CONFLICT (commit_id) DO NOTHING
            RETURNING commit_id
        )
        INSERT INTO commit_changes (commit_id, parent, path_id, old_mode, old_object, new_mode, new_object)
        SELECT k.commit_id, x.parent, p.id, x.old_mode, x.old_object, x.new_mode, x.new_object
        FROM unnest($2::text[], $3::integer[], $4::bytea[], $5::integer[], $6::bytea[], $7::integer[], $8::bytea[])
            AS x(sha, parent, path, old_mode, old_object, new_mode, new_object)
        JOIN commits c ON c.sha = x.sha
        JOIN known k ON k.commit_id = c.id
        JOIN paths p ON p.path = x.path
        """

    /// The batch's changes as columns: each sha once, its first row read with changes.
    struct ChangeColumns {
        var shas: [String?] = []
        var changeSHAs: [String?] = []
        var parents: [Int32] = []
        var paths: [[UInt8]?] = []
        var oldModes: [Int32?] = []
        var oldObjects: [[UInt8]?] = []
        var newModes: [Int32?] = []
        var newObjects: [[UInt8]?] = []

        init(_ commits: [Commit]) {
            var seen: Set<String> = []
            for commit in commits {
                guard let changes = commit.changes else { continue }
                let sha = PageStaging.storable(commit.sha)
                guard seen.insert(sha).inserted else { continue }
                shas.append(sha)
                for change in changes {
                    changeSHAs.append(sha)
                    parents.append(Int32(change.parent))
                    paths.append(change.path)
                    oldModes.append(change.old.map { Int32(bitPattern: $0.mode) })
                    oldObjects.append(change.old.map(\.objectIDBytes))
                    newModes.append(change.new.map { Int32(bitPattern: $0.mode) })
                    newObjects.append(change.new.map(\.objectIDBytes))
                }
            }
        }

        /// `insertChanges`' parameters, in its order.
        var all: [BinaryArray] {
            [
                .text(shas), .text(changeSHAs), .integer(parents), .bytea(paths), .nullableInteger(oldModes),
                .bytea(oldObjects), .nullableInteger(newModes), .bytea(newObjects),
            ]
        }
    }
}
