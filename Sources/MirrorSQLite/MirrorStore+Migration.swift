import Foundation
import MirrorBookkeeping
import MirrorCore
import SQLite

extension MirrorStore {
    /// Brings the store's schema up to date without ever risking its data.
    ///
    /// A new file simply gets the schema. A store made by an older version is
    /// first copied beside itself (`commits.sqlite.backup-v1-20261121T120000Z`,
    /// SQLite's online backup, checked before it is named) while the very
    /// transaction that then applies every pending migration holds the write
    /// lock: no one can change the store in between, so the copy is exactly the
    /// state being upgraded. If the copy
    /// cannot be made nothing is upgraded; if a migration fails, everything is
    /// rolled back and the error names the copy. An SQLite file of another
    /// program (tables, but no `schema_migrations`) is refused, never extended.
    ///
    /// Returns the upgrade made, if any.
    static func upgrade(_ db: Connection, path: String, migrator: Migrator, now: Date = Date()) throws -> StoreUpgrade? {
        var from = 0
        var backup: String?
        do {
            let applied = try migrator.migrate(db) { version in
                from = version
                guard version > 0 else {
                    if try db.scalarInt("SELECT count(*) FROM sqlite_master") ?? 0 > 0 {
                        throw StoreError.foreignDatabase(path: path)
                    }
                    return
                }
                let target = backupPath(for: path, version: version, date: now)
                do {
                    // SQLite's backup cannot read through a connection that holds the write
                    // lock; a second connection reads the last commit, which (WAL: readers never
                    // wait for the writer, and this transaction has changed nothing yet) is
                    // exactly the state about to be upgraded.
                    let reader = try Connection(path: path, mode: .readOnly)
                    try StoreCopy.writeVerified(of: reader, to: target)
                } catch {
                    throw StoreError.backupFailed(path: path, backup: target, reason: StoreCopy.reason(error))
                }
                backup = target
            }
            guard !applied.isEmpty, let backup else { return nil }
            return StoreUpgrade(fromVersion: from, toVersion: migrator.latestVersion, backupPath: backup)
        } catch let error as StoreError {
            throw error
        } catch let error as Migrator.MigrationError {
            throw error
        } catch {
            // Before the copy (e.g. busy, or a new file on a full disk): the plain store error.
            guard let backup else {
                if let error = error as? SQLiteError { throw StoreFile.classify(error, path: path) }
                throw error
            }
            throw StoreError.migrationFailed(
                path: path, from: from, to: migrator.latestVersion,
                backup: backup, reason: StoreCopy.reason(error))
        }
    }

    /// `<store>.backup-v<version>-<UTC timestamp>`, beside the store; never an existing name.
    static func backupPath(for path: String, version: Int, date: Date) -> String {
        let stamp = ISO8601Timestamp.format(date).filter { $0 != "-" && $0 != ":" }
        let base = "\(path).backup-v\(version)-\(stamp)"
        var candidate = base
        var counter = 1
        while FileManager.default.fileExists(atPath: candidate) {
            counter += 1
            candidate = "\(base)-\(counter)"
        }
        return candidate
    }
}
